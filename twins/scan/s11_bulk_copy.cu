// Twin of kernels/src/scan/s11_bulk_copy.rs (step s11): thread 0 claims the tile and starts
// one cp.async.bulk of its 32 KiB into shared memory, completed on an mbarrier; each warp then
// scans its 8 rows of one 16-byte unit per lane (a warp scan per row, the row's total carried
// into the next), lane 31 hands the warp's total to s04's block_exclusive_scan, warp 0 looks
// back (s09's WarpWindow), and the outputs are written row by row, coalesced. The last,
// partial tile is copied by the block with ordinary loads. The pieces are scan_bulk.cuh's; the
// bulk copy and the mbarrier hopper.cuh's, the same instructions as kernels/src/device/tma.rs.
//
// Launch: s11::THREADS (256) threads, s11::SHARED_BYTES of dynamic shared memory, one block
// per s11::TILE (8192) elements, s07's state; `input` and `output` 16-byte aligned. sm_90.
#include "scan_bulk.cuh"

// The block's claim (tile, epoch), then the sum of every tile before it.
__shared__ u32 bulk_copy_words[3];

template <class E>
__device__ __forceinline__ void bulk_copy(const u32* input, u32* output, u64 n, u64* state, u32 exclusive,
                                          u32 jitter) {
    using V = typename E::Value;
    extern __shared__ __align__(16) u32 dynamic_words[];
    u32* const tile_words = bulk::aligned_shared<s11::TILE_ALIGN>(dynamic_words);
    const state::Claim claim = bulk::load_tile<E>(tile_words, bulk_copy_words, input, n, state, jitter);
    const u64 start = (u64)claim.tile * s11::TILE;
    const bulk::Rows<E> rows = bulk::scan_rows_of<E>(tile_words, bulk::Values<E>{});
    const V warp_total = lane_idx() == WARP_SIZE - 1 ? rows.warp_total : E::ZERO;
    const auto [before_warp, aggregate] = block_exclusive_scan<E>(warp_total);
    const V before_tile = tile_prefix<E, WarpWindow>(state, claim, aggregate, jitter, &bulk_copy_words[2]);
    bulk::store_rows<E>(tile_words, output, n, start, E::add(before_tile, before_warp), rows, exclusive);
}

extern "C" __global__ void __launch_bounds__(s11::THREADS)
    s11_bulk_copy_i32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    bulk_copy<I32>(input, output, n, state, exclusive, jitter);
}
extern "C" __global__ void __launch_bounds__(s11::THREADS)
    s11_bulk_copy_f32(const u32* input, u32* output, u64 n, u64* state, u32 exclusive, u32 jitter) {
    bulk_copy<F32>(input, output, n, state, exclusive, jitter);
}
