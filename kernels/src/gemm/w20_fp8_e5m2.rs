//! Step w20 — e5m2: one operand with FP8's other format, at the same speed.
//!
//! Idea: gradients, whose range is wide, are kept in e5m2 (up to ±57344, 2 mantissa bits)
//!       rather than e4m3 (±448, 3 bits), and a backward pass multiplies one of each:
//!       `wgmma … .f32.e4m3.e5m2` takes the format per operand at the same rate. The bytes,
//!       tiles, pipeline and promotion are w15's.
//! Changes from w15: the shape (`fp8_e5m2`: B's values e5m2), which makes w15's issue of a
//!       column half the e4m3 × e5m2 instruction; one entry point, e4m3 A × e5m2 Bᵀ.
//! Bottleneck: as w15's (1.00–1.02 × w15 on the same GPU).
//! Cost: as w15's.
//! Requires: as w14; K and N multiples of 16.
//! Result: 99.2 / 94.1 % of cuBLASLt's e4m3 × e5m2 FP8 at 4096³ / 8192³, H100, 2026-11-28.
//!
//! The two formats and their use in training: the FP8 Formats for Deep Learning paper.
//!
//! More: docs/lessons.md#w20

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::mma_k_tiles_promoted;
use common::gemm::w20::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W20 = w20, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_e5m2);

// w15's kernel and main loop, on w20's shape.
trimmed_gemm_for!(W20, |consumer, state, k_tiles, acc, release| mma_k_tiles_promoted::<_, false>(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w20_fp8_e5m2_e4m3_e5m2
);
