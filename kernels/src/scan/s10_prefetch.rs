//! Step s10 — prefetch: each block asks L2 for a tile further ahead, whose loads will then
//!       hit L2 instead of HBM.
//!
//! Idea: s09's blocks spend most of their life waiting: for their ticket, their loads, the
//!       look-back. While they wait, their registers hold their tile and no other load is in
//!       flight for them: with three 512-thread blocks per SM the SM keeps too few bytes in
//!       flight to cover HBM's latency, and a block size sweep does not change that (the
//!       registers are the limit, not the block count). A prefetch costs no register and
//!       nothing waits for it: right after claiming its tile, each block issues one
//!       `prefetch.global.L2` per 128-byte line of the tile `AHEAD` tickets past its own. The
//!       block that claims that tile a few microseconds later finds it in L2. HBM sees a
//!       steady stream of requests, decoupled from the blocks' phases.
//! Changes from s09: the prefetch (`tile::prefetch`, s07's skeleton with `AHEAD` = 256);
//!       the look-back is s09's.
//! Bottleneck: see docs/results.
//! Cost: 256 prefetch instructions per block (one per line of a 32 KiB tile).
//! Result: see docs/results; the figures of each GPU are in its page.
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
