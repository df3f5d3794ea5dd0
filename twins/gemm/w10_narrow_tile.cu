// Twin of kernels/src/gemm/w10_narrow_tile.rs (step w10): w09 in 64 x 128 tiles, one
// consumer warpgroup beside the producer warpgroup (256 threads), eight 24 KB stages; no
// setmaxnreg (with 256 threads there is no register cap at entry for it to move): w08's
// kernel (trimmed_gemm.cuh) on w10's shape, with KeepRegisters.
//
// Launch as the Rust step: 256 threads, w10::SHARED_BYTES of dynamic shared memory, a
// persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A (boxes of
// 64 x 64), B, C.
#include "trimmed_gemm.cuh"

namespace w10 {
using namespace hopper;

// common::gemm::w10: w09 with BM = 64 (one consumer warpgroup, A's box of 64 rows) and eight
// stages.
struct Constants {
    static constexpr unsigned BM = 64, BN = 128, BK = 64, STAGES = 8, STAGE_BYTES = (BM * BK + BK * BN) * 2;
    static constexpr unsigned CONSUMER_WARPGROUPS = 1, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    // The TMA boxes of A, B (16-bit) and C (f32): (contiguous extent, rows).
    static constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
};
constexpr unsigned THREADS = Constants::THREADS;
using W10 = Shape<Constants, M64n128, KeepRegisters>;

}  // namespace w10

// w08's kernel, on w10's shape and without the register reallocation.
extern "C" __global__ void __launch_bounds__(w10::THREADS)
w10_narrow_tile_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w10::W10, false>(a_map, b_map, c_map, m, n, k);
}

extern "C" __global__ void __launch_bounds__(w10::THREADS)
w10_narrow_tile_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w10::W10, true>(a_map, b_map, c_map, m, n, k);
}
