// Twin of kernels/src/attention/a10_wide_pv.rs (step a10): a09 with P·V as one wgmma across the
// head dim: at 128, one m64n128k16 per 16 keys over both of V's 64-column panels
// (hopper::issue_output's PV_N = PV_BOTH_PANELS), where a04–a09 issue one m64n64k16 per panel; at
// 64, a09's kernel (one panel).
//
// Launch: as a09's.
#include "attention_staged_stores.cuh"

namespace a10 {
// Chains per row of the softmax's reductions: a09's.
constexpr u32 CHAINS_D64 = 4;
constexpr u32 CHAINS_D128 = 2;
}  // namespace a10

extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a10_wide_pv_f16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a08::StagedStores, 1, a10::CHAINS_D64, hopper::PV_PANEL>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a10_wide_pv_bf16_d64(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a08::StagedStores, 1, a10::CHAINS_D64, hopper::PV_PANEL>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a10_wide_pv_f16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<F16, a08::StagedStores, 2, a10::CHAINS_D128, hopper::PV_BOTH_PANELS>(maps, o, lse, dims, counter);
}
extern "C" __global__ void __launch_bounds__(a08::THREADS)
    a10_wide_pv_bf16_d128(const u8* maps, u16* o, float* lse, const Dims* dims, u32* counter) {
    a07::flash_persistent<Bf16, a08::StagedStores, 2, a10::CHAINS_D128, hopper::PV_BOTH_PANELS>(maps, o, lse, dims, counter);
}
