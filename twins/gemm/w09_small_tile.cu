// Twin of kernels/src/gemm/w09_small_tile.rs (step w09): w08 in 128 x 128 tiles (wgmma
// m64n128k16, 64 accumulators per thread), twice the tiles for small products, six 32 KB
// stages: w08's kernel (trimmed_gemm.cuh) on w09's shape.
//
// Launch as the Rust step: 384 threads, w09::SHARED_BYTES of dynamic shared memory, a
// persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A, B, C.
#include "trimmed_gemm.cuh"

namespace w09 {
using namespace hopper;

// common::gemm::w09: w08 with BN = 128 and six stages.
struct Constants {
    static constexpr unsigned BM = 128, BN = 128, BK = 64, STAGES = 6, STAGE_BYTES = (BM * BK + BK * BN) * 2;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    // The TMA boxes of A, B (16-bit) and C (f32): (contiguous extent, rows).
    static constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};
constexpr unsigned THREADS = Constants::THREADS;
using W09 = Shape<Constants, M64n128, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

}  // namespace w09

// w08's kernel, on w09's shape.
extern "C" __global__ void __launch_bounds__(w09::THREADS)
w09_small_tile_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w09::W09, false>(a_map, b_map, c_map, m, n, k);
}

extern "C" __global__ void __launch_bounds__(w09::THREADS)
w09_small_tile_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w09::W09, true>(a_map, b_map, c_map, m, n, k);
}
