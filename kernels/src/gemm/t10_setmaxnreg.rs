//! Step t10 — register reallocation: a whole producer warpgroup gives most of its
//! registers to the consumers (`setmaxnreg`).
//!
//! Idea: ptxas gives every thread of a block the same registers, sized for the block's
//!       warpgroups: with 288 threads it plans for three (65536 / 384 → 168 per thread).
//!       t09's consumers need 167 and its producer a few dozen, so the next step, which
//!       keeps its stream-K bookkeeping beside the accumulators, spilled at that cap. Here
//!       the producer is a whole warpgroup (384 threads; one of its threads still issues
//!       every copy), which starts by lowering itself to 40 registers
//!       (`setmaxnreg.dec.sync.aligned.u32 40`), and the two consumer warpgroups raise
//!       themselves to 232 (`setmaxnreg.inc…`), which waits until the producer's
//!       registers are free: 2 · 128 · 232 + 128 · 40 = 64512 of the SM's 65536. cuBLAS's
//!       kernel for these shapes is built the same way (384 threads, 168 registers at
//!       launch, ncu). By itself the step only makes room.
//! Changes from t09: 384 threads (`max_threads`, the cap `setmaxnreg` needs at the
//!       entry), the two `setmaxnreg`, each at the top of its role's branch.
//! Cost: 168 registers per thread at entry × 384 threads; after `setmaxnreg` the consumers
//!       hold up to 232 and the producer 40; t09's 225 KB of shared memory.
//! Requires: as t09.
//! Result (2026-11-23, % of cuBLAS f16 / bf16): level with t09 everywhere (H200 4096³ 99.4
//!       / 98.9 against 99.3 / 98.7, 8192³ 100.8 / 101.1; H100 4096³ 99.1 / 99.1): t09's
//!       consumers did not spill, so the extra registers buy nothing yet; they are the
//!       room the later steps grow into.

use super::hopper::epilogue::{Epilogue, wait_written};
use super::hopper::mainloop::{Consumer, Producer, Units};
use super::hopper::pipeline::{PipelineState, SharedLayout, consumer_release, is_producer};
use super::hopper::{self, Accumulator, M64n256, Reallocate, Shape};
use crate::device::cluster::{cluster_count, cluster_idx, cluster_sync};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::wgmma::{claim_registers, release_registers};
use common::gemm::t10::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T10 = t10, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>);

/// `C = A · B` as t09 computes it, with the registers moved from producer to consumers.
///
/// # Safety
/// As t09, launched with `t10::THREADS` threads per block.
#[inline(always)]
unsafe fn reallocating_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
) {
    type S = T10;
    let smem = SharedLayout::<S>::new();
    let tid = thread_idx();
    let units = Units::<S>::new(m, n);
    let k_tiles = k.div_ceil(S::BK);

    if tid == 0 {
        smem.init_barriers();
    }
    // The partner's copies complete on this block's "full" barriers and its consumers
    // arrive on the "empty" ones: both blocks' barriers must exist before either starts.
    cluster_sync();

    if is_producer::<S>(tid) {
        release_registers::<PRODUCER_REGISTERS>();
        // The producer warpgroup's first thread issues every copy.
        if tid == S::PRODUCER_THREAD {
            let producer = Producer::new(smem, a_map, b_map);
            let mut state = PipelineState::start();
            let mut unit = cluster_idx();
            while unit < units.count() {
                // SAFETY: initialized barriers; both blocks of the pair walk the same units.
                unsafe { producer.load_k_tiles(&mut state, units.origin(unit), 0, k_tiles) };
                unit += cluster_count();
            }
        }
    } else {
        claim_registers::<CONSUMER_REGISTERS>();
        let lane = tid % WARP_SIZE;
        // Stage s is free in this warp: lane 0 tells both blocks of the pair.
        let empty = |s: u32| smem.empty(s);
        let release = consumer_release::<S>(&lane, &empty);
        let consumer = Consumer::new(&smem, tid);
        let mut state = PipelineState::start();
        let mut unit = cluster_idx();
        while unit < units.count() {
            let origin = units.origin(unit);
            let mut acc = M64n256::zeroed();
            let epilogue = Epilogue::new(smem, c_map, tid);
            // SAFETY: the whole warpgroup, in step with the producer; then t09's epilogue.
            unsafe {
                consumer.mma_k_tiles::<BF16>(&mut state, 0, k_tiles, &mut acc, &release);
                epilogue.store_tile(&acc, origin);
            }
            unit += cluster_count();
        }
        // C's last boxes are written before the block exits.
        wait_written(tid);
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

hopper::entry_points!(
    reallocating_gemm(a_map: *const u8, b_map: *const u8, c_map: *const u8, m: u32, n: u32, k: u32)
        => t10_setmaxnreg_f16, t10_setmaxnreg_bf16
);
