//! Step s12 — a producer warp publishes each tile's sum as it lands: a persistent ring that pays.
//!
//! Idea: one block per SM keeps a ring of six tiles in flight. A ninth warp claims the tiles,
//!       starts their bulk copies and sums each tile as soon as it lands, publishing its
//!       aggregate; the eight others scan, look back (256 status words a round trip, the first
//!       loads issued before the scan) and store. No aggregate waits for a look-back, so the
//!       blocks never fall into rounds, which is what sank a persistent ring without it.
//! Changes from s11: the grid (a wave), the ring, the producer warp and its sums, the block-wide
//!       window, the consumers' own named barrier; the rows' scan and stores are s11's.
//! Bottleneck: the H100's HBM from 2^27 on. On an H200 (a tile per SM every 2.0 µs to keep up
//!       with a copy) the look-back: the same ring with no look-back at all reaches 94 %.
//! Cost: 6 × 32 KiB of shared memory and a warp per block; the producer reads each tile twice.
//! Result: 2.83 ms at 2^30 i32: 100.2 % of a copy, 123 % of CUB, H100, 2026-11-28; H200: 91.7 %.
//!
//! Claims: a launch over `tiles` tiles on a grid of `g` blocks takes exactly `tiles + g`
//! tickets: every producer claims until it draws one past the last tile, then stops. Ticket
//! `t`'s tile is `t mod (tiles + g)` (none from `tiles` on), its epoch `t / (tiles + g) + 1`,
//! so the state is reused launch after launch as s07's is.
//!
//! Progress: a block's consumers take its tiles in the order its producer claimed them, and a
//! producer publishes a tile's aggregate before it waits for any slot after it. The lowest tile
//! not yet stored has every predecessor's word published, so its consumers finish it.
//!
//! More: docs/lessons.md#s12

use super::s09_warp_lookback::warp_total;
use super::s11_bulk_copy::{ROW_UNITS, scan_rows_of, store_rows, unit};
use super::state::{self, Claim};
use super::Element;
use crate::device::index::{ALL_LANES, WARP_SIZE, grid_dim, lane_idx, thread_idx, warp_idx};
use crate::device::load::prefetch_l2;
use crate::device::shared::{SharedArray, dynamic_shared_aligned};
use crate::device::sync::{sync_named, sync_threads};
use crate::device::tma::{
    copy_bulk, fence_barrier_init, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait,
};
use crate::device::warp::{ballot, shuffle_idx_u32};
use crate::scan_entry_points;
use crate::static_shared;
use common::scan::s12::{AHEAD, CONSUMERS, RING_ALIGN, STAGES, THREADS, TILE, WINDOW};
use common::scan::status::{self, AGGREGATE, PREFIX};

/// The consumers' warps; the producer is the warp after them.
const WARPS: u32 = CONSUMERS / WARP_SIZE;
const PRODUCER_WARP: u32 = WARPS;
/// The consumers' named barrier (the producer warp is not in it).
const CONSUMER_BARRIER: u32 = 1;
/// A slot's tile word when its claim drew a ticket past the last tile.
const NO_TILE: u32 = u32::MAX;
/// 16-byte units of a tile (the producer's lanes sum one in 32 each).
const UNITS: u32 = TILE / 4;
/// L2 lines (128 bytes) of a tile (the producer's lanes prefetch one in 32 each).
const LINES: u32 = TILE / 32;

static_shared! {
    /// Each slot's claim (tile, epoch).
    fn ring_claims() -> [u32; 2 * STAGES as usize];
}

static_shared! {
    /// The look-back's per-warp findings (nearest prefix, unwritten lanes), then the warps'
    /// sums; the warps' totals of the tile's scan.
    fn ring_scratch() -> [u32; 4 * WARPS as usize];
}

/// The consumers' barrier: `bar.sync 1, 256`.
#[inline(always)]
fn sync_consumers() {
    sync_named(CONSUMER_BARRIER, CONSUMERS);
}

/// The block's ring in dynamic shared memory, from its first 128-byte line: `STAGES` slots of
/// a tile, then each slot's "full" and "empty" mbarriers.
#[derive(Clone, Copy)]
struct Ring {
    tiles: SharedArray<u32>,
}

impl Ring {
    #[inline(always)]
    fn slot(self, s: u32) -> SharedArray<u32> {
        // SAFETY: slot s < STAGES lies inside the dynamic shared memory, 16-byte aligned.
        unsafe { SharedArray::from_address(self.tiles.address(s * TILE)) }
    }

