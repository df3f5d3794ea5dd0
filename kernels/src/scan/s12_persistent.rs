//! Step s12 — persistent blocks, each with a ring of bulk copies in flight while it scans.
//!
//! Idea: an s11 block moves bytes only while its one copy is in flight, and then a new block
//!       starts from nothing. Here the grid is what the GPU holds at once; each block runs
//!       until the tiles run out with a ring of `STAGES` tiles: while it scans one, the copies
//!       of the next are in flight, and a stored stage is refilled at once, with the tile of a
//!       ticket taken one tile earlier (its atomic's round trip over by then).
//! Changes from s11: the loop and the [`Ring`] (each stage's tile, claim, mbarrier, phase);
//!       tickets that say when the tiles are gone ([`Claim::of_ticket`]); no L2 prefetch (the
//!       ring loads ahead). A tile's scan, look-back and stores are s11's.
//! Bottleneck: not measured yet.
//! Cost: 96 KiB of shared memory per block (two blocks per SM); sm_90 (`cp.async.bulk`).
//! Result: not measured.
//!
//! Every launch hands out `tickets_per_launch(tiles, blocks)` tickets: one per tile, and one
//! more per block, the ticket past the tiles that tells it to stop. A block processes its
//! tiles in ticket order, so the smallest tile without a published prefix always belongs to
//! a running block whose earlier tiles are done: its look-back closes, and no launch waits
//! for a block the GPU has not started.
//!
//! More: docs/lessons.md#s12

