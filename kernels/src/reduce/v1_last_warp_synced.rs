//! Step v1 — the last warp with warp barriers: kernel_1 of “Making vector sum really fast”.
//!
//! Idea: the block-barrier loop stops at 64 values and warp 0 folds the last six levels alone,
//!       with `bar.warp.sync` between each level's reads and writes: the same move as h4, with
//!       the same reason for the warp barriers.
//! Changes from v0: [`block_sum`] replaces the loop's last levels with
//!       [`last_warp_sum`](super::h4_unrolled_last_warp::last_warp_sum).
//! Bottleneck: as v0: the saving is a handful of block barriers per block, small against one
//!       element per thread and a one-block second pass.
//! Cost: 20 registers, 2 KB of static shared memory, no spills.
//! Result: 738 GB/s (5.82 ms) at n = 2^30, 15.3 % of the theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#v1

use super::h4_unrolled_last_warp::last_warp_sum;
use super::v0_two_pass_tree::block_sums;
use crate::device::index::{block_idx, global_thread_idx, grid_threads, thread_idx};
use crate::device::sync::sync_threads;
use common::reduce::VECTOR_SUM_BLOCK as BLOCK;
use kernel_macros::kernel;

/// The block's total of each thread's `value`, returned to thread 0 (other threads get an
/// unspecified value): the shared tree down to 64 values, then the last warp. Reused by
/// v2…v4.
///
/// # Safety
/// Called by every thread of a `VECTOR_SUM_BLOCK`-thread block.
#[inline(always)]
pub unsafe fn block_sum(value: i32) -> i32 {
    let sums = block_sums();
    let tid = thread_idx();
    // SAFETY: tid < BLOCK, the array's length.
    unsafe { sums.store(tid, value) };
    sync_threads();
    let mut active = BLOCK / 2;
    while active > 32 {
        if tid < active {
            // SAFETY: tid + active < 2 × active <= BLOCK.
            unsafe { sums.store(tid, sums.load(tid).wrapping_add(sums.load(tid + active))) };
        }
        sync_threads();
        active /= 2;
    }
    // SAFETY: warp 0 entire; the barrier above published sums[0..64].
    if tid < 32 { unsafe { last_warp_sum(sums, tid) } } else { 0 }
}

/// Writes the sum of this block's grid-stride share of `input` to `partials[block_idx]`.
///
/// # Safety
/// As [`v0_two_pass_tree`](super::v0_two_pass_tree::v0_two_pass_tree).
#[kernel]
pub unsafe fn v1_last_warp_synced(input: *const i32, partials: *mut i32, n: usize) {
    let mut sum = 0i32;
    let mut i = global_thread_idx();
    while i < n {
        // SAFETY: i < n.
        sum = sum.wrapping_add(unsafe { *input.add(i) });
        i += grid_threads();
    }
    // SAFETY: launched with BLOCK threads.
    let total = unsafe { block_sum(sum) };
    if thread_idx() == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = total };
    }
}
