//! Probe p6 — load latency, by pointer chasing.
//!
//! One thread follows a chain: each node holds the index of the next, so each load's
//! address depends on the previous load's value and nothing can overlap. Time per step is
//! the latency of one load from wherever the chain lives: L1 when the working set fits
//! (~256 KB per SM on Hopper, shared with shared memory), L2 up to its size, HBM beyond.
//! The host builds a random cycle through nodes one 128-byte line apart (so neither the
//! line nor the prefetcher helps) and sweeps the working set.
//!
//! Two kernels: [`pointer_chase_cached`] loads with `ld.global.ca` (L1 allowed) and
//! [`pointer_chase_l2`] with `ld.global.cg` (L1 skipped), which reads L2 latency directly.
//!
//! `out` receives: cycles (`%clock64`) and nanoseconds (`%globaltimer`) for the `steps`
//! loads, the last node reached and the sum of the nodes visited (the host checks that a
//! full lap visits every node).
//!
//! Measured (H200, 2026-11-22, 1.98 GHz SM clock): L1 hit 40 cycles (20 ns) up to 128 KiB;
//! L2 hit 288 cycles (146 ns) from 512 KiB to 16 MiB; at 32 MiB, about half the 60 MiB L2,
//! the chase already misses part of the time (228 ns; the L2 is split in two partitions,
//! and why one SM's chase sees less than all of it is not established here); HBM 666–672
//! cycles (336–340 ns) from 64 MiB on, TLB misses included.

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
