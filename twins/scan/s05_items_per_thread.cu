// Twin of kernels/src/scan/s05_items_per_thread.rs (step s05): 16 consecutive elements per
// thread, loaded and stored 16 bytes at a time (ld/st.global.cs.v4: scan.cuh's tile::load and
// tile::store, __ldcs/__stcs on int4), summed in registers; the block scans the 512 thread
// sums with s04's block_exclusive_scan, and each thread rescans its 16 from its prefix. The
// tile grows to 8192 elements; the propagation is s01's.
//
// Launch: s05::THREADS (512) threads, one block per s05::TILE (8192) elements, no dynamic
// shared memory; `input` and `output` 16-byte aligned.
#include "scan.cuh"

// `items_per_thread`: scans tile blockIdx.x of input[0..n] into output (inclusive, or
// exclusive when `exclusive != 0`) and writes the tile's total to sums[blockIdx.x].
template <class E>
__device__ __forceinline__ void items_per_thread(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    const u64 tile_index = blockIdx.x;
    const u64 first = tile_index * s05::TILE + threadIdx.x * s05::ITEMS;
    const tile::Items<E> items = tile::load<E>(input, n, first);
    const auto [before, total] = block_exclusive_scan<E>(tile::sum<E>(items));
    tile::store<E>(output, n, first, tile::scan<E>(items, before, exclusive != 0));
    if (threadIdx.x == 0) sums[tile_index] = E::to_bits(total);
}

extern "C" __global__ void __launch_bounds__(s05::THREADS)
    s05_items_per_thread_i32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    items_per_thread<I32>(input, output, n, sums, exclusive);
}
extern "C" __global__ void __launch_bounds__(s05::THREADS)
    s05_items_per_thread_f32(const u32* input, u32* output, u64 n, u32* sums, u32 exclusive) {
    items_per_thread<F32>(input, output, n, sums, exclusive);
}
