//! Probe p6 — load latency, by pointer chasing.
//!
//! Shows: how long one load takes from L1, from L2 and from HBM: the latency in Little's law,
//!       and what a dependent load costs.
//! How: one thread follows a random cycle of nodes one 128-byte line apart (each node holds the
//!       index of the next, so nothing overlaps and neither the line nor a prefetcher helps),
//!       over a sweep of working sets; cycles from `%clock64`, nanoseconds from `%globaltimer`.
//! Result: L1 40 cycles (20 ns), L2 288 (146 ns), HBM 666–672 (336–340 ns); H200, 2026-11-22.
//!
//! Two kernels: [`pointer_chase_cached`] loads with `ld.global.ca` (L1 allowed) and
//! [`pointer_chase_l2`] with `ld.global.cg` (L1 skipped), which reads L2 latency directly. The
//! chain lives in L1 when the working set fits (~256 KB per SM on Hopper, shared with shared
//! memory), in L2 up to its size, in HBM beyond.
//!
//! `out` receives: cycles and nanoseconds for the `steps` loads, the last node reached and the
//! sum of the nodes visited (the host checks that a full lap visits every node).
//!
//! More: docs/lessons.md#p6

use crate::device::clock::{clock64, global_timer_ns};
use crate::device::load::{load_cached, load_l2_only};
use kernel_macros::kernel;

/// What a chase writes to `out[0..4]`.
#[inline(always)]
unsafe fn chase(next: *const i32, steps: u64, out: *mut u64, load: unsafe fn(*const i32) -> i32) {
    let mut node = 0i32;
    let mut visited = 0u64;
    let (c0, t0) = (clock64(), global_timer_ns());
    for _ in 0..steps {
        // SAFETY: every value in the chain is a valid index into `next` (the host's
        // guarantee).
        node = unsafe { load(next.add(node as usize)) };
        visited = visited.wrapping_add(node as u64);
    }
    let (c1, t1) = (clock64(), global_timer_ns());
    // SAFETY: `out` holds four u64.
    unsafe {
        *out = c1 - c0;
        *out.add(1) = t1 - t0;
        *out.add(2) = node as u64;
        *out.add(3) = visited;
    }
}

/// Follows the chain from node 0 for `steps` loads through L1 (`ld.global.ca`).
///
/// # Safety
/// Launched with one thread; `next` is a chain of valid indices starting at 0; `out` holds
/// four `u64`.
#[kernel]
pub unsafe fn pointer_chase_cached(next: *const i32, steps: u64, out: *mut u64) {
    // SAFETY: forwarded.
    unsafe { chase(next, steps, out, load_cached) }
}

/// Follows the chain from node 0 for `steps` loads, skipping L1 (`ld.global.cg`).
///
/// # Safety
/// As [`pointer_chase_cached`].
#[kernel]
pub unsafe fn pointer_chase_l2(next: *const i32, steps: u64, out: *mut u64) {
    // SAFETY: forwarded.
    unsafe { chase(next, steps, out, load_l2_only) }
}
