//! Probe p7 — the cost of synchronization: a block barrier, and a kernel launch.
//!
//! Shows: inside a block `bar.sync` makes every thread wait for the slowest; between blocks
//!       there is no barrier, and the only GPU-wide synchronization is the end of a kernel.
//! How: [`barrier_cost`] times a long run of barriers with the SM's cycle counter, per block
//!       size; [`empty_kernel`] does nothing, so launching it back to back times the launch
//!       boundary itself; the host also times launch + wait on the host (a round trip).
//! Result: a barrier 15 cycles (one warp) to 77 (1024 threads); a launch 3.5 µs; H200, 2026-11-22.
//!
//! More: docs/lessons.md#p7

use crate::device::clock::clock64;
use crate::device::index::{block_idx, thread_idx};
use crate::device::sync::sync_threads;
use common::probes::BARRIER_UNROLL;
use kernel_macros::kernel;

/// Runs `trips × BARRIER_UNROLL` block barriers; thread 0 writes the cycles they took to
/// `out[block]`.
///
/// # Safety
/// `out` holds one `u64` per block.
#[kernel]
pub unsafe fn barrier_cost(out: *mut u64, trips: u32) {
    sync_threads();
    let start = clock64();
    for _ in 0..trips {
        for _ in 0..BARRIER_UNROLL {
            sync_threads();
        }
    }
    let cycles = clock64() - start;
    if thread_idx() == 0 {
        // SAFETY: one slot per block.
        unsafe { *out.add(block_idx() as usize) = cycles };
    }
}

/// Does nothing: its launches time the launch boundary.
#[kernel]
pub unsafe fn empty_kernel() {}
