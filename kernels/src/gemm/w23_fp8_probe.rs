//! Step w23 — the next k tile's barrier asked while this one's products run.
//!
//! Idea: w22's warpgroup waits for a k tile's "full" barrier after it has promoted the one
//!       before, so the barrier's answer lies on the path between two batches of `wgmma`. Here
//!       it asks for the next k tile as soon as this one's `wgmma` are committed
//!       (`mbarrier.test_wait`, answered at once), and waits there only if the answer was no.
//! Changes from w22: its main loop with `PROBE` (`pipeline::FullWaits`); w15's loop probed on the
//!       128 × 256 tile (`w23_wide`, promoted in halves, for small products); each tile with a bf16
//!       C (w21's) and an f32 C (w15's).
//! Bottleneck: ncu on w22 (8192³) had 6 % of its consumer warps' samples on the barrier's
//!       answer; cuBLASLt's promoting kernel asks before its wait for the `wgmma`, as here.
//! Cost: one `mbarrier.test_wait` per k tile; no register.
//! Requires: as w14; K and N multiples of 16.
//! Result: bf16 C 98.3 / 102.0 %, f32 C 97.4 / 99.2 % of cuBLASLt, 8192³ / 4096³, H200, 2026-11-29.
//!
//! More: docs/lessons.md#w23

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::mma_k_tiles_promoted;
use super::w22_fp8_full_partial::mma_k_tiles_full_partial;
use common::gemm::w23::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use common::gemm::{w23_f32, w23_wide, w23_wide_f32};
use kernel_macros::kernel;

hopper::shape!(W23 = w23, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);
hopper::shape!(W23Wide = w23_wide, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);
hopper::shape!(W23F32 = w23_f32, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);
hopper::shape!(W23WideF32 = w23_wide_f32, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// A kernel `$name` in a module of its own: w08's kernel on `$shape` with `$main_loop`
/// (w22's on the 192-wide tiles, w15's on the 256-wide ones) probed. (w25 writes it for its
/// shape, with `trimmed_gemm_for`, `hopper` and `$main_loop` in scope.)
macro_rules! probed {
    ($module:ident: $shape:ty, $main_loop:ident => $name:ident) => {
        mod $module {
            use super::*;
            trimmed_gemm_for!($shape, |consumer, state, k_tiles, acc, release| $main_loop::<_, true>(
                consumer, state, 0, k_tiles, acc, release
            ));
            hopper::fp8_entry_point!(
                trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => $name
            );
        }
    };
}

// On w22's 128 × 192 tile and w21's 128 × 256 tile, with w21's bf16 C and w15's f32 C.
probed!(on_full_partial: W23, mma_k_tiles_full_partial => w23_fp8_probe_e4m3);
probed!(on_wide_tile: W23Wide, mma_k_tiles_promoted => w23_fp8_probe_256_e4m3);
probed!(on_full_partial_f32: W23F32, mma_k_tiles_full_partial => w23_fp8_probe_f32_e4m3);
probed!(on_wide_tile_f32: W23WideF32, mma_k_tiles_promoted => w23_fp8_probe_256f32_e4m3);

pub(crate) use probed;
