// Twin of kernels/src/attention/a07_persistent.rs (step a07): a06's block, producer, stages and
// consumer loop (attention_hopper.cuh, namespaces a05 and a06), in a grid of one block per SM
// whose blocks draw the work tiles from a counter until none is left. The order: the (batch,
// head) pairs in sections whose K and V fit in a07::SECTION_BYTES; within a section, query
// blocks from the last to the first, each over the section's heads (with a causal mask, the
// long tiles first). Block b's first tile is b; then gridDim.x + the counter's next value. The
// producer's thread, per tile: waits for Q's "empty" barrier (the consumers' release of the last
// Q, after their last scores), writes the tile to shared memory, and arrives on Q's
// "full" barrier: with Q's copy and then the tile's K and V through the stages (the ring
// continuing across tiles) when it has keys; plainly when it has none, or when no tile is left
// (the tile handed over is then END_Q0's). The last block to draw past the end zeroes the
// counter. The consumers, per phase of Q's "full" barrier: read the tile (its first row, batch,
// head and key tiles, decoded by the producer), stop at the end, else run a06's
// attend from their count of key tiles with release_q (or, with no keys, release Q at once),
// then the epilogue (hopper::store_output, as DirectStores). The turns are opened once before the
// first tile and closed once after the last. The kernel lives in attention_persistent.cuh, which
// a08's twin shares.
//
// Launch: a07::THREADS = 384 threads, a grid of min(work tiles, blocks that fit at once) along x
// (work tiles < 2^31), a07::shared_bytes(head dim) bytes of dynamic shared memory (its base
// rounded up to 1024 by the kernel), the 10 mbarriers and the tile in static shared
// memory; `maps` as a06's; `counter`: a07::COUNTER_WORDS u32 in global memory, zero (each launch
// leaves them zero). Requires an sm_90a device (compiled for compute_90a only), head dim 64 or
// 128 (the entry point's), strides multiples of 8 elements, scale > 0.
// What C++ needed that Rust did not: the Rust's NonZeroU32 divisors are plain divisions; the
// Rust's array of zeros is hopper::clear. The other way round: the Rust consumers read the
// problem again per tile (LLVM would keep O's strides live across the loop, and ptxas spill
// them); NVVM keeps no such values live, so the twin uses one copy.
#include "attention_persistent.cuh"

extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a07::DirectStores, 1>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a07::DirectStores, 1>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a07::DirectStores, 2>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a07::THREADS)
    a07_persistent_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a07::DirectStores, 2>(maps, o, lse, dims, counter);
}
