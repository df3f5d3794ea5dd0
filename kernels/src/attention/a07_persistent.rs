//! Step a07 — one block per SM for the whole pass: the next tile loads under this one's end.
//!
//! Idea: in a06 a block lives for one tile of 128 query rows, and its loads start only once
//!       the block before it on the SM has stored O and left: with few key tiles (short
//!       sequences) that fill and drain is much of the time. Here one block per SM draws tiles
//!       from a counter until none is left, and the producer loads the next tile's Q, K and V
//!       as soon as the consumers free them, under this tile's last products and epilogue.
//! Changes from a06: a loop over work tiles in both roles; a tile counter in global memory;
//!       the tile handed over in shared memory with Q's "full" barrier; Q's "empty" barrier;
//!       the stage ring and Q's phases counted over the block's life.
//! Bottleneck: a06's own (the softmax between the products); at 1k–2k keys the tiles are
//!       still few per block.
//! Cost: a06's registers and shared memory; one relaxed atomic per tile; a counter of two
//!       words the host zeroes once (each launch leaves it zero).
//! Requires: an sm_90a device and PTX; head dim 64 or 128; strides multiples of 8 elements.
//! Result: 700 TFLOP/s, d128, seq 16k, bf16: 107 % of cuDNN (a06 100 %), H100, 2026-11-27.
//!
//! More: docs/lessons.md#a07
//!
//! # The order of the tiles
//!
//! Drawn in order, each by the first block free, so the order decides both the balance and
//! the L2's use. The (batch, head) pairs are taken in *sections* whose K and V fit in a third
//! of the L2 ([`SECTION_BYTES`]); within a section, query blocks from the last to the first,
//! each over the section's heads. With a causal mask the last query block sees the most
//! keys, so the long tiles go first and the short ones fill the end: the greedy order of a
//! scheduler that balances well. The heads in flight at once are a section's, whose K and V
//! then stay in L2. (Block `b`'s first tile is tile `b`, the rest come from the counter.)
//!
//! # The hand-over
//!
//! Per tile the producer waits until the consumers released the last Q (Q's "empty"), writes
//! the tile's index to shared memory, then arrives on Q's "full" barrier: with Q's copy when
//! the tile has keys, plainly when it has none (its rows get zeros and −∞) or when no tile is
//! left (the index is then past the end, and the consumers stop). The arrival releases the
//! index to the consumers that wait for the phase; the consumers' release of Q comes after
//! they read it.

use super::a05_tma_producer::{
    CONSUMER_WARPS, PRODUCER_THREAD, Q_EMPTY, Q_FULL, SharedTiles, Sources, barrier, init_barriers, prefetch_maps,
};
use super::a06_pingpong::{LOG2_E, Turns, attend};
use super::fragments::{ONE_CHAIN, RowStats};
use super::hopper::{self, LaneRows, Output, PV_PANEL, WARPGROUP, WARPGROUP_ROWS, Wgmma};
use super::{Bf16, F16};
use crate::device::atomic::{atomic_add_acq_rel_u32, atomic_add_relaxed_u32};
use crate::device::index::{ALL_LANES, WARP_SIZE, block_idx, grid_dim, thread_idx};
use crate::device::shared::SharedArray;
use crate::device::tma::{mbarrier_arrive, mbarrier_arrive_if, mbarrier_wait};
use crate::device::warp::shuffle_idx_u32;
use crate::device::wgmma::{claim_registers, release_registers};
use crate::static_shared;
use common::attention::Dims;
use common::attention::a07::{
    BLOCK_K, BLOCK_Q, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, PRODUCER_REGISTERS, SECTION_BYTES, THREADS,
};
use core::num::NonZeroU32;
use kernel_macros::kernel;

const _: () = assert!(CONSUMER_WARPS == 8);

static_shared! {
    /// The work tile the producer hands the consumers with each phase of Q's "full" barrier,
    /// as [`Work::words`].
    fn work_tile() -> [u32; 4];
}

/// The words of the counter the host passes (zero before the first launch; the last block
/// of a launch zeroes them again): the next tile to draw, less the grid's first ones; the
/// blocks that have drawn their last.
const NEXT: usize = 0;
const DONE: usize = 1;

/// One work tile: a block of query rows of one (batch, query head).
#[derive(Clone, Copy)]
pub(super) struct Work {
    /// Its first query row ([`Work::END`]: no tile is left).
    pub(super) q0: u32,
    /// Its batch and query head.
    pub(super) b: u32,
    pub(super) h: u32,
    /// Key tiles its last row sees.
    key_tiles: u32,
}

