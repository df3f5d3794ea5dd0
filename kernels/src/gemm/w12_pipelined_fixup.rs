//! Step w12 — the partial tile's round trip off the consumers' path, through the pipeline.
//!
//! Idea: in w11 a contributor's consumers wait for a GPU-wide fence before raising the flag,
//!       and an owner reads 128 KB back from L2 after its last k tile. Here the owner's
//!       producer waits for the flag and sends each partial down the pipeline behind the last
//!       k tile, three stages as if more k tiles; the consumers add them from shared memory.
//!       A contributor's consumers only arrive at a barrier; an idle producer warp fences.
//! Changes from w11: the flag wait and the partial's copies move to the producer, the
//!       owner's fix-up reads stages (fenced before each goes back to the copy engine), the
//!       contributor's barrier becomes an arrival, a second producer warp raises the flags.
//! Bottleneck: at 4096³ the round trips still cost more than the last wave leaves.
//! Cost: 168 registers at entry, no spills, 225 KB of shared memory, the 17 MB workspace.
//! Requires: as w11.
//! Result: 102.4 % of cuBLAS f16 at 8192³ (4096³: 97.7), H200, 2026-11-23.
//!
//! The kernel is written once, `pipelined_fixup_gemm_for!`, for a shape and a schedule:
//! w13 is this step with its schedule's shares first.
//!
//! More: docs/lessons.md#w12

use super::hopper;
use common::gemm::w12::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W12 = w12, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

/// The producer warpgroup's warp that raises contributors' flags (warp 0's first thread
/// issues the copies), and the named barrier at which the consumers hand it a stored
/// partial (ids 1 and 2 are the consumer warpgroups' own, in the epilogue).
pub(super) const FLAG_WARP: u32 = 1;
pub(super) const PARTIAL_BARRIER: u32 = 3;

