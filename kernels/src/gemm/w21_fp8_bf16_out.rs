//! Step w21 — a bf16 C: the epilogue writes half the bytes.
//!
//! Idea: an FP8 product feeds the next layer, which reads bf16, and PyTorch's `_scaled_mm`
//!       returns bf16: rounding C in the epilogue (`cvt.rn.bf16x2.f32`, two values to a
//!       register) halves what it stages in shared memory and writes to DRAM. A box of 64
//!       bf16 columns has the 128-byte rows of 32 f32 ones: the buffers, the swizzle and the
//!       shared memory stay w15's.
//! Changes from w15: the shape (`fp8_bf16_out`: C bf16, boxes of 64 × 64), which sends
//!       w05's epilogue down its bf16 path (`Epilogue::store_bf16_tile`); the host's C map.
//! Bottleneck: as w15's: the waits of the promotion.
//! Cost: one `cvt` per two values of C; half the epilogue's `st.shared` and copies.
//! Requires: as w14; K and N multiples of 16 (N: 8 would do for C's 16-byte rows).
//! Result: 1346 TFLOP/s at 4096³, 97.7 % of cuBLASLt's bf16-out FP8 (1.09 × w15), H100, 2026-11-28.
//!
//! The error: C's values rounded to bf16 (8 significant bits, a relative error of at most
//! 2^-9 each), on top of the product's own; the check's bound for FP8 (1e-2) holds both.
//!
//! More: docs/lessons.md#w21

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::mma_k_tiles_promoted;
use common::gemm::w21::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W21 = w21, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);

// w15's kernel and main loop, on w21's shape.
trimmed_gemm_for!(W21, |consumer, state, k_tiles, acc, release| mma_k_tiles_promoted::<_, false>(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w21_fp8_bf16_out_e4m3
);
