//! Step h3 — the first add during the load (Harris's reduce3).
//!
//! Idea: a block covers `2 × block` inputs, and each thread adds its two inputs while it loads
//!       them. The first level of the tree, which kept half the threads idle, is now done by
//!       all of them for free (the adds hide under the load latency), and half as many blocks
//!       run the tree.
//! Changes from h2: `i = block·(2·block_dim) + tid`; the store is `input[i] +
//!       input[i + block_dim]`; the host launches half the blocks.
//! Bottleneck: instruction overhead: every level still costs a loop test, address arithmetic
//!       and a block barrier, even the last five, where only one warp works.
//! Cost: 14 registers, `block` × 4 B of dynamic shared memory, no spills.
//! Result: 1664 GB/s (2.58 ms) at n = 2^30, 34.6 % of the theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#h3

use crate::device::index::{block_dim, block_idx, thread_idx};
use crate::device::shared::dynamic_shared;
use crate::device::sync::sync_threads;
use kernel_macros::kernel;

/// Writes the sum of the block's `2 × block_dim()` inputs to `partials[block_idx]`.
///
/// # Safety
/// As [`h0_interleaved_modulo`](super::h0_interleaved_modulo::h0_interleaved_modulo).
#[kernel]
pub unsafe fn h3_first_add_during_load(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let block = block_dim() as usize;
    let i = block_idx() as usize * (2 * block) + tid as usize;
    // SAFETY: each load is bounded by `n`; `tid < block_dim()` bounds shared memory.
    unsafe {
        let first = if i < n { *input.add(i) } else { 0 };
        let second = if i + block < n { *input.add(i + block) } else { 0 };
        sdata.store(tid, first.wrapping_add(second));
    }
    sync_threads();

    let mut s = block_dim() / 2;
    while s > 0 {
        if tid < s {
            // SAFETY: tid < s and s <= block_dim() / 2, so tid + s < block_dim().
            unsafe { sdata.store(tid, sdata.load(tid).wrapping_add(sdata.load(tid + s))) };
        }
        sync_threads();
        s /= 2;
    }

    if tid == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = sdata.load(0) };
    }
}
