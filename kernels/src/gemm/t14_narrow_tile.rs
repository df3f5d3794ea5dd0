//! Step t14 — a narrow tile for the smallest products: 64 × 128, one consumer warpgroup.
//!
//! Idea: at 1024³ t13 still leaves 68 of 132 SMs idle. cuBLAS's kernel there computes 64 ×
//!       128 tiles in eight stages, in clusters of two: 128 tiles on 128 SMs. Same here: the
//!       block tile is one consumer warpgroup's 64 rows beside the producer warpgroup, and a
//!       stage (24 KB) is small enough for eight.
//! Changes from t13: the shape: BM = 64 (one consumer warpgroup, A's box of 64 rows), eight
//!       stages, and no `setmaxnreg` (with 256 threads ptxas sets no cap to lower).
//! Bottleneck: one consumer warpgroup per SM cannot keep the tensor cores fed at large sizes.
//! Cost: 114 registers × 256 threads; 209 KB of shared memory (8 × 24 KB stages, 16 KB of
//!       staging boxes); one block per SM.
//! Requires: as t12.
//! Result: 93.8 % of cuBLAS f16 at 1024³ (bf16 93.1), H200, 2026-11-23.
//!
//! More: docs/lessons.md#t14

use super::hopper::{self, KeepRegisters, M64n128};
use super::t12_latency_trims::trimmed_gemm_for;
use common::gemm::t14::{self, THREADS};
use kernel_macros::kernel;

hopper::shape!(T14 = t14, M64n128, KeepRegisters);

// t12's kernel, on t14's shape and without the register reallocation.
trimmed_gemm_for!(T14);

hopper::entry_points!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32)
        => t14_narrow_tile_f16, t14_narrow_tile_bf16
);
