//! Step x1 — warp shuffles instead of a shared-memory tree (the project's own steps from here).
//!
//! Idea: inside a warp, lanes can read each other's registers (`shfl.sync.down`): five shuffles
//!       fold 32 values into lane 0 with no shared memory and no barrier. The block sum becomes:
//!       shuffle-reduce each warp, lane 0 of each warp writes one value to shared memory, one
//!       block barrier, and warp 0 shuffle-reduces those.
//! Changes from v4: [`block_sum_shuffles`] replaces `block_sum`; everything else is v4.
//! Bottleneck: the loads, as in v4: with 16 384 inputs per block the tree is a small part of
//!       the time, and v4's per-thread batches keep too few bytes in flight (x2).
//! Cost: 32 registers, 128 B of static shared memory, no spills.
//! Result: 3574 GB/s (1.20 ms) at n = 2^30, 74.2 % of the theoretical, H200, 2026-11-22.
//!
//! More: docs/lessons.md#x1

use crate::device::atomic::red_add_i32;
use crate::device::index::{
    ALL_LANES, WARP_SIZE, block_dim, global_thread_idx, lane_idx, thread_idx, warp_idx,
};
use crate::device::load::{I32x4, load_readonly_v4};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::device::warp::shuffle_down_i32;
use crate::static_shared;
use common::reduce::BATCH;
use kernel_macros::kernel;

/// The most warps a block can have (1024 threads).
const MAX_WARPS: usize = 32;

static_shared! {
    /// One total per warp of the block.
    fn warp_totals() -> [i32; MAX_WARPS];
}

/// Folds the 32 lanes' values into lane 0 with `shfl.sync.down` at distances 16, 8, 4, 2,
/// 1; the other lanes' return values are partial sums.
///
/// Must be called by all 32 lanes of the warp.
#[inline(always)]
pub fn warp_sum(mut value: i32) -> i32 {
    for delta in [16, 8, 4, 2, 1] {
        value = value.wrapping_add(shuffle_down_i32(ALL_LANES, value, delta));
    }
    value
}

/// The block's total of each thread's `value`, returned to thread 0 (other threads get an
/// unspecified value). Reused by x2 and x3.
///
/// # Safety
/// Called once per kernel by every thread of a block whose size is a multiple of 32.
#[inline(always)]
pub unsafe fn block_sum_shuffles(value: i32) -> i32 {
    let totals: SharedArray<i32> = warp_totals();
    let lane = lane_idx();
    let warp_total = warp_sum(value);
    if lane == 0 {
        // SAFETY: warp_idx() < block_dim() / 32 <= MAX_WARPS.
        unsafe { totals.store(warp_idx(), warp_total) };
    }
    sync_threads();
    if warp_idx() != 0 {
        return 0;
    }
    let warps = block_dim() / WARP_SIZE;
    // SAFETY: lane < warps <= MAX_WARPS; the barrier above published the totals.
    let mine = if lane < warps { unsafe { totals.load(lane) } } else { 0 };
    warp_sum(mine)
}

/// 16-byte units in one thread's batch.
const UNITS: usize = BATCH as usize / 4;

/// Adds the sum of this block's `VECTOR_SUM_BLOCK × BATCH` elements into `*result`.
///
/// # Safety
/// As [`v4_vector_loads`](super::v4_vector_loads::v4_vector_loads).
#[kernel]
pub unsafe fn x1_warp_shuffles(input: *const i32, result: *mut i32, n: usize) {
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
    // SAFETY: every thread of the block, once.
    let total = unsafe { block_sum_shuffles(sum) };
    if thread_idx() == 0 {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { red_add_i32(result, total) };
    }
}
