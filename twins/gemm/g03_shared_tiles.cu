// Twin of kernels/src/gemm/g03_shared_tiles.rs (step g03): 32 x 32 tiles of A and B staged
// in shared memory, each element loaded from global memory used 32 times.
#include "fp32.cuh"

using gemm::TILE;

// C = A * B, one 32 x 32 tile of C per block, K in steps of 32 through shared memory.
extern "C" __global__ void g03_shared_tiles(const float* a, const float* b, float* c, unsigned m, unsigned n,
                                            unsigned k) {
    __shared__ __align__(16) float a_tile[TILE * TILE];
    __shared__ __align__(16) float b_tile[TILE * TILE];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned col = blockIdx.x * TILE + tx;
    const unsigned row = blockIdx.y * TILE + ty;
    float sum = 0.0f;
    for (unsigned k0 = 0; k0 < k; k0 += TILE) {
        // Loads past an edge write 0 into the tile.
        const unsigned a_col = k0 + tx, b_row = k0 + ty;
        const float a_value = (row < m && a_col < k) ? a[(size_t)row * k + a_col] : 0.0f;
        const float b_value = (b_row < k && col < n) ? b[(size_t)b_row * n + col] : 0.0f;
        a_tile[ty * TILE + tx] = a_value;
        b_tile[ty * TILE + tx] = b_value;
        __syncthreads();
#pragma unroll
        for (unsigned i = 0; i < TILE; ++i) sum = fmaf(a_tile[ty * TILE + i], b_tile[i * TILE + tx], sum);
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = sum;
}