/// Writes `pipelined_fixup_gemm`, `C = A · B` as w11 computes it with the partial tiles'
/// round trips off the consumers' path, for the shape `$shape` and with the schedule
/// `$schedule` ordered by `$order` (w13 writes it for its shape and order). A macro
/// rather than a generic function: each step's kernel is then compiled for its own
/// constants from the start, as a written-out copy would be.
macro_rules! pipelined_fixup_gemm_for {
    ($shape:ty, $schedule:ident => $order:expr) => {
        /// `C = A · B` as w11 computes it, with the partial tiles' round trips off the
        /// consumers' path.
        ///
        /// # Safety
        /// As w11 (`workspace` holding the step's `workspace_bytes(blocks)` bytes).
        #[inline(always)]
        unsafe fn pipelined_fixup_gemm<const BF16: bool>(
            a_map: *const u8,
            b_map: *const u8,
            c_map: *const u8,
            m: u32,
            n: u32,
            k: u32,
            workspace: *mut f32,
        ) {
            use common::gemm::stream_k::{Role, ShareOrder, StreamK};
            use $crate::device::cluster::{cluster_count, cluster_idx, cluster_sync, cluster_sync_relaxed};
            use $crate::device::index::{WARP_SIZE, thread_idx};
            use $crate::device::shared::SharedArray;
            use $crate::device::sync::{arrive_named, sync_named, sync_warp};
            use $crate::device::tma::{copy_bulk, fence_proxy_async_global, mbarrier_wait, prefetch_tensor_map};
            use $crate::device::wgmma::fence_proxy_async_shared;
            use $crate::gemm::hopper::epilogue::{Epilogue, wait_read};
            use $crate::gemm::hopper::mainloop::{Consumer, Producer, Units};
            use $crate::gemm::hopper::pipeline::{PipelineState, SharedLayout, consumer_release, is_producer};
            use $crate::gemm::hopper::stream_k::{PIECE_BYTES, PIECE_FLOATS, StreamKShape, Workspace};
            use $crate::gemm::hopper::{Accumulator, Registers, Shape};
            use $crate::gemm::w12_pipelined_fixup::{FLAG_WARP, PARTIAL_BARRIER};
            use $crate::unroll;
            type S = $shape;
            // A partial tile (128 KB) reaches its owner in whole stages: chunks of 12 pieces
            // per consumer thread (48 KB, contiguous in the workspace), the third one 8
            // pieces. Three stages, not four 32 KB ones: the three stages that the owner's
            // consumers release before their last k tile can hold the whole partial, so no
            // chunk waits for the stage of the last k tile to be released.
            const CHUNK_PIECES: u32 = <S as Shape>::STAGE_BYTES / (<S as Shape>::CONSUMER_THREADS * PIECE_BYTES);
            const CHUNKS: u32 = <S as StreamKShape>::ACC_PIECES.div_ceil(CHUNK_PIECES);
            const _: () = assert!(CHUNK_PIECES == 12 && CHUNKS == 3 && CHUNKS < <S as Shape>::STAGES);
            // 16-byte pieces per consumer thread in chunk `chunk` of a partial tile.
            let chunk_pieces = |chunk: u32| {
                let left = <S as StreamKShape>::ACC_PIECES - chunk * CHUNK_PIECES;
                if left < CHUNK_PIECES { left } else { CHUNK_PIECES }
            };
            const PARTIAL_BARRIER_THREADS: u32 = <S as Shape>::CONSUMER_THREADS + WARP_SIZE;

            let smem = SharedLayout::<S>::new();
            let tid = thread_idx();
            let units = Units::<S>::new(m, n);
            let k_tiles = k.div_ceil(S::BK);
            let $schedule =
                StreamK::new(units.count(), k_tiles, cluster_count(), S::MAX_SPLIT, ShareOrder::KAligned);
            let schedule = $order;
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
                <S as Shape>::Registers::producer();
                let producer_thread = tid - S::PRODUCER_THREAD;
                if producer_thread == 0 {
                    let producer = Producer::new(smem, a_map, b_map);
                    let mut state = PipelineState::start();
                    for piece in schedule.pieces(cluster) {
                        // SAFETY: as w11.
                        unsafe { producer.load_k_tiles(&mut state, units.origin(piece.unit), piece.k_begin, piece.k_end) };
                        // An owner's contributors' partials follow its last k tile down the
                        // pipeline, a chunk per stage (both blocks of the pair own the unit,
                        // so both send the same number of chunks and their stages stay in
                        // step).
                        if let Role::Owner { first, contributors } = piece.role {
                            for j in first..first + contributors {
                                // SAFETY: cluster j contributes to this unit.
                                unsafe { workspace.take_flag(j) };
                                fence_proxy_async_global();
                                for chunk in 0..CHUNKS {
                                    let bytes = chunk_pieces(chunk) * S::CONSUMER_THREADS * PIECE_BYTES;
                                    // SAFETY: stage s as for a k tile; the chunk lies inside
                                    // the contributor's partial, written and flagged before
                                    // the acquire above, and fits in the stage.
                                    unsafe {
                                        let s = smem.producer_acquire(state, bytes);
                                        let src = workspace
                                            .partial(j)
                                            .add((chunk * CHUNK_PIECES * S::CONSUMER_THREADS * PIECE_FLOATS) as usize);
                                        copy_bulk(smem.a_stage(s), src as *const u8, bytes, smem.full(s));
                                    }
                                    state.advance();
                                }
                            }
                        }
                    }
                } else if producer_thread / WARP_SIZE == FLAG_WARP {
                    // A contributor's consumers arrive here after storing the partial (once
                    // at most): raise the flag for them, fenced so that the owner who sees
                    // it sees the partial.
                    if schedule.contributes(cluster) {
                        sync_named(PARTIAL_BARRIER, PARTIAL_BARRIER_THREADS);
                        if producer_thread % WARP_SIZE == 0 {
                            // SAFETY: after every consumer's partial stores (the barrier).
                            unsafe { workspace.raise_flag(cluster) };
                        }
                    }
                }
            } else {
                <S as Shape>::Registers::consumers();
                let lane = tid % WARP_SIZE;
                // Stage s is free in this warp: lane 0 tells both blocks of the pair.
                let empty = |s: u32| smem.empty(s);
                let release = consumer_release::<S>(&lane, &empty);
                let consumer = Consumer::new(&smem, tid);
                let epilogue = Epilogue::new(smem, c_map, tid);
                let mut state = PipelineState::start();
                for piece in schedule.pieces(cluster) {
                    let origin = units.origin(piece.unit);
                    let mut acc = <S as Shape>::Acc::zeroed();
                    // SAFETY: the whole warpgroup, in step with the producer.
                    unsafe { consumer.mma_k_tiles::<BF16>(&mut state, piece.k_begin, piece.k_end, &mut acc, &release) };

                    match piece.role {
                        Role::Contributor => {
                            // Leave the partial tile for the owner and hand it to the flag
                            // warp.
                            // SAFETY: this block's partial, written once per launch.
                            unsafe { workspace.store_partial(cluster, tid, &acc) };
                            arrive_named(PARTIAL_BARRIER, PARTIAL_BARRIER_THREADS);
                            continue;
                        }
                        Role::Owner { first, contributors } => {
                            // Each contributor's partial arrives in the next CHUNKS stages.
                            // (The loops are written out, their bounds constant, so that
                            // `acc` is only ever indexed by constants.)
                            for _ in first..first + contributors {
                                unroll!(4, chunk => {
                                    let chunk = chunk as u32;
                                    if chunk < CHUNKS {
                                        let s = state.index();
                                        // SAFETY: an initialized barrier; this phase completes
                                        // when the producer's copy of the chunk has landed.
                                        unsafe { mbarrier_wait(smem.full(s), state.phase()) };
                                        // SAFETY: the chunk, laid out as the contributor
                                        // stored it.
                                        let stage: SharedArray<f32> = unsafe { SharedArray::from_address(smem.a_stage(s)) };
                                        unroll!(4, a => {
                                            unroll!(4, b => {
                                                let p = (a * 4 + b) as u32;
                                                if p < chunk_pieces(chunk) {
                                                    let i = (chunk * CHUNK_PIECES + p) as usize;
                                                    // SAFETY: piece p of this thread's slot,
                                                    // inside the chunk.
                                                    let v = unsafe { stage.load_v4((p * S::CONSUMER_THREADS + tid) * PIECE_FLOATS) };
                                                    for e in 0..4 {
                                                        acc[4 * i + e] += v[e];
                                                    }
                                                }
                                            });
                                        });
                                        // The copy engine (the async proxy) will write this
                                        // stage next: order this thread's ordinary reads of
                                        // it before that, then every lane's before lane 0
                                        // frees the stage.
                                        fence_proxy_async_shared();
                                        sync_warp(u32::MAX);
                                        release(s);
                                        state.advance();
                                    }
                                });
                            }
                        }
                        Role::Whole => {}
                    }

                    // The epilogue: w05's.
                    // SAFETY: the whole warpgroup, with the tile's accumulators.
                    unsafe { epilogue.store_tile(&acc, origin) };
                }
                // C's last boxes are read out of shared memory before the block exits.
                wait_read(tid);
            }
            cluster_sync();
        }
    };
}
pub(super) use pipelined_fixup_gemm_for;

pipelined_fixup_gemm_for!(W12, schedule => schedule);

hopper::entry_points!(
    pipelined_fixup_gemm(
        a_map: *const u8,
        b_map: *const u8,
        c_map: *const u8,
        m: u32,
        n: u32,
        k: u32,
        workspace: *mut f32
    ) => w12_pipelined_fixup_f16, w12_pipelined_fixup_bf16
);
