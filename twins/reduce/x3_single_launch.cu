// Twin of kernels/src/reduce/x3_single_launch.rs (step x3): x2 in a single launch; each
// block stores its partial and takes a ticket from an arrival counter (acquire-release
// atomic); the block with the last ticket adds the partials, writes the result and resets
// the counter.
//
// Launch: STREAM_BLOCK (512) threads, one wave of blocks, no dynamic shared memory;
// `partials` one int per block, `*arrivals` zeroed once at allocation (each launch leaves
// it 0). The ticket is reduce.cuh's atomic_add_acq_rel_gpu (inline PTX, see there); the
// fence is the builtin __nv_atomic_thread_fence, fence.acq_rel.gpu as in the Rust
// (__threadfence() would be the stronger membar.gl).

#include "reduce.cuh"

extern "C" __global__ void x3_single_launch(const int* input, int* result, size_t n, int* partials,
                                            unsigned* arrivals) {
    const int sum = thread_sum_streaming(input, n);
    const int block_total = block_sum_shuffles(sum);
    if (threadIdx.x / WARP_SIZE != 0) return;

    // Warp 0 alone from here; lane 0 holds the block's total.
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const unsigned blocks = gridDim.x;
    if (blocks == 1) {
        if (lane == 0) *result = block_total;
        return;
    }

    unsigned ticket = 0;
    if (lane == 0) {
        partials[blockIdx.x] = block_total;  // released by the atomic below
        ticket = atomic_add_acq_rel_gpu(arrivals, 1);
    }
    __syncwarp();
    ticket = __shfl_sync(ALL_LANES, ticket, 0);
    if (ticket != blocks - 1) return;

    // The last block: every partial is written. Each lane sums a strided share from L2.
    __nv_atomic_thread_fence(__NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
    int total = 0;
    for (unsigned b = lane; b < blocks; b += WARP_SIZE) total += __ldcg(partials + b);
#pragma unroll
    for (unsigned lane_mask = 16; lane_mask > 0; lane_mask /= 2)
        total += __shfl_xor_sync(ALL_LANES, total, lane_mask);
    if (lane == 0) {
        *result = total;
        *arrivals = 0;
    }
}
