// Twin of kernels/src/gemm/w25_fp8_in_order.rs (step w25): w24's f32 kernel (128 x 192 tile) and
// w23's 128 x 256 f32 kernel on shapes whose epilogue stores every row's four column groups in one
// order (C_ROW_ORDER false): no run-time index into the accumulators, a 2-way bank conflict per
// staging store instead.
//
// Launch as the Rust step: as w24's f32 kernel (..._f32_e4m3) and as w15 (..._256f32_e4m3).
#include "fp8_gemm.cuh"

namespace w25 {
using namespace hopper;

// common::gemm::w25 (w24_f32's) and w25_wide (w23_wide_f32's, which is w15's).
using w22::F32Constants;
constexpr unsigned THREADS = F32Constants::THREADS;
using W25 = Shape<F32Constants, M64n192, Reallocate<F32Constants::PRODUCER_REGISTERS, F32Constants::CONSUMER_REGISTERS>,
                  E4m3, false, false>;
using W25Wide = Shape<w14::Constants, M64n256,
                      Reallocate<w14::Constants::PRODUCER_REGISTERS, w14::Constants::CONSUMER_REGISTERS>, E4m3, false,
                      false>;
static_assert(w14::Constants::THREADS == THREADS, "both kernels launch the same block");

}  // namespace w25

// C (f32) = scales[0] * scales[1] * A * B, on w24's tile and walk.
extern "C" __global__ void __launch_bounds__(w25::THREADS)
w25_fp8_in_order_f32_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                             unsigned k, const float* scales) {
    w08::trimmed_gemm<w25::W25, false, w08::PlainMainLoop, hopper::ScalesAt, w24::OverlappedStores<w25::W25>>(
        a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}

// The same on w15's 128 x 256 tile with w23's probed loop.
extern "C" __global__ void __launch_bounds__(w25::THREADS)
w25_fp8_in_order_256f32_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                                unsigned k, const float* scales) {
    w08::trimmed_gemm<w25::W25Wide, false, w15::PromotedMainLoop<w25::W25Wide, true>>(a_map, b_map, c_map, m, n, k,
                                                                                      hopper::ScalesAt{scales});
}
