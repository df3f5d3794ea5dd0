// Twin of kernels/src/reduce/x1_warp_shuffles.rs (step x1): v4 with the block sum done by
// warp shuffles (shfl.sync.down) instead of a shared-memory tree: one block barrier.
//
// Launch: VECTOR_SUM_BLOCK (512) threads, no dynamic shared memory; *result zeroed by the host;
// `input` 16-byte aligned.

#include "reduce.cuh"

extern "C" __global__ void x1_warp_shuffles(const int* input, int* result, size_t n) {
    constexpr unsigned UNITS = BATCH / 4;  // 16-byte units per thread
    const int4* units = reinterpret_cast<const int4*>(input);
    const size_t first_unit = global_thread_idx() * UNITS;
    int sum = 0;
    if ((first_unit + UNITS) * 4 <= n) {
#pragma unroll
        for (unsigned k = 0; k < UNITS; ++k) sum += int4_sum(__ldg(units + first_unit + k));
    } else {
        for (size_t i = first_unit * 4; i < n; ++i) sum += input[i];
    }
    const int total = block_sum_shuffles(sum);
    if (threadIdx.x == 0) atomicAdd(result, total);
}