impl Work {
    /// What the producer hands over when no tile is left.
    const END: Self = Self { q0: u32::MAX, b: 0, h: 0, key_tiles: 0 };

    /// As the four words of the shared slot, and back.
    #[inline(always)]
    fn words(self) -> [u32; 4] {
        [self.q0, self.b, self.h, self.key_tiles]
    }

    /// From the slot's words, broadcast from lane 0 of the warp: the same in every lane, as
    /// ptxas can then see (read from shared memory, they could differ). What depends on them
    /// (the stages, the `wgmma` descriptors) then stays in uniform registers; without it the
    /// key-tile loop grew by 64 instructions (`R2UR` moves to uniform registers before each
    /// `wgmma`) and the step lost 3–5 % at long sequences.
    #[inline(always)]
    fn from_words(words: [u32; 4]) -> Self {
        let [q0, b, h, key_tiles] = words.map(|word| shuffle_idx_u32(ALL_LANES, word, 0));
        Self { q0, b, h, key_tiles }
    }
}

/// What a consumer warpgroup holds of a work tile once its key loop is done: its rows of O
/// (`out`, over the row sums of `stats`), which rows they are (`lane`), the problem and the tile.
pub(super) struct Finished<'a, const PANELS: usize> {
    pub(super) out: &'a Output<PANELS>,
    pub(super) stats: &'a RowStats,
    pub(super) lane: &'a LaneRows,
    pub(super) d: &'a Dims,
    pub(super) w: Work,
}

/// How a consumer warpgroup's output of a work tile leaves the block: a07 stores O from the
/// registers ([`DirectStores`]); a08 hands it to the copy engine.
pub(super) trait TileOutput: Copy {
    /// Consumer warpgroup `warpgroup`'s, with the host's tensor maps at `maps`.
    fn new(maps: *const u8, warpgroup: u32) -> Self;

    /// Stores the tile's O and log-sum-exps into `o` and `lse`; `tiles` the block's (what a
    /// step derives from them is derived here, at the tile's end, not held across the key loop).
    ///
    /// # Safety
    /// Every thread of the warpgroup calls it, once per tile, in the same order; `o` and `lse`
    /// the whole output's.
    unsafe fn store<T: Wgmma, const PANELS: usize>(
        self,
        tiles: SharedTiles<PANELS>,
        tile: Finished<PANELS>,
        o: *mut u16,
        lse: *mut f32,
    );

    /// After the warpgroup's last tile.
    fn finish(self);
}

/// a07's output: [`hopper::store_output`], from the registers to global memory.
#[derive(Clone, Copy)]
pub(super) struct DirectStores;

impl TileOutput for DirectStores {
    #[inline(always)]
    fn new(_: *const u8, _: u32) -> Self {
        Self
    }

    #[inline(always)]
    unsafe fn store<T: Wgmma, const PANELS: usize>(
        self,
        _: SharedTiles<PANELS>,
        Finished { out, stats, lane, d, w }: Finished<PANELS>,
        o: *mut u16,
        lse: *mut f32,
    ) {
        let pair = w.b * d.heads_q + w.h;
        let o_rows = o.wrapping_add(d.o.row_offset(w.b, w.h, 0) as usize);
        let lse_rows = lse.wrapping_add(pair as usize * d.seq_q as usize);
        // SAFETY: the whole warp; this tile's head's O and log-sum-exps.
        unsafe { hopper::store_output::<T, PANELS>(out, stats, lane, d, o_rows, lse_rows) };
    }

    #[inline(always)]
    fn finish(self) {}
}

/// The tiles of the pass in the order the blocks draw them (the module comment's).
#[derive(Clone, Copy)]
struct Schedule {
    /// Query blocks per (batch, head).
    blocks: u32,
    pairs: u32,
    /// Heads per section.
    section: u32,
    tiles: u32,
}

impl Schedule {
    #[inline(always)]
    fn new(d: &Dims) -> Self {
        let blocks = d.seq_q.div_ceil(BLOCK_Q);
        let pairs = d.batch * d.heads_q;
        // K and V of one head, 16-bit values.
        let head_bytes = (d.seq_k as u64 * d.head_dim as u64 * 4).max(1);
        let section =
            if d.causal == 0 { 1 } else { (SECTION_BYTES / head_bytes).clamp(1, pairs.max(1) as u64) as u32 };
        Self { blocks, pairs, section, tiles: blocks * pairs }
    }

