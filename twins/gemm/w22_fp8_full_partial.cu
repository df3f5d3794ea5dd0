// Twin of kernels/src/gemm/w22_fp8_full_partial.rs (step w22): w21 (e4m3, promoted, a bf16 C) on
// a 128 x 192 tile, whose f32 accumulators (96 per consumer thread) and a partial of the tile's
// whole width (96 more) fit in registers together. Per k tile four wgmma m64n192k32 sum its 128 k
// values into the fresh partial (the first with scale-d = 0), the warpgroup waits once, releases
// the stage and adds the partial into its accumulators: one wait per k tile where w15-w21 take two.
//
// Launch as the Rust step: as w21, with w22's shape (B's boxes of 96 columns, four 40 KB stages).
#include "fp8_gemm.cuh"

namespace w22 {
using namespace hopper;

// Constants (common::gemm::w22's shape): twins/fp8_gemm.cuh.
constexpr unsigned THREADS = Constants::THREADS;
using W22 = Shape<Constants, M64n192, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3,
                  true>;

// mma_k_tiles_full_partial: twins/fp8_gemm.cuh (w22::FullPartialMainLoop), which w23 reuses.

}  // namespace w22

// C (bf16) = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w22::THREADS)
w22_fp8_full_partial_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n,
                          unsigned k, const float* scales) {
    w08::trimmed_gemm<w22::W22, false, w22::FullPartialMainLoop<w22::W22>>(a_map, b_map, c_map, m, n, k,
                                                                           hopper::ScalesAt{scales});
}
