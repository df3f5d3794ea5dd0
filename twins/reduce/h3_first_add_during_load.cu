// Twin of kernels/src/reduce/h3_first_add_during_load.rs (step h3): a block covers
// 2·blockDim inputs and each thread adds its two as it loads them (Harris's reduce3).
//
// Launch: any power-of-two block, blockDim.x ints of dynamic shared memory.

extern "C" __global__ void h3_first_add_during_load(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t block = blockDim.x;
    const size_t i = (size_t)blockIdx.x * (2 * block) + tid;
    const int first = i < n ? input[i] : 0;
    const int second = i + block < n ? input[i + block] : 0;
    sdata[tid] = first + second;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}
