//! Step t17 — the stream-K share first: every cluster starts its share at the launch,
//! and its whole units after it.
//!
//! Idea: t15 keeps the clusters at the same k tiles in the stream-K phase by having each
//!       start its share at k tile 0, at "time 0" of the phase. But in t15 and t16 the phase
//!       starts when a cluster's last whole unit ends, and those ends are spread: at 4096³
//!       on the H100 the three waves ended between 136 and 142 µs (t11's timeline), some 9
//!       k tiles apart, so the clusters meet the shared A and B tiles out of step again.
//!       Run first, the shares all start at the launch, together; the owners' partials are
//!       then ready long before the whole units that follow need the pipeline, and the
//!       whole units start as evenly as the shares end (their lengths differ by at most one
//!       k tile). The last wave's spread is where it was, at the end.
//! Changes from t16: the schedule is `with_shares_first()`.
//! Cost: as t16.
//! Requires: as t16.
//! Result (final run, 2026-11-23, % of cuBLAS f16 / bf16): no better than t16, and
//!       worse at 4096³ (H100 95.6 / 95.2, H200 96.8 / 96.8 against t16's 96.7–97.7):
//!       the whole units after the shares do not start together either, and the spread
//!       that t11's timeline showed at the end of the waves stays where it was. 4097 × 4096
//!       × 4096 89.5–91.8, 8192³ 102.1–102.6, level with t16. Verified as t16 (awkward
//!       shapes, twins, both GPUs, the four sanitizers; racecheck alone, as t16).

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
