//! Step s01 — Hillis and Steele's scan of a tile in shared memory.
//!
//! Idea: a block scans its 512-element tile, one element per thread, in 9 rounds: in round r
//!       every element adds the one 2^r places before it (two buffers, a barrier per round).
//!       The tiles' totals go to `sums`; the host scans those with the same kernel (exclusive,
//!       in place) and `support::scan_add_offsets` adds each tile's offset: scan-then-propagate.
//! Bottleneck: work and barriers: 9 adds per element and 9 barriers per tile; then the
//!       propagation reads and writes the data again (4n words of traffic; a copy moves 2n).
//! Cost: 4 KiB of shared memory per block; two launches per level of recursion.
//! Result: 1074 GB/s (8.00 ms) at n = 2^30 i32, 25 % of a copy, 34 % of CUB, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s01

use super::Element;
use crate::device::index::{block_idx, thread_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::scan_entry_points;
use crate::static_shared;
use common::scan::s01::{THREADS, TILE};

static_shared! {
    /// The tile twice: round `r` reads one half and writes the other.
    fn rounds() -> [u32; 2 * TILE as usize];
}

/// Scans the tile `block_idx()` of `input[0..n]` into `output` (inclusive, or exclusive
/// when `exclusive != 0`) and writes the tile's total to `sums[block_idx()]`.
///
/// # Safety
/// Launched with `THREADS` threads per block and one block per `TILE` elements (at least
/// one); `input` and `output` hold `n` elements (they may be the same buffer), `sums` one
/// per block.
unsafe fn hillis_steele<E: Element>(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32) {
    let buffers: SharedArray<u32> = rounds();
    let t = thread_idx();
    let tile = block_idx() as usize;
    let i = tile * TILE as usize + t as usize;
    // SAFETY: i < n is inside the input.
    let x = if i < n { unsafe { *input.add(i) } } else { E::ZERO.to_bits() };
    // SAFETY: t < TILE, in the first half.
    unsafe { buffers.store(t, x) };
    sync_threads();
    let (mut from, mut to) = (0, TILE);
    let mut distance = 1;
    while distance < TILE {
        // SAFETY: `from + t` and `from + t - distance` lie in one half; the barrier before
        // ordered the last round's writes before these reads.
        let mine = E::from_bits(unsafe { buffers.load(from + t) });
        let sum = if t >= distance { E::from_bits(unsafe { buffers.load(from + t - distance) }).add(mine) } else { mine };
        // SAFETY: the other half, which no thread reads this round.
        unsafe { buffers.store(to + t, sum.to_bits()) };
        sync_threads();
        (from, to) = (to, from);
        distance *= 2;
    }
    // SAFETY: the last barrier ordered every write of the last round before these reads.
    let value = match (exclusive != 0, t) {
        (false, _) => unsafe { buffers.load(from + t) },
        (true, 0) => E::ZERO.to_bits(),
        (true, _) => unsafe { buffers.load(from + t - 1) },
    };
    if i < n {
        // SAFETY: i < n; this thread alone writes element i, after every thread read it.
        unsafe { *output.add(i) = value };
    }
    if t == TILE - 1 {
        // SAFETY: one word per block; the last element's inclusive sum is the tile's total.
        unsafe { *sums.add(tile) = buffers.load(from + t) };
    }
}

scan_entry_points!(threads = THREADS;
    hillis_steele(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32)
    => s01_hillis_steele_i32, s01_hillis_steele_f32);
