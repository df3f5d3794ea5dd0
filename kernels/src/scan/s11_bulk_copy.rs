//! Step s11 — the tile into shared memory by one bulk copy: bytes in flight off the registers.
//!
//! Idea: up to s10 a tile waits in registers, so the registers bound how many tiles an SM has
//!       in flight (three 8192-element tiles at 40 per thread). Here thread 0 claims the tile
//!       and starts one `cp.async.bulk` of its 32 KiB into shared memory, on a 128-byte line;
//!       an mbarrier says when it landed. Six tiles fit per SM, and the registers hold only
//!       what a warp scans at a time: eight rows of one 16-byte unit per lane, coalesced.
//! Changes from s10: the loads (bulk copy, striped rows), the warp's part of the tile scan
//!       (a warp scan per row), the prefetch 128 tiles ahead (below 2^25 elements one bulk
//!       prefetch per tile); claim, look-back are s10's.
//! Bottleneck: the look-back, which waits for the slowest recent copies: 5.8 µs of a block's
//!       14 at 2^30 on an H200; with no look-back at all the kernel reaches 92 % of a copy.
//! Cost: 32 KiB + 8 B (+ 128 B to align) of dynamic shared memory per block; sm_90
//!       (`cp.async.bulk`, `mbarrier`).
//! Result: 2.25 ms at 2^30 i32: 88.7 % of a copy, 121 % of CUB, H200, 2026-11-29.
//!
//! A warp owns 8 rows of 32 units: row r of warp w is units (8w + r)·32 + lane of the tile, so
//! each row's loads and stores are 512 contiguous bytes. The warp scans its rows in order: a
//! row's unit sums are scanned across the lanes, and the row's total carries into the next.
//! The block scan then needs only each warp's total, which lane 31 gives to s04's
//! `block_exclusive_scan` (every other lane gives zero, so every lane gets its warp's offset).
//!
//! More: docs/lessons.md#s11

use super::s04_warp_shuffles::{block_exclusive_scan, warp_inclusive_scan};
use super::s07_chained::tile_prefix;
use super::s09_warp_lookback::WarpWindow;
use super::state::{self, Claim};
use super::{Element, tile};
use crate::device::index::{ALL_LANES, WARP_SIZE, lane_idx, thread_idx, warp_idx};
use crate::device::load::{I32x4, store_streaming_v4};
use crate::device::shared::{SharedArray, dynamic_shared_aligned};
use crate::device::sync::sync_threads;
use crate::device::tma::{
    copy_bulk, fence_barrier_init, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait, prefetch_bulk_l2,
};
use crate::device::warp::{shuffle_idx_u32, shuffle_up_u32};
use crate::scan_entry_points;
use crate::static_shared;
use common::scan::s11::{AHEAD, BULK_PREFETCH_BELOW, ROWS, THREADS, TILE, TILE_ALIGN};

static_shared! {
    /// The block's claim (tile, epoch), then the sum of every tile before it.
    fn bulk_copy_words() -> [u32; 3];
}

/// 16-byte units in one row of a warp: one per lane.
pub const ROW_UNITS: u32 = WARP_SIZE;

/// The four elements of a unit as values.
#[inline(always)]
pub fn unit<E: Element>(bits: [u32; 4]) -> [E; 4] {
    bits.map(E::from_bits)
}

/// The row's sum of each lane's unit, and what the lanes before it in this row add up to,
/// given `carry`, the sum of the warp's rows before it. Returns (this lane's sum of
/// everything before its unit in the warp, the row's total).
#[inline(always)]
fn scan_row<E: Element>(x: [E; 4], carry: E) -> (E, E) {
    let sum = x[0].add(x[1]).add(x[2]).add(x[3]);
    let inclusive = warp_inclusive_scan(sum);
    let row_total = E::from_bits(shuffle_idx_u32(ALL_LANES, inclusive.to_bits(), WARP_SIZE - 1));
    let below = E::from_bits(shuffle_up_u32(ALL_LANES, inclusive.to_bits(), 1));
    let before = if lane_idx() == 0 { carry } else { carry.add(below) };
    (before, row_total)
}

