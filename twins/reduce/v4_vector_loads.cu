// Twin of kernels/src/reduce/v4_vector_loads.rs (step v4, kernel_4 of “Making vector sum really fast”): v3 with the
// batch read as BATCH/4 16-byte int4 units through the read-only path (ld.global.nc.v4).
//
// Launch: VECTOR_SUM_BLOCK (512) threads, no dynamic shared memory; *result zeroed by the host;
// `input` 16-byte aligned. As in the Rust, the bound is checked before the loads (the seed
// checks after, reading past the end).

#include "reduce.cuh"

extern "C" __global__ void v4_vector_loads(const int* input, int* result, size_t n) {
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
    const int total = block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(result, total);
}
