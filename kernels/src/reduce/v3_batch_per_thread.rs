//! Step v3 — a batch of inputs per thread: kernel_3 of “Making vector sum really fast”.
//!
//! Idea: each thread sums `BATCH` (32) consecutive inputs in registers before the block tree.
//!       There are 32 times fewer blocks, so the tree, the barriers and the atomic are paid once
//!       per 16 384 inputs instead of once per 512, and each thread keeps several independent
//!       loads in flight (the loop is unrolled by the compiler).
//! Changes from v2: a `for j in 0..BATCH` loop; the host launches `n / (512·32)` blocks.
//! Bottleneck: the access pattern: thread `t` reads elements `32t … 32t+31`, so a warp's load
//!       touches 32 lines 128 bytes apart, one per lane, and each load instruction moves only 4
//!       bytes per lane through L1 (v4 reads 16 bytes at a time).
//! Cost: 32 registers, 2 KB of static shared memory, no spills.
//! Result: 1025 GB/s (4.19 ms) at n = 2^30, 21.3 % of the theoretical, H200, 2026-11-22.
//!
//! The bounds: the article checks `first + j < n` before every load, and nvcc turns that into
//! predicated loads it can issue back to back. LLVM keeps each check as a branch between one
//! load and the add that uses it, so a thread would wait for every load in turn. Here the whole
//! batch is checked once and its 32 loads run unchecked, independent of each other; only the one
//! thread whose batch straddles the end takes the checked loop.
//!
//! More: docs/lessons.md#v3

use super::v1_last_warp_synced::block_sum;
use crate::device::atomic::red_add_i32;
use crate::device::index::{global_thread_idx, thread_idx};
use common::reduce::BATCH;
use kernel_macros::kernel;

/// Adds the sum of this block's `VECTOR_SUM_BLOCK × BATCH` elements into `*result`.
///
/// # Safety
/// As [`v2_one_pass_atomic`](super::v2_one_pass_atomic::v2_one_pass_atomic).
#[kernel]
pub unsafe fn v3_batch_per_thread(input: *const i32, result: *mut i32, n: usize) {
    let first = global_thread_idx() * BATCH as usize;
    let mut sum = 0i32;
    if first + BATCH as usize <= n {
        for j in 0..BATCH as usize {
            // SAFETY: first + j < first + BATCH <= n.
            sum = sum.wrapping_add(unsafe { *input.add(first + j) });
        }
    } else {
        for i in first..n {
            // SAFETY: i < n.
            sum = sum.wrapping_add(unsafe { *input.add(i) });
        }
    }
    // SAFETY: launched with BLOCK threads.
    let total = unsafe { block_sum(sum) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}