    /// Work tile `t` (< `tiles`): section `t / (section · blocks)`, in it query block rank
    /// `r = local / heads` from the last, head `local % heads`.
    #[inline(always)]
    fn work(self, d: &Dims, t: u32) -> Work {
        // SAFETY: `t < tiles` makes `blocks`, `pairs` (so `section`) and `heads_q` non-zero.
        let (per_section, heads_q) =
            unsafe { (NonZeroU32::new_unchecked(self.section * self.blocks), NonZeroU32::new_unchecked(d.heads_q)) };
        let first_pair = t / per_section * self.section;
        let local = t - first_pair * self.blocks;
        // SAFETY: `first_pair < pairs`, as `t < tiles`.
        let heads = unsafe { NonZeroU32::new_unchecked(self.section.min(self.pairs - first_pair)) };
        let pair = first_pair + local % heads;
        let q0 = (self.blocks - 1 - local / heads) * BLOCK_Q;
        let last_row = (q0 + BLOCK_Q).min(d.seq_q) - 1;
        Work { q0, b: pair / heads_q, h: pair % heads_q, key_tiles: d.visible_keys(last_row).div_ceil(BLOCK_K) }
    }
}

/// The producer's thread: draws the block's tiles (its own index first, then from the
/// counter), and per tile, once the consumers released the last one's Q: hands it over with
/// Q's "full" barrier, loading Q's tile and its K and V tiles (the stage ring continuing)
/// when it has keys. The last block to finish drawing zeroes the counter.
///
/// # Safety
/// The producer thread alone; the barriers initialized; `maps` the host's; `counter` two
/// words only this launch's blocks touch, zero at its start.
#[inline(always)]
unsafe fn produce<const PANELS: usize>(
    tiles: SharedTiles<PANELS>,
    maps: *const u8,
    d: &Dims,
    schedule: Schedule,
    counter: *mut u32,
) {
    prefetch_maps(maps);
    let slot: SharedArray<u32> = work_tile();
    let (mut handed, mut key_loads) = (0u32, 0u32);
    let mut t = block_idx();
    // SAFETY: Q's tile and the slot are free once the last phase of `Q_EMPTY` completed; the
    // stage ring continues from `key_loads`; the counter is the caller's.
    unsafe {
        loop {
            let w = if t < schedule.tiles { schedule.work(d, t) } else { Work::END };
            if handed > 0 {
                mbarrier_wait(barrier(Q_EMPTY), (handed - 1) % 2);
            }
            slot.store_v4(0, w.words());
            handed += 1;
            if w.q0 == Work::END.q0 {
                mbarrier_arrive(barrier(Q_FULL));
                break;
            }
            // The next tile, drawn now: the atomic's round trip runs under this tile's loads.
            t = grid_dim() + atomic_add_relaxed_u32(counter.add(NEXT), 1);
            if w.key_tiles == 0 {
                mbarrier_arrive(barrier(Q_FULL));
            } else {
                let sources = Sources { maps, q_head: [w.h, w.b], kv_head: [w.h / d.group, w.b] };
                sources.load_q(tiles, w.q0);
                sources.load_keys(tiles, key_loads, w.key_tiles);
                key_loads += w.key_tiles;
            }
        }
        // Every block that drew past the end has drawn its last: the last one zeroes both.
        if atomic_add_acq_rel_u32(counter.add(DONE), 1) == grid_dim() - 1 {
            *counter.add(NEXT) = 0;
            *counter.add(DONE) = 0;
        }
    }
}

