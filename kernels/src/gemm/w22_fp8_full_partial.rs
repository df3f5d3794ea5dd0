//! Step w22 — a 128 × 192 tile: one partial as wide as the tile, one wait per k tile.
//!
//! Idea: w15 promotes each k tile in two halves because a partial of the 128 × 256 tile's
//!       width would not fit beside its accumulators: two waits per k tile. At 192 columns the
//!       accumulators (96 registers) and a whole-width partial (96) fit together: per k tile
//!       four `wgmma` m64n192k32 (the first with `scale-d` = 0), one wait, 96 additions.
//! Changes from w21: the shape (`common::gemm::w22`: BN = 192, B's boxes of 96 columns, four
//!       40 KB stages) and the main loop ([`mma_k_tiles_full_partial`]); the epilogue is w21's.
//! Bottleneck: the tile's waves: at 4096³ a 192-wide tile makes 16 × 22 units for 66 clusters,
//!       5⅓ waves, the last a third full (0.89 × w21); at 8192³ 20.8 waves, and the one wait
//!       per k tile pays (1.01–1.02 × w21). The operands: 11 % more bytes per FLOP than w21.
//! Cost: 192 registers of sums per consumer thread (w21: 128 + 64); one wait and 96 `add.f32`
//!       per thread and k tile. The error is w21's (1.6e-3, C rounded to bf16).
//! Requires: as w14; K and N multiples of 16.
//! Result: 97.1 / 88.0 % of cuBLASLt's bf16-out FP8 at 8192³ / 4096³, H200, 2026-11-29.
//!
//! More: docs/lessons.md#w22

use super::hopper;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::{FullWaits, PipelineState};
use super::hopper::{ATOM_BYTES, M64n192, Shape, promote};
use super::w08_latency_trims::trimmed_gemm_for;
use crate::device::wgmma::{
    self, M64N192_ACC, descriptor, mma_m64n192k32_e4m3, mma_m64n192k32_e4m3_fresh, wait_group_for_m64n192,
};
use crate::unroll;
use common::gemm::w22::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W22 = w22, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);

/// The main loop over k tiles `k_begin..k_end` of one tile, into the f32 accumulators `acc`
/// (zero before a unit's first k tile), promoting each k tile whole: issues its four `wgmma`
/// ([`issue_k_tile`]), waits for them, releases the stage and adds `partial` into `acc`.
/// `PROBE`: w23's wait for the stages ([`FullWaits`]), the next k tile's asked under this
/// one's `wgmma`.
///
/// # Safety
/// As [`Consumer::mma_k_tiles`]: every thread of the warpgroup calls it, the barriers are
/// initialized and the producer loads the same k tiles, in order.
#[inline(always)]
pub(super) unsafe fn mma_k_tiles_full_partial<S: Shape<Acc = M64n192>, const PROBE: bool>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    k_begin: u32,
    k_end: u32,
    acc: &mut M64n192,
    release: &impl Fn(u32),
) {
    let smem = consumer.smem();
    // Written by each k tile's first `wgmma` (`_fresh`) before it is read.
    let mut partial: M64n192 = [0.0; M64N192_ACC];
    let mut full = FullWaits::<S, PROBE>::new();
    for _ in k_begin..k_end {
        let s = state.index();
        // SAFETY: the caller's.
        unsafe { issue_k_tile(consumer, *state, s, &full, &mut partial) };
        // SAFETY: initialized barriers, this consumer's state.
        unsafe { full.probe_next(smem, *state) };
        // The wait names the partial's registers, so that no addition reads them before it.
        wait_group_for_m64n192::<0>(&mut partial);
        release(s);
        // The promotion: the tile's 96 accumulators take the partial sums.
        promote(acc, 0, &partial);
        state.advance();
    }
}

/// Waits until stage `s`, k tile `state`'s, is full (as `full` says), then issues its four
/// `wgmma` m64n192k32 into `partial`, the first overwriting it, and commits them.
///
/// # Safety
/// As [`mma_k_tiles_full_partial`]; the stage stays full until this warpgroup releases it,
/// after a wait for these `wgmma`.
#[inline(always)]
pub(super) unsafe fn issue_k_tile<S: Shape<Acc = M64n192>, const PROBE: bool>(
    consumer: &Consumer<S>,
    state: PipelineState<S>,
    s: u32,
    full: &FullWaits<S, PROBE>,
    partial: &mut M64n192,
) {
    let smem = consumer.smem();
    // SAFETY: initialized barriers, this consumer's state.
    unsafe { full.wait(smem, s, state) };
    // The fence keeps these `wgmma` behind the previous reads of `partial`.
    wgmma::fence();
    unroll!(4, kk => {
        let a_desc = consumer.a_descriptor(s, kk as u32);
        // Bᵀ's 192 columns are 128-byte rows; a k32 step is 32 bytes along each.
        let b_desc = descriptor(smem.b_stage(s) + kk as u32 * S::MMA_K * S::INPUT_BYTES, 0, ATOM_BYTES);
        // SAFETY: the whole warpgroup, after the fence; the stage is full.
        unsafe {
            if kk == 0 {
                mma_m64n192k32_e4m3_fresh(partial, a_desc, b_desc)
            } else {
                mma_m64n192k32_e4m3(partial, a_desc, b_desc)
            }
        };
    });
    wgmma::commit_group();
}

// w08's kernel on w22's shape, with the main loop above; w21's bf16 epilogue.
trimmed_gemm_for!(W22, |consumer, state, k_tiles, acc, release| mma_k_tiles_full_partial::<_, false>(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w22_fp8_full_partial_e4m3
);

// One m64n192 accumulator holds a warpgroup's whole piece of the tile.
const _: () = assert!(w22::BN == 2 * M64N192_ACC as u32);
