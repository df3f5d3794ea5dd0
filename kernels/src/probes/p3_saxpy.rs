//! Probe p3 — SAXPY, the streaming kernel of “The art of squeezing GPU compute”.
//!
//! Shows: a kernel with two reads and one write per element is bound by memory at any size;
//!       read it against the copy ceiling of p1 (a copy also reads and writes), not only
//!       against the theoretical bandwidth.
//! How: `y = a·x + y` on `f32`, one element per thread, n = 2^27; 12 bytes per element over the
//!       time, verified against the CPU.
//! Result: 3467 GB/s, 72 % of the theoretical 4814, 89 % of the copy ceiling, H200, 2026-11-22.
//!
//! More: docs/lessons.md#p3

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
