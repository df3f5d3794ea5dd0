//! Step w13 — the stream-K share first: every cluster starts its share at the launch.
//!
//! Idea: w11 and w12 keep the clusters at the same k tiles in the stream-K phase, but the
//!       phase starts when each cluster's last whole unit ends, and those ends are spread
//!       (some 9 k tiles at 4096³). Run first, the shares all start at the launch, together,
//!       and the owners' partials are ready long before the whole units need the pipeline.
//! Changes from w12: the schedule is `with_shares_first()`.
//! Bottleneck: the spread moves to the end of the launch, where it costs the same.
//! Cost: as w12.
//! Requires: as w12.
//! Result: 96.8 % of cuBLAS f16 at 4096³ (w12 97.7): does not pay, H200, 2026-11-23.
//!
//! More: docs/lessons.md#w13

use super::hopper::{self, M64n256, Reallocate};
use super::w12_pipelined_fixup::pipelined_fixup_gemm_for;
use common::gemm::w13::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use kernel_macros::kernel;

hopper::shape!(W13 = w13, M64n256, Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, stream_k);

// w12's kernel, on w13's shape, with the shares first.
pipelined_fixup_gemm_for!(W13, schedule => schedule.with_shares_first());

hopper::entry_points!(
    pipelined_fixup_gemm(
        a_map: *const u8,
        b_map: *const u8,
        c_map: *const u8,
        m: u32,
        n: u32,
        k: u32,
        workspace: *mut f32
    ) => w13_shares_first_f16, w13_shares_first_bf16
);
