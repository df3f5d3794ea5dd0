//! Step w06 — register reallocation: the producer warpgroup gives its registers to the consumers.
//!
//! Idea: ptxas gives every thread of a block the same registers, sized for its warpgroups:
//!       w05's 288 threads get 168 each, the most the consumers can have. Here the producer is
//!       a whole warpgroup that lowers itself to 40 registers, and the two consumer warpgroups
//!       raise themselves to 232 (2 · 128 · 232 + 128 · 40 = 64512 of the SM's 65536), the room
//!       the later steps' stream-K bookkeeping needs beside the accumulators.
//! Changes from w05: 384 threads (`max_threads`, the cap `setmaxnreg` needs at the entry) and
//!       the two `setmaxnreg`, each at the top of its role; the rest is w05's machinery, named
//!       in `gemm::hopper`.
//! Bottleneck: as w05: alone it buys nothing, since w05's consumers did not spill.
//! Cost: 168 registers per thread at entry × 384 threads (then 232 / 40); w05's 225 KB of
//!       shared memory; one block per SM.
//! Requires: as w05.
//! Result: 99.4 % of cuBLAS f16 at 4096³ (bf16 98.9; w05 99.3 / 98.7), H200, 2026-11-23.
//!
//! More: docs/lessons.md#w06

use super::hopper::epilogue::{Epilogue, wait_written};
use super::hopper::mainloop::{Consumer, Producer, Units};
use super::hopper::pipeline::{PipelineState, SharedLayout, consumer_release, is_producer};
use super::hopper::{self, Accumulator, M64n256, Reallocate, Shape};
use crate::device::cluster::{cluster_count, cluster_idx, cluster_sync};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::wgmma::{claim_registers, release_registers};
use common::gemm::w06::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W06 = w06, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>);

/// `C = A · B` as w05 computes it, with the registers moved from producer to consumers.
///
/// # Safety
/// As w05, launched with `w06::THREADS` threads per block.
#[inline(always)]
unsafe fn reallocating_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
) {
    type S = W06;
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
            // SAFETY: the whole warpgroup, in step with the producer; then w05's epilogue.
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
        => w06_setmaxnreg_f16, w06_setmaxnreg_bf16
);
