//! Step a05 — the tiles by TMA from a producer warpgroup, through `mbarrier` stages.
//!
//! Idea: in a04 every thread copied, and the block met at a barrier per key tile, so each
//!       warpgroup waited for the slowest. Here one thread of a third, producer warpgroup
//!       hands whole tiles to the copy engine (TMA); each stage has a "full" and an "empty"
//!       `mbarrier`; consumers wait only for their tile, and release it when read.
//! Changes from a04: a producer warpgroup (`setmaxnreg`: it keeps 40 registers, the consumers
//!       take 232); Q, K and V by 4-dimensional tensor maps; no block barrier in the loop.
//! Bottleneck: (expected) as in a04 each warpgroup's tensor cores wait during its softmax;
//!       the warpgroups now drift apart, so one's softmax may run under the other's products.
//! Cost: 384 threads of 168 registers (the producer's given to the consumers): one block per
//!       SM at either head dim; a04's shared memory; 10 barriers (Q's "empty" serves a07).
//! Requires: an sm_90a device and PTX; head dim 64 or 128; strides multiples of 8 elements.
//! Result: 592 TFLOP/s at head dim 128, seq 4k, bf16, 90 % of cuDNN, H100, 2026-11-25.
//!
//! More: docs/lessons.md#a05
//!
//! # The pipeline
//!
//! The producer's thread waits for stage `j % STAGES` to be empty (its previous tile released
//! by all 8 consumer warps), tells its "full" barrier how many bytes to expect, and issues the
//! tile's boxes (64 columns × 128 rows each, 128-byte swizzled: the panels of
//! [`super::hopper`]); the copy engine counts the bytes in as they land. A consumer warpgroup
//! waits for the phase of the stage's "full" barrier, reads, and each of its warps' lane 0
//! arrives on the stage's "empty" one. K and V have barriers of their own, so the scores
//! start when K has landed. Rows past a head's sequence are filled with zeros by the copy
//! engine (the tensor maps are [column, row, head, batch]).

use super::fragments::{ONE_CHAIN, RowStats};
use super::hopper::{self, KEYS, LaneRows, Output, PV_PANEL, Panels, Scores, WARPGROUP, WARPGROUP_ROWS, Wgmma};
use super::{Bf16, F16};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared_aligned};
use crate::device::sync::sync_threads;
use crate::device::tma::{
    copy_tensor_4d, fence_barrier_init, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait,
    prefetch_tensor_map,
};
use crate::device::wgmma::{self, claim_registers, release_registers};
use crate::static_shared;
use common::attention::Dims;
use common::attention::a05::{
    ALIGN_SLACK, BLOCK_K, BLOCK_Q, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, PRODUCER_REGISTERS, STAGES, THREADS,
};
use core::num::NonZeroU32;
use kernel_macros::kernel;

/// log2(e): exp(x) = 2^(x·log2 e).
const LOG2_E: f32 = core::f32::consts::LOG2_E;

const _: () = assert!(BLOCK_K == KEYS && WARPGROUP_ROWS * CONSUMER_WARPGROUPS == BLOCK_Q);

/// The thread that issues every copy: the producer warpgroup's first.
pub(super) const PRODUCER_THREAD: u32 = CONSUMER_WARPGROUPS * WARPGROUP;

/// Consumer warps: each one's lane 0 releases a stage.
pub(super) const CONSUMER_WARPS: u32 = CONSUMER_WARPGROUPS * WARPGROUP / WARP_SIZE;

/// Bytes of one tensor map in the array the host passes (Q's, K's, V's, then O's, which a08
/// stores through).
pub(super) const MAP_BYTES: usize = 128;

/// The rows of a TMA box: a whole tile of Q or of K and V.
const BOX_ROWS: u32 = 128;
const _: () = assert!(BLOCK_Q == BOX_ROWS && BLOCK_K == BOX_ROWS);

/// The barriers, by index into [`barriers`].
pub(super) const Q_FULL: u32 = 0;
pub(super) const K_FULL: u32 = 1;
pub(super) const V_FULL: u32 = K_FULL + STAGES;
pub(super) const K_EMPTY: u32 = V_FULL + STAGES;
pub(super) const V_EMPTY: u32 = K_EMPTY + STAGES;
/// Q's "empty": for a block that loads more than one Q tile (a07), released once every
/// consumer warp has read Q for the last time.
pub(super) const Q_EMPTY: u32 = V_EMPTY + STAGES;
const BARRIERS: u32 = Q_EMPTY + 1;

