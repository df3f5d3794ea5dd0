//! Step t16 — the partial tile's round trip off the consumers' path: the owner receives
//! its contributors' partials through the operand pipeline, and a spare warp raises the
//! contributor's flag.
//!
//! Idea: in t15 each stream-K share costs its consumers two waits beside the arithmetic.
//!       A contributor stores its 128 KB partial tile and then, all 256 consumer threads
//!       met at a barrier, one of them issues `fence.acq_rel.gpu` and raises the flag: the
//!       fence waits until every store of the block has reached L2 (a few microseconds
//!       while 132 SMs store), and the warpgroup that thread belongs to waits with it before
//!       its next `wgmma`. An owner, after its last k tile, reads the partial back with 32
//!       `ld.global.cg` of 16 bytes per thread, which the 100 registers left beside the
//!       accumulators let through a few at a time: several L2 round trips in a row
//!       (together some 8 µs per share at 4096³ on the H100, t11's timeline). Here the
//!       owner's producer, which runs a few k tiles ahead, waits for the flag itself, and
//!       sends each partial down the pipeline behind the last k tile as if it were three
//!       more: a whole 48 KB stage each (the third 32 KB), one `cp.async.bulk` (a plain
//!       contiguous copy, no tensor map) completing on the stage's `full` barrier. The
//!       consumers add each chunk from shared memory (12 `ld.shared.v4` per thread and
//!       stage, no bank conflicts) and release the stage as after a k tile; the copies ran
//!       while they finished the unit. On the contributor's side the consumers store and
//!       only *arrive* at a named barrier (`bar.arrive`); a warp of the producer
//!       warpgroup, idle until now, waits there, then fences and raises the flag.
//! Changes from t15: the flag wait and the partial's reads move to the producer (a
//!       `fence.proxy.async.global` after the acquire, so that the copy engine reads what the
//!       contributor wrote), the owner's fix-up reads stages (each thread fences its
//!       ordinary reads of a stage, `fence.proxy.async.shared::cta`, before the stage goes
//!       back to the copy engine); the contributor's barrier becomes an arrival, and a
//!       second producer warp raises the flags.
//! Cost: 168 registers at entry, no spills, 225 KB of shared memory, the 17 MB workspace
//!       (as t15). The flag warp asks the schedule only whether its cluster contributes
//!       (`StreamK::contributes`, one division): walking the whole schedule, as the other
//!       warps do, made ptxas keep a value of it on the stack. (At the 168-register cap
//!       such spills come and go with small changes to the schedule's code: t15's twin
//!       keeps 4 bytes there, reloaded per piece outside the k loop.) Each partial takes
//!       three passes through the pipeline.
//! Requires: as t15.
//! Result (final run, 2026-11-23, % of cuBLAS f16 / bf16): the best of the stream-K
//!       steps. 4097 × 4096 × 4096 H100 90.4 / 92.0, H200 91.9 / 91.9 (the ladder's best
//!       there; t12 83–84); 8192³ H100 102.3 / 102.6, H200 102.4 / 102.7 (the ladder's
//!       best); 4096³ H100 97.3 / 96.7 (187.9 µs f16 against t15's 191.5), H200 97.7 / 97.6,
//!       still behind t12's 99.4–100.2; 2048³ 82–86 (every unit cut, so the round trip is
//!       all there is). The timing rounds of `device-run.sh stream-k` on each GPU agree with
//!       these to ±0.5 %. Verified on the
//!       awkward shapes (Rust and twin, f16 and bf16) on both GPUs; memcheck, synccheck,
//!       initcheck clean; racecheck clean when this step's test runs in a process of its
//!       own (its fix-up reads fill racecheck's raw-hazard buffer: `RACECHECK_ALONE`).

use super::hopper;
use common::gemm::t16::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T16 = t16, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

/// The producer warpgroup's warp that raises contributors' flags (warp 0's first thread
/// issues the copies), and the named barrier at which the consumers hand it a stored
/// partial (ids 1 and 2 are the consumer warpgroups' own, in the epilogue).
pub(super) const FLAG_WARP: u32 = 1;
pub(super) const PARTIAL_BARRIER: u32 = 3;

/// Writes `pipelined_fixup_gemm`, `C = A · B` as t15 computes it with the partial tiles'
/// round trips off the consumers' path, for the shape `$shape` and with the schedule
/// `$schedule` ordered by `$order` (t17 writes it for its shape and order). A macro
/// rather than a generic function: each step's kernel is then compiled for its own
/// constants from the start, as a written-out copy would be.
macro_rules! pipelined_fixup_gemm_for {
    ($shape:ty, $schedule:ident => $order:expr) => {
        /// `C = A · B` as t15 computes it, with the partial tiles' round trips off the
        /// consumers' path.
        ///
        /// # Safety
        /// As t15 (`workspace` holding the step's `workspace_bytes(blocks)` bytes).
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
            use $crate::gemm::t16_pipelined_fixup::{FLAG_WARP, PARTIAL_BARRIER};
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
                        // SAFETY: as t15.
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

                    // The epilogue: t09's.
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

pipelined_fixup_gemm_for!(T16, schedule => schedule);

hopper::entry_points!(
    pipelined_fixup_gemm(
        a_map: *const u8,
        b_map: *const u8,
        c_map: *const u8,
        m: u32,
        n: u32,
        k: u32,
        workspace: *mut f32
    ) => t16_pipelined_fixup_f16, t16_pipelined_fixup_bf16
);
