// Twin of kernels/src/gemm/g01_naive.rs (step g01): one thread per output of C, consecutive
// threads on consecutive rows (x over rows: A and C accesses are not coalesced).
#include "fp32.cuh"

using gemm::TILE;

// C[row][col] = sum_k A[row][k] * B[k][col], row from x, col from y; 32 x 32 blocks.
extern "C" __global__ void g01_naive(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                     unsigned k) {
    const unsigned row = blockIdx.x * TILE + threadIdx.x;
    const unsigned col = blockIdx.y * TILE + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        // Unrolled by 8, as LLVM unrolls the Rust step's loop.
#pragma unroll 8
        for (size_t i = 0; i < k; ++i) sum = fmaf(a[(size_t)row * k + i], b[i * n + col], sum);
        c[(size_t)row * n + col] = sum;
    }
}