static_shared! {
    /// The pipeline's `mbarrier`s: Q's "full", K's and V's "full" and "empty" per stage, Q's
    /// "empty".
    fn barriers() -> [u64; BARRIERS as usize];
}

/// The shared address of barrier `index`.
#[inline(always)]
pub(super) fn barrier(index: u32) -> u32 {
    let all: SharedArray<u64> = barriers();
    all.address(index)
}

/// Thread 0 initializes every barrier; then the whole block meets, so that none is used
/// before it exists. Every thread of the block calls it, once, first.
#[inline(always)]
pub(super) fn init_barriers(tid: u32) {
    if tid == 0 {
        for stage in 0..STAGES {
            // SAFETY: this thread alone, before the block barrier below.
            unsafe {
                mbarrier_init(barrier(K_FULL + stage), 1);
                mbarrier_init(barrier(V_FULL + stage), 1);
                mbarrier_init(barrier(K_EMPTY + stage), CONSUMER_WARPS);
                mbarrier_init(barrier(V_EMPTY + stage), CONSUMER_WARPS);
            }
        }
        // SAFETY: as above.
        unsafe {
            mbarrier_init(barrier(Q_FULL), 1);
            mbarrier_init(barrier(Q_EMPTY), CONSUMER_WARPS);
        }
        fence_barrier_init();
    }
    sync_threads();
}

/// A consumer warp's release of a tile: its lane 0 arrives on barrier `empty` (whose phases
/// count the consumer warps), once the warp's reads of the tile have finished.
#[inline(always)]
pub(super) fn release(empty: u32, lane_id: u32) {
    if lane_id == 0 {
        // SAFETY: an initialized barrier whose phase counts the consumer warps.
        unsafe { mbarrier_arrive(empty) };
    }
}

/// Stage and phase parity of key tile `j` of the block's stream of key tiles: its stage's
/// `j / STAGES`th use.
#[inline(always)]
pub(super) fn stage_of(j: u32) -> (u32, u32) {
    (j % STAGES, (j / STAGES) % 2)
}

/// The block's tiles: Q's, then `STAGES` × (K's, V's), from a 1024-byte aligned base.
#[derive(Clone, Copy)]
pub(super) struct SharedTiles<const PANELS: usize> {
    base: u32,
}

impl<const PANELS: usize> SharedTiles<PANELS> {
    #[inline(always)]
    pub(super) fn new() -> Self {
        Self { base: dynamic_shared_aligned(ALIGN_SLACK) }
    }

    #[inline(always)]
    pub(super) fn q(self) -> Panels<BLOCK_Q, PANELS> {
        Panels { base: self.base }
    }

    #[inline(always)]
    pub(super) fn k(self, stage: u32) -> Panels<KEYS, PANELS> {
        let kv = 2 * Panels::<KEYS, PANELS>::BYTES;
        Panels { base: self.base + Panels::<BLOCK_Q, PANELS>::BYTES + stage * kv }
    }

    #[inline(always)]
    pub(super) fn v(self, stage: u32) -> Panels<KEYS, PANELS> {
        Panels { base: self.k(stage).base + Panels::<KEYS, PANELS>::BYTES }
    }

    /// The first byte past the last stage (1024-byte aligned): where a step that needs more
    /// shared memory (a08's staging of O) puts it.
    #[inline(always)]
    pub(super) fn end(self) -> u32 {
        self.v(STAGES - 1).base + Panels::<KEYS, PANELS>::BYTES
    }
}

/// Where the block's tiles come from: the three tensor maps, and the coordinates (head,
/// batch) of its Q head and its K/V head.
#[derive(Clone, Copy)]
pub(super) struct Sources {
    pub(super) maps: *const u8,
    /// (head, batch) of the block's query head and of its key/value head.
    pub(super) q_head: [u32; 2],
    pub(super) kv_head: [u32; 2],
}

/// Brings the three tensor maps at `maps` (the host's) into the constant cache ahead of the
/// first copy.
#[inline(always)]
pub(super) fn prefetch_maps(maps: *const u8) {
    for map in 0..3 {
        // SAFETY: a hint; the host's tensor maps.
        unsafe { prefetch_tensor_map(maps.wrapping_add(map * MAP_BYTES)) };
    }
}

