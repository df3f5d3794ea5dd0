//! Step t14 — a narrow tile for the smallest products: 64 × 128, one consumer warpgroup.
//!
//! Idea: at 1024³ t13's 128 × 128 tiles still leave 68 of 132 SMs idle (64 tiles), and
//!       t13 reaches 73 % of cuBLAS on an H200. cuBLAS's own kernel there
//!       (`nvjet_sm90_hss_128x64_64x8_1x2`, ncu) computes 64 × 128 tiles of our C (its
//!       128 × 64 in column-major terms) in eight stages of k 64, in clusters of two: 128
//!       tiles, 128 SMs. Same here: the block tile is one consumer warpgroup's 64 rows
//!       (`wgmma` m64n128k16), so a block has one consumer warpgroup beside the producer
//!       warpgroup (256 threads), and a stage (A 8 KB, B 16 KB) is small enough for eight.
//!       Each loaded byte is used less again (43 FLOP per byte of A and B), so this step
//!       only pays where more tiles keep more SMs busy.
//! Changes from t13: BM = 64: one consumer warpgroup, A's box of 64 rows, eight stages;
//!       no `setmaxnreg` (one consumer needs 114 registers, and with 256 threads ptxas
//!       sets no cap at the entry, so it would ignore the instruction: warning C7508).
//! Cost: 114 registers × 256 threads; 209 KB of shared memory (8 × 24 KB stages, 16 KB of
//!       staging boxes); one block per SM.
//! Requires: as t12.
//! Result (2026-11-23, % of cuBLAS f16 / bf16): the best step at 1024³ (H200 93.8 / 93.1,
//!       H100 90.5 / 93.4) and 1000³ (H200 89.9 / 94.4, H100 93.5 / 97.4); far behind at
//!       large sizes (H200 8192³ 70.9 / 63.7), where one consumer warpgroup per SM cannot
//!       keep the tensor cores fed.

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
