//! The GEMM ladder: `C = A · B` for row-major `A` (M × K), `B` (K × N) and `C` (M × N), from
//! one thread per output towards the tensor cores. Each step is one file and one idea; the
//! host (`host/src/gemm`) launches, verifies (against the CPU in f64, or against cuBLAS at
//! large sizes) and times every one next to cuBLAS.
//!
//! | step | idea |
//! | --- | --- |
//! | [`g01_naive`] | one thread per output, consecutive threads on consecutive rows |
//! | [`g02_coalesced`] | consecutive threads on consecutive columns: coalesced B and C |
//! | [`g03_shared_tiles`] | 32 × 32 tiles of A and B staged in shared memory |
//! | [`g04_register_1d`] | each thread computes 8 outputs of a column from registers |
//! | [`g05_register_2d`] | each thread computes an 8 × 8 outer product from registers |
//! | [`g06_vectorized`] | 16-byte global and shared loads, A transposed in shared memory |
//! | [`g07_bank_conflict_free`] | a padded A tile and split B columns: no bank conflicts |
//! | [`g08_double_buffer`] | two copies of each tile; B by `cp.async`, A prefetched: loads overlap math |
//! | [`g09_warp_tiling`] | each warp owns a compact 32 × 64 piece: a third less shared traffic |
//! | [`g10_fewer_instructions`] | 16 × 8 per thread, k steps written out, unchecked interior loads: more FFMAs per issue slot |
//! | [`g11_split_k`] | g10's block on a slice of K, the slices summed by the last to finish: small products fill every SM |
//! | [`t01_mma_sync`] | tensor cores: `mma.sync.m16n8k16` from shared memory (f16/bf16 in, f32 out) |
//! | [`t02_ldmatrix`] | `ldmatrix` fragments from XOR-swizzled tiles, 16-byte loads, 128 × 128 tiles |
//! | [`t03_pipeline`] | a three-stage `cp.async` pipeline: loads of later tiles overlap the math |
//! | [`t04_warp_tile`] | 64 × 64 per warp: a third fewer `ldmatrix` per `mma` |
//! | [`t05_fragment_pipeline`] | fragments double-buffered: the next k16 step's `ldmatrix` under this one's `mma`, across the barrier too |
//! | [`w01_wgmma`] | Hopper's `wgmma`: 64 × 256 × 16 per instruction from shared memory |
//! | [`w02_tma`] | TMA tensor copies from a producer warp, `mbarrier`s instead of block barriers |
//! | [`w03_persistent`] | one block per SM walks many tiles in a grouped order; loads of the next tile overlap the last one's stores |
//! | [`w04_multicast`] | clusters of two blocks share B's tile through TMA multicast: a third less L2 traffic |
//! | [`w05_tma_store`] | C staged in swizzled shared memory and stored by the copy engine: whole sectors, written once |
//! | [`w06_setmaxnreg`] | a producer warpgroup hands its registers to the consumers (`setmaxnreg`) |
//! | [`w07_stream_k`] | the last partial wave split along K over all clusters, partial tiles added by each unit's owner |
//! | [`w08_latency_trims`] | shorter waits at entry and exit: tensor maps prefetched, a relaxed cluster barrier, stores only read out |
//! | [`w09_small_tile`] | 128 × 128 tiles for products that leave SMs idle |
//! | [`w10_narrow_tile`] | 64 × 128 tiles, one consumer warpgroup, eight stages: the smallest products |
//! | [`w11_aligned_stream_k`] | w07's stream-K with every cluster at the same k tile at the same time, and w08's trims |
//! | [`w12_pipelined_fixup`] | partial tiles reach their owner through the operand pipeline; a spare warp raises the flags |
//! | [`w13_shares_first`] | each cluster's stream-K share before its whole units: all shares start together |
//! | [`w14_fp8`] | e4m3 inputs through `wgmma` m64n256k32: twice the 16-bit rate, both operands K-major |
//! | [`w15_fp8_promoted`] | each k tile's FP8 partial sums added into f32 registers: the error no longer grows with K |
//! | [`w16_fp8_a_registers`] | w15 with A's fragments in registers: each k tile's A read from shared memory once, not per half |
//! | [`w17_fp8_turns`] | the consumer warpgroups issue their half tiles in turns: one adds while the other's `wgmma` run |
//! | [`w18_fp8_double_partials`] | 128 × 128 tiles with two partial tiles: each k tile's sums are added while the next one's `wgmma` run |
//! | [`w19_fp8_block_scales`] | DeepSeek-V3's per-block scales (1 × 128 for A, 128 × 128 for B), applied as each k tile's partial sums are promoted |
//! | [`w20_fp8_e5m2`] | e4m3 A × e5m2 B (the gradients' format), w15's kernel on the mixed instruction |
//! | [`w21_fp8_bf16_out`] | a bf16 C: the epilogue stages and writes half the bytes |
//! | [`w22_fp8_full_partial`] | 128 × 192 tiles, whose partial spans the tile: one wait per k tile, not two |
//! | [`w23_fp8_probe`] | the next k tile's barrier asked while this one's `wgmma` run (on w22's tile and w21's) |
//! | [`w24_fp8_overlap`] | a tile's store under the next tile's first k tile of products |
//! | [`w25_fp8_in_order`] | an f32 C's column groups stored in one order: fewer instructions, a 2-way bank conflict |
//!
//! The w steps run on Hopper only (`wgmma`, TMA, clusters) and exist in the sm_90a build only.
//! From w06 on each is its predecessor plus one change, on the machinery in [`hopper`]
//! (the stage pipeline, the producer's and consumers' loops, w05's epilogue, stream-K's
//! workspace); w08's kernel also serves w09, w10 and the FP8 steps (w15 on with main loops of
//! their own), and w12's serves w13.
//!
//! Conventions: every M, N, K ≥ 1 works for g01–g11 and t01 (loads past an edge read 0,
//! stores past an edge are skipped); t02 on and w01–w13 move 16-byte rows of 16-bit values and need K
//! and N multiples of 8, the FP8 steps (w14 on) 16-byte rows of 8-bit values and need
//! multiples of 16 (the host refuses other shapes before launch). Dimensions are
//! `u32`, offsets `usize`; FP32 products use `fma.rn.f32` (`mul_add`), as nvcc does by
//! default.

