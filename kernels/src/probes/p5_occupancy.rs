//! Probe p5 — latency hiding: how many bytes must be in flight to reach HBM bandwidth.
//!
//! Shows: Little's law, bytes in flight = bandwidth × latency: a streaming kernel reaches HBM's
//!       bandwidth only once enough loads are outstanding, whether they come from more warps
//!       (occupancy) or from more loads per thread.
//! How: x2's grid-stride sum with `ILP` independent 16-byte loads per round (one instance per
//!       `ILP`); the host sweeps block size, blocks per SM and `ILP`, checks every sum against
//!       the CPU, and plots the bandwidth against the bytes in flight per SM.
//! Result: 51 % of theoretical at 8 KiB per SM in flight, 90 % at 32, 93 % at 64; H200, 2026-11-22.
//!
//! More: docs/lessons.md#p5

use crate::device::atomic::red_add_i32;
use crate::device::index::{global_thread_idx, grid_threads, thread_idx};
use crate::device::load::{I32x4, load_streaming, load_streaming_v4};
use crate::reduce::x1_warp_shuffles::block_sum_shuffles;
use kernel_macros::kernel;

/// Adds this block's share of `input[0..n]` into `*result`, `ILP` loads in flight per
/// thread.
///
/// # Safety
/// Block size a multiple of 32; `input` 16-byte aligned with `n` `i32`; `*result` zeroed
/// by the host before the launch.
#[inline(always)]
unsafe fn stream_sum<const ILP: usize>(input: *const i32, result: *mut i32, n: usize) {
    let units = input as *const I32x4;
    let whole_units = n / 4;
    let stride = grid_threads();
    let mut unit = global_thread_idx();
    let mut sum = 0i32;
    while unit + (ILP - 1) * stride < whole_units {
        let mut loaded = [I32x4([0; 4]); ILP];
        for (k, slot) in loaded.iter_mut().enumerate() {
            // SAFETY: unit + k·stride < whole_units.
            *slot = unsafe { load_streaming_v4(units.add(unit + k * stride)) };
        }
        for k in 0..ILP {
            sum = sum.wrapping_add(loaded[k].wrapping_sum());
        }
        unit += ILP * stride;
    }
    while unit < whole_units {
        // SAFETY: unit < whole_units.
        sum = sum.wrapping_add(unsafe { load_streaming_v4(units.add(unit)) }.wrapping_sum());
        unit += stride;
    }
    let tail = whole_units * 4 + global_thread_idx();
    if tail < n {
        // SAFETY: tail < n.
        sum = sum.wrapping_add(unsafe { load_streaming(input.add(tail)) });
    }
    // SAFETY: every thread of the block, once.
    let total = unsafe { block_sum_shuffles(sum) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}

macro_rules! stream_sum_kernel {
    ($name:ident, $ilp:literal) => {
        #[doc = concat!("[`stream_sum`] with ", $ilp, " load(s) in flight per thread.")]
        ///
        /// # Safety
        /// As `stream_sum`.
        #[kernel]
        pub unsafe fn $name(input: *const i32, result: *mut i32, n: usize) {
            // SAFETY: forwarded.
            unsafe { stream_sum::<$ilp>(input, result, n) }
        }
    };
}

stream_sum_kernel!(stream_sum_ilp1, 1);
stream_sum_kernel!(stream_sum_ilp2, 2);
stream_sum_kernel!(stream_sum_ilp4, 4);
stream_sum_kernel!(stream_sum_ilp8, 8);
