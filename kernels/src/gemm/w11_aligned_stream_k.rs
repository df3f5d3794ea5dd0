//! Step w11 — stream-K with the clusters in step: every cluster at the same k tile at once.
//!
//! Idea: in w07's stream-K phase each cluster's share starts part-way into a unit, at a k of
//!       its own, so no two clusters read the same A and B tiles together. Here a share runs
//!       its two pieces the other way round ([`ShareOrder::KAligned`]): the next unit from k
//!       tile 0 first, then the end of the first, the same distance ahead for every cluster.
//!       A cut unit's owner is now the cluster that computes its *last* k tiles.
//! Changes from w07: the schedule's share order (`KAligned`), and w08's three trims.
//! Bottleneck: the partial tile's round trip on the consumers' path (w12).
//! Cost: as w07: 168 registers at entry, the consumers at most 232, no spills; 225 KB of
//!       shared memory; a 17 MB workspace.
//! Requires: as w07.
//! Result: 96.1 % of cuBLAS f16 at 4096³ (w07 94.8, w08 100.2), H200, 2026-11-23.
//!
//! More: docs/lessons.md#w11

use super::hopper::epilogue::{Epilogue, wait_read};
use super::hopper::mainloop::{Consumer, Producer, Units};
use super::hopper::pipeline::{PipelineState, SharedLayout, consumer_release, is_producer};
use super::hopper::stream_k::{StreamKShape, Workspace};
use super::hopper::{self, Accumulator, M64n256, Reallocate, Shape};
use crate::device::cluster::{cluster_count, cluster_idx, cluster_sync, cluster_sync_relaxed};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::tma::prefetch_tensor_map;
use crate::device::wgmma::{claim_registers, release_registers};
use common::gemm::stream_k::{ShareOrder, StreamK};
use common::gemm::w11::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W11 = w11, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

/// `C = A · B` as w07 computes it, with each stream-K share's pieces in k order across
/// clusters.
///
/// # Safety
/// As w07 (`workspace` holding `w11::workspace_bytes(blocks)` bytes).
#[inline(always)]
unsafe fn aligned_stream_k_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    type S = W11;
    let smem = SharedLayout::<S>::new();
    let tid = thread_idx();
    let units = Units::<S>::new(m, n);
    let k_tiles = k.div_ceil(S::BK);
    let schedule = StreamK::new(units.count(), k_tiles, cluster_count(), S::MAX_SPLIT, ShareOrder::KAligned);
    let cluster = cluster_idx();
    let workspace = Workspace::<S>::new(workspace, schedule.clusters);

    if tid == S::PRODUCER_THREAD {
        // SAFETY: the maps' global addresses, as the launch passes them.
        unsafe {
            prefetch_tensor_map(a_map);
            prefetch_tensor_map(b_map);
            prefetch_tensor_map(c_map);
        }
    }
    if tid == 0 {
        smem.init_barriers();
    }
    // Relaxed: the fence above released the initialization.
    cluster_sync_relaxed();

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
        // C's last boxes are read out of shared memory before the block exits.
        wait_read(tid);
    }
    cluster_sync();
}

hopper::entry_points!(
    aligned_stream_k_gemm(
        a_map: *const u8,
        b_map: *const u8,
        c_map: *const u8,
        m: u32,
        n: u32,
        k: u32,
        workspace: *mut f32
    ) => w11_aligned_stream_k_f16, w11_aligned_stream_k_bf16
);
