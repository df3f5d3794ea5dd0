//! Step t15 — stream-K with the clusters in step: every cluster reads the same k tiles at
//! the same time in the stream-K phase too, so the L2 serves the A and B tiles that
//! neighbouring units share.
//!
//! Idea: in t11's stream-K phase, cluster c's share begins part-way into a unit (at k tile
//!       s_c, a different s for every cluster), runs to that unit's end, then starts the
//!       next unit at k tile 0. In the data-parallel waves, the clusters working on the
//!       units of one group start together and advance together, so each k tile of a row
//!       of A (or a column of B) comes from DRAM once and is then read from L2 by the
//!       other clusters of that row (column); in t11's stream-K phase no two clusters are
//!       at the same k at the same time, and its pieces ran 23 % slower per k tile than
//!       the waves before (H100, 4096³, a timeline of every piece). Here a share runs its
//!       two pieces the other way round ([`ShareOrder::KAligned`]): first the start of the
//!       next unit, k tiles 0, 1, 2, … (every cluster at k tile t at time t), then the end
//!       of the first, from s_c, which is the same distance ahead (k_tiles − the share's
//!       length, equal for all clusters to one tile) for every cluster: at any moment the
//!       clusters read one of two k tiles, a few microseconds apart. The owner of a cut
//!       unit is now the cluster that computes its *last* k tiles, in the second piece of
//!       its share; its contributors wrote their partials at the end of their first piece,
//!       long before (or, where shares are shorter than a unit, at the end of their whole
//!       share, about when the owner ends).
//!       Also t12's three trims (tensor maps prefetched, a relaxed cluster arrival at entry,
//!       a read-only wait for the last stores at exit), which t11 predates.
//! Changes from t11: the schedule's share order (`KAligned`; the owner's contributors are
//!       now the clusters before it), and t12's trims.
//! Cost: as t11: 168 registers at entry, the consumers at most 232, no spills; 225 KB of
//!       shared memory; a 17 MB workspace.
//! Requires: as t11.
//! Result (final run, 2026-11-23, % of cuBLAS f16 / bf16): 4096³ H100 95.5 / 95.3
//!       against t11's 92.0 / 91.0 (191.5 against 198.7 µs f16: about the 8.6 µs that the
//!       misaligned pieces lost, as the timeline had it), H200 96.1 / 95.8; still behind
//!       t12 (99.4–100.2). 4097 × 4096 × 4096 H100 90.2 / 91.7, H200 91.6 / 91.5 (t12 83–84);
//!       8192³ 102.2–102.5 on both; 2048³ 78–84 (t12 97–100). What is left at 4096³ is the
//!       partial tile's round trip: the contributor's store and fence, the owner's reads
//!       (t16). Verified on the awkward shapes (Rust and twin, f16 and bf16) on both GPUs;
//!       memcheck, racecheck, synccheck and initcheck clean.

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
use common::gemm::t15::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T15 = t15, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

/// `C = A · B` as t11 computes it, with each stream-K share's pieces in k order across
/// clusters.
///
/// # Safety
/// As t11 (`workspace` holding `t15::workspace_bytes(blocks)` bytes).
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
    type S = T15;
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
    ) => t15_aligned_stream_k_f16, t15_aligned_stream_k_bf16
);
