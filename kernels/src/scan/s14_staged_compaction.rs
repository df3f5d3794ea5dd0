//! Step s14 — compaction staged in shared memory: each warp packs its rows, then stores them.
//!
//! Idea: s13 writes each kept element where it belongs, 4 bytes at a time from 32 lanes
//!       spread over a row's output, so a store instruction fills no sector. Here the tile
//!       comes in by s11's bulk copy, and each warp packs its kept elements at the front of
//!       its own part of the tile, row after row, then writes them out contiguous: 128 bytes
//!       per store instruction.
//! Changes from s13: s11's tile (bulk copy, rows, look-back) with flags for values; the
//!       packing in shared memory ([`pack_rows`]) and the warp's contiguous stores.
//! Bottleneck: s11's: a block's life outside its copy.
//! Cost: s11's shared memory and barriers; one `bar.warp.sync` per row.
//! Result: 1.84 ms at n = 2^30: 127 % of CUB's DeviceSelect::If, H200, 2026-11-29.
//!
//! A row's kept elements go to the warp's part of the tile at what its rows before them
//! kept, never past the row's own end: the rows a warp has not read yet are never written.
//!
//! More: docs/lessons.md#s14

use super::s04_warp_shuffles::block_exclusive_scan;
use super::s07_chained::tile_prefix;
use super::s09_warp_lookback::WarpWindow;
use super::s11_bulk_copy::{ROW_UNITS, first_unit, load_tile, scan_rows_of};
use crate::device::index::{ALL_LANES, WARP_SIZE, grid_dim, lane_idx, thread_idx, warp_idx};
use crate::device::shared::{SharedArray, dynamic_shared_aligned};
use crate::device::sync::sync_warp;
use crate::static_shared;
use common::scan::keep_i32;
use common::scan::s14::{ROWS, THREADS, TILE_ALIGN};
use kernel_macros::kernel;

static_shared! {
    /// The block's claim (tile, epoch), then the count of kept elements before the tile.
    fn staged_words() -> [u32; 3];
}

/// A unit's four elements as 0/1 flags: whether each is kept.
#[inline(always)]
fn flags(bits: [u32; 4]) -> [i32; 4] {
    bits.map(|b| i32::from(keep_i32(b as i32)))
}

/// Packs the warp's kept elements at the front of its part of the tile, row by row: each
/// lane reads its unit of the row, the warp synchronizes, and the lane writes the unit's
/// kept elements from `before_lane[r]`, the warp's kept elements before its unit.
///
/// # Safety
/// Every lane of the warp; `tile_words` the block's whole tile, this warp's part of it
/// touched by no other warp meanwhile; `before_lane` from [`scan_rows_of`] with [`flags`].
#[inline(always)]
unsafe fn pack_rows(tile_words: SharedArray<u32>, before_lane: &[i32; ROWS as usize]) {
    let first = first_unit();
    // The warp's part of the tile, in words.
    let part = 4 * warp_idx() * ROWS * ROW_UNITS;
    crate::unroll!(8, r => {
        // SAFETY: the unit lies inside the warp's part of the tile.
        let x = unsafe { tile_words.load_v4(4 * (first + r as u32 * ROW_UNITS)) };
        // Every lane has read row r before any writes over it.
        sync_warp(ALL_LANES);
        let mut at = part + before_lane[r] as u32;
        for k in 0..4 {
            if keep_i32(x[k] as i32) {
                // SAFETY: `at` lies below the end of row r in the warp's part (what the rows
                // up to it keep), where no row not yet read lies.
                unsafe { tile_words.store(at, x[k]) };
                at += 1;
            }
        }
    });
    // The packed elements, visible to every lane of the warp.
    sync_warp(ALL_LANES);
}

/// Writes the elements of `input[0..n]` that pass [`keep_i32`] to `output`, in order, and
/// their number to `*count`.
///
/// # Safety
/// Launched with `THREADS` threads per block, `SHARED_BYTES` of dynamic shared memory and one
/// block per `TILE` elements (at least one); `n < 2^32`; `input` and `output` are 16-byte
/// aligned and hold `n` `i32` (they may be the same buffer: a tile writes only below its own
/// end, and only after every tile before it has loaded); `state` as for s07's `single_pass`.
#[kernel(max_threads = THREADS)]
pub unsafe fn s14_staged_compaction(input: *const u32, output: *mut u32, n: usize, state: *mut u64, count: *mut u32, jitter: u32) {
    // SAFETY: SHARED_BYTES holds TILE_ALIGN bytes of slack past the tile and its barrier.
    let tile_words: SharedArray<u32> = unsafe { SharedArray::from_address(dynamic_shared_aligned(TILE_ALIGN)) };
    let words: SharedArray<u32> = staged_words();
    // SAFETY: every thread, once; words 0 and 1 of three; launched as s11.
    let claim = unsafe { load_tile::<i32>(tile_words, words, input, n, state, jitter) };
    // Elements past n read as 0, which the test rejects.
    // SAFETY: the tile has landed.
    let (before_lane, kept) = unsafe { scan_rows_of(tile_words, flags) };
    let warp_kept = if lane_idx() == WARP_SIZE - 1 { kept } else { 0 };
    // SAFETY: every thread of the block, once.
    let (before_warp, aggregate) = unsafe { block_exclusive_scan(warp_kept) };
    // SAFETY: every thread, once; word 2 of three; the state as the caller promises.
    let before_tile = unsafe { tile_prefix::<i32, WarpWindow>(state, claim, aggregate, jitter, words, 2) };
    if thread_idx() == 0 && claim.tile == grid_dim() - 1 {
        // SAFETY: the last tile's thread 0 alone writes the count.
        unsafe { *count = before_tile.wrapping_add(aggregate) as u32 };
    }
    // SAFETY: every lane of every warp; each warp packs its own part.
    unsafe { pack_rows(tile_words, &before_lane) };
    // The warp's kept elements, contiguous in shared memory and in the output.
    let part = 4 * warp_idx() * ROWS * ROW_UNITS;
    let out = output.wrapping_add(before_tile.wrapping_add(before_warp) as u32 as usize);
    let mut i = lane_idx();
    while i < kept as u32 {
        // SAFETY: below the warp's kept count, packed above; the output's elements from
        // `out` on are this warp's (below n, and below this tile's end: see in place).
        unsafe { *out.add(i as usize) = tile_words.load(part + i) };
        i += WARP_SIZE;
    }
}
