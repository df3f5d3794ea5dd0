//! Step h1 — strided index: contiguous adders, so no warp diverges (Harris's reduce1).
//!
//! Idea: keep the tree of h0 but give the work of each level to the *first* threads of the
//!       block: thread `t` adds at index `2·s·t`. The working threads are contiguous, so whole
//!       warps are either busy or idle, and no warp diverges until fewer than 32 threads work.
//! Changes from h0: `index = 2 * s * tid` replaces `tid % (2 * s) == 0`.
//! Bottleneck: shared-memory bank conflicts, which this step creates: at distance `s` a warp's
//!       lanes touch words `2·s` apart, so two lanes share each bank at `s = 1` and all 32 hit
//!       banks 0 and 16 at `s = 16`; the accesses are replayed one conflict at a time.
//! Cost: 12 registers, `block` × 4 B of dynamic shared memory, no spills.
//! Result: 683 GB/s (6.29 ms) at n = 2^30, 14.2 % of the theoretical, H200, 2026-11-22.
//!
//! Shared memory has 32 banks of 4 bytes; word `w` lives in bank `w mod 32` (probe p2 measures
//! what a conflict costs).
//!
//! More: docs/lessons.md#h1

use crate::device::index::{block_dim, block_idx, global_thread_idx, thread_idx};
use crate::device::shared::dynamic_shared;
use crate::device::sync::sync_threads;
use kernel_macros::kernel;

/// Writes the sum of `input[block's elements]` to `partials[block_idx]`.
///
/// # Safety
/// As [`h0_interleaved_modulo`](super::h0_interleaved_modulo::h0_interleaved_modulo).
#[kernel]
pub unsafe fn h1_strided_index(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let i = global_thread_idx();
    // SAFETY: `i < n` bounds the load; `tid < block_dim()` bounds shared memory.
    unsafe { sdata.store(tid, if i < n { *input.add(i) } else { 0 }) };
    sync_threads();

    let mut s = 1;
    while s < block_dim() {
        let index = 2 * s * tid;
        if index < block_dim() {
            // SAFETY: index < block_dim() and index is a multiple of 2s, so index + s is too.
            unsafe { sdata.store(index, sdata.load(index).wrapping_add(sdata.load(index + s))) };
        }
        sync_threads();
        s *= 2;
    }

    if tid == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = sdata.load(0) };
    }
}
