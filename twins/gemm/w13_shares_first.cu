// Twin of kernels/src/gemm/w13_shares_first.rs (step w13): w12, with each cluster's stream-K
// share run before its whole units (StreamK::with_shares_first), so that every share starts at
// the launch, together: w12's kernel (pipelined_fixup_gemm.cuh) with SHARES_FIRST.
//
// Launch as the Rust step (as w07): 384 threads, w13::SHARED_BYTES of dynamic shared memory, a
// grid of every cluster that fits (clusters of 2 along x, cuLaunchKernelEx, all resident at
// once), tensor maps of A, B, C, and the workspace, w13::workspace_bytes(blocks) bytes, its
// flags zero (each launch leaves them zero).
#include "pipelined_fixup_gemm.cuh"

namespace w13 {
using namespace hopper;

// common::gemm::w13 (= w07's tiles, stages, boxes, block and workspace).
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
using W13 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

}  // namespace w13

// w12's kernel, on w13's shape, with the shares first.
extern "C" __global__ void __launch_bounds__(w13::THREADS)
w13_shares_first_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                     float* workspace) {
    w12::pipelined_fixup_gemm<w13::W13, true, false>(a_map, b_map, c_map, m, n, k, workspace);
}

extern "C" __global__ void __launch_bounds__(w13::THREADS)
w13_shares_first_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                      float* workspace) {
    w12::pipelined_fixup_gemm<w13::W13, true, true>(a_map, b_map, c_map, m, n, k, workspace);
}
