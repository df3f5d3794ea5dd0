//! Step s02 — Blelloch's work-efficient scan: an up-sweep and a down-sweep over a tree.
//!
//! Idea: about 2 adds per element instead of 9: the up-sweep builds a tree of partial sums in
//!       place (the tile's total ends at the root); the down-sweep clears the root and walks
//!       back down, each node passing its value left and its value plus the left child's old
//!       value right. Out comes the exclusive scan; the inclusive adds each element once more.
//!       Two elements per thread (256 threads for 512), one shared array.
//! Changes from s01: the tile scan only (`blelloch_tile`); tile, totals and propagation are s01's.
//! Bottleneck: bank conflicts: the tree's strides are powers of two (s03); and 18 rounds with a
//!       barrier each, most with few threads busy.
//! Cost: 2 KiB of dynamic shared memory per block.
//! Result: 719 GB/s (11.9 ms) at n = 2^30 i32, 17 % of a copy: slower than s01, H200, 2026-11-25.
//!
//! More: docs/lessons.md#s02

use super::Element;
use crate::device::index::{block_idx, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::sync_threads;
use crate::scan_entry_points;
use common::scan::s02::{THREADS, TILE};

/// Where the tree keeps element `i` of the tile in shared memory. s02 keeps it at `i`; s03
/// pads the array, and changes only this.
pub trait Layout {
    /// Words of shared memory the layout needs (the launch's dynamic shared memory).
    const WORDS: u32;
    fn slot(i: u32) -> u32;
}

/// Element `i` at word `i`.
pub struct Unpadded;

impl Layout for Unpadded {
    const WORDS: u32 = TILE;
    #[inline(always)]
    fn slot(i: u32) -> u32 {
        i
    }
}

/// Scans the tile `block_idx()` of `input[0..n]` into `output` (inclusive, or exclusive
/// when `exclusive != 0`) and writes the tile's total to `sums[block_idx()]`, keeping the
/// tile in shared memory as `L` says.
///
/// # Safety
/// Launched with `THREADS` threads per block, `L::WORDS` words of dynamic shared memory and
/// one block per `TILE` elements (at least one); `input` and `output` hold `n` elements
/// (they may be the same buffer), `sums` one per block.
#[inline(always)]
pub unsafe fn blelloch_tile<E: Element, L: Layout>(
    input: *const u32,
    output: *mut u32,
    n: usize,
    sums: *mut u32,
    exclusive: u32,
) {
    let tree: SharedArray<u32> = dynamic_shared();
    let t = thread_idx();
    let base = block_idx() as usize * TILE as usize;
    // Thread t holds elements t and t + THREADS: each load and store of a warp is contiguous.
    let mine = [t, t + THREADS];
    let mut x = [E::ZERO; 2];
    for (k, &j) in mine.iter().enumerate() {
        let i = base + j as usize;
        // SAFETY: i < n is inside the input.
        x[k] = if i < n { E::from_bits(unsafe { *input.add(i) }) } else { E::ZERO };
        // SAFETY: j < TILE, inside the layout's array.
        unsafe { tree.store(L::slot(j), x[k].to_bits()) };
    }
    // The up-sweep: at distance d, thread t < TILE / (2d) adds node (2t + 1)d − 1 into node
    // (2t + 2)d − 1.
    let at = |j: u32| L::slot(j);
    let mut distance = 1;
    while distance < TILE {
        sync_threads();
        if t < TILE / (2 * distance) {
            let (left, right) = (at((2 * t + 1) * distance - 1), at((2 * t + 2) * distance - 1));
            // SAFETY: both nodes lie inside the tile; the barrier ordered the last level's
            // writes; no other thread touches these two nodes at this level.
            unsafe {
                let sum = E::from_bits(tree.load(left)).add(E::from_bits(tree.load(right)));
                tree.store(right, sum.to_bits());
            }
        }
        distance *= 2;
    }
    sync_threads();
    if t == 0 {
        // SAFETY: the root, written by the last level (ordered by the barrier); one block one
        // word of `sums`.
        unsafe {
            *sums.add(block_idx() as usize) = tree.load(at(TILE - 1));
            tree.store(at(TILE - 1), E::ZERO.to_bits());
        }
    }
    // The down-sweep: at distance d, the right node takes its own value plus the left's,
    // the left takes the right's.
    while distance > 1 {
        distance /= 2;
        sync_threads();
        if t < TILE / (2 * distance) {
            let (left, right) = (at((2 * t + 1) * distance - 1), at((2 * t + 2) * distance - 1));
            // SAFETY: as in the up-sweep.
            unsafe {
                let (l, r) = (tree.load(left), tree.load(right));
                tree.store(left, r);
                tree.store(right, E::from_bits(r).add(E::from_bits(l)).to_bits());
            }
        }
    }
    sync_threads();
    for (k, &j) in mine.iter().enumerate() {
        let i = base + j as usize;
        if i < n {
            // SAFETY: j < TILE; the barrier ordered the down-sweep's writes. i < n, written by
            // this thread alone, after every thread read its inputs.
            unsafe {
                let before = E::from_bits(tree.load(at(j)));
                let value = if exclusive != 0 { before } else { before.add(x[k]) };
                *output.add(i) = value.to_bits();
            }
        }
    }
}

/// The step's tile scan on the unpadded array.
///
/// # Safety
/// As [`blelloch_tile`].
unsafe fn blelloch<E: Element>(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32) {
    // SAFETY: forwarded.
    unsafe { blelloch_tile::<E, Unpadded>(input, output, n, sums, exclusive) }
}

scan_entry_points!(threads = THREADS;
    blelloch(input: *const u32, output: *mut u32, n: usize, sums: *mut u32, exclusive: u32)
    => s02_blelloch_i32, s02_blelloch_f32);
