//! Step w23 — the next k tile's barrier asked while this one's products run.
//!
//! Idea: w22's warpgroup waits for a k tile's "full" barrier after it has promoted the one
//!       before, so the barrier's answer lies on the path between two batches of `wgmma`. Here
//!       it asks for the next k tile as soon as this one's `wgmma` are committed
//!       (`mbarrier.test_wait`, answered at once), and waits there only if the answer was no.
//! Changes from w22: the probe in the main loop ([`next_landed`]); a second kernel runs the same
//!       loop on w21's 128 × 256 tile (`w23_wide`), promoted in halves, for small products.
//! Bottleneck: ncu on w22 (8192³) had 6 % of its consumer warps' samples on the barrier's
//!       answer; cuBLASLt's promoting kernel asks before its wait for the `wgmma`, as here.
//! Cost: one `mbarrier.test_wait` per k tile; no register.
//! Requires: as w14; K and N multiples of 16.
//! Result: 98.3 / 101.5 % of cuBLASLt's bf16-out FP8 at 8192³ / 4096³ (wide), H200, 2026-11-29.
//!
//! More: docs/lessons.md#w23

use super::hopper;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::{PipelineState, SharedLayout};
use super::hopper::{ATOM_BYTES, M64n128, M64n192, M64n256, Shape, promote};
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::issue_half;
use crate::device::tma::{mbarrier_test_wait, mbarrier_wait};
use crate::device::wgmma::{
    self, M64N128_ACC, M64N192_ACC, descriptor, mma_m64n192k32_e4m3, mma_m64n192k32_e4m3_fresh,
    wait_group_for_m64n192,
};
use crate::unroll;
use common::gemm::w23::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use common::gemm::w23_wide;
use kernel_macros::kernel;

hopper::shape!(W23 = w23, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);
hopper::shape!(W23Wide = w23_wide, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_bf16_out);

/// The probe: whether the k tile after `state`'s has landed in its stage (its "full"
/// barrier's phase for that lap has completed), asked without waiting. Past a unit's last k
/// tile it asks a barrier that exists, and the answer goes unused.
///
/// # Safety
/// The barriers are initialized.
#[inline(always)]
unsafe fn next_landed<S: Shape>(smem: &SharedLayout<S>, state: &PipelineState<S>) -> bool {
    let next = state.next();
    // SAFETY: an initialized barrier (the caller's).
    unsafe { mbarrier_test_wait(smem.full(next.index()), next.phase()) }
}

/// w22's main loop with the probe: waits for a k tile's stage only where the probe under the
/// k tile before did not see it full; issues its four `wgmma` m64n192k32 into `partial`, asks
/// for the next k tile, waits for the `wgmma`, releases the stage and promotes.
///
/// # Safety
/// As [`Consumer::mma_k_tiles`]: every thread of the warpgroup calls it, the barriers are
/// initialized and the producer loads the same k tiles, in order.
#[inline(always)]
unsafe fn mma_k_tiles_probed<S: Shape<Acc = M64n192>>(
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
    // Whether this k tile's stage was seen full by the probe under the k tile before.
    let mut landed = false;
    for _ in k_begin..k_end {
        let s = state.index();
        if !landed {
            // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
            unsafe { mbarrier_wait(smem.full(s), state.phase()) };
        }
        // The fence keeps these `wgmma` behind the previous k tile's reads of `partial`.
        wgmma::fence();
        unroll!(4, kk => {
            let a_desc = consumer.a_descriptor(s, kk as u32);
            // Bᵀ's 192 columns are 128-byte rows; a k32 step is 32 bytes along each.
            let b_desc = descriptor(smem.b_stage(s) + kk as u32 * S::MMA_K * S::INPUT_BYTES, 0, ATOM_BYTES);
            // SAFETY: the whole warpgroup, after the fence; the stage stays full until this
            // warpgroup releases it below, after the wait.
            unsafe {
                if kk == 0 {
                    mma_m64n192k32_e4m3_fresh(&mut partial, a_desc, b_desc)
                } else {
                    mma_m64n192k32_e4m3(&mut partial, a_desc, b_desc)
                }
            };
        });
        wgmma::commit_group();
        // SAFETY: initialized barriers.
        landed = unsafe { next_landed(smem, state) };
        // The wait names the partial's registers, so that no addition reads them before it.
        wait_group_for_m64n192::<0>(&mut partial);
        release(s);
        promote(acc, 0, &partial);
        state.advance();
    }
}

/// w15's main loop (w21's 128 × 256 tile, promoted a column half at a time) with the probe,
/// asked once the second half's `wgmma` are committed.
///
/// # Safety
/// As [`mma_k_tiles_probed`].
#[inline(always)]
unsafe fn mma_k_tiles_promoted_probed<S: Shape<Acc = M64n256>>(
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
    let mut landed = false;
    for _ in k_begin..k_end {
        let s = state.index();
        if !landed {
            // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
            unsafe { mbarrier_wait(smem.full(s), state.phase()) };
        }
        unroll!(2, half => {
            // SAFETY: the whole warpgroup; the stage stays full until this warpgroup
            // releases it below.
            unsafe { issue_half(consumer, s, half as u32, &mut partial) };
            wgmma::commit_group();
            if half == 1 {
                // SAFETY: initialized barriers.
                landed = unsafe { next_landed(smem, state) };
            }
            wgmma::wait_group::<0>();
            // The promotion: this half's 64 accumulators take the partial sums.
            promote(acc, half * M64N128_ACC, &partial);
        });
        release(s);
        state.advance();
    }
}

/// The kernel on w22's 128 × 192 tile.
mod on_full_partial {
    use super::*;
    // w08's kernel on w22's shape, with the probed main loop; w21's bf16 epilogue.
    trimmed_gemm_for!(W23, |consumer, state, k_tiles, acc, release| mma_k_tiles_probed(
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
    trimmed_gemm_for!(W23Wide, |consumer, state, k_tiles, acc, release| mma_k_tiles_promoted_probed(
        consumer, state, 0, k_tiles, acc, release
    ));
    hopper::fp8_entry_point!(
        trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w23_fp8_probe_wide_e4m3
    );
}

// One m64n192 accumulator holds a warpgroup's piece of w22's tile; two m64n128 halves w21's.
const _: () = assert!(w23::BN == 2 * M64N192_ACC as u32 && w23_wide::BN == 4 * M64N128_ACC as u32);
