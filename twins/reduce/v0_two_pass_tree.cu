// Twin of kernels/src/reduce/v0_two_pass_tree.rs (step v0, kernel_0 of “Making vector sum really fast”): a
// grid-stride loop per thread, a block-barrier tree in a static shared array, one partial
// per block; the host launches it again as one block over the partials.
//
// Launch: VECTOR_SUM_BLOCK (512) threads, no dynamic shared memory.

#include "reduce.cuh"

extern "C" __global__ void v0_two_pass_tree(const int* input, int* partials, size_t n) {
    __shared__ __align__(16) int block_sums[VECTOR_SUM_BLOCK];
    const unsigned tid = threadIdx.x;
    int sum = 0;
    for (size_t i = global_thread_idx(); i < n; i += grid_threads()) sum += input[i];
    block_sums[tid] = sum;
    __syncthreads();

#pragma unroll
    for (unsigned active = VECTOR_SUM_BLOCK / 2; active > 0; active /= 2) {
        if (tid < active) block_sums[tid] += block_sums[tid + active];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = block_sums[0];
}