/// Issues the copies of rows `row0..row0 + 128` of one head through tensor map `map` into
/// `tile`, a box per panel, all completing on barrier `full`, which is told their bytes first.
///
/// # Safety
/// One thread; `map` is a tensor map of 16-bit [column, row, head, batch] with 64 × 128 boxes;
/// `tile` is free (its stage released) and 1024-byte aligned; `full` is initialized and its
/// phase expects this arrival.
#[inline(always)]
unsafe fn copy_tile<const ROWS: u32, const PANELS: usize>(
    tile: Panels<ROWS, PANELS>,
    map: *const u8,
    row0: u32,
    [head, batch]: [u32; 2],
    full: u32,
) {
    // SAFETY: the caller's barrier and tile.
    unsafe {
        mbarrier_arrive_expect_tx(full, Panels::<ROWS, PANELS>::BYTES);
        for panel in 0..PANELS as u32 {
            copy_tensor_4d(tile.panel(panel), map, [panel * hopper::PANEL_COLUMNS, row0, head, batch], full);
        }
    }
}

impl Sources {
    #[inline(always)]
    fn map(self, index: usize) -> *const u8 {
        self.maps.wrapping_add(index * MAP_BYTES)
    }

    /// Issues the copy of Q's tile, rows `q0..q0 + BLOCK_Q` of the block's query head,
    /// completing on `Q_FULL`.
    ///
    /// # Safety
    /// The producer thread; Q's tile free (never loaded, or released on `Q_EMPTY`); the
    /// barriers initialized.
    #[inline(always)]
    pub(super) unsafe fn load_q<const PANELS: usize>(self, tiles: SharedTiles<PANELS>, q0: u32) {
        // SAFETY: the caller's tile and barrier.
        unsafe { copy_tile(tiles.q(), self.map(0), q0, self.q_head, barrier(Q_FULL)) };
    }

    /// Issues the copies of `count` key tiles' K and V (keys from 0), the block's key tiles
    /// `first..first + count` through the stages: each into its stage once the consumers have
    /// released the tile `STAGES` before it there.
    ///
    /// # Safety
    /// The producer thread; the barriers initialized; `first` counts every key tile the block
    /// has issued before.
    #[inline(always)]
    pub(super) unsafe fn load_keys<const PANELS: usize>(self, tiles: SharedTiles<PANELS>, first: u32, count: u32) {
        // SAFETY: the barriers' phases are met in this order by the consumers' waits and
        // releases.
        unsafe {
            for j in 0..count {
                let (stage, parity) = stage_of(first + j);
                if first + j >= STAGES {
                    // The tile STAGES before, this stage's previous use, released by every warp.
                    mbarrier_wait(barrier(K_EMPTY + stage), parity ^ 1);
                }
                copy_tile(tiles.k(stage), self.map(1), j * BLOCK_K, self.kv_head, barrier(K_FULL + stage));
                if first + j >= STAGES {
                    mbarrier_wait(barrier(V_EMPTY + stage), parity ^ 1);
                }
                copy_tile(tiles.v(stage), self.map(2), j * BLOCK_K, self.kv_head, barrier(V_FULL + stage));
            }
        }
    }
}

/// The producer's thread: Q's tile, then every key tile's K and V.
///
/// # Safety
/// The producer thread alone; the barriers initialized; `sources` the block's.
#[inline(always)]
pub(super) unsafe fn produce<const PANELS: usize>(tiles: SharedTiles<PANELS>, sources: Sources, q0: u32, key_tiles: u32) {
    prefetch_maps(sources.maps);
    // SAFETY: the caller's contract; Q's tile and the stages are free at the start.
    unsafe {
        sources.load_q(tiles, q0);
        sources.load_keys(tiles, 0, key_tiles);
    }
}

