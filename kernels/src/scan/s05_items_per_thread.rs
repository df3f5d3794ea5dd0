//! Step s05 — 16 consecutive elements per thread, loaded and stored 16 bytes at a time.
//!
//! Idea: each thread takes 16 consecutive elements (four 16-byte loads), sums them in
//!       registers, the block scans the 512 thread sums with s04's [`block_exclusive_scan`],
//!       and each thread rescans its 16 from its prefix. The tile grows to 8192 elements: 16
//!       times fewer blocks, block sums and barriers per element, one level less of recursion.
//! Changes from s04: the tile's loads, sums and stores (`tile`); the block scan is s04's, the
//!       propagation s01's.
//! Bottleneck: scan-then-propagate itself: 4n words of traffic where a copy moves 2n.
//! Cost: the 16 elements in registers (39 in all); 128 B of static shared memory.
//! Result: 1651 GB/s (5.20 ms) at n = 2^30 i32, 38 % of a copy, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s05

use super::s04_warp_shuffles::block_exclusive_scan;
use super::{Element, tile};
use crate::device::index::{block_idx, thread_idx};
use crate::scan_entry_points;
use common::scan::s05::{ITEMS, THREADS, TILE};

/// Scans the tile `block_idx()` of `input[0..n]` into `output` (inclusive, or exclusive
/// when `exclusive != 0`) and writes the tile's total to `sums[block_idx()]`.
///
/// # Safety
/// Launched with `THREADS` threads per block and one block per `TILE` elements (at least
/// one); `input` and `output` are 16-byte aligned and hold `n` elements (they may be the
/// same buffer), `sums` one per block.
unsafe fn items_per_thread<E: Element>(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32) {
    let tile_index = block_idx() as usize;
    let first = tile_index * TILE as usize + (thread_idx() * ITEMS) as usize;
    // SAFETY: `first` is a multiple of 4; the elements are this thread's alone.
    let items = unsafe { tile::load::<E>(input, n, first) };
    // SAFETY: every thread of the block, once.
    let (before, total) = unsafe { block_exclusive_scan(tile::sum(&items)) };
    // SAFETY: as the load.
    unsafe { tile::store(output, n, first, &tile::scan(&items, before, exclusive != 0)) };
    if thread_idx() == 0 {
        // SAFETY: one word per block.
        unsafe { *sums.add(tile_index) = total.to_bits() };
    }
}

scan_entry_points!(threads = THREADS;
    items_per_thread(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32)
    => s05_items_per_thread_i32, s05_items_per_thread_f32);
