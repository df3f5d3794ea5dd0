//! Step t13 — a tile for small products: 128 × 128 instead of 128 × 256, twice the tiles.
//!
//! Idea: at 1024³ a product has 32 tiles of 128 × 256, 16 cluster pairs: 32 of the 132
//!       SMs work and t12 reaches 51 % of cuBLAS (H200). With 128 × 128 tiles the same product
//!       has 64 tiles on 64 SMs, each with half the work. A smaller tile reuses each loaded
//!       byte less (64 FLOP per byte of A and B against 85), and its `wgmma` reads A for
//!       half as many columns (m64n128k16: 6 KB of shared memory per 262 K FLOP against
//!       10 KB per 524 K), so at large sizes t12 stays the faster step; this one is for the
//!       products that leave SMs idle. Its stages are half as large (32 KB), so six fit
//!       where t10 had four.
//! Changes from t12: BN = 128 (`wgmma` m64n128k16, 64 accumulators per thread), B's tile
//!       is two panels (one per block of the pair, multicast), six stages, four boxes of C
//!       per warpgroup and tile.
//! Cost: 168 registers at entry × 384 threads; 225 KB of shared memory (6 × 32 KB stages,
//!       32 KB of staging boxes).
//! Requires: as t12.
//! Result (2026-11-23, % of cuBLAS f16 / bf16): H200 1024³ 72.9 / 72.6 (t12 50.9 /
//!       50.6), 4096×4096×512 99.5 / 100.0, 1000³ 80.2 / 85.0; H100 4096×4096×512 100.9 /
//!       101.3. Below t12 once the 128 × 256 tiles fill the GPU (H200 4096³ 94.2 / 93.8).

use super::hopper::{self, M64n128, Reallocate};
use super::t12_latency_trims::trimmed_gemm_for;
use common::gemm::t13::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T13 = t13, M64n128, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>);

// t12's kernel, on t13's shape.
trimmed_gemm_for!(T13);

hopper::entry_points!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32)
        => t13_small_tile_f16, t13_small_tile_bf16
);
