// Twin of kernels/src/gemm/w20_fp8_e5m2.rs (step w20): w15 with B's values in e5m2 (5 exponent
// bits, 2 of mantissa: the gradients' format), A's in e4m3. The shape's input type (E4m3E5m2)
// makes w15's issue of a column half the wgmma ... .f32.e4m3.e5m2 instruction; the bytes, tiles,
// pipeline and promotion are w15's.
//
// Launch as the Rust step: as w14 (B^T of e5m2 codes).
#include "fp8_gemm.cuh"

namespace w20 {
using namespace hopper;

// common::gemm::w20: w15's constants, B in e5m2.
using Constants = w14::Constants;
constexpr unsigned THREADS = Constants::THREADS;
using W20 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3E5m2>;

}  // namespace w20

// C = scales[0] * scales[1] * A * B, A e4m3, B (as B^T) e5m2.
extern "C" __global__ void __launch_bounds__(w20::THREADS)
w20_fp8_e5m2_e4m3_e5m2(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                       const float* scales) {
    w08::trimmed_gemm<w20::W20, false, w15::PromotedMainLoop<w20::W20>>(a_map, b_map, c_map, m, n, k,
                                                                        hopper::ScalesAt{scales});
}
