//! Probe p3 — SAXPY, `y = a·x + y` on `f32`: the streaming kernel of “The art of squeezing GPU compute”.
//!
//! Each element costs two 4-byte reads and one 4-byte write and two flops, so the kernel is
//! bound by memory at any size: its effective bandwidth, 12 bytes per element over the
//! time, is read against the theoretical figure and against the copy ceiling of p1 (a copy
//! also reads and writes).
//!
//! Measured (H200, 2026-11-22, n = 2^27): 3467 GB/s, 72 % of the theoretical 4814 and
//! 89 % of the copy ceiling (3899 GB/s). One element per thread is enough to stream; the
//! gap to the copy is the third stream (two reads and a write instead of one and one).
//! Seed 004's A100 reached 1300 GB/s, 84 % of its 1555: expect a lower fraction of a
//! higher figure on HBM3e, and read a streaming kernel against the copy ceiling.

use crate::device::index::global_thread_idx;
use kernel_macros::kernel;

/// `y[i] = a · x[i] + y[i]` for `i < n`, one element per thread.
///
/// # Safety
/// `x` and `y` hold `n` `f32`; the grid covers `n` threads.
#[kernel]
pub unsafe fn saxpy(x: *const f32, y: *mut f32, n: usize, a: f32) {
    let i = global_thread_idx();
    if i < n {
        // SAFETY: i < n.
        unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
    }
}
