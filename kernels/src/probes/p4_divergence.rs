//! Probe p4 — warp divergence: the same work, branched three ways.
//!
//! Shows: a warp issues one instruction for all its lanes; when they take different sides of a
//!       branch, it runs one side with the other lanes masked off, then the other: the time is
//!       the *sum* of both paths.
//! How: every thread runs `iters` steps of path A or path B (one multiply-add each, different
//!       constants), split three ways (below); each kernel records, per warp, the ballot of its
//!       branch condition, and the host shows the PTX evidence (`bra` against `selp`).
//! Result: 76.4 µs by warp, 149.0 by lane (1.95×), 152.0 predicated (1.99×); H200, 2026-11-22.
//!
//! The three kernels:
//! - [`diverge_by_lane`]: the side depends on the thread's parity, so every warp holds both
//!   kinds and runs both loops one after the other;
//! - [`uniform_by_warp`]: the side depends on the warp index, so each warp runs one loop: same
//!   work per thread, half the time;
//! - [`predicated_by_lane`]: parity again, but the choice is made inside the loop on a
//!   one-instruction body; the compiler computes both results and picks one with `selp` (no
//!   branch, nothing to diverge), at the cost of executing both sides for every lane.
//!
//! The ballot (`vote.sync.ballot`) has bit `l` set when lane `l` takes path A: a warp diverges
//! exactly when its ballot is neither all ones nor all zeros.
//!
//! More: docs/lessons.md#p4

use crate::device::index::{ALL_LANES, global_thread_idx, lane_idx, thread_idx, warp_idx};
use crate::device::warp::ballot;
use common::probes::{divergence_start, divergence_step_a, divergence_step_b};
use kernel_macros::kernel;

/// Writes the warp's ballot of `takes_a` to `masks[global warp index]` (from lane 0).
///
/// # Safety
/// Called by every lane of the warp; `masks` holds one `u32` per warp of the grid.
#[inline(always)]
unsafe fn record_ballot(masks: *mut u32, takes_a: bool) {
    let bits = ballot(ALL_LANES, takes_a);
    if lane_idx() == 0 {
        // SAFETY: one slot per warp of the grid.
        unsafe { *masks.add(global_thread_idx() / 32) = bits };
    }
}

#[inline(always)]
fn run_a(mut v: f32, iters: u32) -> f32 {
    for _ in 0..iters {
        v = divergence_step_a(v);
    }
    v
}

#[inline(always)]
fn run_b(mut v: f32, iters: u32) -> f32 {
    for _ in 0..iters {
        v = divergence_step_b(v);
    }
    v
}

/// Even threads run path A, odd threads path B.
///
/// # Safety
/// `out` holds one `f32` per thread of the grid, `masks` one `u32` per warp; the block size
/// is a multiple of 32.
#[kernel]
pub unsafe fn diverge_by_lane(out: *mut f32, masks: *mut u32, iters: u32) {
    let g = global_thread_idx();
    let takes_a = thread_idx() % 2 == 0;
    // SAFETY: every lane, before the branch; one mask per warp.
    unsafe { record_ballot(masks, takes_a) };
    let v = divergence_start(g as u64);
    let v = if takes_a { run_a(v, iters) } else { run_b(v, iters) };
    // SAFETY: one slot per thread.
    unsafe { *out.add(g) = v };
}

/// Even warps run path A, odd warps path B.
///
/// # Safety
/// `out` holds one `f32` per thread of the grid, `masks` one `u32` per warp; the block size
/// is a multiple of 32.
#[kernel]
pub unsafe fn uniform_by_warp(out: *mut f32, masks: *mut u32, iters: u32) {
    let g = global_thread_idx();
    let takes_a = warp_idx() % 2 == 0;
    // SAFETY: every lane, before the branch; one mask per warp.
    unsafe { record_ballot(masks, takes_a) };
    let v = divergence_start(g as u64);
    let v = if takes_a { run_a(v, iters) } else { run_b(v, iters) };
    // SAFETY: one slot per thread.
    unsafe { *out.add(g) = v };
}

/// Even threads step with A, odd threads with B, chosen per step.
///
/// # Safety
/// `out` holds one `f32` per thread of the grid, `masks` one `u32` per warp; the block size
/// is a multiple of 32.
#[kernel]
pub unsafe fn predicated_by_lane(out: *mut f32, masks: *mut u32, iters: u32) {
    let g = global_thread_idx();
    let even = thread_idx() % 2 == 0;
    // SAFETY: every lane; one mask per warp.
    unsafe { record_ballot(masks, even) };
    let mut v = divergence_start(g as u64);
    for _ in 0..iters {
        v = if even { divergence_step_a(v) } else { divergence_step_b(v) };
    }
    // SAFETY: one slot per thread.
    unsafe { *out.add(g) = v };
}