pub mod g01_naive;
pub mod g02_coalesced;
pub mod g03_shared_tiles;
pub mod g04_register_1d;
pub mod g05_register_2d;
pub mod g06_vectorized;
pub mod g07_bank_conflict_free;
pub mod g08_double_buffer;
pub mod g09_warp_tiling;
pub mod g10_fewer_instructions;
pub mod g11_split_k;
#[cfg(target_feature = "sm_90a")]
pub mod hopper;
pub mod mma_tiles;
pub mod t01_mma_sync;
pub mod t02_ldmatrix;
pub mod t03_pipeline;
pub mod t04_warp_tile;
pub mod t05_fragment_pipeline;
#[cfg(target_feature = "sm_90a")]
pub mod w01_wgmma;
#[cfg(target_feature = "sm_90a")]
pub mod w02_tma;
#[cfg(target_feature = "sm_90a")]
pub mod w03_persistent;
#[cfg(target_feature = "sm_90a")]
pub mod w04_multicast;
#[cfg(target_feature = "sm_90a")]
pub mod w05_tma_store;
#[cfg(target_feature = "sm_90a")]
pub mod w06_setmaxnreg;
#[cfg(target_feature = "sm_90a")]
pub mod w07_stream_k;
#[cfg(target_feature = "sm_90a")]
pub mod w08_latency_trims;
#[cfg(target_feature = "sm_90a")]
pub mod w09_small_tile;
#[cfg(target_feature = "sm_90a")]
pub mod w10_narrow_tile;
#[cfg(target_feature = "sm_90a")]
pub mod w11_aligned_stream_k;
#[cfg(target_feature = "sm_90a")]
pub mod w12_pipelined_fixup;
#[cfg(target_feature = "sm_90a")]
pub mod w13_shares_first;
#[cfg(target_feature = "sm_90a")]
pub mod w14_fp8;
#[cfg(target_feature = "sm_90a")]
pub mod w15_fp8_promoted;
#[cfg(target_feature = "sm_90a")]
pub mod w16_fp8_a_registers;
#[cfg(target_feature = "sm_90a")]
pub mod w17_fp8_turns;
#[cfg(target_feature = "sm_90a")]
pub mod w18_fp8_double_partials;
#[cfg(target_feature = "sm_90a")]
pub mod w19_fp8_block_scales;
#[cfg(target_feature = "sm_90a")]
pub mod w20_fp8_e5m2;
#[cfg(target_feature = "sm_90a")]
pub mod w21_fp8_bf16_out;
#[cfg(target_feature = "sm_90a")]
pub mod w22_fp8_full_partial;
#[cfg(target_feature = "sm_90a")]
pub mod w23_fp8_probe;
#[cfg(target_feature = "sm_90a")]
pub mod w24_fp8_overlap;
#[cfg(target_feature = "sm_90a")]
pub mod w25_fp8_in_order;
