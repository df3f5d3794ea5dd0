//! Step x3 — a single launch at every size: the last block to finish adds up the others.
//!
//! Idea: drop the `memset` launch. Each block writes its partial to a workspace slot and takes a
//!       ticket from an arrival counter with one acquire-release atomic; the block that draws
//!       the last ticket adds the partials up with one warp, writes the result (written, not
//!       added to: no zeroing) and resets the counter for the next launch. The workspace is
//!       allocated and zeroed once by the host, not per launch.
//! Changes from x2: the finish after `block_sum_shuffles`; a one-block launch (small `n`) writes
//!       its total directly.
//! Bottleneck: the last block's two dependent trips to L2 (take the ticket, then read the
//!       partials), which at small `n` cost more than the `memset` launch they replace (x4).
//! Cost: 25 registers, 128 B of static shared memory, no spills; a workspace of one `i32` per
//!       block and a counter.
//! Result: 4563 GB/s (941 µs) at n = 2^30, 94.8 % of the theoretical, H200, 2026-11-22.
//!
//! Why it is correct: lane 0 of each block stores its partial and then does
//! `atom.acq_rel.gpu.add` on the counter: the release orders the store before the ticket. The
//! last block's atomic acquires every earlier release; `bar.warp.sync` extends that to the other
//! lanes of warp 0, each of which also fences before reading the partials from L2
//! (`ld.global.cg`). Blocks that are not last leave at once: nothing waits.
//!
//! More: docs/lessons.md#x3

use super::x1_warp_shuffles::block_sum_shuffles;
use super::x2_grid_stride_unrolled::thread_sum_streaming;
use crate::device::atomic::{atomic_add_acq_rel_u32, fence_acq_rel_gpu};
use crate::device::index::{ALL_LANES, WARP_SIZE, block_idx, grid_dim, lane_idx, warp_idx};
use crate::device::load::load_l2_only;
use crate::device::sync::sync_warp;
use crate::device::warp::{shuffle_idx_u32, shuffle_xor_i32};
use kernel_macros::kernel;

/// Writes the sum of `input[0..n]` to `*result` in one launch.
///
/// # Safety
/// Launched with `STREAM_BLOCK` threads per block; `input` is 16-byte aligned and holds
/// `n` `i32`; `partials` holds one `i32` per block; `*arrivals` is 0 at launch (the host
/// zeroes it once at allocation, and every launch leaves it 0); no two launches share a
/// workspace concurrently.
#[kernel]
pub unsafe fn x3_single_launch(
    input: *const i32,
    result: *mut i32,
    n: usize,
    partials: *mut i32,
    arrivals: *mut u32,
) {
    // SAFETY: forwarded from the caller.
    let sum = unsafe { thread_sum_streaming(input, n) };
    // SAFETY: every thread of the block, once.
    let block_total = unsafe { block_sum_shuffles(sum) };
    if warp_idx() != 0 {
        return;
    }
    // From here on, warp 0 alone; lane 0 holds the block's total.
    let lane = lane_idx();
    let blocks = grid_dim();
    if blocks == 1 {
        if lane == 0 {
            // SAFETY: the caller passes a valid result pointer.
            unsafe { *result = block_total };
        }
        return;
    }

    let mut ticket = 0;
    if lane == 0 {
        // SAFETY: one slot per block; the atomic's release orders the store before it.
        unsafe {
            *partials.add(block_idx() as usize) = block_total;
            ticket = atomic_add_acq_rel_u32(arrivals, 1);
        }
    }
    sync_warp(ALL_LANES);
    let ticket = shuffle_idx_u32(ALL_LANES, ticket, 0);
    if ticket != blocks - 1 {
        return;
    }

    // The last block: every partial is written. Each lane sums a strided share of them.
    fence_acq_rel_gpu();
    let mut total = 0i32;
    let mut b = lane;
    while b < blocks {
        // SAFETY: b < blocks, one slot per block.
        total = total.wrapping_add(unsafe { load_l2_only(partials.add(b as usize)) });
        b += WARP_SIZE;
    }
    // A butterfly (xor) fold: every lane ends with the grand total.
    for lane_mask in [16, 8, 4, 2, 1] {
        total = total.wrapping_add(shuffle_xor_i32(ALL_LANES, total, lane_mask));
    }
    if lane == 0 {
        // SAFETY: valid result and counter pointers; no other block touches the counter
        // after the last ticket, and the launch boundary orders this store before the next
        // launch's atomics.
        unsafe {
            *result = total;
            *arrivals = 0;
        }
    }
}