use super::Element;
use super::s04_warp_shuffles::block_exclusive_scan;
use super::s07_chained::tile_prefix;
use super::s09_warp_lookback::WarpWindow;
use super::s11_bulk_copy::{copy_partial_tile, scan_rows, store_rows};
use super::state::{self, Claim};
use crate::device::index::{WARP_SIZE, grid_dim, lane_idx, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::sync_threads;
use crate::device::tma::{
    copy_bulk, fence_barrier_init, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait,
};
use crate::scan_entry_points;
use crate::static_shared;
use common::scan::s12::{STAGES, THREADS, TILE};
use common::scan::status::tickets_per_launch;

static_shared! {
    /// Each stage's claim (tile, epoch), then the sum of every tile before the one scanned.
    fn ring_words() -> [u32; 2 * STAGES as usize + 1];
}

/// The word of `ring_words` through which warp 0 hands out a tile's prefix.
const PREFIX_WORD: u32 = 2 * STAGES;

/// A block's stages: `STAGES` tiles of dynamic shared memory, then an mbarrier per stage; and
/// each stage's claim in `ring_words`.
#[derive(Clone, Copy)]
struct Ring {
    shared: SharedArray<u32>,
    words: SharedArray<u32>,
}

impl Ring {
    fn new() -> Self {
        Ring { shared: dynamic_shared(), words: ring_words() }
    }

    /// Stage `stage`'s tile.
    fn tile(self, stage: u32) -> SharedArray<u32> {
        self.shared.offset(stage * TILE)
    }

    /// Stage `stage`'s mbarrier (8-byte aligned: the tiles are 32 KiB each).
    fn barrier(self, stage: u32) -> u32 {
        self.shared.address(STAGES * TILE + 2 * stage)
    }

    /// The claim stage `stage` holds.
    ///
    /// # Safety
    /// Written by [`Ring::fill`] before a barrier that every thread passed since.
    unsafe fn claim(self, stage: u32) -> Claim {
        // SAFETY: words of this ring, as the caller promises.
        unsafe { Claim { tile: self.words.load(2 * stage), epoch: self.words.load(2 * stage + 1) } }
    }

    /// Thread 0 gives stage `stage` to `claim` and starts the copy of its tile when the tile is
    /// whole (the last, partial one the block copies itself); otherwise it arrives on the
    /// stage's barrier itself, so that every fill completes one phase of it.
    ///
    /// # Safety
    /// Thread 0 alone, after a barrier that every thread passed since it last read the stage;
    /// the barriers initialized; `input` 16-byte aligned and holding `n` elements.
    unsafe fn fill(self, stage: u32, claim: Claim, tiles: u32, input: *const u32, n: usize) {
        let bar = self.barrier(stage);
        // SAFETY: the stage's words and barrier are free, as the caller promises.
        unsafe { (self.words.store(2 * stage, claim.tile), self.words.store(2 * stage + 1, claim.epoch)) };
        let start = claim.tile as usize * TILE as usize;
        if claim.tile < tiles && start + TILE as usize <= n {
            // SAFETY: a whole tile of the input, 16-byte aligned, into the free stage, which
            // the barrier expects the bytes of.
            unsafe {
                mbarrier_arrive_expect_tx(bar, TILE * 4);
                copy_bulk(self.tile(stage).address(0), input.add(start) as *const u8, TILE * 4, bar);
            }
        } else {
            // SAFETY: the barrier is initialized.
            unsafe { mbarrier_arrive(bar) };
        }
    }
}

/// Thread 0's next claim: a new ticket's, unless the last one was already past the tiles.
///
/// # Safety
/// Thread 0 alone; `state` as the kernel's.
#[inline(always)]
unsafe fn next_claim(state: *mut u64, last: Claim, tiles: u32, per_launch: u64, jitter: u32, salt: u32) -> Claim {
    if last.tile >= tiles {
        return last;
    }
    state::pause(jitter, salt);
    // SAFETY: the state as the caller promises.
    Claim::of_ticket(unsafe { state::take_ticket(state) }, per_launch)
}

/// The scan over `input[0..n]` into `output` by persistent blocks, each tile through a stage
/// of the block's ring.
///
/// # Safety
/// Launched with `THREADS` threads per block, `SHARED_BYTES` of dynamic shared memory and at
/// most as many blocks as tiles (`n / TILE` rounded up, at least one), all of which the GPU
/// can hold at once; `input` and `output` are 16-byte aligned and hold `n` elements (they may
/// be the same buffer); `state` holds `state_words(tiles)` words, zeroed before its first
/// launch, never used by two launches at once, and every launch on it has this grid.
unsafe fn persistent<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    let ring = Ring::new();
    let tiles = n.div_ceil(TILE as usize).max(1) as u32;
    let per_launch = tickets_per_launch(u64::from(tiles), u64::from(grid_dim()));
    // Thread 0's claim for the next refill, taken one tile ahead (a claim past the tiles
    // stands for "none": the block takes no ticket after it).
    let mut next = Claim { tile: tiles, epoch: 0 };
    if thread_idx() == 0 {
        for stage in 0..STAGES {
            // SAFETY: thread 0 alone, before any use; the barriers are this block's.
            unsafe { mbarrier_init(ring.barrier(stage), 1) };
        }
        fence_barrier_init();
        // Not past the tiles: the first call takes a ticket.
        let mut last = Claim { tile: 0, epoch: 0 };
        for stage in 0..STAGES {
            // SAFETY: thread 0; the state as the caller promises.
            last = unsafe { next_claim(state, last, tiles, per_launch, jitter, stage) };
            // SAFETY: thread 0; no thread has read the ring yet; the barriers initialized.
            unsafe { ring.fill(stage, last, tiles, input, n) };
        }
        // SAFETY: thread 0; the state as the caller promises.
        next = unsafe { next_claim(state, last, tiles, per_launch, jitter, STAGES) };
    }
    sync_threads();
    let mut taken = 0u32;
    loop {
        let stage = taken % STAGES;
        // SAFETY: filled before the barrier that ended the previous round (or the prologue's).
        let claim = unsafe { ring.claim(stage) };
        if claim.tile >= tiles {
            break;
        }
        let tile_words = ring.tile(stage);
        let start = claim.tile as usize * TILE as usize;
        if start + TILE as usize <= n {
            // SAFETY: the barrier was initialized before the prologue's block barrier; this
            // is the stage's (taken / STAGES)-th phase.
            unsafe { mbarrier_wait(ring.barrier(stage), (taken / STAGES) % 2) };
        } else {
            // SAFETY: every thread; the stage is the block's.
            unsafe { copy_partial_tile::<E>(tile_words, input, n, start) };
        }
        // SAFETY: the tile has landed.
        let (before_lane, carry) = unsafe { scan_rows::<E>(tile_words) };
        let warp_total = if lane_idx() == WARP_SIZE - 1 { carry } else { E::ZERO };
        // SAFETY: every thread, once this round (the round's barriers separate the calls).
        let (before_warp, aggregate) = unsafe { block_exclusive_scan(warp_total) };
        // SAFETY: every thread, once this round; the ring's prefix word; the state as the
        // caller promises.
        let before_tile =
            unsafe { tile_prefix::<E, WarpWindow>(state, claim, aggregate, jitter, ring.words, PREFIX_WORD) };
        // SAFETY: the tile as above; the output's tile is this block's.
        unsafe { store_rows(tile_words, output, n, start, before_tile.add(before_warp), &before_lane, exclusive) };
        // Every thread is done with the stage: refill it.
        sync_threads();
        if thread_idx() == 0 {
            // SAFETY: thread 0, after the barrier; the barriers initialized.
            unsafe { ring.fill(stage, next, tiles, input, n) };
            // SAFETY: thread 0; the state as the caller promises.
            next = unsafe { next_claim(state, next, tiles, per_launch, jitter, taken + STAGES + 1) };
        }
        taken += 1;
    }
}

scan_entry_points!(threads = THREADS;
    persistent(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s12_persistent_i32, s12_persistent_f32);
