// Twin of kernels/src/gemm/g04_register_1d.rs (step g04): 1-D register blocking, each
// thread computes TM = 8 outputs of one column of a 64 x 64 block tile.
#include "fp32.cuh"

using namespace gemm::g04;

// C = A * B, one BM x BN tile of C per block (THREADS = 512 threads), TM outputs per thread.
extern "C" __global__ void g04_register_1d(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                           unsigned k) {
    __shared__ __align__(16) float a_tile[BM * BK];
    __shared__ __align__(16) float b_tile[BK * BN];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned thread_col = tid % BN, thread_row = tid / BN;
    const unsigned a_row = tid / BK, a_col = tid % BK;
    const unsigned b_row = tid / BN, b_col = tid % BN;
    float results[TM] = {};
    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        // One element of each tile per thread (BM * BK = BK * BN = 512 = threads).
        {
            const unsigned r = row0 + a_row, cc = k0 + a_col;
            a_tile[a_row * BK + a_col] = (r < m && cc < k) ? a[(size_t)r * k + cc] : 0.0f;
        }
        {
            const unsigned r = k0 + b_row, cc = col0 + b_col;
            b_tile[b_row * BN + b_col] = (r < k && cc < n) ? b[(size_t)r * n + cc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (unsigned dot = 0; dot < BK; ++dot) {
            const float b_value = b_tile[dot * BN + thread_col];
#pragma unroll
            for (unsigned i = 0; i < TM; ++i)
                results[i] = fmaf(a_tile[(thread_row * TM + i) * BK + dot], b_value, results[i]);
        }
        __syncthreads();
    }
#pragma unroll
    for (unsigned i = 0; i < TM; ++i) {
        const unsigned r = row0 + thread_row * TM + i, cc = col0 + thread_col;
        if (r < m && cc < n) c[(size_t)r * n + cc] = results[i];
    }
}
