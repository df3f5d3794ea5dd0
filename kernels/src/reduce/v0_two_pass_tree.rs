//! Step v0 — a two-pass tree: kernel_0 of “Making vector sum really fast”.
//!
//! Idea: the same kernel twice. The first launch gives each thread a grid-stride loop over the
//!       input (with one block per 512 inputs, one element each), folds the block's values in a
//!       shared-memory tree with a block barrier per level, and writes one partial per block;
//!       the second launch runs one block over those partials. The shared array is *static*
//!       (`static_shared!`, CUDA's `__shared__ int s[512]`), sized by the compile-time block.
//! Bottleneck: one element per thread, as in h2, and then a single block of 512 threads adds up
//!       two million partials on its own: the second launch is a long serial tail on one SM.
//! Cost: 20 registers, 2 KB of static shared memory, no spills.
//! Result: 626 GB/s (6.86 ms) at n = 2^30, 13.0 % of the theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#v0

use crate::device::index::{block_idx, global_thread_idx, grid_threads, thread_idx};
use crate::device::sync::sync_threads;
use crate::static_shared;
use common::reduce::VECTOR_SUM_BLOCK as BLOCK;
use kernel_macros::kernel;

static_shared! {
    /// One value per thread of a `VECTOR_SUM_BLOCK` block: the tree's workspace, reused by v1…v4.
    pub fn block_sums() -> [i32; BLOCK as usize];
}

/// Writes the sum of this block's grid-stride share of `input` to `partials[block_idx]`.
///
/// # Safety
/// Launched with `VECTOR_SUM_BLOCK` threads per block; `input` holds `n` `i32`, `partials` one
/// per block.
#[kernel]
pub unsafe fn v0_two_pass_tree(input: *const i32, partials: *mut i32, n: usize) {
    let sums = block_sums();
    let tid = thread_idx();
    let mut sum = 0i32;
    let mut i = global_thread_idx();
    while i < n {
        // SAFETY: i < n.
        sum = sum.wrapping_add(unsafe { *input.add(i) });
        i += grid_threads();
    }
    // SAFETY: tid < BLOCK, the array's length.
    unsafe { sums.store(tid, sum) };
    sync_threads();

    let mut active = BLOCK / 2;
    while active > 0 {
        if tid < active {
            // SAFETY: tid + active < 2 × active <= BLOCK.
            unsafe { sums.store(tid, sums.load(tid).wrapping_add(sums.load(tid + active))) };
        }
        sync_threads();
        active /= 2;
    }

    if tid == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = sums.load(0) };
    }
}
