//! Step h0 — interleaved addressing with `%` (Harris's reduce0).
//!
//! Idea: a tree in shared memory. Each thread loads one input; then, at distance
//!       `s = 1, 2, 4, …`, every thread whose index is a multiple of `2s` adds the value `s`
//!       places to its right. After log2(block) levels, element 0 holds the block's sum,
//!       which thread 0 writes as the block's partial. The host launches again on the
//!       partials until one value is left.
//! Bottleneck: the choice `tid % (2s) == 0`. At distance `s` only every `2s`-th thread of
//!       a warp works, yet the warp issues the instruction for all 32 lanes: at `s = 1`
//!       half of each warp idles, at `s = 16` all but one lane. (Harris also blames the
//!       `%` itself; here LLVM proves `2s` is a power of two and emits an `and`, so the
//!       cost that remains is the divergence.) And one input per thread means a block
//!       does a whole tree of barriers for 256 elements.
//! Cost: 12 registers, `block` × 4 B of dynamic shared memory, no spills (ptxas -v, sm_90);
//!       8 blocks of 256 per SM.
//! Result: 5.09 ms, 844 GB/s, 17.5 % of the 4814 GB/s theoretical, at n = 2^30 on an H200
//!       (2026-11-22, median of 30, L2 flushed): the first rung.

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
