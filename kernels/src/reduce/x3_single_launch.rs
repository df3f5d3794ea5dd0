//! Step x3 — a single launch at every size: the last block to finish adds up the others.
//!
//! Idea: drop the `memset` launch. Each block writes its partial to a workspace slot and
//!       takes a ticket from an arrival counter with one acquire-release atomic; the block
//!       that draws the last ticket knows every other partial is written and visible, adds
//!       them up with one warp and writes the result, then resets the counter to zero for
//!       the next launch. The workspace (one `i32` per block of the largest grid, and the
//!       counter) is allocated and zeroed once by the host, not per launch, and the result
//!       needs no zeroing because it is written, not added to.
//! Changes from x2: the finish after `block_sum_shuffles`; a one-block launch (small `n`)
//!       writes its total directly.
//! Why it is correct: lane 0 of each block stores its partial and then does
//!       `atom.acq_rel.gpu.add` on the counter: the release orders the store before the
//!       ticket. The last block's atomic acquires every earlier release; `bar.warp.sync`
//!       extends that to the other lanes of warp 0, each of which also fences before
//!       reading the partials from L2 (`ld.global.cg`).
//! Why it is fast: at large `n` it is x2 (the finish reads a few KB); at small `n` one
//!       launch instead of two, and no atomic traffic on the result. Nothing else waits:
//!       blocks that are not last leave at once.
//! Cost: 25 registers, 128 B of static shared memory, no spills; a workspace of one `i32` per
//!       block and a counter.
//! Result: 941 µs, 4563 GB/s (94.8 %) at 2^30 on an H200, as x2; but *slower* than x2 at
//!       small sizes
//!       (6.4 µs against 6.0 at 2^20, 20.8 against 19.4 at 2^24): the two dependent L2 round
//!       trips
//!       of the last block cost more than the `memset` launch they replace. Kept as the step that
//!       shows the idea; x4 fixes the cost.

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
