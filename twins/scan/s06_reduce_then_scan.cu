// Twin of kernels/src/scan/s06_reduce_then_scan.rs (step s06): reduce, then scan. A first
// kernel writes each tile's sum (s06_reduce_tiles_*); the host scans the sums by this step's
// own plan; a second kernel scans each tile from its offset and writes the final values at
// once (s06_scan_tiles_*): 2 reads and 1 write of the data where s05 made 2 and 2. The
// tile's loads, thread sums, block scan and stores are s05's.
//
// Launch (both kernels): s06::THREADS (512) threads, one block per s06::TILE (8192)
// elements, no dynamic shared memory; `input` and `output` 16-byte aligned.
#include "scan.cuh"

// `first_item`: the first element of this thread's items in tile blockIdx.x.
__device__ __forceinline__ u64 first_item() { return (u64)blockIdx.x * s06::TILE + threadIdx.x * s06::ITEMS; }

// `reduce_tiles`: writes the sum of tile blockIdx.x of input[0..n] to sums[blockIdx.x].
template <class E>
__device__ __forceinline__ void reduce_tiles(const u32* input, u64 n, u32* sums) {
    const tile::Items<E> items = tile::load<E>(input, n, first_item());
    const typename E::Value total = block_exclusive_scan<E>(tile::sum<E>(items)).total;
    if (threadIdx.x == 0) sums[blockIdx.x] = E::to_bits(total);
}

// `scan_tiles`: scans tile blockIdx.x of input[0..n] into output (inclusive, or exclusive when
// `exclusive != 0`), starting from offsets[blockIdx.x], the sum of every tile before it (from
// 0 when `offsets` is null: a single tile).
template <class E>
__device__ __forceinline__ void scan_tiles(const u32* input, u32* output, u64 n, const u32* offsets, u32 exclusive) {
    using V = typename E::Value;
    const u64 first = first_item();
    const tile::Items<E> items = tile::load<E>(input, n, first);
    const V offset = offsets == nullptr ? E::ZERO : E::from_bits(offsets[blockIdx.x]);
    const V before = block_exclusive_scan<E>(tile::sum<E>(items)).exclusive;
    tile::store<E>(output, n, first, tile::scan<E>(items, E::add(offset, before), exclusive != 0));
}

extern "C" __global__ void __launch_bounds__(s06::THREADS)
    s06_reduce_tiles_i32(const u32* input, u64 n, u32* sums) {
    reduce_tiles<I32>(input, n, sums);
}
extern "C" __global__ void __launch_bounds__(s06::THREADS)
    s06_reduce_tiles_f32(const u32* input, u64 n, u32* sums) {
    reduce_tiles<F32>(input, n, sums);
}
extern "C" __global__ void __launch_bounds__(s06::THREADS)
    s06_scan_tiles_i32(const u32* input, u32* output, u64 n, const u32* offsets, u32 exclusive) {
    scan_tiles<I32>(input, output, n, offsets, exclusive);
}
extern "C" __global__ void __launch_bounds__(s06::THREADS)
    s06_scan_tiles_f32(const u32* input, u32* output, u64 n, const u32* offsets, u32 exclusive) {
    scan_tiles<F32>(input, output, n, offsets, exclusive);
}
