//! Step v2 — one pass with an atomic add: kernel_2 of “Making vector sum really fast”.
//!
//! Idea: instead of writing partials for a second launch, each block adds its sum straight into
//!       the result with one atomic (`red.global.add`, performed in L2): one launch, no partial
//!       array, and no single-block tail.
//! Changes from v1: thread 0 calls [`red_add_i32`] instead of storing a partial; the host zeroes
//!       the result before the launch.
//! Bottleneck: one element per thread: millions of blocks each pay the tree.
//! Cost: 12 registers, 2 KB of static shared memory, no spills.
//! Result: 1053 GB/s (4.08 ms) at n = 2^30, 21.9 % of the theoretical, H200, 2026-11-22.
//!
//! Why the host zeroes: the article lets global thread 0 write `*out = 0` inside the kernel.
//! Blocks run in no fixed order, so another block's atomic add may land *before* block 0's
//! zeroing store and be wiped out: a race. Here the host's `memset` runs before the launch, and
//! its time is counted with the kernel's.
//!
//! More: docs/lessons.md#v2

use super::v1_last_warp_synced::block_sum;
use crate::device::atomic::red_add_i32;
use crate::device::index::{global_thread_idx, thread_idx};
use kernel_macros::kernel;

/// Adds the sum of this block's elements (one per thread) into `*result`.
///
/// # Safety
/// Launched with `VECTOR_SUM_BLOCK` threads per block; `input` holds `n` `i32`; `*result` is
/// an `i32` the host zeroed before the launch.
#[kernel]
pub unsafe fn v2_one_pass_atomic(input: *const i32, result: *mut i32, n: usize) {
    let i = global_thread_idx();
    // SAFETY: i < n bounds the load.
    let value = if i < n { unsafe { *input.add(i) } } else { 0 };
    // SAFETY: launched with BLOCK threads.
    let total = unsafe { block_sum(value) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}
