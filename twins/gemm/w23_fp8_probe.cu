// Twin of kernels/src/gemm/w23_fp8_probe.rs (step w23): w22's main loop, but a warpgroup asks
// for the next k tile's "full" barrier (mbarrier.test_wait, answered at once) as soon as this k
// tile's wgmma are committed, and waits for a k tile's stage only where that probe said "not yet".
// Two kernels: on w22's 128 x 192 tile, and on w21's 128 x 256 tile (w15's loop, promoted in
// halves, the probe after the second half's commit).
//
// Launch as the Rust step: as w22 (w23_fp8_probe_e4m3) and as w21 (..._wide_e4m3).
#include "fp8_gemm.cuh"

namespace w23 {
using namespace hopper;

// common::gemm::w23 (w22's) and w23_wide (w21's): the shapes of the two kernels.
struct Constants : w14::Constants {
    static constexpr unsigned BN = 192, STAGE_BYTES = BM * BK + BN * BK;
    static constexpr unsigned B_BOX_Y = BN / CLUSTER_M, C_BOX_X = 64;
};
struct WideConstants : w14::Constants {
    static constexpr unsigned C_BOX_X = 64;
};
constexpr unsigned THREADS = Constants::THREADS;
using W23 = Shape<Constants, M64n192, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3,
                  true>;
using W23Wide = Shape<WideConstants, M64n256,
                      Reallocate<WideConstants::PRODUCER_REGISTERS, WideConstants::CONSUMER_REGISTERS>, E4m3, true>;

// next_landed: whether the k tile after `state`'s has landed in its stage, asked without waiting.
template <class Smem, class State>
__device__ __forceinline__ bool next_landed(const Smem& smem, const State& state) {
    const State next = state.next();
    return mbarrier_test_wait(smem.full(next.index()), next.phase());
}

// mma_k_tiles_probed: w22's loop (four wgmma m64n192k32 into a fresh partial per k tile, one wait,
// release, promotion) with the probe between the commit and the wait.
template <class S>
struct ProbedMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n192& acc,
                                               const Release& release) {
        const auto& smem = consumer.smem;
        M64n192 partial = M64n192::zeroed();  // overwritten by each k tile's first wgmma
        bool landed = false;                  // this k tile's stage seen full by the last probe
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            if (!landed) mbarrier_wait(smem.full(s), state.phase());
            wgmma_fence();
#pragma unroll
            for (unsigned kk = 0; kk < MMAS_PER_K_TILE; ++kk) {
                const unsigned step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
                const unsigned long long a_desc = descriptor(
                    smem.a_stage(s) + consumer.warpgroup * WARPGROUP_ROWS * ROW_BYTES + step_bytes, 0, ATOM_BYTES);
                // B^T's 192 columns are 128-byte rows; a k32 step is 32 bytes along each.
                const unsigned long long b_desc = descriptor(smem.b_stage(s) + step_bytes, 0, ATOM_BYTES);
                mma_m64n192k32_e4m3(partial.r, a_desc, b_desc, kk != 0);
            }
            wgmma_commit_group();
            landed = next_landed(smem, state);
            wgmma_wait_group<0>();
            release(s);
#pragma unroll
            for (unsigned i = 0; i < M64N192_ACC; ++i) acc[i] += partial[i];
            state.advance();
        }
    }
};

// mma_k_tiles_promoted_probed: w15's loop (two column halves, each four wgmma m64n128k32, a wait
// and its additions) with the probe after the second half's commit.
template <class S>
struct PromotedProbedMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release) {
        const auto& smem = consumer.smem;
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        bool landed = false;
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            if (!landed) mbarrier_wait(smem.full(s), state.phase());
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                w15::issue_half<S>(consumer, s, half, partial);
                wgmma_commit_group();
                if (half == 1) landed = next_landed(smem, state);
                wgmma_wait_group<0>();
#pragma unroll
                for (unsigned i = 0; i < M64N128_ACC; ++i) acc[half * M64N128_ACC + i] += partial[i];
            }
            release(s);
            state.advance();
        }
    }
};

}  // namespace w23

// C (bf16) = scales[0] * scales[1] * A * B, on w22's tile.
extern "C" __global__ void __launch_bounds__(w23::THREADS)
w23_fp8_probe_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                   const float* scales) {
    w08::trimmed_gemm<w23::W23, false, w23::ProbedMainLoop<w23::W23>>(a_map, b_map, c_map, m, n, k,
                                                                      hopper::ScalesAt{scales});
}

// The same on w21's 128 x 256 tile.
extern "C" __global__ void __launch_bounds__(w23::THREADS)
w23_fp8_probe_wide_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                        unsigned k, const float* scales) {
    w08::trimmed_gemm<w23::W23Wide, false, w23::PromotedProbedMainLoop<w23::W23Wide>>(a_map, b_map, c_map, m, n, k,
                                                                                      hopper::ScalesAt{scales});
}
