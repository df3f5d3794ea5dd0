//! The scan ladder: the prefix sums of `n` values, each output the sum of every input up to
//! it (inclusive) or before it (exclusive). Where the reduction sums blocks that never need
//! each other, a scan's every block needs the sum of everything before it: the ladder is how
//! a block learns that sum without a grid-wide barrier and without waiting in line.
//!
//! | step | idea | passes over the data |
//! | --- | --- | --- |
//! | [`s01_hillis_steele`] | a tile scanned in shared memory by doubling distances (n log n adds) | scan-then-propagate: 2 reads, 2 writes |
//! | [`s02_blelloch`] | Blelloch's up-sweep and down-sweep: 2n adds | 〃 |
//! | [`s03_conflict_free`] | s02's tree with its shared array padded: no bank conflicts | 〃 |
//! | [`s04_warp_shuffles`] | warps scan in registers with `shfl.sync.up`, two barriers | 〃 |
//! | [`s05_items_per_thread`] | 16 consecutive elements per thread, 16-byte loads: an 8192 tile | 〃 |
//! | [`s06_reduce_then_scan`] | tiles reduced first, their sums scanned, then each tile scanned with its offset | 2 reads, 1 write |
//! | [`s07_chained`] | one pass: each tile waits for its predecessor's inclusive prefix | 1 read, 1 write (in line) |
//! | [`s08_decoupled_lookback`] | one pass: each tile publishes its sum, then looks back over its predecessors' | 1 read, 1 write |
//! | [`s09_warp_lookback`] | a whole warp looks back 32 tiles at a time | 〃 |
//! | [`s10_prefetch`] | each block asks L2 for a tile 256 tiles ahead of its own | 〃 |
//! | `s11_bulk_copy` | the tile into shared memory by one bulk copy (sm_90a build only) | 〃 |
//! | `s12_producer_ring` | one resident block per SM, a ring of six tiles, a producer warp that publishes each tile's sum as it lands (sm_90a build only) | 1 read, 1 write |
//! | [`s13_compaction`] | stream compaction on s10's scan: the elements that pass a test, packed | 1 read, ≤ 1 write |
//! | `s14_staged_compaction` | compaction on s11: each warp packs its rows in shared memory, then stores them contiguous (sm_90a build only) | 〃 |
//!
//! Conventions: values are `i32` (sums modulo 2^32: exact, in any order) or `f32`; every
//! kernel takes raw bits (`*const u32`, `*mut u32`) and has an `_i32` and an `_f32` entry
//! point ([`scan_entry_points!`]); `exclusive != 0` asks for the exclusive scan. Any `n` works
//! (0, 1, past 2^32: indices are `usize`); input and output may be the same buffer. Shapes in
//! `common::scan`.

pub mod s01_hillis_steele;
pub mod s02_blelloch;
pub mod s03_conflict_free;
pub mod s04_warp_shuffles;
pub mod s05_items_per_thread;
pub mod s06_reduce_then_scan;
pub mod s07_chained;
pub mod s08_decoupled_lookback;
pub mod s09_warp_lookback;
pub mod s10_prefetch;
#[cfg(target_feature = "sm_90a")]
pub mod s11_bulk_copy;
#[cfg(target_feature = "sm_90a")]
pub mod s12_producer_ring;
pub mod s13_compaction;
#[cfg(target_feature = "sm_90a")]
pub mod s14_staged_compaction;
pub mod state;
pub mod support;
pub mod tile;

/// A value the ladder scans: `i32` (wrapping) or `f32`, carried as its 32 bits.
pub trait Element: Copy {
    const ZERO: Self;
    /// The scan's operator: wrapping addition for `i32`, IEEE addition for `f32`.
    fn add(self, other: Self) -> Self;
    fn to_bits(self) -> u32;
    fn from_bits(bits: u32) -> Self;
}

impl Element for i32 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn to_bits(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        bits as i32
    }
}

impl Element for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
    #[inline(always)]
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        f32::from_bits(bits)
    }
}

/// Writes a step's two entry points, `<name>_i32` and `<name>_f32`, each calling `body`
/// with its element type, and each promising at most `threads` threads per block (the
/// `.maxntid` ptxas sizes the registers by):
///
/// ```ignore
/// scan_entry_points!(threads = THREADS; hillis_steele(input: *const u32, output: *mut u32, n: usize)
///     => s01_hillis_steele_i32, s01_hillis_steele_f32);
/// ```
#[macro_export]
macro_rules! scan_entry_points {
    (threads = $threads:expr; $body:ident($($arg:ident: $ty:ty),* $(,)?) => $i32:ident, $f32:ident) => {
        /// The step on `i32` (wrapping sums).
        ///
        /// # Safety
        /// As the step's body.
        #[kernel_macros::kernel(max_threads = $threads)]
        pub unsafe fn $i32($($arg: $ty),*) {
            // SAFETY: forwarded.
            unsafe { $body::<i32>($($arg),*) }
        }

        /// The step on `f32`.
        ///
        /// # Safety
        /// As the step's body.
        #[kernel_macros::kernel(max_threads = $threads)]
        pub unsafe fn $f32($($arg: $ty),*) {
            // SAFETY: forwarded.
            unsafe { $body::<f32>($($arg),*) }
        }
    };
}
