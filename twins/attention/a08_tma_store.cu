// Twin of kernels/src/attention/a08_tma_store.rs (step a08): a07's persistent kernel
// (attention_persistent.cuh) with StagedStores for a07's DirectStores. Per tile a consumer
// warpgroup's first thread (the storer) waits until the copy engine has read the box it was
// handed at the last tile (cp.async.bulk.wait_group.read 0, predicated on the storer, as its
// copies are); the warpgroup meets at its named barrier (3 + warpgroup: 0 is the block's, 1 and
// 2 the turns'); each warp writes its rows' O / l, rounded to T, into the warpgroup's staging
// box by stmatrix, two n8 tiles at a time (PANELS panels of 64 columns × 64 rows, 128-byte rows
// with the 128-byte swizzle: row r's chunk c at c XOR (r % 8)); each thread stores its
// log-sum-exps as a07 does and fences its writes for the async proxy; the warpgroup meets again
// and the storer issues one TMA store per panel through O's tensor map (the fourth at `maps`,
// boxes of 64 columns × O_BOX_ROWS rows), which clips the rows past seq_q, and commits them as
// one bulk group. After the last tile the storer waits for the last box to be read out. The
// box's base and the thread index pass through computed_here, so the compiler computes the
// addresses at the tile's end, not before the loop over tiles.
//
// Launch: as a07's, with a08::shared_bytes(head dim) bytes of dynamic shared memory (the staging
// boxes after the stages) and a fourth tensor map at `maps`: O's, [column, row, head, batch],
// boxes of 64 columns × 64 rows, the 128-byte swizzle.
#include "attention_staged_stores.cuh"

extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a08_tma_store_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a08::StagedStores, 1>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a08_tma_store_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a08::StagedStores, 1>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a08_tma_store_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a08::StagedStores, 2>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a08_tma_store_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a08::StagedStores, 2>(maps, o, lse, dims, counter);
}
