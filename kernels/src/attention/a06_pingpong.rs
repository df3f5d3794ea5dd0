//! Step a06 — the consumers take turns, and each tile's softmax runs under the last tile's P·V.
//!
//! Idea: two schedules of "FlashAttention-3". Ping-pong: the two consumer warpgroups issue
//!       their products in turns (two named barriers), so that one's softmax runs while the
//!       other's products keep the tensor cores busy. Inside a warpgroup: it issues tile j's
//!       scores *and* tile j − 1's P·V, then computes tile j's softmax while P·V runs.
//! Changes from a05: the consumer loop only: scores of j and P·V of j − 1 in one turn, the
//!       output rescaled after P·V finishes, P kept packed across iterations.
//! Bottleneck: (expected) the exponentials (MUFU) and the softmax's other instructions
//!       between two products that no longer wait for each other.
//! Cost: a05's; P's 32 packed registers live across the loop.
//! Requires: an sm_90a device and PTX; head dim 64 or 128; strides multiples of 8 elements.
//! Result: 653 TFLOP/s at head dim 128, seq 4k, bf16, 99 % of cuDNN, H100, 2026-11-25.
//!
//! More: docs/lessons.md#a06
//!
//! # The order, per consumer warpgroup
//!
//! Tile 0's scores, then for each later tile j: wait for its turn; issue S_j = Q·K_jᵀ and
//! O += P_{j−1}·V_{j−1}; hand the turn over; wait for S_j (the older group) and release K_j;
//! the softmax of S_j (new maxima, probabilities, the factor alpha_j); wait for P·V and
//! release V_{j−1}; rescale O by alpha_j (O then holds every tile before j at the new
//! maxima) and pack P_j. After the loop, the last P·V. Correct because O is rescaled only
//! once the product that adds to it has finished, and P_{j−1} (registers the in-flight
//! `wgmma` reads) is overwritten only after it.
//!
//! The turns: warpgroup 0 waits at named barrier `TURN`, warpgroup 1 at `TURN + 1`; each
//! arrives at the other's after issuing. Warpgroup 1 arrives at warpgroup 0's once first (so
//! that 0 starts), and 0 waits once more at the end (for 1's last arrival): every use of
//! either barrier then has its 256 threads.

use super::a05_tma_producer::{
    CONSUMER_WARPS, K_EMPTY, K_FULL, PRODUCER_THREAD, Q_EMPTY, Q_FULL, SharedTiles, Sources, V_EMPTY, V_FULL,
    barrier, init_barriers, produce, release, stage_of,
};
use super::fragments::{ONE_CHAIN, RowStats};
use super::hopper::{
    self, KEYS, LaneRows, Output, PV_PANEL, Probabilities, Scores, WARPGROUP, WARPGROUP_ROWS, Wgmma,
};
use super::{Bf16, F16};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::tma::mbarrier_wait;
use crate::device::wgmma::{self, claim_registers, release_registers};
use common::attention::Dims;
use common::attention::a06::{
    BLOCK_K, BLOCK_Q, CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, PRODUCER_REGISTERS, THREADS,
};
use core::num::NonZeroU32;
use kernel_macros::kernel;

/// log2(e): exp(x) = 2^(x·log2 e).
pub(super) const LOG2_E: f32 = core::f32::consts::LOG2_E;

const _: () = assert!(BLOCK_K == KEYS && CONSUMER_WARPGROUPS == 2 && CONSUMER_WARPS == 8);

/// The named barriers of the turns (0 is the block barrier): warpgroup `w` waits at
/// `TURN + w`.
const TURN: u32 = 1;

/// A consumer warpgroup's side of the turns, at named barriers `TURN` and `TURN + 1`.
pub(super) type Turns = crate::device::sync::Turns<TURN>;

