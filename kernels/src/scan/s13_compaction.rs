//! Step s13 — stream compaction: the elements that pass a test, packed, on s10's scan.
//!
//! Idea: an element's place in the packed output is the number of kept elements before it, an
//!       exclusive scan of 0/1 flags that never reach memory: each thread counts the kept ones
//!       among its 16 as they load, the block scans the counts as s10 scans sums, and each
//!       thread writes its kept elements from its offset. The last tile writes the count.
//! Changes from s10: flags and counts instead of values, scattered stores, the count; claim,
//!       block scan, the tile's prefix (s07's `tile_prefix` with s09's warp look-back) and
//!       prefetch are s07's, s04's, s09's and s10's.
//! Bottleneck: the scattered 4-byte stores, which fill no sector in one instruction.
//! Cost: s10's; one more `u32` of output (the count).
//! Result: 1053 GB/s (6.12 ms) at n = 2^30, 39 % of CUB's DeviceSelect::If, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s13

use super::s04_warp_shuffles::block_exclusive_scan;
use super::s07_chained::tile_prefix;
use super::s09_warp_lookback::WarpWindow;
use super::state;
use super::tile;
use crate::device::index::{block_dim, grid_dim, thread_idx};
use crate::device::shared::SharedArray;
use crate::static_shared;
use common::scan::s13::{AHEAD, ITEMS, THREADS};
use common::scan::keep_i32;
use kernel_macros::kernel;

static_shared! {
    /// The block's claim (tile, epoch), then the count of kept elements before the tile.
    fn compaction_words() -> [u32; 3];
}

/// Writes the elements of `input[0..n]` that pass [`keep_i32`] to `output`, in order, and
/// their number to `*count`.
///
/// # Safety
/// Launched with a power of two of 64 to `THREADS` threads per block and one block per
/// `block_dim() * ITEMS` elements (at least one); `n < 2^32`; `input` and `output` are 16-byte aligned and hold `n` `i32` (they may
/// be the same buffer: a tile writes only below its own end, and only after every tile
/// before it has loaded); `state` as for s07's `single_pass`.
#[kernel(max_threads = THREADS)]
pub unsafe fn s13_compaction(input: *const u32, output: *mut u32, n: usize, state: *mut u64, count: *mut u32, jitter: u32) {
    let words: SharedArray<u32> = compaction_words();
    // SAFETY: every thread, once; words 0 and 1 of three; the state as the caller promises.
    let claim = unsafe { state::claim_for_block(words, state, jitter) };
    // The tile is the block's: `block_dim()` threads of ITEMS elements (the host may launch
    // fewer than THREADS threads: more, smaller tiles).
    let tile = (block_dim() * ITEMS) as usize;
    let first = claim.tile as usize * tile + (thread_idx() * ITEMS) as usize;
    // SAFETY: the addresses prefetched lie below n.
    unsafe { tile::prefetch(input, n, (claim.tile + AHEAD) as usize * tile, tile) };
    // SAFETY: `first` is a multiple of 4; the elements are this thread's alone.
    let items = unsafe { tile::load::<i32>(input, n, first) };
    // Elements past n load as 0, which the test rejects.
    let kept = items.iter().filter(|&&x| keep_i32(x)).count() as i32;
    // SAFETY: every thread of the block, once.
    let (before_thread, aggregate) = unsafe { block_exclusive_scan(kept) };
    // SAFETY: every thread, once; word 2 of three; the state as the caller promises.
    let before_tile = unsafe { tile_prefix::<i32, WarpWindow>(state, claim, aggregate, jitter, words, 2) };
    if claim.tile == grid_dim() - 1 && thread_idx() == 0 {
        // SAFETY: the last tile's thread 0 alone writes the count.
        unsafe { *count = before_tile.wrapping_add(aggregate) as u32 };
    }
    let mut at = (before_tile as u32).wrapping_add(before_thread as u32) as usize;
    let mut put = |x: i32| {
        if keep_i32(x) {
            // SAFETY: `at` counts the kept elements before this one: below n, and below
            // every element of this tile and the next not yet loaded (see the kernel's
            // safety note for in place).
            unsafe { *output.add(at) = x as u32 };
            at += 1;
        }
    };
    // Written out (two `unroll!` of 8): as a loop, LLVM keeps it one and moves `items` to
    // local memory to index it.
    const _: () = assert!(tile::N == 16, "the two unroll!s below cover 16 items");
    crate::unroll!(8, k => { put(items[k]) });
    crate::unroll!(8, k => { put(items[k + 8]) });
}
