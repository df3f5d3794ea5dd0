//! Step s06 — reduce, then scan: the tiles' sums first, the data written once.
//!
//! Idea: a tile needs only the totals of the tiles before it to be scanned to its final values.
//!       A first kernel reads the data and writes each tile's sum ([`reduce_tiles`]); the sums
//!       are scanned (this step's own plan, 8192 times smaller); a last kernel reads the data
//!       again and scans each tile from its offset ([`scan_tiles`]): 2 reads and 1 write.
//! Changes from s05: the offset goes into the tile scan instead of a pass of its own; loads,
//!       sums, block scan and stores are s05's.
//! Bottleneck: the second read, from HBM again beyond the L2: at best two thirds of a copy.
//! Cost: two kernels per level; s05's registers and shared memory.
//! Result: 2164 GB/s (3.97 ms) at n = 2^30 i32, 50 % of a copy, 68 % of CUB, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s06

use super::s04_warp_shuffles::block_exclusive_scan;
use super::{Element, tile};
use crate::device::index::{block_idx, thread_idx};
use crate::scan_entry_points;
use common::scan::s06::{ITEMS, THREADS, TILE};

/// The first element of this thread's items in tile `block_idx()`.
#[inline(always)]
fn first_item() -> usize {
    block_idx() as usize * TILE as usize + (thread_idx() * ITEMS) as usize
}

/// Writes the sum of tile `block_idx()` of `input[0..n]` to `sums[block_idx()]`.
///
/// # Safety
/// Launched with `THREADS` threads per block and one block per `TILE` elements (at least
/// one); `input` is 16-byte aligned and holds `n` elements, `sums` one per block.
unsafe fn reduce_tiles<E: Element>(input: *const u32, n: usize, sums: *mut u32) {
    // SAFETY: `first_item()` is a multiple of 4; the kernel writes no element.
    let items = unsafe { tile::load::<E>(input, n, first_item()) };
    // SAFETY: every thread of the block, once.
    let (_, total) = unsafe { block_exclusive_scan(tile::sum(&items)) };
    if thread_idx() == 0 {
        // SAFETY: one word per block.
        unsafe { *sums.add(block_idx() as usize) = total.to_bits() };
    }
}

/// Scans tile `block_idx()` of `input[0..n]` into `output` (inclusive, or exclusive when
/// `exclusive != 0`), starting from `offsets[block_idx()]`, the sum of every tile before
/// it (from 0 when `offsets` is null: a single tile).
///
/// # Safety
/// As [`reduce_tiles`]; `output` is 16-byte aligned and holds `n` elements (it may be
/// `input`); `offsets` is null or holds one element per block.
unsafe fn scan_tiles<E: Element>(input: *const u32, output: *mut u32, n: usize, offsets: *const u32, exclusive: u32) {
    let first = first_item();
    // SAFETY: `first` is a multiple of 4; the elements are this thread's alone.
    let items = unsafe { tile::load::<E>(input, n, first) };
    let offset =
        // SAFETY: one offset per block.
        if offsets.is_null() { E::ZERO } else { E::from_bits(unsafe { *offsets.add(block_idx() as usize) }) };
    // SAFETY: every thread of the block, once.
    let (before, _) = unsafe { block_exclusive_scan(tile::sum(&items)) };
    // SAFETY: as the load.
    unsafe { tile::store(output, n, first, &tile::scan(&items, offset.add(before), exclusive != 0)) };
}

scan_entry_points!(threads = THREADS;
    reduce_tiles(input: *const u32, n: usize, sums: *mut u32)
    => s06_reduce_tiles_i32, s06_reduce_tiles_f32);
scan_entry_points!(threads = THREADS;
    scan_tiles(input: *const u32, output: *mut u32, n: usize, offsets: *const u32, exclusive: u32)
    => s06_scan_tiles_i32, s06_scan_tiles_f32);
