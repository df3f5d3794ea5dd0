//! Step s03 — s02's tree without bank conflicts: one word of padding every 32.
//!
//! Idea: shared memory serves a warp in one pass only when its 32 words lie in 32 different
//!       banks (bank = word address mod 32). s02's tree reads words `(2t + 1)d − 1` for
//!       consecutive `t`: at distance d = 32 and beyond, all 32 lanes land in one bank, and the
//!       access takes 32 passes. Storing element `i` at word `i + i / 32` shifts every run of
//!       32 words by one bank more than the last: strided accesses spread over the banks.
//!       The cost is 16 idle words (of 528) and an add per index.
//! Changes from s02: the [`Padded`] layout; the tree, the launch and the propagation are
//!       s02's (`blelloch_tile`).
//! Bottleneck: the tile is small (512 elements, one or two per thread) and the propagation
//!       reads and writes the data a second time: a barrier-bound kernel, twice over.
//! Cost: 2112 B of dynamic shared memory per block.
//! Result: see docs/results; the figures of each GPU are in its page.
//!
//! More: docs/lessons.md#s03

use super::Element;
use super::s02_blelloch::{Layout, blelloch_tile};
use crate::scan_entry_points;
use common::scan::s03::{PADDED, THREADS};

/// Element `i` at word `i + i / 32`: one word of padding after every 32.
pub struct Padded;

impl Layout for Padded {
    const WORDS: u32 = PADDED;
    #[inline(always)]
    fn slot(i: u32) -> u32 {
        i + i / 32
    }
}

/// s02's tile scan on the padded array.
///
/// # Safety
/// As [`blelloch_tile`], with `PADDED` words of dynamic shared memory.
unsafe fn conflict_free<E: Element>(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32) {
    // SAFETY: forwarded.
    unsafe { blelloch_tile::<E, Padded>(input, output, n, sums, exclusive) }
}

scan_entry_points!(threads = THREADS;
    conflict_free(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32)
    => s03_conflict_free_i32, s03_conflict_free_f32);
