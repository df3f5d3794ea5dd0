//! Step v4 — 16-byte vector loads: kernel_4 of “Making vector sum really fast”.
//!
//! Idea: read the batch four elements at a time with `ld.global.nc.v4.s32` (CUDA's `int4`
//!       through the read-only path): a quarter of the load instructions and address
//!       computations for the same bytes.
//! Changes from v3: the batch loop steps over `BATCH / 4` [`I32x4`] units; the one batch that
//!       straddles the end is still read element by element.
//! Bottleneck: still one atomic and one memset per launch, the strided per-thread batches of
//!       v3, and only as many loads in flight as one thread's batch.
//! Cost: 32 registers, 2 KB of static shared memory, no spills.
//! Result: 3576 GB/s (1.20 ms) at n = 2^30, 74.3 % of the theoretical, H200, 2026-11-22.
//!
//! A fix against the article: its kernel loads each vector first and checks the bounds after,
//! reading up to 12 bytes past the end of the input; here the check comes first.
//!
//! More: docs/lessons.md#v4

use super::v1_last_warp_synced::block_sum;
use crate::device::atomic::red_add_i32;
use crate::device::index::{global_thread_idx, thread_idx};
use crate::device::load::{I32x4, load_readonly_v4};
use common::reduce::BATCH;
use kernel_macros::kernel;

/// 16-byte units in one thread's batch.
const UNITS: usize = BATCH as usize / 4;

/// Adds the sum of this block's `VECTOR_SUM_BLOCK × BATCH` elements into `*result`.
///
/// # Safety
/// As [`v2_one_pass_atomic`](super::v2_one_pass_atomic::v2_one_pass_atomic), and `input`
/// is 16-byte aligned.
#[kernel]
pub unsafe fn v4_vector_loads(input: *const i32, result: *mut i32, n: usize) {
    let units = input as *const I32x4;
    let first_unit = global_thread_idx() * UNITS;
    let mut sum = 0i32;
    if (first_unit + UNITS) * 4 <= n {
        for k in 0..UNITS {
            // SAFETY: the whole batch is below n; `input` is 16-byte aligned.
            sum = sum.wrapping_add(unsafe { load_readonly_v4(units.add(first_unit + k)) }.wrapping_sum());
        }
    } else {
        for i in first_unit * 4..n {
            // SAFETY: i < n.
            sum = sum.wrapping_add(unsafe { *input.add(i) });
        }
    }
    // SAFETY: launched with BLOCK threads.
    let total = unsafe { block_sum(sum) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}