/// The last, partial tile, which no bulk copy brings: the block copies `input[start..n]`
/// into `tile_words` with ordinary loads, zeros after, across a barrier.
///
/// # Safety
/// Every thread of the block, `THREADS` of them; `tile_words` holds `TILE` words no one
/// else uses meanwhile; `input` holds `n` elements.
#[inline(always)]
pub unsafe fn copy_partial_tile<E: Element>(tile_words: SharedArray<u32>, input: *const u32, n: usize, start: usize) {
    let mut i = thread_idx();
    while i < TILE {
        let at = start + i as usize;
        // SAFETY: at < n; i < TILE, inside the shared tile.
        unsafe { tile_words.store(i, if at < n { *input.add(at) } else { E::ZERO.to_bits() }) };
        i += THREADS;
    }
    sync_threads();
}

/// The first of this lane's units in the tile: row r of the warp is the 32 units from
/// `first_unit() - lane + r·32` on.
#[inline(always)]
pub fn first_unit() -> u32 {
    warp_idx() * ROWS * ROW_UNITS + lane_idx()
}

/// Pass 1, the warp's rows in order, each unit's four words seen through `view` (s11 adds
/// the values, compaction counts the kept ones): for each row what comes before this lane's
/// unit in the warp, and the warp's total (to every lane).
///
/// # Safety
/// `tile_words` holds a whole tile that every thread may read (the copy completed, or the
/// block's stores reached it across a barrier).
#[inline(always)]
pub unsafe fn scan_rows_of<E: Element>(tile_words: SharedArray<u32>, view: impl Fn([u32; 4]) -> [E; 4]) -> ([E; ROWS as usize], E) {
    let first = first_unit();
    let mut before_lane = [E::ZERO; ROWS as usize];
    let mut carry = E::ZERO;
    crate::unroll!(8, r => {
        // SAFETY: the unit lies inside the tile, which the caller says is readable.
        let x = view(unsafe { tile_words.load_v4(4 * (first + r as u32 * ROW_UNITS)) });
        let (before, row_total) = scan_row(x, carry);
        before_lane[r] = before;
        carry = carry.add(row_total);
    });
    (before_lane, carry)
}

/// Pass 2: the outputs of the tile that starts at element `start`, row by row from
/// `tile_words`, each lane's first one `base + before_lane[r]` plus its unit's elements
/// before it (`exclusive`) or up to it; 16-byte streaming stores (`st.global.cs.v4`) when the
/// tile lies below `n`, else one by one below `n`.
///
/// # Safety
/// As [`scan_rows_of`]; `output` is 16-byte aligned and holds `n` elements, the tile's are this
/// block's alone.
#[inline(always)]
pub unsafe fn store_rows<E: Element>(
    tile_words: SharedArray<u32>,
    output: *mut u32,
    n: usize,
    start: usize,
    base: E,
    before_lane: &[E; ROWS as usize],
    exclusive: u32,
) {
    let first = first_unit();
    let whole = start + TILE as usize <= n;
    crate::unroll!(8, r => {
        let u = first + r as u32 * ROW_UNITS;
        // SAFETY: as in pass 1.
        let x = unit::<E>(unsafe { tile_words.load_v4(4 * u) });
        let mut running = base.add(before_lane[r]);
        let mut out = [0i32; 4];
        for k in 0..4 {
            let next = running.add(x[k]);
            out[k] = (if exclusive != 0 { running } else { next }).to_bits() as i32;
            running = next;
        }
        let at = start + 4 * u as usize;
        if whole {
            // SAFETY: the unit lies below n, 16-byte aligned; this thread's alone.
            unsafe { store_streaming_v4(output.wrapping_add(at) as *mut I32x4, I32x4(out)) };
        } else {
            for k in 0..4 {
                if at + k < n {
                    // SAFETY: below n.
                    unsafe { *output.add(at + k) = out[k] as u32 };
                }
            }
        }
    });
}

