// Twin of kernels/src/gemm/w11_aligned_stream_k.rs (step w11): w07's stream-K with each
// share's two pieces run the other way round (the start of the next unit first, then the end
// of the first), so that every cluster reads the same k tiles at the same time; a cut unit is
// owned by the cluster computing its last k tiles, and its contributors are the clusters
// before it (schedule.cuh's ShareOrder::KAligned). Also w08's trims: prefetch.tensormap at
// entry, a relaxed cluster arrival after the barriers' initialization,
// cp.async.bulk.wait_group.read at exit.
//
// Launch as the Rust step (as w07): 384 threads, w11::SHARED_BYTES of dynamic shared memory, a
// grid of every cluster that fits (clusters of 2 along x, cuLaunchKernelEx, all resident at
// once), tensor maps of A, B, C, and the workspace, w11::workspace_bytes(blocks) bytes, its
// flags zero (each launch leaves them zero).
#include "hopper_gemm.cuh"

namespace w11 {
using namespace hopper;

// common::gemm::w11 (= w07's tiles, stages, boxes, block and workspace).
struct Constants {
    static constexpr unsigned BM = 128, BN = 256, BK = 64, STAGES = 4, STAGE_BYTES = (BM * BK + BK * BN) * 2;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    // The TMA boxes of A, B (16-bit) and C (f32): (contiguous extent, rows).
    static constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
    // Clusters that share one unit's k tiles, at most; f32 per block in the workspace (a tile).
    static constexpr unsigned MAX_SPLIT = 4, PARTIAL_FLOATS = BM * BN;
};
constexpr unsigned THREADS = Constants::THREADS;
using W11 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

// C = A * B as w07 computes it, with each stream-K share's pieces in k order across clusters;
// `workspace_` as w07's (w11::workspace_bytes(blocks) bytes).
template <bool BF16>
__device__ __forceinline__ void aligned_stream_k_gemm(const void* a_map, const void* b_map, const void* c_map,
                                                      unsigned m, unsigned n, unsigned k, float* workspace_) {
    using S = W11;
    const SharedLayout<S> smem;
    const unsigned tid = threadIdx.x;
    const unsigned k_tiles = div_ceil(k, S::BK);
    const Units<S> units(m, n);
    const StreamK schedule(units.count(), k_tiles, cluster_count(), S::MAX_SPLIT, ShareOrder::KAligned);
    const unsigned cluster = cluster_idx();
    const Workspace<S> workspace(workspace_, schedule.clusters, units.rank);

    // w08's trims: the maps prefetched, a relaxed arrival after the barriers' initialization
    // and, at exit, a wait for C's last boxes to be read only.
    if (tid == S::PRODUCER_THREAD) {
        prefetch_tensor_map(a_map);
        prefetch_tensor_map(b_map);
        prefetch_tensor_map(c_map);
    }
    if (tid == 0) smem.init_barriers();
    // Relaxed: the fence in init_barriers released the initialization.
    cluster_sync_relaxed();

    if (is_producer<S>(tid / WARPGROUP)) {
        release_registers<S::PRODUCER_REGISTERS>();
        if (tid == S::PRODUCER_THREAD) {
            const Producer<S> producer(smem, a_map, b_map, units.rank);
            PipelineState<S> state;
            Pieces pieces = schedule.pieces(cluster);
            Piece piece;
            while (pieces.next(piece)) {
                // As w06; both blocks of the pair walk the same pieces, so their stages stay in
                // step.
                producer.load_k_tiles(state, units.origin(piece.unit), piece.k_begin, piece.k_end);
            }
        }
    } else {
        claim_registers<S::CONSUMER_REGISTERS>();
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
            M64n256 acc = M64n256::zeroed();
            // The whole warpgroup, in step with the producer; w07's fix-up with the schedule's
            // role for the piece; then w05's epilogue.
            consumer.mma_k_tiles(state, piece.k_begin, piece.k_end, acc, release);
            if (workspace.fix_up(piece, cluster, tid, acc)) epilogue.store_tile(acc, origin);
        }
        // C's last boxes are read out of shared memory before the block exits.
        wait_read(tid);
    }
    cluster_sync();
}

}  // namespace w11

extern "C" __global__ void __launch_bounds__(w11::THREADS)
w11_aligned_stream_k_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                 float* workspace) {
    w11::aligned_stream_k_gemm<false>(a_map, b_map, c_map, m, n, k, workspace);
}

extern "C" __global__ void __launch_bounds__(w11::THREADS)
w11_aligned_stream_k_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                  float* workspace) {
    w11::aligned_stream_k_gemm<true>(a_map, b_map, c_map, m, n, k, workspace);
}
