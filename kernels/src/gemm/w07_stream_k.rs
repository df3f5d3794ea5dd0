//! Step w07 — stream-K: the last partial wave split along K, so that every cluster ends together.
//!
//! Idea: at 4096³ w06 runs 256 units on 66 clusters: three full waves and a fourth in which 8
//!       clusters idle. Here the whole waves run as before, and the k tiles of the units left
//!       over are laid end to end and cut into equal shares, one per cluster
//!       ([`common::gemm::stream_k::StreamK`]). A cut unit's *owner* waits for the flags of its
//!       *contributors*, adds the partial tiles they left in a workspace, and stores the unit.
//! Changes from w06: the walk (pieces of units instead of units, the same for producer and
//!       consumers), the partial/owner paths after the main loop (`Workspace::fix_up`), a
//!       seventh argument (the workspace), a grid of every cluster that fits.
//! Bottleneck: the partial tile's round trip (the contributor's stores and fence, the owner's
//!       reads) on the consumers' path, and clusters at different k in the stream-K phase.
//! Cost: as w06 (168 registers at entry, no spills), plus a 17 MB workspace (a 128 KB
//!       partial tile and a flag per block), zeroed once.
//! Requires: as w06; every block of the grid resident at once (an owner waits for others).
//! Result: 101.8 % of cuBLAS f16 at 8192³ (4096³: 94.8, w06 99.4), H200, 2026-11-23.
//!
//! More: docs/lessons.md#w07

use super::hopper::epilogue::{Epilogue, wait_written};
use super::hopper::mainloop::{Consumer, Producer, Units};
use super::hopper::pipeline::{PipelineState, SharedLayout, consumer_release, is_producer};
use super::hopper::stream_k::{StreamKShape, Workspace};
use super::hopper::{self, Accumulator, M64n256, Reallocate, Shape};
use crate::device::cluster::{cluster_count, cluster_idx, cluster_sync};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::wgmma::{claim_registers, release_registers};
use common::gemm::stream_k::{ShareOrder, StreamK};
use common::gemm::w07::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W07 = w07, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

/// `C = A · B` as w06 computes it, with the last partial wave shared along K.
///
/// # Safety
/// As w06, with `workspace` holding `w07::workspace_bytes(blocks)` bytes for the launch's
/// `blocks`, its flags zero (as the previous launch left them), and every cluster of the
/// grid resident at once.
#[inline(always)]
unsafe fn stream_k_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    type S = W07;
    let smem = SharedLayout::<S>::new();
    let tid = thread_idx();
    let units = Units::<S>::new(m, n);
    let k_tiles = k.div_ceil(S::BK);
    let schedule = StreamK::new(units.count(), k_tiles, cluster_count(), S::MAX_SPLIT, ShareOrder::Offsets);
    let cluster = cluster_idx();
    let workspace = Workspace::<S>::new(workspace, schedule.clusters);

    if tid == 0 {
        smem.init_barriers();
    }
    cluster_sync();

    if is_producer::<S>(tid) {
        release_registers::<PRODUCER_REGISTERS>();
        if tid == S::PRODUCER_THREAD {
            let producer = Producer::new(smem, a_map, b_map);
            let mut state = PipelineState::start();
            for piece in schedule.pieces(cluster) {
                // SAFETY: as w06; both blocks of the pair walk the same pieces, so their
                // stages stay in step.
                unsafe {
                    producer.load_k_tiles(&mut state, units.origin(piece.unit), piece.k_begin, piece.k_end)
                };
            }
        }
    } else {
        claim_registers::<CONSUMER_REGISTERS>();
        let lane = tid % WARP_SIZE;
        // Stage s is free in this warp: lane 0 tells both blocks of the pair.
        let empty = |s: u32| smem.empty(s);
        let release = consumer_release::<S>(&lane, &empty);
        let consumer = Consumer::new(&smem, tid);
        let epilogue = Epilogue::new(smem, c_map, tid);
        let mut state = PipelineState::start();
        for piece in schedule.pieces(cluster) {
            let origin = units.origin(piece.unit);
            let mut acc = M64n256::zeroed();
            // SAFETY: the whole warpgroup, in step with the producer; w07's fix-up with the
            // schedule's role for the piece; then w05's epilogue.
            unsafe {
                consumer.mma_k_tiles::<BF16>(&mut state, piece.k_begin, piece.k_end, &mut acc, &release);
                if workspace.fix_up(piece.role, cluster, tid, &mut acc) {
                    epilogue.store_tile(&acc, origin);
                }
            }
        }
        wait_written(tid);
    }
    cluster_sync();
}

hopper::entry_points!(
    stream_k_gemm(
        a_map: *const u8,
        b_map: *const u8,
        c_map: *const u8,
        m: u32,
        n: u32,
        k: u32,
        workspace: *mut f32
    ) => w07_stream_k_f16, w07_stream_k_bf16
);
