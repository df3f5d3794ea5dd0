//! Step h6 — many inputs per thread (Harris's reduce6).
//!
//! Idea: launch only as many blocks as the GPU holds at once (one full wave, from the
//!       occupancy calculator) and let each thread walk the input with a grid-stride
//!       loop, adding two elements per iteration into a register. The tree, its barriers
//!       and the partial write now happen once per ~`n / (threads in the wave)` inputs
//!       instead of once per two: Brent's theorem in practice, O(n/p + log p) time with
//!       the sequential part doing the bulk of the work cheaply.
//! Changes from h5: a `while i < n` loop around the first add; the host launches a full
//!       wave of blocks instead of `n / (2·block)`. The second launch reduces only a few
//!       thousand partials.
//! Bottleneck left: each iteration has one or two 4-byte loads in flight per thread and a
//!       bounds check on each: enough to come close to bandwidth on older GPUs but not to
//!       fill HBM3's latency-bandwidth product (see the `x` steps).
//! Cost: 14–18 registers (512/256/128 threads), `block` × 4 B of dynamic shared memory, no
//!       spills.
//! Result: 1.16 ms, 3705 GB/s (77.0 %) at 2^30 on an H200: 1.57× h5, 4.39× h0 (three
//!       launches: one wave, then
//!       the wave's partials, then one block).

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
