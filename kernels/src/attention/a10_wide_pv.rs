//! Step a10 — P·V at head dim 128 as one `wgmma` over both panels: P read once.
//!
//! Idea: a09 multiplies P by V's two 64-column panels in two `wgmma` m64n64k16 per 16 keys,
//!       each reading the same P fragment from registers and paying its own issue. One
//!       m64n128k16 does both (V's descriptor at the first panel, its leading offset a
//!       panel): 16 `wgmma` per warpgroup and key tile instead of 24, as cuDNN's kernel does.
//!       Aimed at the energy a09 spends per cycle, which the power cap turns into clock.
//! Changes from a09: `PV_N` = `PV_BOTH_PANELS` passed down to `hopper::issue_output`, which
//!       a04–a09 run with `PV_PANEL`. Head dim 128 only (at 64 there is one panel).
//! Bottleneck: a09's, at the power cap.
//! Cost: none in registers (the two panels' accumulators are the one m64n128's, in order).
//! Requires: an sm_90a device and PTX; head dim 128; strides multiples of 8 elements.
//! Result: not measured (built, PTX checked; its first GPU run is to come).
//!
//! More: docs/lessons.md#a10

use super::a07_persistent::flash_persistent;
use super::a08_tma_store::StagedStores;
use super::a09_softmax_chains::CHAINS_D128;
use super::hopper::PV_BOTH_PANELS;
use super::{Bf16, F16};
use common::attention::Dims;
use common::attention::a10::THREADS;
use kernel_macros::kernel;

macro_rules! entry {
    ($name:ident, $ty:ident, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As a09's entry points at head dim 128 (the same launch, shared memory and tensor maps).
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims, counter: *mut u32) {
            // SAFETY: forwarded.
            unsafe { flash_persistent::<$ty, StagedStores, 2, CHAINS_D128, PV_BOTH_PANELS>(maps, o, lse, dims, counter) }
        }
    };
}

entry!(a10_wide_pv_f16_d128, F16, "a10 on f16, head dim 128.");
entry!(a10_wide_pv_bf16_d128, Bf16, "a10 on bf16, head dim 128.");
