//! The single-pass steps' state (s07 on): a ticket counter that hands out tiles in the
//! order blocks start, and one status word per tile through which a tile tells those after
//! it what it knows. Shapes and the word's layout: `common::scan::status`.

use crate::device::atomic::{atomic_add_relaxed_u64, load_relaxed_u64, store_relaxed_u64};
use crate::device::clock::nanosleep;
use crate::device::index::{block_idx, grid_dim, thread_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use common::scan::status;

/// A block's tile and the launch it belongs to.
#[derive(Clone, Copy)]
pub struct Claim {
    pub tile: u32,
    /// 1 for the state's first launch, then 2, 3…: what a status word written in this launch
    /// carries, so that words left by earlier launches read as not written.
    pub epoch: u32,
}

/// Takes the next ticket (`atom.add.u64` on `state[0]`): its tile is `ticket mod tiles`,
/// its epoch `ticket / tiles + 1`. Tickets go out in the order blocks reach this line, so a
/// block that waits for the tiles before its own waits only for blocks that already run:
/// a tile from `blockIdx` could wait for a block the GPU has not started, and would wait
/// forever once the waiting blocks filled every SM.
///
/// `jitter` (test-only, 0 in benchmarks): first sleep up to `jitter` ns, a different time
/// per block, so that blocks claim their tiles in a shuffled order.
///
/// # Safety
/// One thread per block, once; the grid has one block per tile; `state` holds
/// `state_words(grid_dim())` words, all launches on it having this grid size.
#[inline(always)]
pub unsafe fn claim_tile(state: *mut u64, jitter: u32) -> Claim {
    // SAFETY: forwarded; a launch takes one ticket per block.
    unsafe { claim_of(state, u64::from(grid_dim()), jitter) }
}

/// Takes the next ticket of a launch that takes `per_launch` of them: its place in the launch,
/// `ticket mod per_launch`, as the tile (s12's launches take more tickets than they have
/// tiles: a tile past the last means none), its epoch `ticket / per_launch + 1`.
///
/// # Safety
/// `state` as in [`claim_tile`]; every launch on it takes exactly `per_launch` tickets.
#[inline(always)]
pub unsafe fn claim_of(state: *mut u64, per_launch: u64, jitter: u32) -> Claim {
    pause(jitter, 0);
    // SAFETY: the caller passes the state; word 0 is the counter.
    let ticket = unsafe { atomic_add_relaxed_u64(state, 1) };
    Claim { tile: (ticket % per_launch) as u32, epoch: status::epoch(ticket, per_launch) }
}

/// The block's claim, for every thread: thread 0 takes the ticket ([`claim_tile`]) and hands
/// it to the others through `words[0..2]`, across a barrier.
///
/// # Safety
/// Called once by every thread of the block; `words` holds at least two words no one else
/// uses meanwhile; `state` as in [`claim_tile`].
#[inline(always)]
pub unsafe fn claim_for_block(words: SharedArray<u32>, state: *mut u64, jitter: u32) -> Claim {
    if thread_idx() == 0 {
        // SAFETY: thread 0, once; the state as the caller promises.
        let claim = unsafe { claim_tile(state, jitter) };
        // SAFETY: words 0 and 1, the caller's.
        unsafe { (words.store(0, claim.tile), words.store(1, claim.epoch)) };
    }
    sync_threads();
    // SAFETY: written before the barrier.
    unsafe { Claim { tile: words.load(0), epoch: words.load(1) } }
}

/// Tile `tile`'s status word in `state`.
#[inline(always)]
fn word(state: *mut u64, tile: u32) -> *mut u64 {
    state.wrapping_add(1 + tile as usize)
}

/// Publishes `value` of `kind` as `claim`'s tile's status (`st.relaxed.gpu.u64`: the whole
/// word at once, so a reader sees the kind and the value together, and needs no fence).
///
/// # Safety
/// `state` as in [`claim_tile`].
#[inline(always)]
pub unsafe fn publish(state: *mut u64, claim: Claim, kind: u32, value: u32) {
    // SAFETY: the tile's word lies inside the state.
    unsafe { store_relaxed_u64(word(state, claim.tile), status::word(claim.epoch, kind, value)) }
}

/// Tile `tile`'s status word as it is now (`ld.relaxed.gpu.u64`: from L2, never a stale L1
/// copy).
///
/// # Safety
/// `state` as in [`claim_tile`]; `tile < grid_dim()`.
#[inline(always)]
pub unsafe fn read(state: *mut u64, tile: u32) -> u64 {
    // SAFETY: the tile's word lies inside the state.
    unsafe { load_relaxed_u64(word(state, tile)) }
}

/// The test-only jitter: sleeps `0..jitter` ns, a pseudo-random time per block and `salt`.
#[inline(always)]
pub fn pause(jitter: u32, salt: u32) {
    if jitter != 0 {
        let h = (block_idx() ^ salt.wrapping_mul(0x9E37_79B9)).wrapping_mul(0x85EB_CA6B);
        nanosleep((h ^ (h >> 15)) % jitter);
    }
}
