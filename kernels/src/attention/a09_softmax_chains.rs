//! Step a09 — each row's maximum and sum in independent chains: a shorter softmax.
//!
//! Idea: a thread's part of a row's maximum, and then of its sum, was one chain of 32
//!       dependent `max` and 32 dependent `add` per key tile, on the path from the scores to
//!       the next P·V. Taken in four chains (n8 tile `n` into chain `n % 4`) joined as a tree,
//!       each is 8 deep and two more. Most at head dim 64, where a tile's products are half of
//!       128's and the softmax weighs twice as much.
//! Changes from a08: `CHAINS` (four at head dim 64, two at 128) passed down to the softmax's
//!       step (`fragments::softmax_step`), which a04–a08 run with one.
//! Bottleneck: a08's.
//! Cost: 6 or 2 more registers live through the softmax; the sum's additions in another order.
//! Requires: an sm_90a device and PTX; head dim 64 or 128; strides multiples of 8 elements.
//! Result: 472 TFLOP/s, d64, 4k, bf16, back to back: 103 % of cuDNN (a08 101 %), H200, 2026-11-29.
//!
//! More: docs/lessons.md#a09

use super::a07_persistent::flash_persistent;
use super::a08_tma_store::StagedStores;
use super::hopper::PV_PANEL;
use super::{Bf16, F16};
use common::attention::Dims;
use common::attention::a09::THREADS;
use kernel_macros::kernel;

/// Chains per row at head dim 64 and at 128.
pub(super) const CHAINS_D64: usize = 4;
pub(super) const CHAINS_D128: usize = 2;

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $chains:ident, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As a08's entry points (the same launch, shared memory and tensor maps).
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims, counter: *mut u32) {
            // SAFETY: forwarded.
            unsafe { flash_persistent::<$ty, StagedStores, $panels, $chains, PV_PANEL>(maps, o, lse, dims, counter) }
        }
    };
}

entry!(a09_softmax_chains_f16_d64, F16, 1, CHAINS_D64, "a09 on f16, head dim 64.");
entry!(a09_softmax_chains_bf16_d64, Bf16, 1, CHAINS_D64, "a09 on bf16, head dim 64.");
entry!(a09_softmax_chains_f16_d128, F16, 2, CHAINS_D128, "a09 on f16, head dim 128.");
entry!(a09_softmax_chains_bf16_d128, Bf16, 2, CHAINS_D128, "a09 on bf16, head dim 128.");
