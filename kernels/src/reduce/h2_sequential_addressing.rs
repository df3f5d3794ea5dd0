//! Step h2 — sequential addressing: halve the distance instead (Harris's reduce2).
//!
//! Idea: run the tree the other way round. Start at distance `s = block/2` and halve it; thread
//!       `t < s` adds element `t + s` to element `t`. The working threads are still contiguous
//!       (no divergence), and now a warp reads 32 *consecutive* words: one per bank, no
//!       conflicts.
//! Changes from h1: the loop counts down from `block_dim() / 2`; `tid < s` picks the adders and
//!       `tid` itself is the index.
//! Bottleneck: idle threads: at the first level half the block only loaded a value and now
//!       waits, then half of the rest; the loads that feed the tree are the only memory work.
//! Cost: 12 registers, `block` × 4 B of dynamic shared memory, no spills.
//! Result: 882 GB/s (4.87 ms) at n = 2^30, 18.3 % of the theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#h2

use crate::device::index::{block_dim, block_idx, global_thread_idx, thread_idx};
use crate::device::shared::dynamic_shared;
use crate::device::sync::sync_threads;
use kernel_macros::kernel;

/// Writes the sum of `input[block's elements]` to `partials[block_idx]`.
///
/// # Safety
/// As [`h0_interleaved_modulo`](super::h0_interleaved_modulo::h0_interleaved_modulo).
#[kernel]
pub unsafe fn h2_sequential_addressing(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let i = global_thread_idx();
    // SAFETY: `i < n` bounds the load; `tid < block_dim()` bounds shared memory.
    unsafe { sdata.store(tid, if i < n { *input.add(i) } else { 0 }) };
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
