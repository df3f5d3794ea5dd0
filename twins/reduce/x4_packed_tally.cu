// Twin of kernels/src/reduce/x4_packed_tally.rs (step x4): x2's sum with a single-launch
// finish through one 64-bit atomic: each block adds (block_total << 32) | 1 to a tally;
// the block that sees blocks - 1 arrivals holds the others' sum, writes the result and
// resets the tally.
//
// Launch: STREAM_BLOCK (512) threads, one wave of blocks, no dynamic shared memory;
// `*tally` (8 bytes) zeroed once at allocation (each launch leaves it 0). atomicAdd on a
// u64 is atom.global.add.u64, relaxed at GPU scope like the Rust's atom.relaxed.gpu; the
// reset is reduce.cuh's store_relaxed_gpu (st.relaxed.gpu.global.u64, inline PTX).

#include "reduce.cuh"

extern "C" __global__ void x4_packed_tally(const int* input, int* result, size_t n,
                                           unsigned long long* tally) {
    constexpr unsigned long long ARRIVALS_MASK = 0xffffffffull;  // low half: arrivals
    const int sum = thread_sum_streaming(input, n);
    const int block_total = block_sum_shuffles(sum);
    if (threadIdx.x != 0) return;

    const unsigned long long mine = ((unsigned long long)(unsigned)block_total << 32) | 1;
    const unsigned long long before = atomicAdd(tally, mine);
    if ((before & ARRIVALS_MASK) == gridDim.x - 1) {
        const int others = (int)(unsigned)(before >> 32);
        *result = others + block_total;
        store_relaxed_gpu(tally, 0);
    }
}
