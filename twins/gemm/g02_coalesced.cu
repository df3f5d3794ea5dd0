// Twin of kernels/src/gemm/g02_coalesced.rs (step g02): consecutive threads on consecutive
// columns, so a warp's loads of B and stores of C are coalesced and A is a broadcast.
#include "fp32.cuh"

using gemm::TILE;

// C[row][col] = sum_k A[row][k] * B[k][col], col from x, row from y; 32 x 32 blocks.
extern "C" __global__ void g02_coalesced(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                         unsigned k) {
    const unsigned col = blockIdx.x * TILE + threadIdx.x;
    const unsigned row = blockIdx.y * TILE + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        // Eight k steps a pass, as the Rust step's `unroll!(8, ..)`; NVVM also tells ptxas
        // not to unroll further (`.pragma "nounroll"`), as the Rust's `ptxas_nounroll` does.
#pragma unroll 8
        for (size_t i = 0; i < k; ++i) sum = fmaf(a[(size_t)row * k + i], b[i * n + col], sum);
        c[(size_t)row * n + col] = sum;
    }
}
