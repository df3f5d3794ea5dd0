// Twin of kernels/src/gemm/w23_fp8_probe.rs (step w23): w22's main loop with PROBE (FullWaits):
// a warpgroup asks for the next k tile's "full" barrier (mbarrier.test_wait, answered at once) as
// soon as this k tile's wgmma are committed, and waits for a k tile's stage only where that probe
// said "not yet". On w22's 128 x 192 tile and on w21's 128 x 256 tile (w15's loop, promoted in
// halves, the probe after the second half's commit), each with a bf16 C (w21's) and an f32 C (w15's).
//
// Launch as the Rust step: as w22 (w23_fp8_probe_e4m3, ..._f32_e4m3), as w21 (..._256_e4m3) and as
// w15 (..._256f32_e4m3).
#include "fp8_gemm.cuh"

namespace w23 {
using namespace hopper;

// common::gemm::w23 (w22's), w23_f32 (w22's with w15's f32 boxes of C), w23_wide (w21's) and
// w23_wide_f32 (w15's): the shapes of the four kernels.
using w22::Constants;
using w22::F32Constants;
struct WideConstants : w14::Constants {
    static constexpr unsigned C_BOX_X = 64;
};
constexpr unsigned THREADS = Constants::THREADS;
using W23 = Shape<Constants, M64n192, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3,
                  true>;
using W23F32 = Shape<F32Constants, M64n192,
                     Reallocate<F32Constants::PRODUCER_REGISTERS, F32Constants::CONSUMER_REGISTERS>, E4m3>;
using W23WideF32 = Shape<w14::Constants, M64n256,
                         Reallocate<w14::Constants::PRODUCER_REGISTERS, w14::Constants::CONSUMER_REGISTERS>, E4m3>;
using W23Wide = Shape<WideConstants, M64n256,
                      Reallocate<WideConstants::PRODUCER_REGISTERS, WideConstants::CONSUMER_REGISTERS>, E4m3, true>;

}  // namespace w23

// C (bf16) = scales[0] * scales[1] * A * B, on w22's tile.
extern "C" __global__ void __launch_bounds__(w23::THREADS)
w23_fp8_probe_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                   const float* scales) {
    w08::trimmed_gemm<w23::W23, false, w22::FullPartialMainLoop<w23::W23, true>>(a_map, b_map, c_map, m, n, k,
                                                                                 hopper::ScalesAt{scales});
}

// The same on w21's 128 x 256 tile.
extern "C" __global__ void __launch_bounds__(w23::THREADS)
w23_fp8_probe_256_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                        unsigned k, const float* scales) {
    w08::trimmed_gemm<w23::W23Wide, false, w15::PromotedMainLoop<w23::W23Wide, true>>(a_map, b_map, c_map, m, n, k,
                                                                                      hopper::ScalesAt{scales});
}

// C (f32) = scales[0] * scales[1] * A * B, on w22's tile.
extern "C" __global__ void __launch_bounds__(w23::THREADS)
w23_fp8_probe_f32_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                       const float* scales) {
    w08::trimmed_gemm<w23::W23F32, false, w22::FullPartialMainLoop<w23::W23F32, true>>(a_map, b_map, c_map, m, n, k,
                                                                                      hopper::ScalesAt{scales});
}

// The same on w15's 128 x 256 tile.
extern "C" __global__ void __launch_bounds__(w23::THREADS)
w23_fp8_probe_256f32_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                            unsigned k, const float* scales) {
    w08::trimmed_gemm<w23::W23WideF32, false, w15::PromotedMainLoop<w23::W23WideF32, true>>(
        a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