/// One consumer warpgroup's work tiles, as the producer hands them: per tile, a06's loop (Q
/// released after its last scores) and the epilogue, `E`'s.
///
/// # Safety
/// Every thread of consumer warpgroup `warpgroup` calls it, after the barriers were
/// initialized, with the producer running; `maps` the host's; `o`, `lse` the whole output's.
#[inline(always)]
unsafe fn consume<T: Wgmma, E: TileOutput, const PANELS: usize, const CHAINS: usize, const PV_N: usize>(
    tiles: SharedTiles<PANELS>,
    maps: *const u8,
    dims: *const Dims,
    warpgroup: u32,
    o: *mut u16,
    lse: *mut f32,
) {
    let output = E::new(maps, warpgroup);
    let turns = Turns::new(warpgroup);
    // SAFETY: the caller's problem.
    let scale_log2 = unsafe { (*dims).scale } * LOG2_E;
    let lane_id = thread_idx() % WARP_SIZE;
    let slot: SharedArray<u32> = work_tile();
    let (mut handed, mut key_loads) = (0u32, 0u32);
    turns.open();
    loop {
        // The problem read again per tile, before the wait that hides the read: kept in
        // registers across the loop, O's strides would spill.
        // SAFETY: the caller's problem; the producer wrote the slot before this phase's
        // arrival, and rewrites it only after every consumer warp released the phase's Q.
        let (d, w) = unsafe {
            let d = dims.read();
            mbarrier_wait(barrier(Q_FULL), handed % 2);
            (d, Work::from_words(slot.load_v4(0)))
        };
        let d = &d;
        handed += 1;
        if w.q0 == Work::END.q0 {
            break;
        }
        let lane = LaneRows::new(d, w.q0 + warpgroup * WARPGROUP_ROWS, thread_idx() % WARPGROUP);
        let mut stats = RowStats::EMPTY;
        let mut out: Output<PANELS> = [[[0.0; 4]; 8]; PANELS];
        // SAFETY: Q's tile landed; the producer loads these key tiles in this order; both
        // warpgroups run the same tiles.
        unsafe { attend::<T, PANELS, CHAINS, PV_N>(tiles, turns, &lane, scale_log2, key_loads, w.key_tiles, true, &mut out, &mut stats) };
        key_loads += w.key_tiles;
        // A tile without keys releases Q here (`attend` released it at the last scores
        // otherwise), by a predicated arrival: as a branch (`if`, then lane 0's arrival) it
        // cost ptxas the uniform datapath in the key-tile loop of every later tile (the stages'
        // descriptors computed per thread, 132 `R2UR` in the kernel against 53).
        // SAFETY: Q's "empty" barrier, initialized; one arrival per warp, by lane 0.
        unsafe { mbarrier_arrive_if(barrier(Q_EMPTY), lane_id == 0 && w.key_tiles == 0) };
        // SAFETY: the whole warpgroup, once per tile; the caller's output.
        unsafe { output.store::<T, PANELS>(tiles, Finished { out: &out, stats: &stats, lane: &lane, d, w }, o, lse) };
    }
    turns.close();
    output.finish();
}

/// The whole forward pass, head dim `64·PANELS`, 16-bit type `T`, by a grid of persistent
/// blocks whose consumers store each tile's output as `E` does.
///
/// # Safety
/// As a06's, but launched with a grid along x of at most one block per work tile
/// (⌈seq_q / BLOCK_Q⌉ · batch · heads_q, under 2^31); `counter` two `u32` in global memory,
/// zero, for this launch alone (it leaves them zero). (Correct whatever the grid: blocks
/// that start late draw what is left, or nothing.)
#[inline(always)]
pub(super) unsafe fn flash_persistent<
    T: Wgmma,
    E: TileOutput,
    const PANELS: usize,
    const CHAINS: usize,
    const PV_N: usize,
>(
    maps: *const u8,
    o: *mut u16,
    lse: *mut f32,
    dims: *const Dims,
    counter: *mut u32,
) {
    const { assert!(PANELS == 1 || PANELS == 2, "head dim 64 or 128") };
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    let tid = thread_idx();
    let warpgroup = tid / WARPGROUP;
    let tiles = SharedTiles::<PANELS>::new();
    init_barriers(tid);

    if warpgroup == CONSUMER_WARPGROUPS {
        release_registers::<PRODUCER_REGISTERS>();
        if tid == PRODUCER_THREAD {
            // SAFETY: the producer thread; barriers initialized; the caller's counter.
            unsafe { produce(tiles, maps, &d, Schedule::new(&d), counter) };
        }
        return;
    }
    claim_registers::<CONSUMER_REGISTERS>();
    // SAFETY: a consumer warpgroup, whole; barriers initialized.
    unsafe { consume::<T, E, PANELS, CHAINS, PV_N>(tiles, maps, dims, warpgroup, o, lse) };
}

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As [`flash_persistent`].
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims, counter: *mut u32) {
            // SAFETY: forwarded.
            unsafe { flash_persistent::<$ty, DirectStores, $panels, ONE_CHAIN, PV_PANEL>(maps, o, lse, dims, counter) }
        }
    };
}

entry!(a07_persistent_f16_d64, F16, 1, "a07 on f16, head dim 64.");
entry!(a07_persistent_bf16_d64, Bf16, 1, "a07 on bf16, head dim 64.");
entry!(a07_persistent_f16_d128, F16, 2, "a07 on f16, head dim 128.");
entry!(a07_persistent_bf16_d128, Bf16, 2, "a07 on bf16, head dim 128.");
