//! Step s08 — decoupled look-back: publish your own total first, then look back.
//!
//! Idea: in s07 a tile waits for its predecessor's inclusive prefix, which waited for its
//!       own predecessor's: the tiles finish in single file. Merrill and Garland's decoupled
//!       look-back ("Single-pass Parallel Prefix Scan with Decoupled Look-back") breaks the
//!       chain: as soon as a tile has summed its elements it publishes that *aggregate*, then
//!       walks back over its predecessors' words, adding aggregates, until it meets an
//!       inclusive prefix, which closes the sum; then it publishes its own inclusive prefix.
//!       A tile no longer waits for its predecessor's look-back, only for its loads and block
//!       sum, which all tiles in flight do at once. A word not yet written means wait (spin
//!       on it); the ticket order guarantees its writer is running.
//! Changes from s07: the [`Decoupled`] look-back; the skeleton is s07's [`single_pass`].
//! Bottleneck: the look-back is one thread's walk, one L2 round trip per predecessor it
//!       reads; with many tiles in flight it reads a few each, one after the other.
//! Cost: s07's; the status words now see two writes per tile.
//! Result: see docs/results; the figures of each GPU are in its page.
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
