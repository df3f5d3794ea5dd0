//! Step s03 — s02's tree without bank conflicts: one word of padding every 32.
//!
//! Idea: a warp's shared access takes one pass only when its words lie in distinct banks (word
//!       address mod 32). s02's strided tree puts every active lane in one bank from stride 32
//!       on. Storing element i at word i + i / 32 shifts each run of 32 words by one bank more
//!       than the last, which spreads the strided accesses over the banks.
//! Changes from s02: the [`Padded`] layout; tree, launch and propagation are s02's.
//! Bottleneck: a small tile (512 elements, two per thread) and the propagation's second read
//!       and write of the data: a barrier-bound kernel, twice over.
//! Cost: 2112 B of dynamic shared memory per block (16 idle words).
//! Result: 1330 GB/s (6.46 ms) at n = 2^30 i32, 31 % of a copy, H200, 2026-11-25.
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
