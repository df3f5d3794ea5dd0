// Twin of kernels/src/reduce/x2_grid_stride_unrolled.rs (step x2): one wave of blocks
// striding over tiles of 512 × 4 16-byte units, each thread issuing its 4 streaming loads
// (ld.global.cs.v4) before adding them; x1's shuffle block sum; one atomic per block.
//
// Launch: STREAM_BLOCK (512) threads, one wave of blocks, no dynamic shared memory;
// *result zeroed by the host; `input` 16-byte aligned.

#include "reduce.cuh"

extern "C" __global__ void x2_grid_stride_unrolled(const int* input, int* result, size_t n) {
    const int sum = thread_sum_streaming(input, n);
    const int total = block_sum_shuffles(sum);
    if (threadIdx.x == 0) atomicAdd(result, total);
}
