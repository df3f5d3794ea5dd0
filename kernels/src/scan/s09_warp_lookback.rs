//! Step s09 — a whole warp looks back, 32 predecessors per round trip.
//!
//! Idea: all 32 lanes of warp 0 read the words of the 32 tiles before the window's end at
//!       once; two ballots say which saw an inclusive prefix and which saw nothing yet. If every
//!       lane up to the nearest prefix saw at least an aggregate, a shuffle reduction adds them
//!       and the look-back is done; with no prefix, it adds all 32 and moves back 32; if a lane
//!       that counts saw nothing, it reads the window again.
//! Changes from s08: the [`WarpWindow`] look-back; the skeleton is s07's [`single_pass`].
//! Bottleneck: still the blocks' latency (s08 and s09 time alike at 2^30): the look-back was
//!       rarely long; the loads, not the walk, keep the SMs waiting.
//! Cost: s08's; a few shuffles and ballots per window.
//! Result: 2079 GB/s (4.13 ms) at n = 2^30 i32, 48 % of a copy, 66 % of CUB, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s09

use super::s07_chained::{LookBack, single_pass};
use super::state::{self, Claim};
use super::Element;
use crate::device::index::{ALL_LANES, WARP_SIZE, lane_idx};
use crate::device::warp::{ballot, shuffle_xor_i32};
use crate::scan_entry_points;
use common::scan::s09::THREADS;
use common::scan::status::{self, AGGREGATE, PREFIX};

/// The sum of the 32 lanes' `value`s, to every lane (`shfl.sync.bfly` at distances 16 to 1).
#[inline(always)]
pub(super) fn warp_total<E: Element>(mut value: E) -> E {
    let mut distance = WARP_SIZE / 2;
    while distance > 0 {
        let other = shuffle_xor_i32(ALL_LANES, value.to_bits() as i32, distance) as u32;
        value = value.add(E::from_bits(other));
        distance /= 2;
    }
    value
}

/// s09's way: the warp reads 32 predecessors' words per round.
pub struct WarpWindow;

impl LookBack for WarpWindow {
    #[inline(always)]
    unsafe fn prefix_before<E: Element>(state: *mut u64, claim: Claim, aggregate: E, _: u32) -> E {
        let lane = lane_idx();
        if lane == 0 {
            // SAFETY: the state as the caller promises.
            unsafe { state::publish(state, claim, AGGREGATE, aggregate.to_bits()) };
        }
        let mut before = E::ZERO;
        // The window's lane `l` reads tile `end - 1 - l`; lanes before tile 0 read a zero
        // prefix (tile 0 publishes a prefix, so no window goes further back).
        let mut end = claim.tile as i64;
        loop {
            let tile = end - 1 - i64::from(lane);
            let word = if tile >= 0 {
                // SAFETY: 0 <= tile < claim.tile, a tile of this grid.
                unsafe { state::read(state, tile as u32) }
            } else {
                status::word(claim.epoch, PREFIX, E::ZERO.to_bits())
            };
            let kind = status::kind(word, claim.epoch);
            let prefixes = ballot(ALL_LANES, kind == PREFIX);
            let unwritten = ballot(ALL_LANES, kind == 0);
            // The lanes that count: up to the nearest prefix, or all 32.
            let last = if prefixes != 0 { prefixes.trailing_zeros() } else { WARP_SIZE - 1 };
            let counted = if last == WARP_SIZE - 1 { ALL_LANES } else { (2 << last) - 1 };
            if unwritten & counted != 0 {
                continue; // a tile that counts has published nothing yet: read again
            }
            let mine = if lane <= last { E::from_bits(status::value(word)) } else { E::ZERO };
            before = warp_total(mine).add(before);
            if prefixes != 0 {
                return before;
            }
            end -= i64::from(WARP_SIZE);
        }
    }
}

/// s09's kernel.
///
/// # Safety
/// As [`single_pass`].
unsafe fn warp_lookback<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    // SAFETY: forwarded.
    unsafe { single_pass::<E, WarpWindow, 0>(input, output, n, state, exclusive, jitter) }
}

scan_entry_points!(threads = THREADS;
    warp_lookback(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s09_warp_lookback_i32, s09_warp_lookback_f32);
