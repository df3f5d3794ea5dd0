// Twin of kernels/src/reduce/h6_grid_stride.rs (step h6): one wave of blocks, each thread
// walking the input with a grid-stride loop, two elements per iteration, before h5's tree
// (Harris's reduce6). One entry per block size.
//
// Launch: BLOCK threads (the entry's suffix), BLOCK ints of dynamic shared memory.
// Unlike Harris's reduce6, the second load of each iteration checks its own bound.

#include "reduce.cuh"

template <unsigned BLOCK>
__device__ __forceinline__ void grid_stride(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t block = BLOCK;
    const size_t grid_size = 2 * block * gridDim.x;
    int sum = 0;
    for (size_t i = (size_t)blockIdx.x * (2 * block) + tid; i < n; i += grid_size) {
        sum += input[i];
        if (i + block < n) sum += input[i + block];
    }
    sdata[tid] = sum;
    __syncthreads();
    const int total = block_tree_sum<BLOCK>(sdata, tid);
    if (tid == 0) partials[blockIdx.x] = total;
}

extern "C" __global__ void h6_grid_stride_128(const int* input, int* partials, size_t n) {
    grid_stride<128>(input, partials, n);
}
extern "C" __global__ void h6_grid_stride_256(const int* input, int* partials, size_t n) {
    grid_stride<256>(input, partials, n);
}
extern "C" __global__ void h6_grid_stride_512(const int* input, int* partials, size_t n) {
    grid_stride<512>(input, partials, n);
}
