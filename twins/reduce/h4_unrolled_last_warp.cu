// Twin of kernels/src/reduce/h4_unrolled_last_warp.rs (step h4): the block-barrier loop
// stops at 64 values and warp 0 folds the last six levels with warp barriers only
// (Harris's reduce4, made race-free with __syncwarp instead of relying on lockstep warps).
//
// Launch: any power-of-two block of at least 64, blockDim.x ints of dynamic shared memory.

#include "reduce.cuh"

extern "C" __global__ void h4_unrolled_last_warp(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t block = blockDim.x;
    const size_t i = (size_t)blockIdx.x * (2 * block) + tid;
    const int first = i < n ? input[i] : 0;
    const int second = i + block < n ? input[i + block] : 0;
    sdata[tid] = first + second;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        const int total = last_warp_sum(sdata, tid);
        if (tid == 0) partials[blockIdx.x] = total;
    }
}