/// Brings the block's tile into `tile_words`: thread 0 claims it (through `words[0..2]`, to
/// every thread) and starts one bulk copy of it when it is whole, its mbarrier right after the
/// tile; the block asks L2 for the tile `AHEAD` tickets on (below `BULK_PREFETCH_BELOW`
/// elements thread 0 in one bulk prefetch, else every thread a line), then waits for the
/// copy, or copies the last, partial tile itself. Returns the claim.
///
/// # Safety
/// Every thread of the block, once; launched as [`bulk_copy`]; `words` holds two words no one
/// else uses meanwhile.
#[inline(always)]
pub unsafe fn load_tile<E: Element>(
    tile_words: SharedArray<u32>,
    words: SharedArray<u32>,
    input: *const u32,
    n: usize,
    state: *mut u64,
    jitter: u32,
) -> Claim {
    // The mbarrier right after the tile (8-byte aligned: the tile is 32 KiB).
    let bar = tile_words.address(TILE);
    let tile_len = TILE as usize;
    if thread_idx() == 0 {
        // SAFETY: thread 0 alone, once; the barrier lies in this block's shared memory.
        unsafe { (mbarrier_init(bar, 1), fence_barrier_init()) };
        // SAFETY: thread 0, once; the state as the caller promises.
        let claim = unsafe { state::claim_tile(state, jitter) };
        // SAFETY: words 0 and 1, the caller's.
        unsafe { (words.store(0, claim.tile), words.store(1, claim.epoch)) };
        let start = claim.tile as usize * tile_len;
        if start + tile_len <= n {
            // SAFETY: a whole tile of the input, 16-byte aligned (the input is, and tiles are
            // 32 KiB), into this block's shared tile; the barrier expects its bytes.
            unsafe {
                mbarrier_arrive_expect_tx(bar, TILE * 4);
                copy_bulk(tile_words.address(0), input.add(start) as *const u8, TILE * 4, bar);
            }
        }
        let ahead = start + AHEAD as usize * tile_len;
        if AHEAD > 0 && n < BULK_PREFETCH_BELOW && ahead + tile_len <= n {
            // SAFETY: a whole tile below n, 16-byte aligned as above.
            unsafe { prefetch_bulk_l2(input.add(ahead) as *const u8, TILE * 4) };
        }
    }
    sync_threads();
    // SAFETY: written before the barrier.
    let claim = unsafe { Claim { tile: words.load(0), epoch: words.load(1) } };
    let start = claim.tile as usize * tile_len;
    if AHEAD > 0 && n >= BULK_PREFETCH_BELOW {
        // SAFETY: the addresses prefetched lie below n.
        unsafe { tile::prefetch(input, n, (claim.tile + AHEAD) as usize * tile_len, tile_len) };
    }
    if start + tile_len <= n {
        // SAFETY: thread 0 initialized the barrier before the block barrier above.
        unsafe { mbarrier_wait(bar, 0) };
    } else {
        // SAFETY: every thread; the tile is the block's.
        unsafe { copy_partial_tile::<E>(tile_words, input, n, start) };
    }
    claim
}

/// One pass of the scan over `input[0..n]` into `output`, each tile brought into shared
/// memory by a bulk copy.
///
/// # Safety
/// Launched with `THREADS` threads per block, `SHARED_BYTES` of dynamic shared memory and one
/// block per `TILE` elements (at least one); `input` and `output` are 16-byte aligned and hold
/// `n` elements (they may be the same buffer); `state` as for s07's `single_pass`.
unsafe fn bulk_copy<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    // SAFETY: SHARED_BYTES holds TILE_ALIGN bytes of slack past the tile and its barrier.
    let tile_words: SharedArray<u32> = unsafe { SharedArray::from_address(dynamic_shared_aligned(TILE_ALIGN)) };
    let words: SharedArray<u32> = bulk_copy_words();
    // SAFETY: every thread, once; words 0 and 1 of three; launched as this kernel.
    let claim = unsafe { load_tile::<E>(tile_words, words, input, n, state, jitter) };
    let start = claim.tile as usize * TILE as usize;
    // SAFETY: the tile has landed.
    let (before_lane, carry) = unsafe { scan_rows_of(tile_words, unit::<E>) };
    let warp_total = if lane_idx() == WARP_SIZE - 1 { carry } else { E::ZERO };
    // SAFETY: every thread of the block, once.
    let (before_warp, aggregate) = unsafe { block_exclusive_scan(warp_total) };
    // SAFETY: every thread, once; word 2 of three; the state as the caller promises.
    let before_tile = unsafe { tile_prefix::<E, WarpWindow>(state, claim, aggregate, jitter, words, 2) };
    // SAFETY: the tile as above; the output's tile is this block's.
    unsafe { store_rows(tile_words, output, n, start, before_tile.add(before_warp), &before_lane, exclusive) };
}

scan_entry_points!(threads = THREADS;
    bulk_copy(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s11_bulk_copy_i32, s11_bulk_copy_f32);
