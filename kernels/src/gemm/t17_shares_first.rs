//! Step t17 — the stream-K share first: every cluster starts its share at the launch.
//!
//! Idea: t15 and t16 keep the clusters at the same k tiles in the stream-K phase, but the
//!       phase starts when each cluster's last whole unit ends, and those ends are spread
//!       (some 9 k tiles at 4096³). Run first, the shares all start at the launch, together,
//!       and the owners' partials are ready long before the whole units need the pipeline.
//! Changes from t16: the schedule is `with_shares_first()`.
//! Bottleneck: the spread moves to the end of the launch, where it costs the same.
//! Cost: as t16.
//! Requires: as t16.
//! Result: 96.8 % of cuBLAS f16 at 4096³ (t16 97.7): does not pay, H200, 2026-11-23.
//!
//! More: docs/lessons.md#t17

use super::hopper::{self, M64n256, Reallocate};
use super::t16_pipelined_fixup::pipelined_fixup_gemm_for;
use common::gemm::t17::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(T17 = t17, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

// t16's kernel, on t17's shape, with the shares first.
pipelined_fixup_gemm_for!(T17, schedule => schedule.with_shares_first());

hopper::entry_points!(
    pipelined_fixup_gemm(
        a_map: *const u8,
        b_map: *const u8,
        c_map: *const u8,
        m: u32,
        n: u32,
        k: u32,
        workspace: *mut f32
    ) => t17_shares_first_f16, t17_shares_first_bf16
);
