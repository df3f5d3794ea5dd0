//! Step h0 — a tree in shared memory, its adders picked by `tid % (2·s)` (Harris's reduce0).
//!
//! Idea: each thread loads one input; then, at distance `s = 1, 2, 4, …`, every thread whose
//!       index is a multiple of `2s` adds the value `s` places to its right. After log2(block)
//!       levels element 0 holds the block's sum, which thread 0 writes as the block's partial;
//!       the host launches again on the partials until one value is left.
//! Bottleneck: divergence: at distance `s` only every `2s`-th lane of a warp works, yet the warp
//!       issues the instruction for all 32 (half idle at `s = 1`, all but one at `s = 16`); and
//!       one input per thread pays a whole tree of barriers for every 256 elements.
//! Cost: 12 registers, `block` × 4 B of dynamic shared memory, no spills (ptxas -v, sm_90);
//!       8 blocks of 256 per SM.
//! Result: 844 GB/s (5.09 ms) at n = 2^30, 17.5 % of the theoretical 4814 GB/s, H200, 2026-11-22.
//!
//! More: docs/lessons.md#h0

use crate::device::index::{block_dim, block_idx, global_thread_idx, thread_idx};
use crate::device::shared::dynamic_shared;
use crate::device::sync::sync_threads;
use kernel_macros::kernel;

/// Writes the sum of `input[block's elements]` to `partials[block_idx]`.
///
/// # Safety
/// `input` holds `n` `i32`; `partials` holds one `i32` per block; the block size is a
/// power of two and the launch gives `block_dim()` `i32` of dynamic shared memory.
#[kernel]
pub unsafe fn h0_interleaved_modulo(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let i = global_thread_idx();
    // SAFETY: `i < n` bounds the load; `tid < block_dim()` bounds shared memory.
    unsafe { sdata.store(tid, if i < n { *input.add(i) } else { 0 }) };
    sync_threads();

    let mut s = 1;
    while s < block_dim() {
        if tid % (2 * s) == 0 {
            // SAFETY: tid is a multiple of 2s and the block size a power of two, so
            // tid + s < block_dim().
            unsafe { sdata.store(tid, sdata.load(tid).wrapping_add(sdata.load(tid + s))) };
        }
        sync_threads();
        s *= 2;
    }

    if tid == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = sdata.load(0) };
    }
}
