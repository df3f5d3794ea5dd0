// Twin of kernels/src/reduce/h5_complete_unroll.rs (step h5): the block size is a template
// parameter, so every level of the tree is a fixed line of code (Harris's reduce5). One
// entry per block size.
//
// Launch: BLOCK threads (the entry's suffix), BLOCK ints of dynamic shared memory.

#include "reduce.cuh"

template <unsigned BLOCK>
__device__ __forceinline__ void complete_unroll(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t block = BLOCK;
    const size_t i = (size_t)blockIdx.x * (2 * block) + tid;
    const int first = i < n ? input[i] : 0;
    const int second = i + block < n ? input[i + block] : 0;
    sdata[tid] = first + second;
    __syncthreads();
    const int total = block_tree_sum<BLOCK>(sdata, tid);
    if (tid == 0) partials[blockIdx.x] = total;
}

extern "C" __global__ void h5_complete_unroll_128(const int* input, int* partials, size_t n) {
    complete_unroll<128>(input, partials, n);
}
extern "C" __global__ void h5_complete_unroll_256(const int* input, int* partials, size_t n) {
    complete_unroll<256>(input, partials, n);
}
extern "C" __global__ void h5_complete_unroll_512(const int* input, int* partials, size_t n) {
    complete_unroll<512>(input, partials, n);
}
