//! Step x2 — one wave of blocks, coalesced 16-byte loads, several loads in flight.
//!
//! Idea: keep HBM busy. By Little's law the bytes in flight must be at least bandwidth ×
//!       latency: about 3.35 TB/s × ~0.7 µs ≈ 2.3 MB on an H100 (4.8 TB/s on an H200:
//!       ≈ 3.4 MB), some 20–25 KB per SM. So:
//!       - the grid is one full wave (SMs × resident blocks per SM, from the occupancy
//!         calculator) and each thread loops over the input with a grid stride, so no
//!         block waits to be scheduled and the tree runs once per thread, not per batch;
//!       - each loop round issues `STREAM_UNROLL` (4) independent 16-byte loads before
//!         adding any of them: 64 bytes per thread, 128 KB per SM at full occupancy;
//!       - consecutive threads read consecutive 16-byte units, so each warp load is 512
//!         contiguous bytes (v3/v4's per-thread batches were 128 bytes apart per lane);
//!       - the loads are marked streaming (`ld.global.cs`): read once, evict first.
//! Changes from x1: [`thread_sum_streaming`] replaces the per-thread batch; the host sizes
//!       the grid to one wave (or fewer blocks when `n` is small).
//! Bottleneck left: still a `memset` launch before the kernel and an atomic per block. At
//!       large `n` that is noise; at small `n` the extra launch is a large share.
//! Cost: <ptxas>.
//! Result: <measured>.

use super::x1_warp_shuffles::block_sum_shuffles;
use crate::device::atomic::red_add_i32;
use crate::device::index::{global_thread_idx, grid_threads, thread_idx};
use crate::device::load::{I32x4, load_streaming, load_streaming_v4};
use common::reduce::STREAM_UNROLL;
use kernel_macros::kernel;

const UNROLL: usize = STREAM_UNROLL as usize;

/// This thread's share of the sum of `input[0..n]` under a grid-stride walk over 16-byte
/// units, `UNROLL` loads per round; the last `n % 4` elements go to the first threads of
/// the grid. Reused by x3.
///
/// # Safety
/// `input` is 16-byte aligned, holds `n` `i32` and does not change during the kernel.
#[inline(always)]
pub unsafe fn thread_sum_streaming(input: *const i32, n: usize) -> i32 {
    let units = input as *const I32x4;
    let whole_units = n / 4;
    let stride = grid_threads();
    let mut unit = global_thread_idx();
    let mut sum = 0i32;

    // Full rounds: all UNROLL loads in bounds, issued before any add uses them.
    while unit + (UNROLL - 1) * stride < whole_units {
        let mut loaded = [I32x4([0; 4]); UNROLL];
        for (k, slot) in loaded.iter_mut().enumerate() {
            // SAFETY: unit + k·stride < whole_units.
            *slot = unsafe { load_streaming_v4(units.add(unit + k * stride)) };
        }
        for v in loaded {
            sum = sum.wrapping_add(v.wrapping_sum());
        }
        unit += UNROLL * stride;
    }
    // The last partial round: at most UNROLL - 1 units per thread.
    while unit < whole_units {
        // SAFETY: unit < whole_units.
        sum = sum.wrapping_add(unsafe { load_streaming_v4(units.add(unit)) }.wrapping_sum());
        unit += stride;
    }
    // The 0–3 elements after the last whole unit.
    let tail = whole_units * 4 + global_thread_idx();
    if tail < n {
        // SAFETY: tail < n.
        sum = sum.wrapping_add(unsafe { load_streaming(input.add(tail)) });
    }
    sum
}

/// Adds this block's grid-stride share of `input[0..n]` into `*result`.
///
/// # Safety
/// Launched with `STREAM_BLOCK` threads per block; `input` is 16-byte aligned and holds
/// `n` `i32`; `*result` is an `i32` the host zeroed before the launch.
#[kernel]
pub unsafe fn x2_grid_stride_unrolled(input: *const i32, result: *mut i32, n: usize) {
    // SAFETY: forwarded from the caller.
    let sum = unsafe { thread_sum_streaming(input, n) };
    // SAFETY: every thread of the block, once.
    let total = unsafe { block_sum_shuffles(sum) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}
