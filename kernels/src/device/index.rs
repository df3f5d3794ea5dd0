//! Where a thread is: the CUDA thread hierarchy as PTX special registers.
//!
//! A launch is a *grid* of *blocks* (CTAs); a block is a group of threads that share
//! shared memory and can meet at a barrier; the hardware runs a block's threads in *warps*
//! of 32 consecutive threads. Most kernels here use one-dimensional launches (the `.x`
//! registers); the first GEMM steps use two-dimensional ones (`.y` too), and g11 a third
//! dimension (`.z`, its K slices). Each read is one `mov.u32` from a special register.

use core::arch::nvptx;

/// Threads in a warp on every NVIDIA GPU so far (`WARP_SZ` in PTX).
pub const WARP_SIZE: u32 = 32;

/// Mask naming every lane of a warp, for the `.sync` warp-collective instructions.
pub const ALL_LANES: u32 = 0xffff_ffff;

/// This thread's index in its block: `mov.u32 %r, %tid.x;`
#[inline(always)]
pub fn thread_idx() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() as u32 }
}

/// This block's index in the grid: `mov.u32 %r, %ctaid.x;`
#[inline(always)]
pub fn block_idx() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_x() as u32 }
}

/// Threads per block: `mov.u32 %r, %ntid.x;`
#[inline(always)]
pub fn block_dim() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_x() as u32 }
}

/// Blocks in the grid: `mov.u32 %r, %nctaid.x;`
#[inline(always)]
pub fn grid_dim() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// This thread's second index in a two-dimensional block: `mov.u32 %r, %tid.y;`
#[inline(always)]
pub fn thread_idx_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_y() as u32 }
}

/// This block's second index in a two-dimensional grid: `mov.u32 %r, %ctaid.y;`
#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_y() as u32 }
}

/// Blocks along the grid's third dimension: `mov.u32 %r, %nctaid.z;`
#[inline(always)]
pub fn grid_dim_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_grid_dim_z() as u32 }
}

/// This block's third index in a three-dimensional grid: `mov.u32 %r, %ctaid.z;`
#[inline(always)]
pub fn block_idx_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_z() as u32 }
}

/// This thread's index in the whole grid, in 64 bits: `blockIdx.x * blockDim.x +
/// threadIdx.x` computed with `mul.wide.u32`, so that inputs past 2^32 elements index
/// correctly.
#[inline(always)]
pub fn global_thread_idx() -> usize {
    block_idx() as usize * block_dim() as usize + thread_idx() as usize
}

/// Threads in the whole grid, in 64 bits: the stride of a grid-stride loop.
#[inline(always)]
pub fn grid_threads() -> usize {
    grid_dim() as usize * block_dim() as usize
}

/// This thread's lane in its warp (0..32). Computed from `%tid.x`, which is what the
/// hardware's warp split uses for one-dimensional blocks.
#[inline(always)]
pub fn lane_idx() -> u32 {
    thread_idx() % WARP_SIZE
}

/// This thread's warp in its block.
#[inline(always)]
pub fn warp_idx() -> u32 {
    thread_idx() / WARP_SIZE
}
