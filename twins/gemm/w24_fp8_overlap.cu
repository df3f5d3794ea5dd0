// Twin of kernels/src/gemm/w24_fp8_overlap.rs (step w24): w23 on w22's 128 x 192 tile, with the
// consumers' walk over the units changed: once a tile's last k tile is promoted its partial is
// free, so the next tile's first k tile is issued into it, the finished tile is stored while those
// wgmma run, and the partial then becomes the next tile's sums (w22's main loop, probed, runs the
// rest of each tile from its second k tile).
//
// Launch as the Rust step: as w22 (both kernels; the f32 one with w15's boxes of C).
#include "fp8_gemm.cuh"

namespace w24 {
using namespace hopper;

// common::gemm::w24 (w23's, a bf16 C) and w24_f32 (w23_f32's).
using w22::Constants;
using w22::F32Constants;
constexpr unsigned THREADS = Constants::THREADS;
using W24 = Shape<Constants, M64n192, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3,
                  true>;
using W24F32 = Shape<F32Constants, M64n192,
                     Reallocate<F32Constants::PRODUCER_REGISTERS, F32Constants::CONSUMER_REGISTERS>, E4m3>;

// OverlappedStores (units_with_overlapped_stores) is in fp8_gemm.cuh, where w25 finds it too.

}  // namespace w24

// C (bf16) = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w24::THREADS)
w24_fp8_overlap_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
                     const float* scales) {
    w08::trimmed_gemm<w24::W24, false, w08::PlainMainLoop, hopper::ScalesAt, w24::OverlappedStores<w24::W24>>(
        a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}

// The same with an f32 C.
extern "C" __global__ void __launch_bounds__(w24::THREADS)
w24_fp8_overlap_f32_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                         unsigned k, const float* scales) {
    w08::trimmed_gemm<w24::W24F32, false, w08::PlainMainLoop, hopper::ScalesAt, w24::OverlappedStores<w24::W24F32>>(
        a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
