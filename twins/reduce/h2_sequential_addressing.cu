// Twin of kernels/src/reduce/h2_sequential_addressing.rs (step h2): the tree runs from
// distance blockDim/2 down, thread t < s adding element t + s: contiguous adders and
// conflict-free shared accesses (Harris's reduce2).
//
// Launch: any power-of-two block, blockDim.x ints of dynamic shared memory.

extern "C" __global__ void h2_sequential_addressing(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? input[i] : 0;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}
