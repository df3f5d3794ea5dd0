//! Launch constants of the reduction kernels that the host needs to size grids and
//! workspaces. Each is defined once, here; the kernels use the same names.

/// Threads per block of the steps of “Making vector sum really fast” (`v0`…`v4`) and of
/// `x1_warp_shuffles`.
pub const VECTOR_SUM_BLOCK: u32 = 512;

/// Consecutive elements each thread sums in `v3_batch_per_thread` and `v4_vector_loads`
/// (the batch size of “Making vector sum really fast”).
pub const BATCH: u32 = 32;

/// Threads per block of the grid-stride steps `x2_grid_stride_unrolled` and
/// `x3_single_launch`.
pub const STREAM_BLOCK: u32 = 512;

/// 16-byte loads each thread of `x2`/`x3` issues before it adds any of them: the loads in
/// flight per thread (see `x2_grid_stride_unrolled`'s doc comment for the arithmetic).
pub const STREAM_UNROLL: u32 = 4;
