//! Step w24 — a tile's epilogue under the next tile's first products.
//!
//! Idea: both consumer warpgroups store a finished tile at the same time, and meanwhile no
//!       `wgmma` runs on the SM. But once a tile's last k tile is promoted its partial is
//!       free: a warpgroup issues the next tile's first k tile into it, stores the finished
//!       tile while those `wgmma` run, then takes the partial as the new tile's sums.
//! Changes from w23: the consumers' walk over the units ([`units_with_overlapped_stores`]);
//!       its main loop (w22's, probed) starts at a unit's second k tile.
//! Bottleneck: ncu on w23 (8192³): the tensor pipe's busy cycles equal cuBLASLt's; what is left
//!       is idle time, and the epilogue held 2.7 % of the consumer warps' samples. At 4096³ the
//!       192-wide tile's waves (94.5 %; w23's 256-wide kernel stays the one there).
//! Cost: no register more (the partial is w22's); a copy of the partial into the sums per tile.
//! Requires: as w14; K and N multiples of 16.
//! Result: 100.8 % of cuBLASLt's bf16-out FP8 at 8192³ (1511 TFLOP/s), H200, 2026-11-29.
//!
//! More: docs/lessons.md#w24

use super::hopper;
use super::hopper::epilogue::Epilogue;
use super::hopper::mainloop::{Consumer, Units};
use super::hopper::pipeline::{FullWaits, PipelineState};
use super::hopper::{Accumulator, M64n192, Shape};
use super::w08_latency_trims::trimmed_gemm_for;
use super::w22_fp8_full_partial::{issue_k_tile, mma_k_tiles_full_partial};
use crate::device::cluster::{cluster_count, cluster_idx};
use crate::device::wgmma::{M64N192_ACC, wait_group_for_m64n192};
use common::gemm::w24::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use common::gemm::w24_f32;
use kernel_macros::kernel;

hopper::shape!(W24 = w24, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);
hopper::shape!(W24F32 = w24_f32, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// A consumer warpgroup's walk over its cluster's units, each tile's store overlapped with
/// the next tile's first k tile: for every unit, k tiles 1… into `acc` (which holds k tile
/// 0's sums), then, where a next unit exists, its k tile 0's `wgmma` issued into a fresh
/// partial, this tile stored (`epilogue`, scaled by `factor`), the wait, the stage released,
/// and the partial taken as the next tile's sums. (With K = 0 every tile is stored as zeros.)
///
/// # Safety
/// As [`mma_k_tiles_full_partial`] over every unit the producer loads for this cluster.
#[inline(always)]
pub(crate) unsafe fn units_with_overlapped_stores<S: Shape<Acc = M64n192>>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    units: Units<S>,
    k_tiles: u32,
    release: &impl Fn(u32),
    epilogue: impl Fn() -> Epilogue<S>,
    factor: Option<f32>,
) {
    let mut unit = cluster_idx();
    if k_tiles == 0 {
        while unit < units.count() {
            // SAFETY: the whole warpgroup.
            unsafe { epilogue().store_scaled_tile(&M64n192::zeroed(), units.origin(unit), factor) };
            unit += cluster_count();
        }
        return;
    }
    if unit >= units.count() {
        return;
    }
    // The first unit's k tile 0, with nothing to store under it.
    let mut partial: M64n192 = [0.0; M64N192_ACC];
    // SAFETY: the caller's.
    let s = unsafe { issue_first_k_tile(consumer, *state, &mut partial) };
    let mut acc = land(state, s, partial, release);
    loop {
        let origin = units.origin(unit);
        // SAFETY: the caller's; k tile 0 is in `acc`.
        unsafe { mma_k_tiles_full_partial::<S, true>(consumer, state, 1, k_tiles, &mut acc, release) };
        let next = unit + cluster_count();
        if next >= units.count() {
            // SAFETY: the whole warpgroup, with this tile's sums.
            unsafe { epilogue().store_scaled_tile(&acc, origin, factor) };
            return;
        }
        // The next unit's k tile 0 runs on the tensor cores while this tile is stored.
        // SAFETY: the caller's; then the whole warpgroup, with this tile's sums.
        let s = unsafe { issue_first_k_tile(consumer, *state, &mut partial) };
        unsafe { epilogue().store_scaled_tile(&acc, origin, factor) };
        acc = land(state, s, partial, release);
        unit = next;
    }
}

/// Issues the `wgmma` of k tile `state` (a unit's first) into `partial` once its stage is
/// full; returns the stage.
///
/// # Safety
/// As [`issue_k_tile`].
#[inline(always)]
unsafe fn issue_first_k_tile<S: Shape<Acc = M64n192>>(
    consumer: &Consumer<S>,
    state: PipelineState<S>,
    partial: &mut M64n192,
) -> u32 {
    let s = state.index();
    // SAFETY: the caller's.
    unsafe { issue_k_tile(consumer, state, s, &FullWaits::<S, false>::new(), partial) };
    s
}

/// Waits for the `wgmma` into `partial`, releases stage `s` and moves the pipeline on:
/// `partial` is then a tile's sums.
#[inline(always)]
fn land<S: Shape>(state: &mut PipelineState<S>, s: u32, mut partial: M64n192, release: &impl Fn(u32)) -> M64n192 {
    wait_group_for_m64n192::<0>(&mut partial);
    release(s);
    state.advance();
    partial
}

/// The kernel on w22's tile with w21's bf16 C and with w15's f32 C. (w25 writes it for its
/// shape, with `trimmed_gemm_for`, `hopper` and [`units_with_overlapped_stores`] in scope.)
macro_rules! overlapped {
    ($module:ident: $shape:ty => $name:ident) => {
        mod $module {
            use super::*;
            trimmed_gemm_for!(
                $shape,
                impl $crate::gemm::hopper::epilogue::TensorScales,
                units |consumer, state, units, k_tiles, release, epilogue, factor, _scales| {
                    // SAFETY: the kernel's consumer warpgroup, as w08's walk.
                    unsafe { units_with_overlapped_stores(consumer, state, units, k_tiles, release, epilogue, factor) }
                }
            );
            hopper::fp8_entry_point!(
                trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => $name
            );
        }
    };
}

overlapped!(bf16_c: W24 => w24_fp8_overlap_e4m3);
overlapped!(f32_c: W24F32 => w24_fp8_overlap_f32_e4m3);

pub(crate) use overlapped;
