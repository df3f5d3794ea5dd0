// Twin of kernels/src/gemm/t13_small_tile.rs (step t13): t12 in 128 x 128 tiles (wgmma
// m64n128k16, 64 accumulators per thread), twice the tiles for small products, six 32 KB
// stages: t12's kernel (trimmed_gemm.cuh) on t13's shape.
//
// Launch as the Rust step: 384 threads, t13::SHARED_BYTES of dynamic shared memory, a
// persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A, B, C.
#include "trimmed_gemm.cuh"

namespace t13 {
using namespace hopper;

// common::gemm::t13: t12 with BN = 128 and six stages.
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
using T13 = Shape<Constants, M64n128, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

}  // namespace t13

// t12's kernel, on t13's shape.
extern "C" __global__ void __launch_bounds__(t13::THREADS)
t13_small_tile_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    t12::trimmed_gemm<t13::T13, false>(a_map, b_map, c_map, m, n, k);
}

extern "C" __global__ void __launch_bounds__(t13::THREADS)
t13_small_tile_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    t12::trimmed_gemm<t13::T13, true>(a_map, b_map, c_map, m, n, k);
}
