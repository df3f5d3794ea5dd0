// Twin of kernels/src/scan/s04_warp_shuffles.rs (step s04): warps scan in registers with
// shfl.sync.up (scan.cuh's warp_inclusive_scan), and the block in three moves with two
// barriers (block_exclusive_scan: warp scans, warp 0 scans the 16 warp totals, each warp
// adds the totals before it). One element per thread, as s01; the totals and the
// propagation are s01's.
//
// Launch: s04::THREADS (512) threads, one block per s04::TILE elements, no dynamic shared
// memory (scan.cuh's 32 warp totals).
#include "scan.cuh"

// `warp_shuffles`: scans tile blockIdx.x of input[0..n] into output (inclusive, or exclusive
// when `exclusive != 0`) and writes the tile's total to sums[blockIdx.x].
template <class E>
__device__ __forceinline__ void warp_shuffles(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    using V = typename E::Value;
    const u64 tile_index = blockIdx.x;
    const u64 i = tile_index * s04::TILE + threadIdx.x;
    const V x = i < n ? E::from_bits(input[i]) : E::ZERO;
    const auto [before, total] = block_exclusive_scan<E>(x);
    if (i < n) output[i] = E::to_bits(exclusive != 0 ? before : E::add(before, x));
    if (threadIdx.x == 0) sums[tile_index] = E::to_bits(total);
}

extern "C" __global__ void __launch_bounds__(s04::THREADS)
    s04_warp_shuffles_i32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    warp_shuffles<I32>(input, output, n, sums, exclusive);
}
extern "C" __global__ void __launch_bounds__(s04::THREADS)
    s04_warp_shuffles_f32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    warp_shuffles<F32>(input, output, n, sums, exclusive);
}
