// twins/pipelined_fixup_gemm.cuh: w12's kernel, pipelined_fixup_gemm<S, SHARES_FIRST, BF16>, which
// the twins of w12 and w13 instantiate (w13 with its schedule's shares first), as the Rust writes
// it once in w12_pipelined_fixup.rs (pipelined_fixup_gemm_for!) for W12 and W13. A header because
// NVRTC hands a twin no other file than the headers twins/*.cuh; w12's card
// (twins/gemm/w12_pipelined_fixup.cu and its Rust step) says what it changes over w11.
#pragma once
#include "hopper_gemm.cuh"

namespace w12 {
using namespace hopper;

// The producer warpgroup's warp that raises contributors' flags (warp 0's first thread issues
// the copies), and the named barrier at which the consumers hand it a stored partial (ids 1 and
// 2 are the consumer warpgroups' own, in the epilogue).
constexpr unsigned FLAG_WARP = 1;
constexpr unsigned PARTIAL_BARRIER = 3;

// C = A * B as w11 computes it, with the partial tiles' round trips off the consumers' path, for
// the shape S, its schedule run with the shares first when SHARES_FIRST (w13); launched with
// S's THREADS and SHARED_BYTES and a workspace of S's workspace_bytes(blocks).
template <class S, bool SHARES_FIRST, bool BF16>
__device__ __forceinline__ void pipelined_fixup_gemm(const void* a_map, const void* b_map, const void* c_map,
                                                     unsigned m, unsigned n, unsigned k, float* workspace_) {
    // A partial tile (128 KB) reaches its owner in whole stages: chunks of 12 pieces per consumer
    // thread (48 KB, contiguous in the workspace), the third one 8 pieces. Three stages, not four
    // 32 KB ones: the three stages that the owner's consumers release before their last k tile
    // can hold the whole partial, so no chunk waits for the stage of the last k tile to be
    // released.
    constexpr unsigned CHUNK_PIECES = S::STAGE_BYTES / (S::CONSUMER_THREADS * PIECE_BYTES);
    constexpr unsigned CHUNKS = (ACC_PIECES + CHUNK_PIECES - 1) / CHUNK_PIECES;
    static_assert(CHUNK_PIECES == 12 && CHUNKS == 3 && CHUNKS < S::STAGES, "a partial in three stages");
    // 16-byte pieces per consumer thread in chunk `chunk` of a partial tile.
    auto chunk_pieces = [](unsigned chunk) {
        return ACC_PIECES - chunk * CHUNK_PIECES < CHUNK_PIECES ? ACC_PIECES - chunk * CHUNK_PIECES : CHUNK_PIECES;
    };
    constexpr unsigned PARTIAL_BARRIER_THREADS = S::CONSUMER_THREADS + WARP_SIZE;

    const SharedLayout<S> smem;
    const unsigned tid = threadIdx.x;
    const unsigned k_tiles = div_ceil(k, S::BK);
    const Units<S> units(m, n);
    const StreamK scheduled(units.count(), k_tiles, cluster_count(), S::MAX_SPLIT, ShareOrder::KAligned);
    const StreamK schedule = SHARES_FIRST ? scheduled.with_shares_first() : scheduled;
    const unsigned cluster = cluster_idx();
    const Workspace<S> workspace(workspace_, schedule.clusters, units.rank);

    if (tid == S::PRODUCER_THREAD) {
        prefetch_tensor_map(a_map);
        prefetch_tensor_map(b_map);
        prefetch_tensor_map(c_map);
    }
    if (tid == 0) smem.init_barriers();
    // Relaxed: the fence in init_barriers released the initialization.
    cluster_sync_relaxed();

    if (is_producer<S>(tid / WARPGROUP)) {
        S::Registers::producer();
        if (tid == S::PRODUCER_THREAD) {
            const Producer<S> producer(smem, a_map, b_map, units.rank);
            PipelineState<S> state;
            Pieces pieces = schedule.pieces(cluster);
            Piece piece;
            while (pieces.next(piece)) {
                producer.load_k_tiles(state, units.origin(piece.unit), piece.k_begin, piece.k_end);
                // An owner's contributors' partials follow its last k tile down the pipeline, a
                // chunk per stage (both blocks of the pair own the unit, so both send the same
                // number of chunks and their stages stay in step).
                if (piece.role == Role::Owner) {
                    for (unsigned j = piece.first; j < piece.first + piece.contributors; ++j) {
                        workspace.take_flag(j);
                        fence_proxy_async_global();
                        for (unsigned chunk = 0; chunk < CHUNKS; ++chunk) {
                            // Stage s as for a k tile; the chunk lies inside the contributor's
                            // partial, written and flagged before the acquire above.
                            const unsigned bytes = chunk_pieces(chunk) * S::CONSUMER_THREADS * PIECE_BYTES;
                            const unsigned s = smem.producer_acquire(state, bytes);
                            copy_bulk(smem.a_stage(s),
                                      workspace.partial(j) + chunk * CHUNK_PIECES * S::CONSUMER_THREADS * PIECE_FLOATS,
                                      bytes, smem.full(s));
                            state.advance();
                        }
                    }
                }
            }
        } else if ((tid - S::PRODUCER_THREAD) / WARP_SIZE == FLAG_WARP) {
            // A contributor's consumers arrive here after storing the partial (once at most):
            // raise the flag for them, fenced so that the owner who sees it sees the partial.
            if (schedule.contributes(cluster)) {
                sync_named(PARTIAL_BARRIER, PARTIAL_BARRIER_THREADS);
                if (tid % WARP_SIZE == 0) workspace.raise_flag(cluster);
            }
        }
    } else {
        S::Registers::consumers();
        const unsigned lane = tid % WARP_SIZE;
        // Stage s is free in this warp: lane 0 tells both blocks of the pair.
        const auto release = consumer_release(lane, smem);
        const Consumer<S, BF16> consumer(smem, tid);
        const Epilogue<S> epilogue(smem, c_map, tid);
        Pieces pieces = schedule.pieces(cluster);
        PipelineState<S> state;
        Piece piece;
        while (pieces.next(piece)) {
            const Origin origin = units.origin(piece.unit);
            auto acc = S::Acc::zeroed();
            // The whole warpgroup, in step with the producer.
            consumer.mma_k_tiles(state, piece.k_begin, piece.k_end, acc, release);

            if (piece.role == Role::Contributor) {
                // Leave the partial tile for the owner and hand it to the flag warp.
                workspace.store_partial(cluster, tid, acc);
                arrive_named(PARTIAL_BARRIER, PARTIAL_BARRIER_THREADS);
                continue;
            }
            if (piece.role == Role::Owner) {
                // Each contributor's partial arrives in the next CHUNKS stages. (The loops over
                // chunks and pieces are unrolled, their bounds constant, so that acc is only
                // ever indexed by constants.)
                for (unsigned j = 0; j < piece.contributors; ++j) {
#pragma unroll
                    for (unsigned chunk = 0; chunk < CHUNKS; ++chunk) {
                        const unsigned s = state.index();
                        // This phase completes when the producer's copy of the chunk has landed.
                        mbarrier_wait(smem.full(s), state.phase());
                        // The chunk, laid out as the contributor stored it.
                        const float4* stage = SharedLayout<S>::template pointer<const float4>(smem.a_stage(s)) + tid;
#pragma unroll
                        for (unsigned p = 0; p < chunk_pieces(chunk); ++p) {
                            const unsigned i = chunk * CHUNK_PIECES + p;
                            const float4 v = stage[p * S::CONSUMER_THREADS];
                            acc[4 * i] += v.x;
                            acc[4 * i + 1] += v.y;
                            acc[4 * i + 2] += v.z;
                            acc[4 * i + 3] += v.w;
                        }
                        // The copy engine (the async proxy) will write this stage next: order
                        // this thread's ordinary reads of it before that, then every lane's
                        // before lane 0 frees the stage.
                        fence_proxy_async_shared();
                        __syncwarp();
                        release(s);
                        state.advance();
                    }
                }
            }

            // The epilogue: w05's.
            epilogue.store_tile(acc, origin);
        }
        // C's last boxes are read out of shared memory before the block exits.
        wait_read(tid);
    }
    cluster_sync();
}

}  // namespace w12
