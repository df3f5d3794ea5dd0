//! Step w15 — promotion: each k tile's FP8 sums added into f32 registers.
//!
//! Idea: the tensor cores add FP8 products with fewer bits than f32, so w14's error grows
//!       with K. Let them sum one k tile (128 values) into a fresh partial tile and add that
//!       into f32 registers (the DeepSeek-V3 Technical Report's promotion): the sum is f32's.
//!       Both must fit in registers, so a partial is half the columns: per k tile and half,
//!       four `wgmma` m64n128k32 (the first with `scale-d` = 0), a wait, 64 additions.
//! Changes from w14: the consumers' main loop ([`mma_k_tiles_promoted`]); the rest is w08's
//!       kernel on w14's shape.
//! Bottleneck: the waits: each warpgroup waits for its own `wgmma` before adding them in
//!       (the same loop without promotion runs at w14's speed).
//! Cost: 64 more registers per consumer thread, 128 `add.f32` per thread and k tile, a wait
//!       per half tile. The error: 1.05e-4 at every K (cuBLASLt's promoting product's).
//! Requires: as w14.
//! Result: 98.5 / 94.4 % of cuBLASLt FP8 (promoting) at 4096³ / 8192³, H100, 2026-11-27.
//!
//! More: docs/lessons.md#w15

use super::hopper;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::{FullWaits, PipelineState};
use super::hopper::{ATOM_BYTES, M64n128, M64n256, ROW_BYTES, Shape, promote};
use super::w08_latency_trims::trimmed_gemm_for;
use crate::device::wgmma::{
    self, M64N128_ACC, descriptor, mma_m64n128k32_e4m3, mma_m64n128k32_e4m3_e5m2, mma_m64n128k32_e4m3_e5m2_fresh,
    mma_m64n128k32_e4m3_fresh,
};
use crate::unroll;
use common::gemm::w15::{self, CONSUMER_REGISTERS, PARTIAL_COLUMNS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W15 = w15, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// Issues the four `wgmma` m64n128k32 of column half `half` of the k tile in stage `s` into
/// `partial` (the first overwrites it), after the fence that keeps them behind the previous
/// additions' reads of `partial`; the caller commits them as a group. (e4m3 × e5m2 where the
/// shape's B is e5m2: w20.)
///
/// # Safety
/// Every thread of the warpgroup calls it; stage `s` is full and stays so until the group
/// has finished.
#[inline(always)]
pub(super) unsafe fn issue_half<S: Shape<Acc = M64n256>>(
    consumer: &Consumer<S>,
    s: u32,
    half: u32,
    partial: &mut M64n128,
) {
    let smem = consumer.smem();
    wgmma::fence();
    unroll!(4, kk => {
        let a_desc = consumer.a_descriptor(s, kk as u32);
        // Bᵀ's columns are 128-byte rows: this half's start is PARTIAL_COLUMNS rows on.
        let b_desc = descriptor(
            smem.b_stage(s) + half * PARTIAL_COLUMNS * ROW_BYTES + kk as u32 * S::MMA_K * S::INPUT_BYTES,
            0,
            ATOM_BYTES,
        );
        // SAFETY: the whole warpgroup, after the fence; the stage stays full (the caller's).
        unsafe {
            match (kk == 0, S::B_E5M2) {
                (true, false) => mma_m64n128k32_e4m3_fresh(partial, a_desc, b_desc),
                (false, false) => mma_m64n128k32_e4m3(partial, a_desc, b_desc),
                (true, true) => mma_m64n128k32_e4m3_e5m2_fresh(partial, a_desc, b_desc),
                (false, true) => mma_m64n128k32_e4m3_e5m2(partial, a_desc, b_desc),
            }
        };
    });
}

/// The main loop over k tiles `k_begin..k_end` of one tile, into the f32 accumulators `acc`
/// (zero before a unit's first k tile), promoting each k tile: for each, waits until its
/// stage is full, then for each half of the tile's columns issues four `wgmma` m64n128k32
/// into `partial` (the first overwrites it), waits for them and adds `partial` into that
/// half of `acc`; then releases the stage, whose bytes both halves have read. `PROBE`: w23's
/// wait for the stages ([`FullWaits`]), the next k tile's asked under the second half's
/// `wgmma`.
///
/// # Safety
/// As [`Consumer::mma_k_tiles`]: every thread of the warpgroup calls it, the barriers are
/// initialized and the producer loads the same k tiles, in order.
#[inline(always)]
pub(super) unsafe fn mma_k_tiles_promoted<S: Shape<Acc = M64n256>, const PROBE: bool>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    k_begin: u32,
    k_end: u32,
    acc: &mut M64n256,
    release: &impl Fn(u32),
) {
    let smem = consumer.smem();
    // Written by each half's first `wgmma` (`_fresh`) before it is read.
    let mut partial: M64n128 = [0.0; M64N128_ACC];
    let mut full = FullWaits::<S, PROBE>::new();
    for _ in k_begin..k_end {
        let s = state.index();
        // SAFETY: initialized barriers, this consumer's state.
        unsafe { full.wait(smem, s, *state) };
        unroll!(2, half => {
            // SAFETY: the whole warpgroup; the stage stays full until this warpgroup
            // releases it below.
            unsafe { issue_half(consumer, s, half as u32, &mut partial) };
            wgmma::commit_group();
            if half == 1 {
                // SAFETY: initialized barriers, this consumer's state.
                unsafe { full.probe_next(smem, *state) };
            }
            wgmma::wait_group::<0>();
            // The promotion: this half's 64 accumulators take the partial sums.
            promote(acc, half * M64N128_ACC, &partial);
        });
        release(s);
        state.advance();
    }
}

trimmed_gemm_for!(W15, |consumer, state, k_tiles, acc, release| mma_k_tiles_promoted::<_, false>(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w15_fp8_promoted_e4m3
);

// Two halves make the tile, and one m64n128 accumulator (two registers per column) holds a half.
const _: () = assert!(w15::BN == 2 * PARTIAL_COLUMNS && 2 * M64N128_ACC as u32 == PARTIAL_COLUMNS);