/// One consumer warpgroup's loop over `count` key tiles (the order in the module comment),
/// the block's key tiles `first..first + count` through the stages, into `out` and `stats`;
/// with `release_q`, Q's tile is released once the last scores are in.
///
/// # Safety
/// Every thread of a consumer warpgroup calls it, with the producer running, after Q's tile
/// landed; `first` counts the key tiles the block consumed before; both warpgroups run the
/// same tiles between `turns.open()` and `turns.close()`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn attend<T: Wgmma, const PANELS: usize, const CHAINS: usize, const PV_N: usize>(
    tiles: SharedTiles<PANELS>,
    turns: Turns,
    lane: &LaneRows,
    scale_log2: f32,
    first: u32,
    count: u32,
    release_q: bool,
    out: &mut Output<PANELS>,
    stats: &mut RowStats,
) {
    let lane_id = thread_idx() % WARP_SIZE;
    let q_row0 = turns.warpgroup() * WARPGROUP_ROWS;
    let mut s: Scores = [[0.0; 4]; 16];
    let mut p: Probabilities = [[0; 4]; 8];
    // Below, every barrier is met in the producer's order, the whole warpgroup issues each
    // `wgmma`, and a tile is read only after its "full" phase and released only after the
    // `wait_group` that ends its reads.
    for j in 0..count {
        let (stage, parity) = stage_of(first + j);
        turns.wait();
        // SAFETY: as above; the scores are read after the wait below.
        unsafe {
            mbarrier_wait(barrier(K_FULL + stage), parity);
            hopper::issue_scores::<T, BLOCK_Q, PANELS>(&mut s, tiles.q(), q_row0, tiles.k(stage));
        }
        if j > 0 {
            let (previous, previous_parity) = stage_of(first + j - 1);
            // SAFETY: as above; P and O untouched until the wait for this group.
            unsafe {
                mbarrier_wait(barrier(V_FULL + previous), previous_parity);
                hopper::issue_output::<T, PANELS, PV_N>(out, &p, tiles.v(previous));
            }
        }
        turns.hand_over();
        // S_j is the older group: done when at most the P·V is pending (tile 0 has none).
        if j == 0 {
            wgmma::wait_group::<0>();
        } else {
            wgmma::wait_group::<1>();
        }
        release(barrier(K_EMPTY + stage), lane_id);
        if release_q && j + 1 == count {
            release(barrier(Q_EMPTY), lane_id);
        }
        let alpha = hopper::softmax::<CHAINS>(&mut s, stats, lane, j * BLOCK_K, scale_log2);
        wgmma::wait_group::<0>();
        if j > 0 {
            release(barrier(V_EMPTY + stage_of(first + j - 1).0), lane_id);
        }
        hopper::rescale(out, alpha);
        p = hopper::pack_probabilities::<T>(&s);
    }
    if count > 0 {
        let (last, parity) = stage_of(first + count - 1);
        // SAFETY: as above.
        unsafe {
            mbarrier_wait(barrier(V_FULL + last), parity);
            hopper::issue_output::<T, PANELS, PV_N>(out, &p, tiles.v(last));
        }
        wgmma::wait_group::<0>();
        release(barrier(V_EMPTY + last), lane_id);
    }
}

/// One consumer warpgroup's whole work: Q's tile, the key tiles, the epilogue.
///
/// # Safety
/// Every thread of consumer warpgroup `warpgroup` calls it, after the barriers were
/// initialized, with the producer running; `o_rows`, `lse_rows` are this head's.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn consume<T: Wgmma, const PANELS: usize>(
    tiles: SharedTiles<PANELS>,
    d: &Dims,
    warpgroup: u32,
    q0: u32,
    key_tiles: u32,
    o_rows: *mut u16,
    lse_rows: *mut f32,
) {
    let lane = LaneRows::new(d, q0 + warpgroup * WARPGROUP_ROWS, thread_idx() % WARPGROUP);
    let mut stats = RowStats::EMPTY;
    let mut out: Output<PANELS> = [[[0.0; 4]; 8]; PANELS];
    let turns = Turns::new(warpgroup);
    turns.open();
    // SAFETY: an initialized barrier; its one phase is Q's tile; then the contract of
    // `attend`, met by both warpgroups.
    unsafe {
        mbarrier_wait(barrier(Q_FULL), 0);
        attend::<T, PANELS, ONE_CHAIN, PV_PANEL>(tiles, turns, &lane, d.scale * LOG2_E, 0, key_tiles, false, &mut out, &mut stats);
    }
    turns.close();
    // SAFETY: the whole warp; this head's O and log-sum-exps.
    unsafe { hopper::store_output::<T, PANELS>(&out, &stats, &lane, d, o_rows, lse_rows) };
}

/// The forward pass for one block of `BLOCK_Q` query rows of one (batch, query head), head
/// dim `64·PANELS`, 16-bit type `T`.
///
/// # Safety
/// As a05's: `dims` points to the problem (head dim `64·PANELS`, head counts not zero),
/// `maps` to its three tensor maps, `o` and `lse` hold O and the log-sum-exps; launched with
/// `THREADS` threads, ⌈seq_q / BLOCK_Q⌉ × batch · heads_q blocks and
/// `a06::shared_bytes``(64·PANELS)` bytes of dynamic shared memory, on an sm_90a device.
#[inline(always)]
unsafe fn flash_pingpong<T: Wgmma, const PANELS: usize>(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims) {
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
            // SAFETY: the producer thread; barriers initialized.
            unsafe { produce(tiles, sources, q0, key_tiles) };
        }
        return;
    }
    claim_registers::<CONSUMER_REGISTERS>();
    let o_rows = o.wrapping_add(d.o.row_offset(b, h, 0) as usize);
    let lse_rows = lse.wrapping_add(pair as usize * d.seq_q as usize);
    // SAFETY: a consumer warpgroup, whole; barriers initialized; this head's outputs.
    unsafe { consume::<T, PANELS>(tiles, &d, warpgroup, q0, key_tiles, o_rows, lse_rows) };
}

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As [`flash_pingpong`].
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims) {
            // SAFETY: forwarded.
            unsafe { flash_pingpong::<$ty, $panels>(maps, o, lse, dims) }
        }
    };
}

entry!(a06_pingpong_f16_d64, F16, 1, "a06 on f16, head dim 64.");
entry!(a06_pingpong_bf16_d64, Bf16, 1, "a06 on bf16, head dim 64.");
entry!(a06_pingpong_f16_d128, F16, 2, "a06 on f16, head dim 128.");
entry!(a06_pingpong_bf16_d128, Bf16, 2, "a06 on bf16, head dim 128.");
