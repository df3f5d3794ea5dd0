//! Step w10 — a narrow tile for the smallest products: 64 × 128, one consumer warpgroup.
//!
//! Idea: at 1024³ w09 still leaves 68 of 132 SMs idle. cuBLAS's kernel there computes 64 ×
//!       128 tiles in eight stages, in clusters of two: 128 tiles on 128 SMs. Same here: the
//!       block tile is one consumer warpgroup's 64 rows beside the producer warpgroup, and a
//!       stage (24 KB) is small enough for eight.
//! Changes from w09: the shape: BM = 64 (one consumer warpgroup, A's box of 64 rows), eight
//!       stages, and no `setmaxnreg` (with 256 threads ptxas sets no cap to lower).
//! Bottleneck: one consumer warpgroup per SM cannot keep the tensor cores fed at large sizes.
//! Cost: 114 registers × 256 threads; 209 KB of shared memory (8 × 24 KB stages, 16 KB of
//!       staging boxes); one block per SM.
//! Requires: as w08.
//! Result: 93.8 % of cuBLAS f16 at 1024³ (bf16 93.1), H200, 2026-11-23.
//!
//! More: docs/lessons.md#w10

use super::hopper::{self, KeepRegisters, M64n128};
use super::hopper::epilogue::NoScales;
use super::w08_latency_trims::trimmed_gemm_for;
use common::gemm::w10::{self, THREADS};
use kernel_macros::kernel;

hopper::shape!(W10 = w10, M64n128, KeepRegisters);

// w08's kernel, on w10's shape and without the register reallocation.
trimmed_gemm_for!(W10);

hopper::entry_points!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32; NoScales)
        => w10_narrow_tile_f16, w10_narrow_tile_bf16
);
