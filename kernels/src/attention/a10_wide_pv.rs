//! Step a10 — P·V as one `wgmma` across the head dim: P read from registers once.
//!
//! Idea: at head dim 128, a09 multiplies P by V's two 64-column panels in two `wgmma`
//!       m64n64k16 per 16 keys, each reading the same P fragment from registers and paying its
//!       own issue. One m64n128k16 does both (V's descriptor at the first panel, its leading
//!       offset a panel): 16 `wgmma` per warpgroup and key tile instead of 24, as cuDNN's kernel
//!       does. At head dim 64 there is one panel, and a10 is a09.
//! Changes from a09: `PV_N` = `PV_BOTH_PANELS` at head dim 128, passed down to
//!       `hopper::issue_output`, which a04–a09 run with `PV_PANEL`.
//! Bottleneck: a09's, at the power cap: the clock it holds there is a09's (the wide product
//!       saves issue slots, not energy).
//! Cost: no register moves (the two panels' accumulators are the one m64n128's, in order);
//!       no local memory in its PTX.
//! Requires: an sm_90a device and PTX; head dim 64 or 128; strides multiples of 8 elements.
//! Result: 632 TFLOP/s, d128, 4k, bf16, back to back: 103 % of cuDNN (a09 102 %), H200, 2026-11-29.
//!
//! More: docs/lessons.md#a10

use super::a07_persistent::flash_persistent;
use super::a08_tma_store::StagedStores;
use super::a09_softmax_chains::{CHAINS_D64, CHAINS_D128};
use super::hopper::{PV_BOTH_PANELS, PV_PANEL};
use super::{Bf16, F16};
use common::attention::Dims;
use common::attention::a10::THREADS;
use kernel_macros::kernel;

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $chains:ident, $pv_n:ident, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As a09's entry points (the same launch, shared memory and tensor maps).
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims, counter: *mut u32) {
            // SAFETY: forwarded.
            unsafe { flash_persistent::<$ty, StagedStores, $panels, $chains, $pv_n>(maps, o, lse, dims, counter) }
        }
    };
}

entry!(a10_wide_pv_f16_d64, F16, 1, CHAINS_D64, PV_PANEL, "a10 on f16, head dim 64: a09's kernel (one panel).");
entry!(a10_wide_pv_bf16_d64, Bf16, 1, CHAINS_D64, PV_PANEL, "a10 on bf16, head dim 64: a09's kernel (one panel).");
entry!(a10_wide_pv_f16_d128, F16, 2, CHAINS_D128, PV_BOTH_PANELS, "a10 on f16, head dim 128.");
entry!(a10_wide_pv_bf16_d128, Bf16, 2, CHAINS_D128, PV_BOTH_PANELS, "a10 on bf16, head dim 128.");
