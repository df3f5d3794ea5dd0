//! Kernels the runner needs that are not the subject of a ladder: input generation and the
//! L2 flush between timed repetitions.

use crate::device::index::{global_thread_idx, grid_threads};
use crate::device::load::I32x4;
use common::input::{random_f32, random_i32};
use kernel_macros::kernel;

/// `out[i] = value(i)` for `i < n`, with a grid-stride loop (so any grid covers any `n`):
/// the body of every fill kernel below.
///
/// # Safety
/// `out` points to `n` writable `T` in global memory.
#[inline(always)]
unsafe fn fill<T>(out: *mut T, n: usize, value: impl Fn(u64) -> T) {
    let mut i = global_thread_idx();
    while i < n {
        // SAFETY: i < n and the caller guarantees `out` holds n elements.
        unsafe { *out.add(i) = value(i as u64) };
        i += grid_threads();
    }
}

/// Writes `out[i] = random_i32(seed, i)` for `i < n` (a grid-stride loop, so any grid
/// covers any `n`). The host computes the same function for its reference.
///
/// # Safety
/// `out` points to `n` writable `i32` in global memory.
#[kernel]
pub unsafe fn fill_random_i32(out: *mut i32, n: usize, seed: u64) {
    // SAFETY: forwarded from the caller.
    unsafe { fill(out, n, |i| random_i32(seed, i)) }
}

/// Writes `out[i] = random_f32(seed, i)` for `i < n`, like [`fill_random_i32`].
///
/// # Safety
/// `out` points to `n` writable `f32` in global memory.
#[kernel]
pub unsafe fn fill_random_f32(out: *mut f32, n: usize, seed: u64) {
    // SAFETY: forwarded from the caller.
    unsafe { fill(out, n, |i| random_f32(seed, i)) }
}

/// Reads `units` 16-byte units of `buffer` with plain (cache-allocating) loads, so that
/// the L2 afterwards holds this buffer's clean lines and none of the data a timed kernel
/// is about to read. A write-based flush (`memset`) would leave the L2 full of dirty lines
/// whose write-back would then be charged to the timed kernel.
///
/// The loaded values are folded and compared with an impossible-to-predict sentinel, so
/// the compiler cannot drop the loads; `sink` is written only if they match.
///
/// # Safety
/// `buffer` is 16-byte aligned and holds `units` units; `sink` is a writable `i32`.
#[kernel]
pub unsafe fn l2_flush_read(buffer: *const I32x4, units: usize, sink: *mut i32) {
    let mut folded = 0i32;
    let mut i = global_thread_idx();
    while i < units {
        // SAFETY: i < units.
        let [a, b, c, d] = unsafe { *buffer.add(i) }.0;
        folded ^= a ^ b ^ c ^ d;
        i += grid_threads();
    }
    if folded == i32::MIN + global_thread_idx() as i32 {
        // SAFETY: the caller passes a writable sink.
        unsafe { *sink = folded };
    }
}

/// Writes `out[i]` = the f16 bits of `random_f16_value(seed, i)` for `i < n`.
///
/// # Safety
/// `out` points to `n` writable `u16` in global memory.
#[kernel]
pub unsafe fn fill_random_f16(out: *mut u16, n: usize, seed: u64) {
    // SAFETY: forwarded from the caller.
    unsafe { fill(out, n, |i| common::input::f16_bits_exact(common::input::random_f16_value(seed, i))) }
}

/// Writes `out[i]` = the bf16 bits of `random_bf16_value(seed, i)` for `i < n`.
///
/// # Safety
/// `out` points to `n` writable `u16` in global memory.
#[kernel]
pub unsafe fn fill_random_bf16(out: *mut u16, n: usize, seed: u64) {
    // SAFETY: forwarded from the caller.
    unsafe { fill(out, n, |i| common::input::bf16_bits_exact(common::input::random_bf16_value(seed, i))) }
}
