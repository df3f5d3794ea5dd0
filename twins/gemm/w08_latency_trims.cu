// Twin of kernels/src/gemm/w08_latency_trims.rs (step w08): w06 with shorter waits at the
// start and the end of a launch: prefetch.tensormap of the three maps at entry, a relaxed
// cluster arrival after the barriers' initialization, cp.async.bulk.wait_group.read at exit.
// Its kernel, w08::trimmed_gemm, is in trimmed_gemm.cuh, since w09 and w10 run it on their
// shapes (as the Rust's trimmed_gemm_for!).
//
// Launch as the Rust step (as w06): 384 threads, w08::SHARED_BYTES of dynamic shared memory,
// a persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A, B, C.
#include "trimmed_gemm.cuh"

namespace w08 {
using namespace hopper;

// common::gemm::w08 (= w06's tiles, stages, boxes and block).
struct Constants {
    static constexpr unsigned BM = 128, BN = 256, BK = 64, STAGES = 4, STAGE_BYTES = (BM * BK + BK * BN) * 2;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    // The TMA boxes of A, B (16-bit) and C (f32): (contiguous extent, rows).
    static constexpr unsigned A_BOX_X = 64, A_BOX_Y = BM, B_BOX_X = 64, B_BOX_Y = BK, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};
constexpr unsigned THREADS = Constants::THREADS;
using W08 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>>;

}  // namespace w08

extern "C" __global__ void __launch_bounds__(w08::THREADS)
w08_latency_trims_f16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w08::W08, false>(a_map, b_map, c_map, m, n, k);
}

extern "C" __global__ void __launch_bounds__(w08::THREADS)
w08_latency_trims_bf16(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k) {
    w08::trimmed_gemm<w08::W08, true>(a_map, b_map, c_map, m, n, k);
}
