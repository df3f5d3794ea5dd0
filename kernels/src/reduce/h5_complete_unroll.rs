//! Step h5 — completely unrolled for a compile-time block size (Harris's reduce5).
//!
//! Idea: make the block size a compile-time constant (a const generic, where CUDA uses a
//!       template parameter), so every level of the tree is a fixed line of code: no loop
//!       counter, no loop test, and `if BLOCK >= 512` disappears at compile time. One kernel is
//!       instantiated per block size (128, 256, 512) and the host picks the one it launches.
//! Changes from h4: the `while s > 32` loop becomes the unrolled [`block_tree_sum`].
//! Bottleneck: two inputs per thread: every `2 × block` inputs pay a whole tree, its barriers
//!       and a partial store, in `n / (2·block)` blocks (h6 gives each thread many inputs).
//! Cost: one entry point per block size, fixed at build time; 11–14 registers, `BLOCK` × 4 B of
//!       dynamic shared memory, no spills.
//! Result: 2356 GB/s (1.82 ms) at n = 2^30, 256 threads: 48.9 % of theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#h5

use super::h4_unrolled_last_warp::last_warp_sum;
use crate::device::index::{block_idx, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::sync_threads;
use kernel_macros::kernel;

/// One level of the tree for a block of `2 × HALF` values: the first `HALF` threads add
/// the upper half onto the lower; then the whole block meets at the barrier.
///
/// # Safety
/// Called by every thread of the block; `sdata` holds `2 × HALF` values.
#[inline(always)]
unsafe fn fold_upper_half<const HALF: u32>(sdata: SharedArray<i32>, tid: u32) {
    if tid < HALF {
        // SAFETY: tid < HALF, so both indices are under 2 × HALF.
        unsafe { sdata.store(tid, sdata.load(tid).wrapping_add(sdata.load(tid + HALF))) };
    }
    sync_threads();
}

/// The tree of h4 with every level written out for a `BLOCK`-thread block; thread 0's
/// return value is the total of `sdata[0..BLOCK]`. Reused by h6.
///
/// # Safety
/// Called by every thread of a `BLOCK`-thread block (`BLOCK` a power of two from 64 to
/// 512) after the block barrier that published `sdata[0..BLOCK]`.
#[inline(always)]
pub unsafe fn block_tree_sum<const BLOCK: u32>(sdata: SharedArray<i32>, tid: u32) -> i32 {
    // SAFETY: the caller's launch shape (see above).
    unsafe {
        if BLOCK >= 512 {
            fold_upper_half::<256>(sdata, tid);
        }
        if BLOCK >= 256 {
            fold_upper_half::<128>(sdata, tid);
        }
        if BLOCK >= 128 {
            fold_upper_half::<64>(sdata, tid);
        }
        if tid < 32 { last_warp_sum(sdata, tid) } else { 0 }
    }
}

/// Sums the block's `2 × BLOCK` inputs into `partials[block_idx]`.
///
/// # Safety
/// Launched with `BLOCK` threads per block and `BLOCK` `i32` of dynamic shared memory;
/// `input` holds `n` `i32`, `partials` one per block.
#[inline(always)]
unsafe fn complete_unroll<const BLOCK: u32>(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let block = BLOCK as usize;
    let i = block_idx() as usize * (2 * block) + tid as usize;
    // SAFETY: each load is bounded by `n`; `tid < BLOCK` bounds shared memory.
    unsafe {
        let first = if i < n { *input.add(i) } else { 0 };
        let second = if i + block < n { *input.add(i + block) } else { 0 };
        sdata.store(tid, first.wrapping_add(second));
    }
    sync_threads();
    // SAFETY: BLOCK threads, barrier above.
    let total = unsafe { block_tree_sum::<BLOCK>(sdata, tid) };
    if tid == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = total };
    }
}

/// [`complete_unroll`] for 128-thread blocks.
///
/// # Safety
/// As `complete_unroll::<128>`.
#[kernel]
pub unsafe fn h5_complete_unroll_128(input: *const i32, partials: *mut i32, n: usize) {
    // SAFETY: forwarded.
    unsafe { complete_unroll::<128>(input, partials, n) }
}

/// [`complete_unroll`] for 256-thread blocks.
///
/// # Safety
/// As `complete_unroll::<256>`.
#[kernel]
pub unsafe fn h5_complete_unroll_256(input: *const i32, partials: *mut i32, n: usize) {
    // SAFETY: forwarded.
    unsafe { complete_unroll::<256>(input, partials, n) }
}

/// [`complete_unroll`] for 512-thread blocks.
///
/// # Safety
/// As `complete_unroll::<512>`.
#[kernel]
pub unsafe fn h5_complete_unroll_512(input: *const i32, partials: *mut i32, n: usize) {
    // SAFETY: forwarded.
    unsafe { complete_unroll::<512>(input, partials, n) }
}
