//! Step s07 — one pass: each tile waits for the inclusive prefix of the tile before it.
//!
//! Idea: read once, write once, like a copy: block k scans its tile, waits until tile k − 1 has
//!       published the sum of everything up to its end, adds its own total and publishes that.
//!       A tile's status is one 64-bit word (value and flag, written and read whole), and a
//!       block takes its tile from a ticket counter, not `blockIdx`, so it only ever waits for
//!       blocks that have started (`state::claim_tile`).
//! Changes from s06: one kernel, one pass: the skeleton [`single_pass`] (claim, load, block
//!       scan, learn the prefix as [`Chained`] says, publish, store).
//! Bottleneck: the chain: tiles finish one at a time, each an L2 round trip after the last.
//! Cost: one ticket and one 8-byte status word per tile; s05's registers.
//! Result: 167 GB/s (51.4 ms) at n = 2^30 i32: the tiles in single file, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s07

use super::s04_warp_shuffles::block_exclusive_scan;
use super::state::{self, Claim};
use super::{Element, tile};
use crate::device::index::{block_dim, lane_idx, thread_idx, warp_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::scan_entry_points;
use crate::static_shared;
use common::scan::s07::{ITEMS, THREADS};
use common::scan::status::{self, PREFIX};

/// How a tile learns the sum of every tile before it (s07 waits in line, s08 and s09 look
/// back).
pub trait LookBack {
    /// The sum of every element before tile `claim.tile` (> 0), whose own total is
    /// `aggregate`; returned to lane 0 (other lanes get an unspecified value).
    ///
    /// # Safety
    /// Called by all 32 lanes of warp 0, once per block; `state` as in
    /// [`state::claim_tile`].
    unsafe fn prefix_before<E: Element>(state: *mut u64, claim: Claim, aggregate: E, jitter: u32) -> E;
}

/// s07's way: wait for the previous tile's inclusive prefix.
pub struct Chained;

impl LookBack for Chained {
    #[inline(always)]
    unsafe fn prefix_before<E: Element>(state: *mut u64, claim: Claim, _: E, _: u32) -> E {
        if lane_idx() != 0 {
            return E::ZERO;
        }
        loop {
            // SAFETY: claim.tile - 1 is a tile of this grid.
            let word = unsafe { state::read(state, claim.tile - 1) };
            if status::kind(word, claim.epoch) == PREFIX {
                return E::from_bits(status::value(word));
            }
        }
    }
}

/// The sum of every tile before `claim.tile`, to every thread of the block: warp 0 learns it
/// as `L` says (zero for tile 0), publishes the tile's inclusive prefix (that sum plus the
/// tile's `aggregate`) and hands the sum to the others through `words[slot]`, across a
/// barrier.
///
/// # Safety
/// Called by every thread of the block, once per tile; `words[slot]` is no one else's
/// meanwhile; `state` as in [`state::claim_tile`].
#[inline(always)]
pub unsafe fn tile_prefix<E: Element, L: LookBack>(
    state: *mut u64,
    claim: Claim,
    aggregate: E,
    jitter: u32,
    words: SharedArray<u32>,
    slot: u32,
) -> E {
    if warp_idx() == 0 {
        let before_tile = if claim.tile == 0 {
            E::ZERO
        } else {
            state::pause(jitter, 1);
            // SAFETY: all of warp 0, once; the state as the caller promises.
            unsafe { L::prefix_before(state, claim, aggregate, jitter) }
        };
        if lane_idx() == 0 {
            // SAFETY: the state as the caller promises; the slot is the caller's.
            unsafe {
                state::publish(state, claim, PREFIX, before_tile.add(aggregate).to_bits());
                words.store(slot, before_tile.to_bits());
            }
        }
    }
    sync_threads();
    // SAFETY: written before the barrier.
    E::from_bits(unsafe { words.load(slot) })
}

static_shared! {
    /// The block's claim (tile, epoch), then the sum of every tile before it: from the
    /// thread that learns them to the others.
    fn single_pass_words() -> [u32; 3];
}

/// One pass of the scan over `input[0..n]` into `output`, each tile learning its prefix
/// as `L` says; from s10 on, each block also asks L2 for the tile `AHEAD` tiles past its
/// own (0: no prefetch).
///
/// # Safety
/// Launched with a power of two of 64 to `THREADS` threads per block and one block per
/// `block_dim() * ITEMS` elements (at least one); `input` and `output` are 16-byte aligned and hold `n` elements (they may be the
/// same buffer); `state` holds `state_words(grid)` words, zeroed before the state's first
/// launch, never used by two launches at once, and every launch on it has this grid.
#[inline(always)]
pub unsafe fn single_pass<E: Element, L: LookBack, const AHEAD: u32>(
    input: *const u32,
    output: *mut u32,
    n: usize,
    state: *mut u64,
    exclusive: u32,
    jitter: u32,
) {
    let words: SharedArray<u32> = single_pass_words();
    // SAFETY: every thread, once; words 0 and 1 of three; the state as the caller promises.
    let claim = unsafe { state::claim_for_block(words, state, jitter) };
    // The tile is the block's: `block_dim()` threads of ITEMS elements (the host may launch
    // fewer than THREADS threads: more, smaller tiles).
    let tile = (block_dim() * ITEMS) as usize;
    let first = claim.tile as usize * tile + (thread_idx() * ITEMS) as usize;
    if AHEAD > 0 {
        // SAFETY: the addresses prefetched lie below n.
        unsafe { tile::prefetch(input, n, (claim.tile + AHEAD) as usize * tile, tile) };
    }
    // SAFETY: `first` is a multiple of 4; the elements are this thread's alone.
    let items = unsafe { tile::load::<E>(input, n, first) };
    // SAFETY: every thread of the block, once.
    let (before_thread, aggregate) = unsafe { block_exclusive_scan(tile::sum(&items)) };
    // SAFETY: every thread, once; word 2 of three; the state as the caller promises.
    let before = unsafe { tile_prefix::<E, L>(state, claim, aggregate, jitter, words, 2) }.add(before_thread);
    // SAFETY: as the load.
    unsafe { tile::store(output, n, first, &tile::scan(&items, before, exclusive != 0)) };
}

/// s07's kernel.
///
/// # Safety
/// As [`single_pass`].
unsafe fn chained<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    // SAFETY: forwarded.
    unsafe { single_pass::<E, Chained, 0>(input, output, n, state, exclusive, jitter) }
}

scan_entry_points!(threads = THREADS;
    chained(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s07_chained_i32, s07_chained_f32);

