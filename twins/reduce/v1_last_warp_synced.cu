// Twin of kernels/src/reduce/v1_last_warp_synced.rs (step v1, kernel_1 of “Making vector sum really fast”): v0 with
// the tree's last six levels folded by warp 0 alone, with __syncwarp between each level's
// reads and writes.
//
// Launch: VECTOR_SUM_BLOCK (512) threads, no dynamic shared memory.

#include "reduce.cuh"

extern "C" __global__ void v1_last_warp_synced(const int* input, int* partials, size_t n) {
    int sum = 0;
    for (size_t i = global_thread_idx(); i < n; i += grid_threads()) sum += input[i];
    const int total = block_sum(sum);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}