    /// Completed by the tile's copy (or the producer's arrival after it copied a partial
    /// tile, or claimed none).
    #[inline(always)]
    fn full(self, s: u32) -> u32 {
        self.tiles.address(STAGES * TILE) + 8 * s
    }

    /// Completed when the consumers have stored the slot's tile: an arrival per consumer.
    #[inline(always)]
    fn empty(self, s: u32) -> u32 {
        self.full(STAGES) + 8 * s
    }
}

/// The producer warp: claims tiles into the ring as slots free, starts each copy (the last,
/// partial tile it copies itself, zeros after `n`), asks L2 for the tile `AHEAD` on, and sums
/// the tile claimed before while this one's copy flies, publishing its aggregate (tile 0's as
/// its inclusive prefix).
///
/// # Safety
/// The whole producer warp, once, after the barriers were initialized; `input` holds `n`
/// elements in `tiles` tiles, 16-byte aligned; the state as s07's, sized for `tiles`.
#[inline(always)]
unsafe fn produce<E: Element>(ring: Ring, input: *const u32, n: usize, tiles: u32, state: *mut u64, jitter: u32) {
    let claims: SharedArray<u32> = ring_claims();
    let lane = lane_idx();
    let per_launch = u64::from(tiles) + u64::from(grid_dim());
    let tile_len = TILE as usize;
    let mut i = 0u32;
    loop {
        let s = i % STAGES;
        if i >= STAGES {
            // SAFETY: the slot's "empty" barrier; its (i / STAGES - 1)-th phase is the consumers'
            // release of the tile claimed STAGES claims ago.
            unsafe { mbarrier_wait(ring.empty(s), (i / STAGES - 1) & 1) };
        }
        let mut claim = Claim { tile: 0, epoch: 0 };
        if lane == 0 {
            // SAFETY: one thread; the state as the caller promises.
            claim = unsafe { state::claim_of(state, per_launch, jitter) };
        }
        let tile = shuffle_idx_u32(ALL_LANES, claim.tile, 0);
        let epoch = shuffle_idx_u32(ALL_LANES, claim.epoch, 0);
        let start = tile as usize * tile_len;
        if tile < tiles && start + tile_len > n {
            // The last, partial tile: the warp copies it, zeros after n.
            let mut k = lane;
            while k < TILE {
                let at = start + k as usize;
                // SAFETY: at < n; k < TILE, inside the free slot.
                unsafe { ring.slot(s).store(k, if at < n { *input.add(at) } else { E::ZERO.to_bits() }) };
                k += WARP_SIZE;
            }
        }
        if lane == 0 {
            // SAFETY: the slot is free (its "empty" phase passed); its claim words are read by
            // the consumers only after this phase of its "full" barrier.
            unsafe {
                claims.store(2 * s, if tile < tiles { tile } else { NO_TILE });
                claims.store(2 * s + 1, epoch);
                if tile < tiles && start + tile_len <= n {
                    mbarrier_arrive_expect_tx(ring.full(s), TILE * 4);
                    copy_bulk(ring.slot(s).address(0), input.add(start) as *const u8, TILE * 4, ring.full(s));
                }
            }
        }
        if !(tile < tiles && start + tile_len <= n) {
            // The warp's stores (a partial tile), then the arrival that releases them.
            crate::device::sync::sync_warp(ALL_LANES);
            if lane == 0 {
                // SAFETY: the slot's initialized barrier: its phase completes with no copy.
                unsafe { mbarrier_arrive(ring.full(s)) };
            }
        }
        if tile < tiles {
            let ahead = start + AHEAD as usize * tile_len;
            let mut line = lane;
            while line < LINES {
                let at = ahead + 32 * line as usize;
                if at < n {
                    // SAFETY: at < n.
                    unsafe { prefetch_l2(input.add(at)) };
                }
                line += WARP_SIZE;
            }
        }
        if i > 0 {
            // The tile claimed before this one: its copy has had this claim's time to land.
            let p = (i - 1) % STAGES;
            // SAFETY: its "full" barrier's ((i - 1) / STAGES)-th phase; the slot holds its
            // tile until the consumers release it, after this warp published below.
            unsafe { mbarrier_wait(ring.full(p), ((i - 1) / STAGES) & 1) };
            let slot = ring.slot(p);
            let mut sum = E::ZERO;
            let mut u = lane;
            while u < UNITS {
                // SAFETY: a unit of the landed tile.
                let x = unit::<E>(unsafe { slot.load_v4(4 * u) });
                sum = sum.add(x[0].add(x[1]).add(x[2]).add(x[3]));
                u += WARP_SIZE;
            }
            let sum = warp_total(sum);
            if lane == 0 {
                // SAFETY: the slot's claim, written by this lane; the state as promised.
                unsafe {
                    let before = Claim { tile: claims.load(2 * p), epoch: claims.load(2 * p + 1) };
                    let kind = if before.tile == 0 { PREFIX } else { AGGREGATE };
                    state::publish(state, before, kind, sum.to_bits());
                }
            }
        }
        if tile >= tiles {
            break;
        }
        i += 1;
    }
}

