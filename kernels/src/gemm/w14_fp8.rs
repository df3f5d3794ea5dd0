//! Step w14 — FP8: e4m3 A and B through `wgmma` m64n256k32, twice the 16-bit rate.
//!
//! Idea: Hopper's tensor cores multiply 8-bit floats at twice the rate of 16-bit ones, 32 k
//!       values per `wgmma` in the same 32 bytes of a swizzle row. w08's kernel, unchanged but
//!       for the bytes it moves: a k tile of 128 values, each stage the same 48 KB.
//! Changes from w08: the shape (`fp8`: 1-byte inputs, k32 per `wgmma`, B K-major), so the
//!       producer copies Bᵀ's boxes (k across, columns down) and the consumers describe B as
//!       they describe A; one entry point (e4m3 × e4m3, f32 C).
//! Bottleneck: as w08's, at twice the FLOPs per byte: 76–85 % of the e4m3 `wgmma` ceiling.
//!       The tensor cores add with fewer bits than f32 all the way: the error grows with K
//!       (4.8e-4 at K = 1024, 3.0e-3 at 16384), as cuBLASLt's fast accumulation's does.
//! Cost: as w08 (168 registers at entry × 384 threads, 225 KB of shared memory).
//! Requires: sm_90a; K and N multiples of 16 (16-byte rows of 8-bit values); B given as Bᵀ.
//! Result: 101.5 / 102.4 % of cuBLASLt FP8 fast accum at 4096³ / 8192³, H100, 2026-11-28.
//!
//! 8-bit `wgmma` has no transpose: both operands must be K-major in shared memory. The
//! 16-bit steps take B row-major (K × N, N-major) and let `wgmma` transpose it; an FP8
//! product takes Bᵀ (N × K, row-major), as cuBLASLt's FP8 product does. A model that keeps
//! its weights as Bᵀ pays nothing; one that keeps B pays one transpose per weight update.
//!
//! The product is C = scale_a · scale_b · A · B with per-tensor scales, as cuBLASLt's FP8
//! product and PyTorch's `_scaled_mm` take them: the entry point's last argument points to
//! the two f32, read once per consumer thread, and the epilogue multiplies each value by their
//! product on its way out of the registers (`Epilogue::store_scaled_tile`): one multiply per
//! output, none in the main loop. The 16-bit steps pass `NoScales`, which compiles away.
//!
//! More: docs/lessons.md#w14

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use common::gemm::w14::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W14 = w14, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

// w08's kernel, on w14's 8-bit shape.
trimmed_gemm_for!(W14);

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w14_fp8_e4m3
);
