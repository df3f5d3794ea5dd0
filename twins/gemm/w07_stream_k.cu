// Twin of kernels/src/gemm/w07_stream_k.rs (step w07): stream-K. w06, with the units that do
// not fill a last whole wave cut along K and shared evenly by all clusters; a unit's owner
// adds its contributors' partial tiles (left in a workspace, flagged st.release.gpu / read
// ld.acquire.gpu) before storing it: hopper_gemm.cuh's Workspace, and schedule.cuh's StreamK.
//
// Launch as the Rust step: 384 threads, w07::SHARED_BYTES of dynamic shared memory, a grid of
// every cluster that fits (clusters of 2 along x, cuLaunchKernelEx, all resident at once),
// tensor maps of A, B, C, and a seventh argument: the workspace, w07::workspace_bytes(blocks)
// bytes, its flags zero (each launch leaves them zero).
#include "hopper_gemm.cuh"

namespace w07 {
using namespace hopper;

// common::gemm::w07: w06's tiles, stages, boxes and block, and stream-K's workspace.
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
using W07 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

// C = A * B as w06 computes it, with the last partial wave shared along K. `workspace_` holds
// w07::workspace_bytes(blocks) bytes for the launch's blocks, its flags zero, and every cluster
// of the grid is resident at once.
template <bool BF16>
__device__ __forceinline__ void stream_k_gemm(const void* a_map, const void* b_map, const void* c_map,
                                              unsigned m, unsigned n, unsigned k, float* workspace_) {
    using S = W07;
    const SharedLayout<S> smem;
    const unsigned tid = threadIdx.x;
    const unsigned k_tiles = div_ceil(k, S::BK);
    const Units<S> units(m, n);
    const StreamK schedule(units.count(), k_tiles, cluster_count(), S::MAX_SPLIT, ShareOrder::Offsets);
    const unsigned cluster = cluster_idx();
    const Workspace<S> workspace(workspace_, schedule.clusters, units.rank);

    if (tid == 0) smem.init_barriers();
    cluster_sync();

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
        wait_written(tid);
    }
    cluster_sync();
}

}  // namespace w07

extern "C" __global__ void __launch_bounds__(w07::THREADS)
w07_stream_k_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                 float* workspace) {
    w07::stream_k_gemm<false>(a_map, b_map, c_map, m, n, k, workspace);
}

extern "C" __global__ void __launch_bounds__(w07::THREADS)
w07_stream_k_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                  float* workspace) {
    w07::stream_k_gemm<true>(a_map, b_map, c_map, m, n, k, workspace);
}
