// Twin of kernels/src/gemm/w21_fp8_bf16_out.rs (step w21): w15 with C stored as bf16. The
// epilogue rounds each pair of values into one register (cvt.rn.bf16x2.f32) and stages boxes of
// 64 bf16 columns, whose rows are the 128 bytes of 32 f32 columns: the buffers, the swizzle and
// the shared memory stay w15's, and the copy engine writes half the bytes.
//
// Launch as the Rust step: as w14, with a tensor map of a bf16 C (boxes of 64 x 64).
#include "fp8_gemm.cuh"

namespace w21 {
using namespace hopper;

// common::gemm::w21: w15's constants, C's box 64 bf16 columns wide (the same 8 KB).
struct Constants : w14::Constants {
    static constexpr unsigned C_BOX_X = 64;
    static_assert(C_BOX_X * C_BOX_Y * 2 == C_BOX_BYTES, "a bf16 box has the bytes of an f32 one");
};
constexpr unsigned THREADS = Constants::THREADS;
using W21 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3,
                  true>;

}  // namespace w21

// C (bf16) = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w21::THREADS)
w21_fp8_bf16_out_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                      const float* scales) {
    w08::trimmed_gemm<w21::W21, false, w15::PromotedMainLoop<w21::W21>>(a_map, b_map, c_map, m, n, k,
                                                                        hopper::ScalesAt{scales});
}
