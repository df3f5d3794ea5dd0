//! Step h1 — strided index (Harris's reduce1).
//!
//! Idea: keep the tree of h0 but give the work of each level to the *first* threads of the
//!       block: thread `t` adds at index `2·s·t`. The working threads are contiguous, so
//!       whole warps are either busy or idle, and no warp diverges until fewer than 32
//!       threads work.
//! Changes from h0: `index = 2 * s * tid` replaces `tid % (2 * s) == 0`.
//! Bottleneck it creates: shared-memory bank conflicts. Shared memory has 32 banks of 4
//!       bytes; at distance `s` the lanes of a warp touch addresses `2·s` words apart, so
//!       at `s = 1` two lanes share each bank (2-way conflict), at `s = 16` all 32 lanes
//!       hit banks 0 and 16: the accesses are replayed one conflict at a time.
//! Cost: 12 registers, `block` × 4 B of dynamic shared memory, no spills.
//! Result: 6.29 ms, 683 GB/s (14.2 %) at 2^30 on an H200: 0.81× h0, *slower*. On this GPU the
//!       bank conflicts cost more than the divergence saved (Harris's G80 gained 2.33× here).

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