/// This consumer's status word in the window that ends before tile `end`: tile
/// `end − 1 − thread`, or a zero prefix before tile 0.
///
/// # Safety
/// The state as s07's; `end` ≤ the claim's tile.
#[inline(always)]
unsafe fn window_word(state: *mut u64, claim: Claim, end: i64) -> u64 {
    let tile = end - 1 - i64::from(thread_idx());
    if tile >= 0 {
        // SAFETY: 0 ≤ tile < claim.tile, a tile of this launch.
        unsafe { state::read(state, tile as u32) }
    } else {
        status::word(claim.epoch, PREFIX, 0)
    }
}

/// The sum of every tile before `claim.tile` (> 0), to every consumer: the 256 consumers read
/// the 256 words before the window's end at once (`first`, this thread's word of the first
/// window, was read before the tile's scan), the nearest inclusive prefix closes the sum; a
/// window that saw no prefix moves back by 256, one in which a word that counts is unwritten
/// is read again.
///
/// # Safety
/// Every consumer, once per tile; the state as s07's.
#[inline(always)]
unsafe fn look_back<E: Element>(state: *mut u64, claim: Claim, first: u64) -> E {
    let scratch: SharedArray<u32> = ring_scratch();
    let (lane, warp) = (lane_idx(), warp_idx());
    let mut before = E::ZERO;
    let mut end = i64::from(claim.tile);
    let mut word = first;
    loop {
        let kind = status::kind(word, claim.epoch);
        let prefixes = ballot(ALL_LANES, kind == PREFIX);
        let unwritten = ballot(ALL_LANES, kind == 0);
        if lane == 0 {
            let nearest = if prefixes != 0 { warp * WARP_SIZE + prefixes.trailing_zeros() } else { WINDOW };
            // SAFETY: words warp and WARPS + warp of the scratch, this warp's.
            unsafe { (scratch.store(warp, nearest), scratch.store(WARPS + warp, unwritten)) };
        }
        sync_consumers();
        let mut nearest = WINDOW;
        let mut again = false;
        for k in 0..WARPS {
            // SAFETY: written before the barrier.
            nearest = nearest.min(unsafe { scratch.load(k) });
        }
        for k in 0..WARPS {
            let first_lane = k * WARP_SIZE;
            let counted = if nearest >= first_lane + WARP_SIZE - 1 {
                ALL_LANES
            } else if nearest < first_lane {
                0
            } else {
                (2u32 << (nearest - first_lane)) - 1
            };
            // SAFETY: as above.
            again |= unsafe { scratch.load(WARPS + k) } & counted != 0;
        }
        sync_consumers();
        if !again {
            let mine = if thread_idx() <= nearest { E::from_bits(status::value(word)) } else { E::ZERO };
            let total = warp_total(mine);
            if lane == 0 {
                // SAFETY: word 2·WARPS + warp, this warp's.
                unsafe { scratch.store(2 * WARPS + warp, total.to_bits()) };
            }
            sync_consumers();
            for k in 0..WARPS {
                // SAFETY: written before the barrier.
                before = before.add(E::from_bits(unsafe { scratch.load(2 * WARPS + k) }));
            }
            sync_consumers();
            if nearest < WINDOW {
                return before;
            }
            end -= i64::from(WINDOW);
        }
        // SAFETY: the state as promised; end ≤ the claim's tile.
        word = unsafe { window_word(state, claim, end) };
    }
}

