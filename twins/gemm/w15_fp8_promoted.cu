// Twin of kernels/src/gemm/w15_fp8_promoted.rs (step w15): w14 with each k tile's FP8 sums
// promoted into f32 registers. Per k tile and per half of the tile's columns, four wgmma
// m64n128k32 sum the tile's 128 k values into a fresh partial (the first with scale-d = 0), the
// warpgroup waits for them and adds the partial into that half of its f32 accumulators: the
// tensor cores' short additions never carry a long sum. The rest is w08's kernel on w14's shape.
//
// Launch as the Rust step: as w14.
#include "fp8_gemm.cuh"

namespace w15 {
using namespace hopper;

// common::gemm::w15: w14's constants.
using Constants = w14::Constants;
constexpr unsigned THREADS = Constants::THREADS;
static_assert(2 * M64N128_ACC == PARTIAL_COLUMNS, "one m64n128 accumulator holds half the tile");
using W15 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;

// The main loop over a unit's k tiles into the f32 accumulators acc, promoting each k tile: wait
// until its stage is full; for each half of the columns, four wgmma into `partial` (the first
// overwrites it), a wait, and the additions; then release the stage.
struct PromotedMainLoop {
    template <class C, class State, class Release>
    __device__ __forceinline__ static void run(const C& consumer, State& state, unsigned k_tiles, M64n256& acc,
                                               const Release& release) {
        using S = W15;
        const auto& smem = consumer.smem;
        M64n128 partial = M64n128::zeroed();  // overwritten by each half's first wgmma
        for (unsigned t = 0; t < k_tiles; ++t) {
            const unsigned s = state.index();
            mbarrier_wait(smem.full(s), state.phase());
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                w15::issue_half<S>(consumer, s, half, partial);
                wgmma_commit_group();
                wgmma_wait_group<0>();
                // The promotion: this half's 64 accumulators take the partial sums.
#pragma unroll
                for (unsigned i = 0; i < M64N128_ACC; ++i) acc[half * M64N128_ACC + i] += partial[i];
            }
            release(s);
            state.advance();
        }
    }
};

}  // namespace w15

// The input type is the shape's; the kernel's f16/bf16 flag is unused. C = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w15::THREADS)
w15_fp8_promoted_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                      const float* scales) {
    w08::trimmed_gemm<w15::W15, false, w15::PromotedMainLoop>(a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
