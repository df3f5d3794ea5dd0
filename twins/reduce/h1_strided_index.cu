// Twin of kernels/src/reduce/h1_strided_index.rs (step h1): h0's tree with the work of each
// level given to the first threads of the block (index 2·s·tid): no divergent warps, but
// bank conflicts (Harris's reduce1).
//
// Launch: any power-of-two block, blockDim.x ints of dynamic shared memory.

extern "C" __global__ void h1_strided_index(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? input[i] : 0;
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}
