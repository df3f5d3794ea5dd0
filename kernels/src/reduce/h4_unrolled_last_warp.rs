//! Step h4 — the last warp unrolled, with warp barriers (Harris's reduce4, made race-free).
//!
//! Idea: when 32 or fewer threads are left working they are all in warp 0, so the block
//!       barrier and the `tid < s` test are wasted on them: warp 0 finishes the last six levels
//!       alone, in straight-line code, with only warp barriers.
//! Changes from h3: the loop stops at `s > 32`; [`last_warp_sum`] does the rest.
//! Bottleneck: the loop over the levels above 32: a counter, a test and a block barrier per
//!       level, for a block size known only at run time (h5 fixes it at compile time).
//! Cost: 11 registers, `block` × 4 B of dynamic shared memory, no spills; racecheck and
//!       synccheck report nothing.
//! Result: 2301 GB/s (1.87 ms) at n = 2^30, 47.8 % of the theoretical, H200, 2026-11-22.
//!
//! Why warp barriers: Harris's version relies on the 32 lanes of a warp running in lockstep and
//! only marks the shared array `volatile`. Since Volta (sm_70) lanes are scheduled
//! independently: lane 0 may read `s[16]` before lane 16 has written it, or after lane 16 has
//! already overwritten it with the next level's value. That is a data race (compute-sanitizer's
//! racecheck reports it), and it can give wrong sums. Here each level reads, meets at
//! `bar.warp.sync`, writes, meets again: two cheap warp barriers per level instead of a block
//! barrier.
//!
//! More: docs/lessons.md#h4

use crate::device::index::{ALL_LANES, block_dim, block_idx, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::{sync_threads, sync_warp};
use kernel_macros::kernel;

/// Folds `sdata[0..64]` into one value, run by the 32 lanes of warp 0 (`tid < 32`); lane
/// 0's return value is the total. Reused by later steps.
///
/// Each level: publish this lane's value, barrier, add the value `offset` lanes up,
/// barrier (so nobody overwrites a value another lane has yet to read).
///
/// # Safety
/// Called by all 32 lanes of warp 0 with `tid` their thread index, after a block barrier
/// that made `sdata[0..64]` visible; `sdata` holds at least 64 elements.
#[inline(always)]
pub unsafe fn last_warp_sum(sdata: SharedArray<i32>, tid: u32) -> i32 {
    // SAFETY: tid < 32, so every index below is under 64.
    unsafe {
        let mut value = sdata.load(tid).wrapping_add(sdata.load(tid + 32));
        for offset in [16, 8, 4, 2, 1] {
            sdata.store(tid, value);
            sync_warp(ALL_LANES);
            value = value.wrapping_add(sdata.load(tid + offset));
            sync_warp(ALL_LANES);
        }
        value
    }
}

/// Writes the sum of the block's `2 × block_dim()` inputs to `partials[block_idx]`.
///
/// # Safety
/// As [`h0_interleaved_modulo`](super::h0_interleaved_modulo::h0_interleaved_modulo), and
/// the block size is at least 64.
#[kernel]
pub unsafe fn h4_unrolled_last_warp(input: *const i32, partials: *mut i32, n: usize) {
    let sdata = dynamic_shared::<i32>();
    let tid = thread_idx();
    let block = block_dim() as usize;
    let i = block_idx() as usize * (2 * block) + tid as usize;
    // SAFETY: each load is bounded by `n`; `tid < block_dim()` bounds shared memory.
    unsafe {
        let first = if i < n { *input.add(i) } else { 0 };
        let second = if i + block < n { *input.add(i + block) } else { 0 };
        sdata.store(tid, first.wrapping_add(second));
    }
    sync_threads();

    let mut s = block_dim() / 2;
    while s > 32 {
        if tid < s {
            // SAFETY: tid < s and s <= block_dim() / 2, so tid + s < block_dim().
            unsafe { sdata.store(tid, sdata.load(tid).wrapping_add(sdata.load(tid + s))) };
        }
        sync_threads();
        s /= 2;
    }

    if tid < 32 {
        // SAFETY: warp 0 entire; the barrier above published sdata[0..64].
        let total = unsafe { last_warp_sum(sdata, tid) };
        if tid == 0 {
            // SAFETY: one partial per block.
            unsafe { *partials.add(block_idx() as usize) = total };
        }
    }
}
