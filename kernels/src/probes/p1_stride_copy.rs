//! Probe p1 — strided copies: global memory moves 32-byte sectors, not the 4 bytes asked.
//!
//! Shows: global memory moves whole 32-byte sectors: at stride `S` the useful bandwidth falls by
//!       `S` while the bytes actually moved stay near the copy ceiling, up to stride 8, from
//!       which every 4-byte element costs a sector of its own.
//! How: `dst[i·S] = src[i·S]` for `i < count`, one element per thread, 256 MiB buffers; the host
//!       reports useful and moved bytes beside a device-to-device `memcpy` and [`copy_16b`], the
//!       best plain copy (the ceiling).
//! Result: stride 1 2689 GB/s, 69 % of the copy ceiling; 182 µs at strides 2–8; H200, 2026-11-22.
//!
//! At stride 1 a warp's 32 loads fall in four 32-byte sectors of one 128-byte line: every byte
//! moved is used. At stride 2 half of each sector is wasted, at 4 three quarters, and from
//! stride 8 on every element costs a sector of its own.
//!
//! More: docs/lessons.md#p1

use crate::device::index::{global_thread_idx, grid_threads};
use crate::device::load::{I32x4, load_streaming_v4};
use kernel_macros::kernel;

/// `dst[i·stride] = src[i·stride]` for `i < count`, one `i` per thread.
///
/// # Safety
/// `src` and `dst` hold `count × stride` `f32`; the grid covers `count` threads.
#[kernel]
pub unsafe fn stride_copy_f32(src: *const f32, dst: *mut f32, count: usize, stride: usize) {
    let i = global_thread_idx();
    if i < count {
        // SAFETY: i < count, so i·stride < count·stride.
        unsafe { *dst.add(i * stride) = *src.add(i * stride) };
    }
}

/// Loads in flight per thread in [`copy_16b`].
const COPY_UNROLL: usize = 4;

/// Copies `units` 16-byte units with a grid-stride loop, four 16-byte loads in flight per
/// thread before their stores: the copy ceiling the strided copies are measured against.
///
/// # Safety
/// `src` and `dst` are 16-byte aligned, hold `units` units and do not overlap.
#[kernel]
pub unsafe fn copy_16b(src: *const I32x4, dst: *mut I32x4, units: usize) {
    let stride = grid_threads();
    let mut u = global_thread_idx();
    while u + (COPY_UNROLL - 1) * stride < units {
        let mut loaded = [I32x4([0; 4]); COPY_UNROLL];
        for (k, slot) in loaded.iter_mut().enumerate() {
            // SAFETY: u + k·stride < units.
            *slot = unsafe { load_streaming_v4(src.add(u + k * stride)) };
        }
        for k in 0..COPY_UNROLL {
            // SAFETY: as the load.
            unsafe { *dst.add(u + k * stride) = loaded[k] };
        }
        u += COPY_UNROLL * stride;
    }
    while u < units {
        // SAFETY: u < units.
        unsafe { *dst.add(u) = load_streaming_v4(src.add(u)) };
        u += stride;
    }
}
