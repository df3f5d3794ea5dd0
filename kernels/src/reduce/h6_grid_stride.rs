//! Step h6 — many inputs per thread: one wave of blocks and a grid-stride loop (Harris's reduce6).
//!
//! Idea: launch only as many blocks as the GPU holds at once (one full wave, from the
//!       occupancy calculator) and let each thread walk the input with a grid-stride loop,
//!       adding two elements per iteration into a register. The tree, its barriers and the
//!       partial write now happen once per ~`n / (threads in the wave)` inputs instead of once
//!       per two: Brent's theorem, O(n/p + log p), with the sequential part doing the bulk.
//! Changes from h5: a `while i < n` loop around the first add; the host launches a full wave
//!       instead of `n / (2·block)` blocks, and the second launch reduces a few thousand partials.
//! Bottleneck: one or two 4-byte loads in flight per thread, each bounds-checked: not enough to
//!       fill HBM3's latency-bandwidth product (the `x` steps keep more in flight).
//! Cost: 14–18 registers (512/256/128 threads), `block` × 4 B of dynamic shared memory, no spills.
//! Result: 3705 GB/s (1.16 ms) at n = 2^30, 77.0 % of the theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#h6

use super::h5_complete_unroll::block_tree_sum;
use crate::device::index::{block_idx, grid_dim, thread_idx};
use crate::device::shared::dynamic_shared;
use crate::device::sync::sync_threads;
use kernel_macros::kernel;

/// Sums `input[i]` for the grid-stride share of this block into `partials[block_idx]`.
///
/// # Safety
/// Launched with `BLOCK` threads per block and `BLOCK` `i32` of dynamic shared memory;
/// `input` holds `n` `i32`, `partials` one per block.
#[inline(always)]
unsafe fn grid_stride<const BLOCK: u32>(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let block = BLOCK as usize;
    let grid_size = 2 * block * grid_dim() as usize;
    let mut i = block_idx() as usize * (2 * block) + tid as usize;
    let mut sum = 0i32;
    while i < n {
        // SAFETY: i < n, and the second load checks its own index.
        unsafe {
            sum = sum.wrapping_add(*input.add(i));
            if i + block < n {
                sum = sum.wrapping_add(*input.add(i + block));
            }
        }
        i += grid_size;
    }
    // SAFETY: tid < BLOCK bounds shared memory.
    unsafe { sdata.store(tid, sum) };
    sync_threads();
    // SAFETY: BLOCK threads, barrier above.
    let total = unsafe { block_tree_sum::<BLOCK>(sdata, tid) };
    if tid == 0 {
        // SAFETY: one partial per block.
        unsafe { *partials.add(block_idx() as usize) = total };
    }
}

/// [`grid_stride`] for 128-thread blocks.
///
/// # Safety
/// As `grid_stride::<128>`.
#[kernel]
pub unsafe fn h6_grid_stride_128(input: *const i32, partials: *mut i32, n: usize) {
    // SAFETY: forwarded.
    unsafe { grid_stride::<128>(input, partials, n) }
}

/// [`grid_stride`] for 256-thread blocks.
///
/// # Safety
/// As `grid_stride::<256>`.
#[kernel]
pub unsafe fn h6_grid_stride_256(input: *const i32, partials: *mut i32, n: usize) {
    // SAFETY: forwarded.
    unsafe { grid_stride::<256>(input, partials, n) }
}

/// [`grid_stride`] for 512-thread blocks.
///
/// # Safety
/// As `grid_stride::<512>`.
#[kernel]
pub unsafe fn h6_grid_stride_512(input: *const i32, partials: *mut i32, n: usize) {
    // SAFETY: forwarded.
    unsafe { grid_stride::<512>(input, partials, n) }
}
