//! The scan steps' shapes, which the kernels and the host (grids, blocks, workspaces) must
//! agree on: one module per step, named after it, each built from its predecessor's.

/// s01 (Hillis and Steele in shared memory): one element per thread, a tile per block.
pub mod s01 {
    pub const THREADS: u32 = 512;
    pub const TILE: u32 = THREADS;
}

/// s02 (Blelloch's up-sweep and down-sweep): two elements per thread.
pub mod s02 {
    pub const THREADS: u32 = 256;
    pub const TILE: u32 = 2 * THREADS;
}

/// s03 (s02 without bank conflicts): s02's tile, its shared array padded by one word in 32.
pub mod s03 {
    pub use super::s02::{THREADS, TILE};
    /// Words of the padded tile in shared memory.
    pub const PADDED: u32 = TILE + TILE / 32;
}

/// s04 (warp shuffles): one element per thread, as s01.
pub mod s04 {
    pub const THREADS: u32 = 512;
    pub const TILE: u32 = THREADS;
}

/// s05 (many items per thread): s04's block, each thread scanning `ITEMS` consecutive
/// elements in registers, loaded 16 bytes at a time.
pub mod s05 {
    pub use super::s04::THREADS;
    pub const ITEMS: u32 = 16;
    pub const TILE: u32 = THREADS * ITEMS;
}

/// s06 (reduce, then scan): s05's tiles.
pub mod s06 {
    pub use super::s05::{ITEMS, THREADS, TILE};
}

/// s07 (chained scan, one pass): s05's tiles, claimed through a ticket; a state of one
/// ticket counter and one status word per tile.
pub mod s07 {
    pub use super::s05::{ITEMS, THREADS, TILE};
}

/// s08 (decoupled look-back): s07's tiles and state.
pub mod s08 {
    pub use super::s07::{ITEMS, THREADS, TILE};
}

/// s09 (a warp looks back 32 tiles at a time): s08's tiles and state.
pub mod s09 {
    pub use super::s08::{ITEMS, THREADS, TILE};
}

/// s10 (prefetch ahead): s09's tiles and state; each block asks L2 for the tile `AHEAD`
/// tiles past its own.
pub mod s10 {
    pub use super::s09::{ITEMS, THREADS, TILE};
    /// Tiles between a block's own and the one it prefetches: about two tiles per SM ahead,
    /// which the blocks that claim them start loading a few microseconds later.
    pub const AHEAD: u32 = 256;
}

/// s11 (the tile through shared memory by bulk copy): 256 threads, 8 rows of 32 16-byte units
/// per warp: an 8192-element tile (32 KiB of dynamic shared memory, then the copy's mbarrier).
pub mod s11 {
    /// Tiles between a block's own and the one it prefetches into L2: half s10's distance
    /// (4 MiB ahead; measured at 2^30 on an H200: 64 tiles 2.36 ms, 128 2.33, 256 2.38, 512
    /// 3.04, none 2.74).
    pub const AHEAD: u32 = 128;
    /// Inputs shorter than this many elements ask for the tile `AHEAD` on in one
    /// `cp.async.bulk.prefetch.L2` by thread 0; longer ones by one `prefetch.global.L2` per line
    /// by every thread. Measured both ways (H200 and H100, 2026-11-27): the one instruction is
    /// 6–8 % faster at 2^23 and 3 % at 2^24, but 1–3 % slower from 2^26 on.
    pub const BULK_PREFETCH_BELOW: usize = 1 << 25;
    pub const THREADS: u32 = 256;
    /// Rows of one 16-byte unit per lane that each warp scans.
    pub const ROWS: u32 = 8;
    pub const TILE: u32 = THREADS * ROWS * 4;
    /// The tile's start in shared memory: a 128-byte line (the dynamic shared memory begins
    /// where the static arrays end, 140 bytes in here). Bulk copies into tiles that straddle
    /// lines are slower: s12's ring 48 bytes off a line cost it 5 % on an H200.
    pub const TILE_ALIGN: u32 = 128;
    /// Dynamic shared memory: the tile, then the 8-byte mbarrier its copy completes, and the
    /// slack that aligns them.
    pub const SHARED_BYTES: u32 = TILE * 4 + 8 + TILE_ALIGN;
}

