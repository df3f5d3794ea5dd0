// Twin of kernels/src/scan/s14_staged_compaction.rs (step s14): compaction on s11's tile. The
// tile comes in by bulk copy (scan_bulk.cuh's load_tile); each warp counts the kept elements
// of its rows (scan_rows_of with 0/1 flags), the block scans the warps' counts and warp 0 looks
// back (s09's WarpWindow) for the count before the tile; then each warp packs its kept
// elements at the front of its own part of the tile, row by row (a __syncwarp between a row's
// reads and its writes: a row's kept elements never pass its own end), and stores them
// contiguous, 128 bytes per instruction. The last tile's thread 0 writes the count.
//
// Launch: s14::THREADS (256) threads, s14::SHARED_BYTES of dynamic shared memory, one block per
// s14::TILE (8192) elements, s07's state; n < 2^32; `input` and `output` 16-byte aligned. sm_90.
#include "scan_bulk.cuh"

// The block's claim (tile, epoch), then the count of kept elements before the tile.
__shared__ u32 staged_words[3];

// `flags`: a unit's four elements as 0/1 flags, whether each is kept.
struct Flags {
    __device__ __forceinline__ void operator()(uint4 bits, int (&x)[4]) const {
        x[0] = keep_i32((int)bits.x), x[1] = keep_i32((int)bits.y), x[2] = keep_i32((int)bits.z),
        x[3] = keep_i32((int)bits.w);
    }
};

// `pack_rows`: packs the warp's kept elements at the front of its part of the tile, row by row.
__device__ __forceinline__ void pack_rows(u32* tile_words, const int (&before_lane)[s14::ROWS]) {
    const u32 part = 4 * warp_idx() * s14::ROWS * WARP_SIZE;  // the warp's part, in words
#pragma unroll
    for (u32 r = 0; r < s14::ROWS; ++r) {
        const uint4 bits = reinterpret_cast<const uint4*>(tile_words)[bulk::first_unit() + r * WARP_SIZE];
        __syncwarp();  // every lane has read row r before any writes over it
        const u32 x[4] = {bits.x, bits.y, bits.z, bits.w};
        u32 at = part + (u32)before_lane[r];
#pragma unroll
        for (u32 k = 0; k < 4; ++k)
            if (keep_i32((int)x[k])) tile_words[at++] = x[k];
    }
    __syncwarp();  // the packed elements, visible to every lane of the warp
}

extern "C" __global__ void __launch_bounds__(s14::THREADS)
    s14_staged_compaction(const u32* input, u32* output, u64 n, u64* state, u32* count, u32 jitter) {
    extern __shared__ __align__(16) u32 dynamic_words[];
    u32* const tile_words = bulk::aligned_shared<s11::TILE_ALIGN>(dynamic_words);
    const state::Claim claim = bulk::load_tile<I32>(tile_words, staged_words, input, n, state, jitter);
    // Elements past n read as 0, which the test rejects.
    const bulk::Rows<I32> rows = bulk::scan_rows_of<I32>(tile_words, Flags{});
    const int kept = rows.warp_total;
    const auto [before_warp, aggregate] = block_exclusive_scan<I32>(lane_idx() == WARP_SIZE - 1 ? kept : 0);
    const int before_tile = tile_prefix<I32, WarpWindow>(state, claim, aggregate, jitter, &staged_words[2]);
    if (threadIdx.x == 0 && claim.tile == gridDim.x - 1) *count = (u32)I32::add(before_tile, aggregate);
    pack_rows(tile_words, rows.before_lane);
    const u32 part = 4 * warp_idx() * s14::ROWS * WARP_SIZE;
    u32* out = output + (u32)I32::add(before_tile, before_warp);
    for (u32 i = lane_idx(); i < (u32)kept; i += WARP_SIZE) out[i] = tile_words[part + i];
}
