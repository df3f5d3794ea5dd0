//! Step s08 — decoupled look-back: publish your own total first, then look back.
//!
//! Idea: Merrill and Garland's "Single-pass Parallel Prefix Scan with Decoupled Look-back": a
//!       tile publishes its *aggregate* as soon as it has summed its elements, then walks back
//!       over its predecessors' words adding aggregates until an inclusive prefix closes the
//!       sum, and publishes its own prefix. No tile waits for another's look-back, only for its
//!       loads; an unwritten word means read again (the ticket order keeps its writer running).
//! Changes from s07: the [`Decoupled`] look-back; the skeleton is s07's [`single_pass`].
//! Bottleneck: the blocks' latency: ticket, loads, block scan and look-back in sequence.
//! Cost: s07's; each status word written twice.
//! Result: 2126 GB/s (4.04 ms) at n = 2^30 i32, 49 % of a copy, 67 % of CUB, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s08

use super::s07_chained::{LookBack, single_pass};
use super::state::{self, Claim};
use super::Element;
use crate::device::index::lane_idx;
use crate::scan_entry_points;
use common::scan::s08::THREADS;
use common::scan::status::{self, AGGREGATE, PREFIX};

/// s08's way: lane 0 publishes the aggregate, then walks back one tile at a time.
pub struct Decoupled;

impl LookBack for Decoupled {
    #[inline(always)]
    unsafe fn prefix_before<E: Element>(state: *mut u64, claim: Claim, aggregate: E, _: u32) -> E {
        if lane_idx() != 0 {
            return E::ZERO;
        }
        // SAFETY: the state as the caller promises.
        unsafe { state::publish(state, claim, AGGREGATE, aggregate.to_bits()) };
        let mut before = E::ZERO;
        let mut predecessor = claim.tile - 1;
        loop {
            // SAFETY: predecessor < claim.tile, a tile of this grid.
            let word = unsafe { state::read(state, predecessor) };
            match status::kind(word, claim.epoch) {
                PREFIX => return E::from_bits(status::value(word)).add(before),
                AGGREGATE => {
                    before = E::from_bits(status::value(word)).add(before);
                    // Tile 0 publishes a prefix, never an aggregate: this stays a tile.
                    predecessor -= 1;
                }
                _ => {} // not written yet: read it again
            }
        }
    }
}

/// s08's kernel.
///
/// # Safety
/// As [`single_pass`].
unsafe fn decoupled_lookback<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    // SAFETY: forwarded.
    unsafe { single_pass::<E, Decoupled, 0>(input, output, n, state, exclusive, jitter) }
}

scan_entry_points!(threads = THREADS;
    decoupled_lookback(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s08_decoupled_lookback_i32, s08_decoupled_lookback_f32);
