// Twin of kernels/src/reduce/v3_batch_per_thread.rs (step v3, kernel_3 of “Making vector sum really fast”): each
// thread sums BATCH (32) consecutive inputs in registers before v2's block sum and atomic.
//
// Launch: VECTOR_SUM_BLOCK (512) threads, no dynamic shared memory; *result zeroed by the host.
// As in the Rust (and unlike the seed's per-element check), the bound is checked once per
// batch; only the batch that straddles the end takes the checked loop.

#include "reduce.cuh"

extern "C" __global__ void v3_batch_per_thread(const int* input, int* result, size_t n) {
    const size_t first = global_thread_idx() * BATCH;
    int sum = 0;
    if (first + BATCH <= n) {
#pragma unroll
        for (unsigned j = 0; j < BATCH; ++j) sum += input[first + j];
    } else {
        for (size_t i = first; i < n; ++i) sum += input[i];
    }
    const int total = block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(result, total);
}
