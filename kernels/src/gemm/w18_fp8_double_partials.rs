//! Step w18 — two partial tiles: each k tile's sums are added while the next one's run.
//!
//! Idea: with two partial tiles the wait leaves the critical path: issue k tile t into one,
//!       wait only for k tile t − 1's group and add the other while t's `wgmma` run. The
//!       accumulators and two partials fit a consumer thread only on w09's 128 × 128 tile
//!       (64 + 2 × 64 registers), the tile cuBLASLt's promoting FP8 kernel runs.
//! Changes from w15: the tile (w09's 128 × 128, six 32 KB stages, `wgmma` m64n128k32) and
//!       the main loop ([`mma_k_tiles_double_partials`]).
//! Bottleneck: the tile: twice w15's operand bytes per FLOP, which costs more than the wait
//!       did.
//! Cost: twice the L2 reads per FLOP of w15's tile; 192 registers of sums per thread.
//! Requires: as w14.
//! Result: 88.6 / 83.0 % of cuBLASLt FP8 (promoting) at 4096³ / 8192³, H100, 2026-11-27.
//!
//! More: docs/lessons.md#w18

use super::hopper;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::PipelineState;
use super::hopper::{M64n128, Shape};
use super::w08_latency_trims::trimmed_gemm_for;
use crate::device::tma::mbarrier_wait;
use crate::device::wgmma::{self, M64N128_ACC, descriptor, mma_m64n128k32_e4m3, mma_m64n128k32_e4m3_fresh};
use crate::unroll;
use common::gemm::w18::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W18 = w18, hopper::M64n128, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// Issues k tile `state`'s four `wgmma` m64n128k32 into `partial` (the first overwrites it)
/// after waiting until its stage is full, and commits them as one group.
///
/// # Safety
/// The whole warpgroup; the stage stays full until this warpgroup releases it.
#[inline(always)]
unsafe fn issue<S: Shape>(consumer: &Consumer<S>, state: PipelineState<S>, partial: &mut M64n128) {
    let smem = consumer.smem();
    let s = state.index();
    // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
    unsafe { mbarrier_wait(smem.full(s), state.phase()) };
    // The additions read `partial`: fence before `wgmma` writes it again.
    wgmma::fence();
    unroll!(4, kk => {
        let a_desc = consumer.a_descriptor(s, kk as u32);
        let b_desc = descriptor(smem.b_stage(s) + kk as u32 * S::MMA_K * S::INPUT_BYTES, 0, hopper::ATOM_BYTES);
        // SAFETY: the whole warpgroup, after the fence (the caller's contract).
        unsafe {
            if kk == 0 {
                mma_m64n128k32_e4m3_fresh(partial, a_desc, b_desc)
            } else {
                mma_m64n128k32_e4m3(partial, a_desc, b_desc)
            }
        };
    });
    wgmma::commit_group();
}

/// The promotion of a finished partial tile: `acc += partial`, then k tile `done`'s stage is
/// released.
#[inline(always)]
fn promote<S: Shape>(acc: &mut M64n128, partial: &M64n128, done: PipelineState<S>, release: &impl Fn(u32)) {
    hopper::promote(acc, 0, partial);
    release(done.index());
}

/// The main loop over k tiles `k_begin..k_end` of one tile, into `acc` (zero before a unit's
/// first k tile), with two partial tiles `a` and `b` taking the k tiles in turn: issue k tile
/// t into one, wait until only that group is in flight (k tile t − 1's has finished), add the
/// other into `acc` and release t − 1's stage. Pairs of k tiles keep each partial in its own
/// registers; an odd last k tile and the last promotion follow the loop.
///
/// # Safety
/// As [`Consumer::mma_k_tiles`]: every thread of the warpgroup calls it, the barriers are
/// initialized and the producer loads the same k tiles, in order.
#[inline(always)]
unsafe fn mma_k_tiles_double_partials<S: Shape<Acc = M64n128>>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    k_begin: u32,
    k_end: u32,
    acc: &mut M64n128,
    release: &impl Fn(u32),
) {
    if k_begin == k_end {
        return;
    }
    // Each written by a `_fresh` `wgmma` before it is read.
    let (mut a, mut b): (M64n128, M64n128) = ([0.0; M64N128_ACC], [0.0; M64N128_ACC]);
    // SAFETY (each `issue`): the caller's contract; k tiles in order, each stage released
    // once its group has finished.
    unsafe { issue(consumer, *state, &mut a) };
    state.advance();
    let mut t = k_begin + 1;
    while t + 1 < k_end {
        unsafe { issue(consumer, *state, &mut b) };
        wgmma::wait_group_for_m64n128::<1>(&mut a);
        promote(acc, &a, state.previous(), release);
        state.advance();
        unsafe { issue(consumer, *state, &mut a) };
        wgmma::wait_group_for_m64n128::<1>(&mut b);
        promote(acc, &b, state.previous(), release);
        state.advance();
        t += 2;
    }
    if t < k_end {
        unsafe { issue(consumer, *state, &mut b) };
        wgmma::wait_group_for_m64n128::<1>(&mut a);
        promote(acc, &a, state.previous(), release);
        state.advance();
        wgmma::wait_group_for_m64n128::<0>(&mut b);
        promote(acc, &b, state.previous(), release);
    } else {
        wgmma::wait_group_for_m64n128::<0>(&mut a);
        promote(acc, &a, state.previous(), release);
    }
}

trimmed_gemm_for!(W18, |consumer, state, k_tiles, acc, release| mma_k_tiles_double_partials(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w18_fp8_double_partials_e4m3
);

// One m64n128 `wgmma` covers a consumer warpgroup's 64 × 128 piece of the tile.
const _: () = assert!(w18::BN == 2 * M64N128_ACC as u32 && w18::CONSUMER_WARPGROUPS * 64 == w18::BM);