/// s12 (a resident block per SM, a ring of tiles, a producer warp): s11's tile, rows and
/// prefetch distance; eight consumer warps and a producer warp.
pub mod s12 {
    pub use super::s11::{AHEAD, ROWS, TILE};
    /// The consumers, s11's block: they scan, look back and store.
    pub const CONSUMERS: u32 = super::s11::THREADS;
    /// The consumers and the producer warp.
    pub const THREADS: u32 = CONSUMERS + 32;
    /// Tiles in a block's ring: six 32 KiB slots, one block per SM (measured: six beat five
    /// and four by 3 and 5 points of a copy at 2^30 on an H200).
    pub const STAGES: u32 = 6;
    /// Status words the consumers read per round trip of the look-back, one each.
    pub const WINDOW: u32 = CONSUMERS;
    /// The ring's start in shared memory: a 128-byte line, as s11's tile (the dynamic shared
    /// memory begins where the static arrays end: 176 bytes in here, 48 past a line).
    pub const RING_ALIGN: u32 = super::s11::TILE_ALIGN;
    /// Dynamic shared memory: the slots, then a "full" and an "empty" mbarrier per slot, and
    /// the slack that aligns them.
    pub const SHARED_BYTES: u32 = STAGES * (TILE * 4 + 16) + RING_ALIGN;
}

/// s13 (stream compaction on s10's scan): s10's tiles, state and prefetch.
pub mod s13 {
    pub use super::s10::{AHEAD, ITEMS, THREADS, TILE};
}

/// s14 (compaction staged in shared memory): s11's tile, bulk copy and rows.
pub mod s14 {
    pub use super::s11::{AHEAD, ROWS, SHARED_BYTES, THREADS, TILE, TILE_ALIGN};
}

/// Threads per block of the kernel that adds each tile's offset (the scan-then-propagate
/// steps' last pass).
pub const ADD_THREADS: u32 = 256;

/// Words of a single-pass step's state for `tiles` tiles: the ticket counter, then a status
/// word per tile (all `u64`, zeroed once when allocated, never reset: see `status`).
pub const fn state_words(tiles: u64) -> u64 {
    1 + tiles
}

/// A tile's status word in the single-pass steps, 64 bits written and read whole: the low 32
/// bits the value (the tile's aggregate or its inclusive prefix, as bits), the high 32 the
/// launch's epoch times 4 plus the kind (`AGGREGATE` or `PREFIX`). A word of another epoch
/// (a launch before, with the same tiles) reads as not yet written, so the state never needs
/// clearing between launches.
pub mod status {
    /// Only the tile's own sum is known.
    pub const AGGREGATE: u32 = 1;
    /// The sum of every element up to the end of the tile is known.
    pub const PREFIX: u32 = 2;

    /// The word for `value` of `kind` in launch `epoch`.
    pub const fn word(epoch: u32, kind: u32, value: u32) -> u64 {
        ((((epoch << 2) | kind) as u64) << 32) | value as u64
    }

    /// The kind of `word` if it was written in launch `epoch`, else 0 (not written yet).
    pub const fn kind(word: u64, epoch: u32) -> u32 {
        let high = (word >> 32) as u32;
        if high >> 2 == epoch { high & 3 } else { 0 }
    }

    /// The value bits of `word`.
    pub const fn value(word: u64) -> u32 {
        word as u32
    }

    /// The launch epoch of ticket `ticket` (1 for a workspace's first launch): every launch
    /// over `tiles` tiles takes exactly `tiles` tickets, in order.
    pub const fn epoch(ticket: u64, tiles: u64) -> u32 {
        (ticket / tiles) as u32 + 1
    }
}

/// The predicate of stream compaction (s13, and CUB's `DeviceSelect::If` beside it): keep
/// the elements greater than zero.
pub const fn keep_i32(x: i32) -> bool {
    x > 0
}
