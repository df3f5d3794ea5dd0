//! Step w14 — FP8: e4m3 A and B through `wgmma` m64n256k32, twice the 16-bit rate.
//!
//! Idea: Hopper's tensor cores multiply 8-bit floats at twice the rate of 16-bit ones, 32 k
//!       values per `wgmma` in the same 32 bytes of a swizzle row. w08's kernel, unchanged but
//!       for the bytes it moves: a k tile of 128 values, each stage the same 48 KB.
//! Changes from w08: the shape (`fp8`: 1-byte inputs, k32 per `wgmma`, B K-major), so the
//!       producer copies Bᵀ's boxes (k across, columns down) and the consumers describe B as
//!       they describe A; one entry point (e4m3 × e4m3, f32 C).
//! Bottleneck: to be measured: the 16-bit steps' loop at twice the FLOPs per byte.
//! Cost: as w08 (168 registers at entry × 384 threads, 225 KB of shared memory).
//! Requires: sm_90a; K and N multiples of 16 (16-byte rows of 8-bit values); B given as Bᵀ.
//! Result: none yet: written on 2026-11-27 without a GPU; its first run is due on an H100.
//!
//! 8-bit `wgmma` has no transpose: both operands must be K-major in shared memory. The
//! 16-bit steps take B row-major (K × N, N-major) and let `wgmma` transpose it; an FP8
//! product takes Bᵀ (N × K, row-major), as cuBLASLt's FP8 product does. A model that keeps
//! its weights as Bᵀ pays nothing; one that keeps B pays one transpose per weight update.
//!
//! More: docs/lessons.md#w14

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use common::gemm::w14::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W14 = w14, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

// w08's kernel, on w14's 8-bit shape.
trimmed_gemm_for!(W14);

/// `C = A · B` with e4m3 A (M × K) and Bᵀ (N × K), f32 C, as w08 computes it.
///
/// # Safety
/// As w08's kernel, with tensor maps of 8-bit A and Bᵀ (boxes `w14::A_BOX`, `w14::B_BOX`).
#[kernel(max_threads = THREADS)]
pub unsafe fn w14_fp8_e4m3(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded; the input type is the shape's, not the flag's.
    unsafe { trimmed_gemm::<false>(a_map, b_map, c_map, m, n, k) }
}
