//! Step w23 — the next k tile's barrier asked while this one's products run.
//!
//! Idea: w22's warpgroup waits for a k tile's "full" barrier after it has promoted the one
//!       before, so the barrier's answer lies on the path between two batches of `wgmma`. Here
//!       it asks for the next k tile as soon as this one's `wgmma` are committed
//!       (`mbarrier.test_wait`, answered at once), and waits there only if the answer was no.
//! Changes from w22: its main loop with `PROBE` (`pipeline::FullWaits`); a second kernel runs w15's
//!       loop probed on w21's 128 × 256 tile (`w23_wide`), promoted in halves, for small products.
//! Bottleneck: ncu on w22 (8192³) had 6 % of its consumer warps' samples on the barrier's
//!       answer; cuBLASLt's promoting kernel asks before its wait for the `wgmma`, as here.
//! Cost: one `mbarrier.test_wait` per k tile; no register.
//! Requires: as w14; K and N multiples of 16.
//! Result: 98.3 / 101.5 % of cuBLASLt's bf16-out FP8 at 8192³ / 4096³ (wide), H200, 2026-11-29.
//!
//! More: docs/lessons.md#w23

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::mma_k_tiles_promoted;
use super::w22_fp8_full_partial::mma_k_tiles_full_partial;
use common::gemm::w23::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use common::gemm::{w23_f32, w23_wide};
use kernel_macros::kernel;

hopper::shape!(W23 = w23, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);
hopper::shape!(W23Wide = w23_wide, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);
hopper::shape!(W23F32 = w23_f32, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// The kernel on w22's 128 × 192 tile.
mod on_full_partial {
    use super::*;
    // w08's kernel on w22's shape, with w22's main loop probed; w21's bf16 epilogue.
    trimmed_gemm_for!(W23, |consumer, state, k_tiles, acc, release| mma_k_tiles_full_partial::<_, true>(
        consumer, state, 0, k_tiles, acc, release
    ));
    hopper::fp8_entry_point!(
        trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w23_fp8_probe_e4m3
    );
}

/// The kernel on w21's 128 × 256 tile.
mod on_wide_tile {
    use super::*;
    // w08's kernel on w21's shape, with w15's main loop probed; w21's bf16 epilogue.
    trimmed_gemm_for!(W23Wide, |consumer, state, k_tiles, acc, release| mma_k_tiles_promoted::<_, true>(
        consumer, state, 0, k_tiles, acc, release
    ));
    hopper::fp8_entry_point!(
        trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w23_fp8_probe_wide_e4m3
    );
}

/// The kernel on w15's 128 × 256 tile with an f32 C.
mod on_f32_tile {
    use super::*;
    // w15's kernel and main loop, probed.
    trimmed_gemm_for!(W23F32, |consumer, state, k_tiles, acc, release| mma_k_tiles_promoted::<_, true>(
        consumer, state, 0, k_tiles, acc, release
    ));
    hopper::fp8_entry_point!(
        trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w23_fp8_probe_f32_e4m3
    );
}
