//! The reduction ladder: the sum of `n` `i32` values, step by step from the textbook tree
//! to a kernel that runs at the speed of HBM.
//!
//! Read the files in order; each step opens with a card: the one idea it adds, what changed,
//! what limits it, what it costs and one line of result. What was tried on the way, and what
//! did not pay, is in `docs/lessons.md`; the current figures per GPU are in `docs/results/`.
//!
//! | step | idea | launches |
//! | --- | --- | --- |
//! | [`h0_interleaved_modulo`] | tree in shared memory, `tid % (2·s)` picks the adders | one per level of partials |
//! | [`h1_strided_index`] | contiguous adders: no divergent warps | 〃 |
//! | [`h2_sequential_addressing`] | halve the distance instead: no bank conflicts | 〃 |
//! | [`h3_first_add_during_load`] | each thread adds two inputs as it loads | 〃 |
//! | [`h4_unrolled_last_warp`] | the last 32 threads run without block barriers | 〃 |
//! | [`h5_complete_unroll`] | block size a compile-time constant: no loop at all | 〃 |
//! | [`h6_grid_stride`] | one full wave of blocks, many inputs per thread | 2 |
//! | [`v0_two_pass_tree`] | (“Making vector sum really fast” from here) grid-stride tree, then one block | 2 |
//! | [`v1_last_warp_synced`] | last warp with warp barriers | 2 |
//! | [`v2_one_pass_atomic`] | blocks add their sums into the result atomically | 1 (+ memset) |
//! | [`v3_batch_per_thread`] | 32 inputs per thread | 1 (+ memset) |
//! | [`v4_vector_loads`] | 16-byte loads | 1 (+ memset) |
//! | [`x1_warp_shuffles`] | (the project's own from here) block sum by warp shuffles | 1 (+ memset) |
//! | [`x2_grid_stride_unrolled`] | one wave, coalesced 16-byte loads, 4 in flight per thread | 1 (+ memset) |
//! | [`x3_single_launch`] | the last block to finish adds the partials: one launch at every size | 1 |
//! | [`x4_packed_tally`] | one 64-bit atomic carries arrivals and sum: the fastest single launch | 1 |
//!
//! Conventions shared by every step:
//! - the sum is modulo 2^32 (`wrapping_add`): exact, and independent of the order of the
//!   additions, so every kernel must match the CPU bit for bit;
//! - any `n` works, 0 and 1 included: loads past the end read as 0, never as memory;
//! - `n` and global indices are `usize` (64-bit), so inputs past 2^32 elements work;
//! - a kernel that writes one partial per block gets its grid and the repeated launches
//!   from the host (Harris's "kernel decomposition": a launch boundary is the only barrier
//!   between all blocks);
//! - the `h` steps take their block size at launch and need a power of two of at least 64
//!   (`h5`/`h6` have one instance per block size); the dynamic shared memory is
//!   `block_dim()` `i32`.

pub mod h0_interleaved_modulo;
pub mod h1_strided_index;
pub mod h2_sequential_addressing;
pub mod h3_first_add_during_load;
pub mod h4_unrolled_last_warp;
pub mod h5_complete_unroll;
pub mod h6_grid_stride;
pub mod v0_two_pass_tree;
pub mod v1_last_warp_synced;
pub mod v2_one_pass_atomic;
pub mod v3_batch_per_thread;
pub mod v4_vector_loads;
pub mod x1_warp_shuffles;
pub mod x2_grid_stride_unrolled;
pub mod x3_single_launch;
pub mod x4_packed_tally;