/// The forward pass for one block of `BLOCK_Q` query rows of one (batch, query head), head
/// dim `64·PANELS`, 16-bit type `T`.
///
/// # Safety
/// `dims` points to the problem, whose head dim is `64·PANELS` and whose head counts are not
/// zero; `maps` to three tensor maps (Q, K, V, 128 bytes apart) of its tensors as 16-bit
/// [column, row, head, batch] with 64 × 128 × 1 × 1 boxes and the 128-byte swizzle; `o`
/// holds O and `lse` batch · heads_q · seq_q f32. Launched with `THREADS` threads, a grid of
/// ⌈seq_q / BLOCK_Q⌉ × batch · heads_q blocks and `a05::shared_bytes``(64·PANELS)` bytes of
/// dynamic shared memory, on an sm_90a device.
#[inline(always)]
unsafe fn flash_tma<T: Wgmma, const PANELS: usize>(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims) {
    const { assert!(PANELS == 1 || PANELS == 2, "head dim 64 or 128") };
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    let tid = thread_idx();
    let warpgroup = tid / WARPGROUP;
    let q0 = block_idx() * BLOCK_Q;
    let pair = block_idx_y();
    // SAFETY: the caller's head counts are not zero.
    let (heads_q, group) = unsafe { (NonZeroU32::new_unchecked(d.heads_q), NonZeroU32::new_unchecked(d.group)) };
    let (b, h) = (pair / heads_q, pair % heads_q);
    let tiles = SharedTiles::<PANELS>::new();
    let last_row = (q0 + BLOCK_Q).min(d.seq_q) - 1;
    let key_tiles = d.visible_keys(last_row).div_ceil(BLOCK_K);

    init_barriers(tid);
    if warpgroup == CONSUMER_WARPGROUPS {
        release_registers::<PRODUCER_REGISTERS>();
        if tid == PRODUCER_THREAD {
            let sources = Sources { maps, q_head: [h, b], kv_head: [h / group, b] };
            // SAFETY: the producer thread; barriers initialized above.
            unsafe { produce(tiles, sources, q0, key_tiles) };
        }
        return;
    }
    claim_registers::<CONSUMER_REGISTERS>();
    let lane_id = tid % WARP_SIZE;
    let group_row0 = q0 + warpgroup * WARPGROUP_ROWS;
    let lane = LaneRows::new(&d, group_row0, tid % WARPGROUP);
    // The keys the warpgroup's last row sees: past them it only passes the tiles on.
    let group_keys =
        if group_row0 < d.seq_q { d.visible_keys((group_row0 + WARPGROUP_ROWS).min(d.seq_q) - 1) } else { 0 };
    let scale_log2 = d.scale * LOG2_E;

    let mut stats = RowStats::EMPTY;
    let mut s: Scores = [[0.0; 4]; 16];
    let mut out: Output<PANELS> = [[[0.0; 4]; 8]; PANELS];
    // SAFETY: an initialized barrier; its one phase is Q's tile.
    unsafe { mbarrier_wait(barrier(Q_FULL), 0) };
    for j in 0..key_tiles {
        let (stage, parity) = stage_of(j);
        let k0 = j * BLOCK_K;
        // SAFETY: initialized barriers, waited for in the producer's order.
        unsafe { mbarrier_wait(barrier(K_FULL + stage), parity) };
        if k0 < group_keys {
            // SAFETY: the whole warpgroup; Q's and the stage's K tile landed; waited for at once.
            unsafe { hopper::issue_scores::<T, BLOCK_Q, PANELS>(&mut s, tiles.q(), warpgroup * WARPGROUP_ROWS, tiles.k(stage)) };
            wgmma::wait_group::<0>();
        }
        release(barrier(K_EMPTY + stage), lane_id);
        // SAFETY: as above.
        unsafe { mbarrier_wait(barrier(V_FULL + stage), parity) };
        if k0 < group_keys {
            let alpha = hopper::softmax::<ONE_CHAIN>(&mut s, &mut stats, &lane, k0, scale_log2);
            hopper::rescale(&mut out, alpha);
            let p = hopper::pack_probabilities::<T>(&s);
            // SAFETY: the whole warpgroup; the stage's V tile landed; waited for at once.
            unsafe { hopper::issue_output::<T, PANELS, PV_PANEL>(&mut out, &p, tiles.v(stage)) };
            wgmma::wait_group::<0>();
        }
        release(barrier(V_EMPTY + stage), lane_id);
    }

    let o_rows = o.wrapping_add(d.o.row_offset(b, h, 0) as usize);
    let lse_rows = lse.wrapping_add(pair as usize * d.seq_q as usize);
    // SAFETY: the whole warp; this head's O and log-sum-exps.
    unsafe { hopper::store_output::<T, PANELS>(&out, &stats, &lane, &d, o_rows, lse_rows) };
}

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As [`flash_tma`].
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims) {
            // SAFETY: forwarded.
            unsafe { flash_tma::<$ty, $panels>(maps, o, lse, dims) }
        }
    };
}

entry!(a05_tma_producer_f16_d64, F16, 1, "a05 on f16, head dim 64.");
entry!(a05_tma_producer_bf16_d64, Bf16, 1, "a05 on bf16, head dim 64.");
entry!(a05_tma_producer_f16_d128, F16, 2, "a05 on f16, head dim 128.");
entry!(a05_tma_producer_bf16_d128, Bf16, 2, "a05 on bf16, head dim 128.");
