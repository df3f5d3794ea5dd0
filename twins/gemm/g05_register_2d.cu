// Twin of kernels/src/gemm/g05_register_2d.rs (step g05): 2-D register blocking, each thread
// computes an 8 x 8 outer product per k step from registers (128 x 128 block tile).
#include "fp32.cuh"

using namespace gemm::g05;

// C = A * B, one BM x BN tile of C per block (256 threads), a TM x TN sub-tile per thread.
extern "C" __global__ void g05_register_2d(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                           unsigned k) {
    __shared__ __align__(16) float a_tile[BM * BK];
    __shared__ __align__(16) float b_tile[BK * BN];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned thread_col = tid % (BN / TN), thread_row = tid / (BN / TN);
    const unsigned a_row = tid / BK, a_col = tid % BK, a_stride = THREADS / BK;
    const unsigned b_row = tid / BN, b_col = tid % BN, b_stride = THREADS / BN;
    float results[TM * TN] = {};
    float reg_a[TM], reg_b[TN];
    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        // Each thread loads BM*BK/256 elements of A and BK*BN/256 of B, zeros past the edges.
#pragma unroll
        for (unsigned off = 0; off < BM; off += a_stride) {
            const unsigned r = row0 + a_row + off, cc = k0 + a_col;
            a_tile[(a_row + off) * BK + a_col] = (r < m && cc < k) ? a[(size_t)r * k + cc] : 0.0f;
        }
#pragma unroll
        for (unsigned off = 0; off < BK; off += b_stride) {
            const unsigned r = k0 + b_row + off, cc = col0 + b_col;
            b_tile[(b_row + off) * BN + b_col] = (r < k && cc < n) ? b[(size_t)r * n + cc] : 0.0f;
        }
        __syncthreads();
        // Rolled, as in the Rust build (LLVM and ptxas keep this 64-FMA loop a loop).
#pragma unroll 1
        for (unsigned dot = 0; dot < BK; ++dot) {
#pragma unroll
            for (unsigned i = 0; i < TM; ++i) reg_a[i] = a_tile[(thread_row * TM + i) * BK + dot];
#pragma unroll
            for (unsigned j = 0; j < TN; ++j) reg_b[j] = b_tile[dot * BN + thread_col * TN + j];
#pragma unroll
            for (unsigned i = 0; i < TM; ++i)
#pragma unroll
                for (unsigned j = 0; j < TN; ++j) results[i * TN + j] = fmaf(reg_a[i], reg_b[j], results[i * TN + j]);
        }
        __syncthreads();
    }
    const unsigned first_row = row0 + thread_row * TM, first_col = col0 + thread_col * TN;
#pragma unroll
    for (unsigned i = 0; i < TM; ++i)
#pragma unroll
        for (unsigned j = 0; j < TN; ++j) {
            const unsigned r = first_row + i, cc = first_col + j;
            if (r < m && cc < n) c[(size_t)r * n + cc] = results[i * TN + j];
        }
}
