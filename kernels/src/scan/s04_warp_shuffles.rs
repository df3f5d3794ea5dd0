//! Step s04 — warps scan in registers with `shfl.sync.up`; two barriers per tile.
//!
//! Idea: the lanes of a warp read each other's registers: Hillis and Steele's rounds run in the
//!       warp with shuffles ([`warp_inclusive_scan`], 5 rounds, no barrier). The block scan
//!       ([`block_exclusive_scan`]) is then: each warp scans, its last lane writes the warp's
//!       total, warp 0 scans the 16 totals, each warp adds those before it. One element per
//!       thread (512 threads), as in s01.
//! Changes from s03: the tile scan: shuffles, 16 words of shared memory and two barriers
//!       instead of a tree of 18 rounds; tile, totals and propagation are s01's.
//! Bottleneck: memory: scan-then-propagate moves the data twice, in 4-byte loads.
//! Cost: 128 B of static shared memory.
//! Result: 1273 GB/s (6.75 ms) at n = 2^30 i32, 30 % of a copy, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s04

use super::Element;
use crate::device::index::{ALL_LANES, WARP_SIZE, block_dim, block_idx, lane_idx, thread_idx, warp_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::device::warp::shuffle_up_u32;
use crate::scan_entry_points;
use crate::static_shared;
use common::scan::s04::{THREADS, TILE};

/// The most warps a block of this ladder has (1024 threads).
const MAX_WARPS: u32 = 32;

static_shared! {
    /// Each warp's total, then (after warp 0 scans them) each warp's inclusive prefix.
    fn scan_warp_totals() -> [u32; MAX_WARPS as usize];
}

/// The inclusive scan of the 32 lanes' `value`s: in round `r` each lane adds the value
/// `2^r` lanes below it (`shfl.sync.up`), lanes below `2^r` keep theirs.
///
/// Must be called by all 32 lanes of the warp.
#[inline(always)]
pub fn warp_inclusive_scan<E: Element>(mut value: E) -> E {
    let lane = lane_idx();
    let mut delta = 1;
    while delta < WARP_SIZE {
        let below = E::from_bits(shuffle_up_u32(ALL_LANES, value.to_bits(), delta));
        if lane >= delta {
            value = below.add(value);
        }
        delta *= 2;
    }
    value
}

/// The block's exclusive scan of one `value` per thread: the sum of the values of the
/// threads before this one, and the block's total (to every thread).
///
/// # Safety
/// Called by every thread of a block of at most 1024 threads, a multiple of 32; a second
/// call in the same kernel needs a barrier before it (the totals are reused).
#[inline(always)]
pub unsafe fn block_exclusive_scan<E: Element>(value: E) -> (E, E) {
    let totals: SharedArray<u32> = scan_warp_totals();
    let (lane, warp) = (lane_idx(), warp_idx());
    let warps = block_dim() / WARP_SIZE;
    let inclusive = warp_inclusive_scan(value);
    if lane == WARP_SIZE - 1 {
        // SAFETY: warp < warps <= MAX_WARPS.
        unsafe { totals.store(warp, inclusive.to_bits()) };
    }
    sync_threads();
    if warp == 0 {
        // SAFETY: lane < warps <= MAX_WARPS; the barrier published the totals; lane `l` reads
        // and then writes word `l` alone.
        unsafe {
            let total = if lane < warps { E::from_bits(totals.load(lane)) } else { E::ZERO };
            let scanned = warp_inclusive_scan(total);
            if lane < warps {
                totals.store(lane, scanned.to_bits());
            }
        }
    }
    sync_threads();
    // The lane before's inclusive sum is this lane's exclusive one within the warp.
    let below = E::from_bits(shuffle_up_u32(ALL_LANES, inclusive.to_bits(), 1));
    // SAFETY: warp - 1 and warps - 1 are below MAX_WARPS; the barrier published warp 0's scan.
    let (before_warp, block_total) = unsafe {
        let before = if warp == 0 { E::ZERO } else { E::from_bits(totals.load(warp - 1)) };
        (before, E::from_bits(totals.load(warps - 1)))
    };
    let exclusive = if lane == 0 { before_warp } else { before_warp.add(below) };
    (exclusive, block_total)
}

/// Scans the tile `block_idx()` of `input[0..n]` into `output` (inclusive, or exclusive
/// when `exclusive != 0`) and writes the tile's total to `sums[block_idx()]`.
///
/// # Safety
/// Launched with `THREADS` threads per block and one block per `TILE` elements (at least
/// one); `input` and `output` hold `n` elements (they may be the same buffer), `sums` one
/// per block.
unsafe fn warp_shuffles<E: Element>(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32) {
    let tile = block_idx() as usize;
    let i = tile * TILE as usize + thread_idx() as usize;
    // SAFETY: i < n is inside the input.
    let x = if i < n { E::from_bits(unsafe { *input.add(i) }) } else { E::ZERO };
    // SAFETY: every thread of the block, once.
    let (before, total) = unsafe { block_exclusive_scan(x) };
    if i < n {
        let value = if exclusive != 0 { before } else { before.add(x) };
        // SAFETY: i < n, this thread's own element, read above.
        unsafe { *output.add(i) = value.to_bits() };
    }
    if thread_idx() == 0 {
        // SAFETY: one word per block.
        unsafe { *sums.add(tile) = total.to_bits() };
    }
}

scan_entry_points!(threads = THREADS;
    warp_shuffles(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32)
    => s04_warp_shuffles_i32, s04_warp_shuffles_f32);
