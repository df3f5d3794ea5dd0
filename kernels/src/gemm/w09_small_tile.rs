//! Step w09 — a tile for small products: 128 × 128 instead of 128 × 256, twice the tiles.
//!
//! Idea: at 1024³ a product has 32 tiles of 128 × 256 for 132 SMs, and w08 reaches 51 % of
//!       cuBLAS. With 128 × 128 tiles it has 64, each half the work. A smaller tile reuses
//!       each loaded byte less, so at large sizes w08 stays faster: this step is for the
//!       products that leave SMs idle. Its stages are half as large, so six fit.
//! Changes from w08: the shape: BN = 128 (`wgmma` m64n128k16, 64 accumulators per thread),
//!       B's tile in two panels, six stages, four boxes of C per warpgroup and tile.
//! Bottleneck: still idle SMs at 1024³ (64 tiles for 132 SMs).
//! Cost: 168 registers at entry × 384 threads; 225 KB of shared memory (6 × 32 KB stages,
//!       32 KB of staging boxes).
//! Requires: as w08.
//! Result: 72.9 % of cuBLAS f16 at 1024³ (w08 50.9), H200, 2026-11-23.
//!
//! More: docs/lessons.md#w09

use super::hopper::{self, M64n128, Reallocate};
use super::hopper::epilogue::NoScales;
use super::w08_latency_trims::trimmed_gemm_for;
use common::gemm::w09::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W09 = w09, M64n128, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>);

// w08's kernel, on w09's shape.
trimmed_gemm_for!(W09);

hopper::entry_points!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32; NoScales)
        => w09_small_tile_f16, w09_small_tile_bf16
);
