// Twin of kernels/src/gemm/w14_fp8.rs (step w14): w08's kernel (trimmed_gemm.cuh) on 8-bit
// inputs: e4m3 A (M x K) and B^T (N x K, B K-major: 8-bit wgmma has no transpose) through
// wgmma m64n256k32, k tiles of 128 values in the same 128-byte swizzle rows, so the same 48 KB
// stages; the Shape's E4m3 input makes the producer copy B^T's boxes and the consumers describe
// B as they describe A.
//
// Launch as the Rust step: 384 threads, w14::SHARED_BYTES of dynamic shared memory, a
// persistent grid in clusters of 2 along x (cuLaunchKernelEx), tensor maps of A and B^T (8-bit)
// and of C (f32).
#include "fp8_gemm.cuh"

namespace w14 {
using namespace hopper;
// The constants are twins/fp8_gemm.cuh's (common::gemm::w14).
using W14 = Shape<Constants, M64n256, Reallocate<Constants::PRODUCER_REGISTERS, Constants::CONSUMER_REGISTERS>, E4m3>;
}  // namespace w14

// The input type is the shape's; the kernel's f16/bf16 flag is unused. C = scales[0] * scales[1] * A * B.
extern "C" __global__ void __launch_bounds__(w14::THREADS)
w14_fp8_e4m3(const void* a_map, const void* b_map, const void* c_map, unsigned m, unsigned n, unsigned k,
             const float* scales) {
    w08::trimmed_gemm<w14::W14, false, w08::PlainMainLoop>(a_map, b_map, c_map, m, n, k, hopper::ScalesAt{scales});
}
