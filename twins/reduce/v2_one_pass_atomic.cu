// Twin of kernels/src/reduce/v2_one_pass_atomic.rs (step v2, kernel_2 of “Making vector sum really fast”): one
// input per thread, v1's block sum, and one atomic add per block into the result.
//
// Launch: VECTOR_SUM_BLOCK (512) threads, no dynamic shared memory; the host zeroes *result
// before the launch (unlike the seed, which zeroes it in the kernel: a race).

#include "reduce.cuh"

extern "C" __global__ void v2_one_pass_atomic(const int* input, int* result, size_t n) {
    const size_t i = global_thread_idx();
    const int value = i < n ? input[i] : 0;
    const int total = block_sum(value);
    if (threadIdx.x == 0) atomicAdd(result, total);  // result unused: red.global.add
}
