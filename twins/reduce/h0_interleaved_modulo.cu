// Twin of kernels/src/reduce/h0_interleaved_modulo.rs (step h0): a tree in shared memory
// where the threads whose index is a multiple of 2s add the value s places to the right
// (Harris's reduce0). One input per thread; one partial per block.
//
// Launch: any power-of-two block, blockDim.x ints of dynamic shared memory.

extern "C" __global__ void h0_interleaved_modulo(const int* input, int* partials, size_t n) {
    extern __shared__ __align__(16) int sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? input[i] : 0;
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}
