//! Step s10 — prefetch: each block asks L2 for the tile 256 tickets ahead of its own.
//!
//! Idea: s09's blocks hold their tile in registers while they wait (ticket, loads, look-back),
//!       so an SM keeps too few bytes in flight to cover HBM's latency, whatever the block size.
//!       A prefetch costs no register and nothing waits for it: after claiming its tile, each
//!       block issues one `prefetch.global.L2` per 128-byte line of the tile `AHEAD` tickets on;
//!       the block that claims that tile a few microseconds later finds it in L2.
//! Changes from s09: the prefetch (`tile::prefetch` in s07's skeleton, `AHEAD` = 256).
//! Bottleneck: the blocks' ticket, block scan and look-back, which the prefetch does not touch;
//!       64 tiles ahead pays less, 1024 loses (lines evicted before their use).
//! Cost: one prefetch instruction per 128-byte line (half the block's threads, once).
//! Result: 2244 GB/s (3.83 ms) at n = 2^30 i32, 52 % of a copy, 72 % of CUB, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s10

use super::Element;
use super::s07_chained::single_pass;
use super::s09_warp_lookback::WarpWindow;
use crate::scan_entry_points;
use common::scan::s10::{AHEAD, THREADS};

/// s10's kernel: s09's with the prefetch.
///
/// # Safety
/// As [`single_pass`].
unsafe fn prefetch<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    // SAFETY: forwarded.
    unsafe { single_pass::<E, WarpWindow, AHEAD>(input, output, n, state, exclusive, jitter) }
}

scan_entry_points!(threads = THREADS;
    prefetch(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s10_prefetch_i32, s10_prefetch_f32);
