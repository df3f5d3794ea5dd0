//! Step x2 — one wave of blocks, coalesced 16-byte loads, several loads in flight.
//!
//! Idea: keep HBM busy. By Little's law the bytes in flight must be at least bandwidth ×
//!       latency: about 4.8 TB/s × ~0.7 µs ≈ 3.4 MB on an H200, some 20–25 KB per SM. So the
//!       grid is one full wave (no block waits to be scheduled, the block sum runs once per
//!       block), and each thread issues 4 coalesced 16-byte loads before it adds any: 64 bytes
//!       in flight per thread, 128 KB per SM at full occupancy.
//! Changes from x1: [`thread_sum_streaming`] replaces the per-thread batch; the host sizes the
//!       grid to one wave (or fewer blocks when `n` is small).
//! Bottleneck: still a `memset` launch before the kernel and an atomic per block: noise at large
//!       `n`, a large share at small `n` (x3 and x4 drop the launch).
//! Cost: 24 registers, 128 B of static shared memory, no spills; 4 blocks of 512 per SM.
//! Result: 4569 GB/s (940 µs) at n = 2^30, 94.9 % of the theoretical, H200, 2026-11-22.
//!
//! The layout: the input is cut into tiles of `STREAM_BLOCK × STREAM_UNROLL` (512 × 4) 16-byte
//! units, 32 KB; block `b` sums tiles `b`, `b + grid`, `b + 2·grid`, …; in a tile, thread `t`
//! loads units `t`, `t + 512`, …, so each warp load is 512 contiguous bytes (v3 and v4's
//! per-thread batches were 128 bytes apart per lane). The loads are marked streaming
//! (`ld.global.cs`): read once, evict first.
//!
//! More: docs/lessons.md#x2

use super::x1_warp_shuffles::block_sum_shuffles;
use crate::device::atomic::red_add_i32;
use crate::device::index::{block_dim, block_idx, global_thread_idx, grid_dim, grid_threads, thread_idx};
use crate::device::load::{I32x4, load_streaming, load_streaming_v4};
use common::reduce::STREAM_UNROLL;
use kernel_macros::kernel;

const UNROLL: usize = STREAM_UNROLL as usize;

/// This thread's share of the sum of `input[0..n]`, read in block-contiguous tiles of
/// `block_dim() × UNROLL` 16-byte units that the grid strides over; the units after the
/// last whole tile go one per thread across the grid, and the last `n % 4` elements to
/// the first threads of the grid. Reused by x3 and x4.
///
/// # Safety
/// `input` is 16-byte aligned, holds `n` `i32` and does not change during the kernel.
#[inline(always)]
pub unsafe fn thread_sum_streaming(input: *const i32, n: usize) -> i32 {
    let units = input as *const I32x4;
    let whole_units = n / 4;
    let block = block_dim() as usize;
    let tile = block * UNROLL;
    let whole_tiles = whole_units / tile;
    let mut sum = 0i32;

    // Whole tiles: thread t loads units t, t + block, t + 2·block, … of the tile, all
    // before any add uses them. Indexing `loaded[k]` with the constant k (not iterating
    // the array by value) keeps LLVM unrolling the adds, so the array stays in registers.
    let mut t = block_idx() as usize;
    while t < whole_tiles {
        let first = t * tile + thread_idx() as usize;
        let mut loaded = [I32x4([0; 4]); UNROLL];
        for (k, slot) in loaded.iter_mut().enumerate() {
            // SAFETY: first + k·block < (t + 1)·tile <= whole_units.
            *slot = unsafe { load_streaming_v4(units.add(first + k * block)) };
        }
        for k in 0..UNROLL {
            sum = sum.wrapping_add(loaded[k].wrapping_sum());
        }
        t += grid_dim() as usize;
    }
    // Fewer than one tile of units left: one per thread, across the grid.
    let mut unit = whole_tiles * tile + global_thread_idx();
    while unit < whole_units {
        // SAFETY: unit < whole_units.
        sum = sum.wrapping_add(unsafe { load_streaming_v4(units.add(unit)) }.wrapping_sum());
        unit += grid_threads();
    }
    // The 0–3 elements after the last whole unit.
    let tail = whole_units * 4 + global_thread_idx();
    if tail < n {
        // SAFETY: tail < n.
        sum = sum.wrapping_add(unsafe { load_streaming(input.add(tail)) });
    }
    sum
}

/// Adds this block's grid-stride share of `input[0..n]` into `*result`.
///
/// # Safety
/// Launched with `STREAM_BLOCK` threads per block; `input` is 16-byte aligned and holds
/// `n` `i32`; `*result` is an `i32` the host zeroed before the launch.
#[kernel]
pub unsafe fn x2_grid_stride_unrolled(input: *const i32, result: *mut i32, n: usize) {
    // SAFETY: forwarded from the caller.
    let sum = unsafe { thread_sum_streaming(input, n) };
    // SAFETY: every thread of the block, once.
    let total = unsafe { block_sum_shuffles(sum) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}