/// The consumers: per slot in turn, wait for the tile, issue the look-back's first loads, scan
/// the rows (s11's), add up the warps' totals, look back, publish the tile's inclusive prefix,
/// store, and free the slot.
///
/// # Safety
/// Every consumer, once, after the barriers were initialized, with the producer running;
/// `output` holds `n` elements, 16-byte aligned; the state as s07's.
#[inline(always)]
unsafe fn consume<E: Element>(ring: Ring, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    let claims: SharedArray<u32> = ring_claims();
    let scratch: SharedArray<u32> = ring_scratch();
    let totals = 3 * WARPS;
    let mut i = 0u32;
    loop {
        let s = i % STAGES;
        // SAFETY: the slot's "full" barrier, its (i / STAGES)-th phase; the producer wrote the
        // claim before that phase's arrival.
        let tile = unsafe {
            mbarrier_wait(ring.full(s), (i / STAGES) & 1);
            claims.load(2 * s)
        };
        if tile == NO_TILE {
            break;
        }
        // SAFETY: as above.
        let claim = Claim { tile, epoch: unsafe { claims.load(2 * s + 1) } };
        // The window's first words, in flight under the scan.
        // SAFETY: the state as promised.
        let first = if tile != 0 { unsafe { window_word(state, claim, i64::from(tile)) } } else { 0 };
        let slot = ring.slot(s);
        // SAFETY: the tile has landed in the slot.
        let (before_lane, carry) = unsafe { scan_rows_of(slot, unit::<E>) };
        if lane_idx() == WARP_SIZE - 1 {
            // SAFETY: the warp's word of the totals.
            unsafe { scratch.store(totals + warp_idx(), carry.to_bits()) };
        }
        sync_consumers();
        let (mut before_warp, mut aggregate) = (E::ZERO, E::ZERO);
        for k in 0..WARPS {
            // SAFETY: written before the barrier.
            let total = E::from_bits(unsafe { scratch.load(totals + k) });
            if k < warp_idx() {
                before_warp = before_warp.add(total);
            }
            aggregate = aggregate.add(total);
        }
        let before_tile = if tile == 0 {
            E::ZERO
        } else {
            state::pause(jitter, 1);
            // SAFETY: every consumer, once for this tile.
            unsafe { look_back::<E>(state, claim, first) }
        };
        if thread_idx() == 0 && tile != 0 {
            // SAFETY: the state as promised.
            unsafe { state::publish(state, claim, PREFIX, before_tile.add(aggregate).to_bits()) };
        }
        let start = tile as usize * TILE as usize;
        // SAFETY: the slot as above; the output's tile is this block's.
        unsafe { store_rows(slot, output, n, start, before_tile.add(before_warp), &before_lane, exclusive) };
        // Every consumer has read the totals before any writes them again; each frees the slot
        // (and its claim words) itself once done with it, so the release orders its own reads.
        sync_consumers();
        // SAFETY: the slot's initialized "empty" barrier, which counts every consumer.
        unsafe { mbarrier_arrive(ring.empty(s)) };
        i += 1;
    }
}

/// One pass of the scan over `input[0..n]` into `output` by a wave of resident blocks, each a
/// ring of `STAGES` tiles, a producer warp and eight consumer warps.
///
/// # Safety
/// Launched with `THREADS` threads per block, `SHARED_BYTES` of dynamic shared memory and any
/// number of blocks from one (a wave is the fast one); `input` and `output` are 16-byte
/// aligned and hold `n` elements (they may be the same buffer); `state` holds
/// `state_words(tiles)` words for `tiles = max(1, ⌈n / TILE⌉)`, zeroed before its first launch,
/// and every launch on it has this grid.
unsafe fn producer_ring<E: Element>(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32) {
    // SAFETY: SHARED_BYTES holds RING_ALIGN bytes of slack past the ring and its barriers.
    let ring = Ring { tiles: unsafe { SharedArray::from_address(dynamic_shared_aligned(RING_ALIGN)) } };
    let tiles = n.div_ceil(TILE as usize).max(1) as u32;
    if thread_idx() == 0 {
        for s in 0..STAGES {
            // SAFETY: thread 0 alone, once per barrier, before any use.
            unsafe { (mbarrier_init(ring.full(s), 1), mbarrier_init(ring.empty(s), CONSUMERS)) };
        }
        fence_barrier_init();
    }
    sync_threads();
    if warp_idx() == PRODUCER_WARP {
        // SAFETY: the whole producer warp, once; barriers initialized.
        unsafe { produce::<E>(ring, input, n, tiles, state, jitter) };
    } else {
        // SAFETY: every consumer, once; barriers initialized.
        unsafe { consume::<E>(ring, output, n, state, exclusive, jitter) };
    }
}

const _: () = assert!(ROW_UNITS * 8 * WARPS == UNITS && WINDOW == CONSUMERS);

scan_entry_points!(threads = THREADS;
    producer_ring(input: *const u32, output: *mut u32, n: usize, state: *mut u64, exclusive: u32, jitter: u32)
    => s12_producer_ring_i32, s12_producer_ring_f32);
