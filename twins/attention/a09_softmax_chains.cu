// Twin of kernels/src/attention/a09_softmax_chains.rs (step a09): a08 (a07's persistent kernel
// with StagedStores) with each row's maximum and sum taken in independent chains in the
// softmax's step (fragments::softmax_step's CHAINS: n8 tile n into chain n % CHAINS, joined as a
// tree): four at head dim 64, two at 128.
//
// Launch: as a08's.
#include "attention_staged_stores.cuh"

namespace a09 {
// Chains per row at head dim 64 and at 128.
constexpr u32 CHAINS_D64 = 4;
constexpr u32 CHAINS_D128 = 2;
}  // namespace a09

extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a09_softmax_chains_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a08::StagedStores, 1, a09::CHAINS_D64>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a09_softmax_chains_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a08::StagedStores, 1, a09::CHAINS_D64>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a09_softmax_chains_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a08::StagedStores, 2, a09::CHAINS_D128>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a09_softmax_chains_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a08::StagedStores, 2, a09::CHAINS_D128>(maps, o, lse, dims, counter);
}
