// Twin of kernels/src/scan/s13_compaction.rs (step s13): stream compaction on s10's scan.
// Each thread tests its 16 elements as they load (keep_i32: greater than zero) and counts
// the kept ones; the block scans the counts (s04's block_exclusive_scan) and learns the
// count before its tile (s07's tile_prefix with s09's WarpWindow), after s10's prefetch of
// the tile AHEAD; then each thread writes its kept elements at its offset, one after the
// other. The last tile writes the total count. Written out in
// full, as the Rust step is (single_pass stores a scan, this stores the kept elements);
// `#pragma unroll` keeps the items in registers where the Rust writes two unroll!(8).
//
// Launch: up to s13::THREADS (512) threads, one block per blockDim.x * ITEMS elements, no dynamic
// shared memory, s07's state; n < 2^32; `input` and `output` 16-byte aligned (they may be
// the same buffer); `*count` one u32.
#include "scan.cuh"

// The block's claim (tile, epoch), then the count of kept elements before the tile.
__shared__ u32 compaction_words[3];

extern "C" __global__ void __launch_bounds__(s13::THREADS)
    s13_compaction(const u32* input, u32* output, u64 n, u64* state, u32* count, u32 jitter) {
    const state::Claim claim = state::claim_for_block(compaction_words, state, jitter);
    const u64 tile = (u64)blockDim.x * s13::ITEMS;  // the block's tile, as s07's
    const u64 first = (u64)claim.tile * tile + threadIdx.x * s13::ITEMS;
    tile::prefetch(input, n, (u64)(claim.tile + s13::AHEAD) * tile, tile);
    const tile::Items<I32> items = tile::load<I32>(input, n, first);
    // Elements past n load as 0, which the test rejects.
    int kept = 0;
#pragma unroll
    for (u32 k = 0; k < tile::N; ++k) kept += keep_i32(items.at[k]);
    const auto [before_thread, aggregate] = block_exclusive_scan<I32>(kept);
    const int before_tile = tile_prefix<I32, WarpWindow>(state, claim, aggregate, jitter, &compaction_words[2]);
    // The last tile's thread 0 alone writes the count.
    if (threadIdx.x == 0 && claim.tile == gridDim.x - 1) *count = (u32)I32::add(before_tile, aggregate);
    // The kept elements before this thread's first: below n, and below every element of this
    // tile and the next not yet loaded (in place, nothing is overwritten before it is read).
    u64 at = (u32)I32::add(before_tile, before_thread);
    auto put = [&](int x) {
        if (keep_i32(x)) {
            output[at] = (u32)x;
            at += 1;
        }
    };
#pragma unroll
    for (u32 k = 0; k < tile::N; ++k) put(items.at[k]);
}
