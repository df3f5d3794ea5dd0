//! Step w17 — turns: one warpgroup promotes while the other's `wgmma` run.
//!
//! Idea: if w15's two consumer warpgroups issue together, their `wgmma` finish together and
//!       both add while the tensor cores idle. Make them take turns (two named barriers, as
//!       attention's a06): a warpgroup issues its half tile's `wgmma`, hands the turn over
//!       and waits; the other issues behind it, so `wgmma` are queued while one adds.
//! Changes from w15: each half tile's issue sits between `Turns::wait` and
//!       `Turns::hand_over` (opened and closed around each unit's k tiles).
//! Bottleneck: as w15's (0.99–1.01 ×): the warpgroups were not in step; each still waits
//!       for its own group before it adds.
//! Cost: two named barriers per half tile and warpgroup.
//! Requires: as w14.
//! Result: 98.3 / 94.9 % of cuBLASLt FP8 (promoting) at 4096³ / 8192³, H100, 2026-11-27.
//!
//! More: docs/lessons.md#w17

use super::hopper;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::PipelineState;
use super::hopper::{M64n128, M64n256, Shape, WARPGROUP};
use super::w15_fp8_promoted::issue_half;
use super::w08_latency_trims::trimmed_gemm_for;
use crate::device::index::thread_idx;
use crate::device::sync::Turns;
use crate::device::tma::mbarrier_wait;
use crate::device::wgmma::{self, M64N128_ACC};
use crate::unroll;
use common::gemm::w17::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS, TURN};
use kernel_macros::kernel;

hopper::shape!(W17 = w17, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// w15's main loop with the half tiles' `wgmma` issued in turns: for each k tile, waits until
/// its stage is full; for each half, waits for this warpgroup's turn, issues the four `wgmma`
/// into `partial`, hands the turn over, waits for them and adds `partial` into that half of
/// `acc`; then releases the stage. The turns open and close within the unit.
///
/// # Safety
/// As w15's main loop; both consumer warpgroups run it on the same units.
#[inline(always)]
unsafe fn mma_k_tiles_in_turns<S: Shape<Acc = M64n256>>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    k_begin: u32,
    k_end: u32,
    acc: &mut M64n256,
    release: &impl Fn(u32),
) {
    let smem = consumer.smem();
    let turns = Turns::<TURN>::new(thread_idx() / WARPGROUP);
    // Written by each half's first `wgmma` (`_fresh`) before it is read.
    let mut partial: M64n128 = [0.0; M64N128_ACC];
    turns.open();
    for _ in k_begin..k_end {
        let s = state.index();
        // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
        unsafe { mbarrier_wait(smem.full(s), state.phase()) };
        unroll!(2, half => {
            turns.wait();
            // SAFETY: the whole warpgroup; the stage stays full until this warpgroup
            // releases it below.
            unsafe { issue_half(consumer, s, half as u32, &mut partial) };
            wgmma::commit_group();
            turns.hand_over();
            wgmma::wait_group::<0>();
            // The promotion, as w15's.
            hopper::promote(acc, half * M64N128_ACC, &partial);
        });
        release(s);
        state.advance();
    }
    turns.close();
}

trimmed_gemm_for!(W17, |consumer, state, k_tiles, acc, release| mma_k_tiles_in_turns(
    consumer, state, 0, k_tiles, acc, release
));

hopper::fp8_entry_point!(
    trimmed_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32) => w17_fp8_turns_e4m3
);

// The turns take two named barriers past the epilogue's (one per consumer warpgroup).
const _: () = assert!(
    TURN >= hopper::epilogue::EPILOGUE_BARRIER + w17::CONSUMER_WARPGROUPS && w17::CONSUMER_WARPGROUPS == 2
);
