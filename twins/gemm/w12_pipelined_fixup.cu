// Twin of kernels/src/gemm/w12_pipelined_fixup.rs (step w12): w11, with the partial tile's
// round trip off the consumers' path. An owner's producer waits for each contributor's flag,
// then sends the partial down the operand pipeline behind the last k tiles, in three whole
// stages of 48, 48 and 32 KB (cp.async.bulk, completing on the stage's full barrier); the
// consumers add each chunk from shared memory and release the stage. A contributor's
// consumers store the partial and arrive (bar.arrive) at a named barrier where a warp of the
// producer warpgroup waits, then fences and raises the flag. Its kernel,
// w12::pipelined_fixup_gemm, is in pipelined_fixup_gemm.cuh, since w13 runs it too (as the
// Rust's pipelined_fixup_gemm_for!).
//
// Launch as the Rust step (as w07): 384 threads, w12::SHARED_BYTES of dynamic shared memory, a
// grid of every cluster that fits (clusters of 2 along x, cuLaunchKernelEx, all resident at
// once), tensor maps of A, B, C, and the workspace, w12::workspace_bytes(blocks) bytes, its
// flags zero (each launch leaves them zero).
#include "pipelined_fixup_gemm.cuh"

namespace w12 {
using namespace hopper;

// common::gemm::w12 (= w07's tiles, stages, boxes, block and workspace).
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
using W12 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

}  // namespace w12

extern "C" __global__ void __launch_bounds__(w12::THREADS)
w12_pipelined_fixup_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                 float* workspace) {
    w12::pipelined_fixup_gemm<w12::W12, false, false>(a_map, b_map, c_map, m, n, k, workspace);
}

extern "C" __global__ void __launch_bounds__(w12::THREADS)
w12_pipelined_fixup_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                  float* workspace) {
    w12::pipelined_fixup_gemm<w12::W12, false, true>(a_map, b_map, c_map, m, n, k, workspace);
}
