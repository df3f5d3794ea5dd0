//! Step t11 — stream-K: the work that does not fill a last wave is split along K, so
//! that every cluster finishes at the same time.
//!
//! Idea: t10 walks 256 × 256 units (a cluster pair's two tiles) in waves of one unit per
//!       cluster. At 4096³ that is 256 units on 66 clusters: three full waves and a fourth
//!       of 58 units, in which 8 clusters idle; at 1024³, 16 units for 66 clusters, one
//!       wave with 50 idle; every size whose units are not a multiple of the clusters
//!       loses part of a wave. Here the first ⌊units / clusters⌋ waves run as in t09, and
//!       the k tiles of the units left over are laid end to end and cut into equal
//!       shares, one per cluster ([`common::gemm::stream_k::StreamK`]; a unit is shared by at most
//!       4 clusters). A unit cut between clusters is finished by its *owner*, the cluster
//!       that computes its k tile 0: each other cluster that computed part of it (its
//!       *contributors*, for whom that part is the first piece of their share) writes its
//!       partial 128 × 256 accumulators to a workspace in global memory and raises a flag
//!       (`st.release.gpu`); the owner, whose part is the *last* piece of its share,
//!       waits for each flag (`ld.acquire.gpu`), adds the partials (`ld.global.cg`, from
//!       L2) and stores the tile through t09's epilogue. The owner resets each flag, so
//!       the workspace is ready for the next launch.
//! Changes from t10: the walk (pieces of units instead of whole units, the same sequence
//!       for producer and consumers), the partial/owner paths after the main loop, a
//!       seventh argument (the workspace: a partial tile and a flag per block), and a
//!       grid of all the clusters that fit even when there are fewer units.
//! Cost: as t10 (168 registers at entry, no spills), plus a 17 MB workspace (a 128 KB
//!       partial tile and a flag per block), zeroed once.
//! Requires: as t10; all blocks of the grid resident at once (the host launches at most
//!       what `cuOccupancyMaxActiveClusters` says fits): an owner waits for contributors.
//! Result (2026-11-23, % of cuBLAS f16 / bf16): the fastest step at 8192³ (H200 101.8 /
//!       102.4, H100 103.5 / 101.9) and with M = 4097 (H200 91.4 / 91.3, H100 89.6 / 92.0,
//!       against t10's 83.7 / 83.4); slower where the last wave is nearly full or the
//!       product small: 4096³ 94.8 / 94.5 (t10 99.4 / 98.9), 1024³ 43.4 (t10 49.5).

use super::hopper::epilogue::{Epilogue, wait_written};
use super::hopper::mainloop::{Consumer, Producer, Units};
use super::hopper::pipeline::{PipelineState, SharedLayout, consumer_release, is_producer};
use super::hopper::stream_k::{StreamKShape, Workspace};
use super::hopper::{self, Accumulator, M64n256, Reallocate, Shape};
use crate::device::cluster::{cluster_count, cluster_idx, cluster_sync};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::wgmma::{claim_registers, release_registers};
use common::gemm::stream_k::{ShareOrder, StreamK};
use common::gemm::t11::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T11 = t11, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

/// `C = A · B` as t10 computes it, with the last partial wave shared along K.
///
/// # Safety
/// As t10, with `workspace` holding `t11::workspace_bytes(blocks)` bytes for the launch's
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
    type S = T11;
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
                // SAFETY: as t10; both blocks of the pair walk the same pieces, so their
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
            // SAFETY: the whole warpgroup, in step with the producer; t11's fix-up with the
            // schedule's role for the piece; then t09's epilogue.
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
    ) => t11_stream_k_f16, t11_stream_k_bf16
);
