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

}  // namespace w15

// The input type is the shape's; the kernel's f16/bf16 flag is unused. C = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w15::THREADS)
w15_fp8_promoted_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                      const float* scales) {
    w08::trimmed_gemm<w15::W15, false, w15::PromotedMainLoop<w15::W15>>(a_map, b_map, c_map, m, n, k,
                                                                        hopper::ScalesAt{scales});
}
