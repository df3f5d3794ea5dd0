// Twin of kernels/src/gemm/w18_fp8_double_partials.rs (step w18): FP8 promotion on w09's
// 128 x 128 tile with two partial tiles taking the k tiles in turn. Issue k tile t into one
// (four wgmma m64n128k32, the first with scale-d = 0), wait until only that group is in flight,
// add the other partial (k tile t - 1's) into the f32 accumulators and release t - 1's stage:
// the additions run while t's wgmma do. Pairs of k tiles keep each partial in its own
// registers; an odd last k tile and the last promotion follow the loop.
//
// Launch as the Rust step: 384 threads, w18::SHARED_BYTES of dynamic shared memory, a persistent
// grid in clusters of 2 along x, tensor maps of A and B^T (8-bit) and of C (f32).
#include "trimmed_gemm.cuh"

namespace w18 {
using namespace hopper;

// common::gemm::w18: w09's block, tile and stages; 8-bit boxes of 128 k values.
struct Constants {
    static constexpr unsigned BM = 128, BN = 128, BK = 128, STAGES = 6, STAGE_BYTES = BM * BK + BN * BK;
    static constexpr unsigned CONSUMER_WARPGROUPS = 2, THREADS = (CONSUMER_WARPGROUPS + 1) * 128;
    static constexpr unsigned A_BOX_X = BK, A_BOX_Y = BM, B_BOX_X = BK, B_BOX_Y = BN / 2, C_BOX_X = 32, C_BOX_Y = 64;
    static constexpr unsigned C_BOX_BYTES = C_BOX_X * C_BOX_Y * 4, C_BUFFERS = 2;
    static constexpr unsigned C_STAGING_BYTES = CONSUMER_WARPGROUPS * C_BUFFERS * C_BOX_BYTES;
    static constexpr unsigned CLUSTER_M = 2, GROUP_ROWS = 8, ALIGN_SLACK = 1024;
    static constexpr unsigned PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232;
};
constexpr unsigned THREADS = Constants::THREADS;
using W18 = Shape<Constants, M64n128, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;

// Issues k tile `state`'s four wgmma into `partial` (the first overwrites it) once its stage is
// full, as one group.
template <class C, class State>
__device__ __forceinline__ void issue(const C& consumer, State state, M64n128& partial) {
    using S = W18;
    const auto& smem = consumer.smem;
    const unsigned s = state.index();
    mbarrier_wait(smem.full(s), state.phase());
    // The additions read `partial`: fence before wgmma writes it again.
    wgmma_fence();
#pragma unroll
    for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
        const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
        const unsigned long long a_desc = consumer.a_descriptor(s, kk);
        const unsigned long long b_desc = descriptor(smem.b_stage(s) + step_bytes, 0, ATOM_BYTES);
        mma_m64n128k32_e4m3(partial.r, a_desc, b_desc, kk != 0);
    }
    wgmma_commit_group();
}

// acc += partial, then k tile `done`'s stage is released.
template <class State, class Release>
__device__ __forceinline__ void promote(M64n128& acc, const M64n128& partial, State done, const Release& release) {
#pragma unroll
    for (unsigned i = 0; i < M64N128_ACC; ++i) acc[i] += partial[i];
    release(done.index());
}

struct DoublePartialsMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n128& acc,
                                               const Release& release) {
        if (k_tiles == 0) return;
        M64n128 a = M64n128::zeroed(), b = M64n128::zeroed();  // each overwritten before it is read
        issue(consumer, state, a);
        state.advance();
        unsigned t = 1;
        for (; t + 1 < k_tiles; t += 2) {
            issue(consumer, state, b);
            wgmma_wait_group_for<1>(a.r);
            promote(acc, a, state.previous(), release);
            state.advance();
            issue(consumer, state, a);
            wgmma_wait_group_for<1>(b.r);
            promote(acc, b, state.previous(), release);
            state.advance();
        }
        if (t < k_tiles) {
            issue(consumer, state, b);
            wgmma_wait_group_for<1>(a.r);
            promote(acc, a, state.previous(), release);
            state.advance();
            wgmma_wait_group_for<0>(b.r);
            promote(acc, b, state.previous(), release);
        } else {
            wgmma_wait_group_for<0>(a.r);
            promote(acc, a, state.previous(), release);
        }
    }
};

}  // namespace w18

// The input type is the shape's; the kernel's f16/bf16 flag is unused. C = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w18::THREADS)
w18_fp8_double_partials_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                             const float* scales) {
    w08::trimmed_gemm<w18::W18, false, w18::DoublePartialsMainLoop>(a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
