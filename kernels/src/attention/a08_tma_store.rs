//! Step a08 — O leaves through shared memory and the copy engine: the consumers go on.
//!
//! Idea: a07 ends each work tile with 16 or 32 4-byte stores of O per thread, waited on: 8–9 %
//!       of the consumers' samples at 1k keys. Here a warpgroup writes its 64 rows of O into a
//!       swizzled staging box in shared memory, and one thread hands the box to the copy engine
//!       (a `cp.async.bulk.tensor` store), which writes whole lines and clips the rows past the
//!       sequence; the consumers go straight on to the next tile's first scores.
//! Changes from a07: the epilogue ([`StagedStores`] for a07's `DirectStores`); a fourth
//!       tensor map (O's, boxes of 64 rows); a staging box per consumer warpgroup.
//! Bottleneck: a06's (the softmax between the products); per work tile, the pipeline's edges:
//!       the last P·V, which has no next scores to run beside, and the first loads' wait.
//! Cost: 16 KB (head dim 64) or 32 KB (128) more shared memory: 97 KB and 193 KB per block;
//!       two named barriers and a warp barrier per tile and warpgroup; `stmatrix`: sm_90.
//! Requires: an sm_90a device and PTX; head dim 64 or 128; strides multiples of 8 elements.
//! Result: 487 TFLOP/s, d128 causal, seq 1k, bf16: 113 % of cuDNN (a07 103 %), H200, 2026-11-29.
//!
//! More: docs/lessons.md#a08
//!
//! # The staging box
//!
//! A warpgroup's 64 rows of O are `PANELS` boxes of 64 columns × 64 rows, each row 128 bytes
//! with the 128-byte swizzle of Q's and K's tiles ([`Panels::chunk`]), which O's tensor map
//! names too. A warp writes its 16 rows by `stmatrix` (Hopper's `ldmatrix` the other way
//! round), two n8 tiles at a time: four 8 × 8 matrices, (n, rows 0–7), (n, rows 8–15),
//! (n + 1, rows 0–7), (n + 1, rows 8–15), whose registers are the accumulator's own layout
//! rounded to 16 bits; lane `l` names row `l % 8` of matrix `l / 8`, a 16-byte chunk that the
//! swizzle moves to `chunk XOR (row % 8)`, so the eight rows of a matrix fall in eight
//! different chunks and its 128 bytes in 32 different banks. Four (head dim 64) or eight (128)
//! `stmatrix` per thread and tile, where 4-byte stores took 16 or 32.
//!
//! Per tile: the storer (the warpgroup's first thread) waits until the copy engine has read
//! the box it was handed at the last tile (`cp.async.bulk.wait_group.read 0`, long done by
//! then), the warpgroup meets, writes, fences its writes for the async proxy, meets again, and
//! the storer issues the box's copies in one bulk group; each warp then meets once more
//! (`bar.warp.sync`), so that ptxas knows the loop over tiles converged. The log-sum-exps
//! are a07's stores.

use super::a05_tma_producer::{MAP_BYTES, SharedTiles};
use super::a07_persistent::{Finished, TileOutput, flash_persistent};
use super::fragments;
use super::hopper::{self, HALF_ROWS, PANEL_COLUMNS, PANEL_N8, Panels, WARP_ROWS, WARPGROUP, Wgmma};
use super::{Bf16, F16};
use crate::device::hint::computed_here;
use crate::device::index::{ALL_LANES, WARP_SIZE, thread_idx};
use crate::device::sync::{sync_named, sync_warp};
use crate::device::tma::{bulk_commit_group_if, bulk_wait_group_read_if, store_tensor_4d_if};
use crate::device::wgmma::{fence_proxy_async_shared, stmatrix_x4};
use crate::unroll;
use common::attention::Dims;
use common::attention::a08::{O_BOX_ROWS, THREADS};
use kernel_macros::kernel;

/// O's tensor map's index in the array the host passes (after Q's, K's and V's).
const O_MAP: usize = 3;

/// The named barrier of consumer warpgroup `w`'s staging is `STAGING_BARRIER + w` (0 is the
/// block's, 1 and 2 the turns').
const STAGING_BARRIER: u32 = 3;

/// One consumer thread's side of a08's epilogue (the module comment's). It holds only the
/// maps and its warpgroup: the staging box's addresses are computed at the tile's end. (Computed
/// before the loop over tiles, as LLVM first did, they took 32 registers across every key
/// loop, and ptxas moved the loop's `wgmma` descriptors out of the uniform datapath: 113
/// `R2UR` in the kernel against a07's 53, and 8 bytes spilled.)
#[derive(Clone, Copy)]
pub(super) struct StagedStores {
    maps: *const u8,
    warpgroup: u32,
}

impl TileOutput for StagedStores {
    #[inline(always)]
    fn new(maps: *const u8, warpgroup: u32) -> Self {
        Self { maps, warpgroup }
    }

    /// The storer's waits and copies are predicated instructions, not branches: a divergent
    /// branch in the loop over tiles can cost ptxas the uniform datapath in the key loop
    /// (a07's lesson).
    #[inline(always)]
    unsafe fn store<T: Wgmma, const PANELS: usize>(
        self,
        tiles: SharedTiles<PANELS>,
        Finished { out, stats, lane, d, w }: Finished<PANELS>,
        _: *mut u16,
        lse: *mut f32,
    ) {
        // The box's base and the thread's place in it, computed here (`computed_here`): else
        // LLVM computes the 32 store addresses once before the loop over tiles, and they stay
        // live across every key loop.
        let staging = Panels::<O_BOX_ROWS, PANELS> {
            base: computed_here(tiles.end() + self.warpgroup * Panels::<O_BOX_ROWS, PANELS>::BYTES),
        };
        let o_map = self.maps.wrapping_add(O_MAP * MAP_BYTES);
        let thread = computed_here(thread_idx()) % WARPGROUP;
        let (warp, lane_id) = (thread / WARP_SIZE, thread % WARP_SIZE);
        let storer = thread == 0;
        let barrier = STAGING_BARRIER + self.warpgroup;
        let sums = fragments::row_sums(stats);
        // The box the copy engine was handed at the last tile has been read out.
        bulk_wait_group_read_if::<0>(storer);
        sync_named(barrier, WARPGROUP);
        let lse_rows = lse.wrapping_add((w.b * d.heads_q + w.h) as usize * d.seq_q as usize);
        // Unrolled in full (`unroll!`): the accumulators are registers only while every index
        // into them is a constant. Two n8 tiles of the warp's 16 rows per `stmatrix`: matrices
        // (n, rows 0–7), (n, rows 8–15), (n + 1, rows 0–7), (n + 1, rows 8–15); lane l gives
        // row l % 8 of matrix l / 8.
        let inverse = sums.map(|l| if l > 0.0 { 1.0 / l } else { 0.0 });
        let matrix = lane_id / 8;
        let row = warp * WARP_ROWS + HALF_ROWS * (matrix % 2) + lane_id % 8;
        unroll!(PANELS, at most 2, panel => {
            unroll!(PANEL_N8 / 2, at most 4, pair => {
                let (c, e) = (out[panel][2 * pair], out[panel][2 * pair + 1]);
                let packed = [
                    T::pack_x2(c[0] * inverse[0], c[1] * inverse[0]),
                    T::pack_x2(c[2] * inverse[1], c[3] * inverse[1]),
                    T::pack_x2(e[0] * inverse[0], e[1] * inverse[0]),
                    T::pack_x2(e[2] * inverse[1], e[3] * inverse[1]),
                ];
                let chunk = staging.chunk(row, (PANEL_N8 * panel + 2 * pair) as u32 + matrix / 2);
                // SAFETY: the whole warp; inside the warpgroup's box, which no copy reads any
                // more; this warp's rows alone.
                unsafe { stmatrix_x4(chunk, packed) };
            });
        });
        unroll!(2, half => {
            if lane.rows[half] < d.seq_q {
                // SAFETY: row < seq_q: this head's log-sum-exps.
                unsafe { hopper::store_log_sum_exp(stats, sums[half], lane, half, d, lse_rows) };
            }
        });
        fence_proxy_async_shared();
        sync_named(barrier, WARPGROUP);
        for panel in 0..PANELS as u32 {
            let at = [panel * PANEL_COLUMNS, w.q0 + self.warpgroup * O_BOX_ROWS, w.h, w.b];
            // SAFETY: the box is written and fenced by the whole warpgroup; O's map, whose box
            // is a panel of these rows; the engine clips the rows past seq_q.
            unsafe { store_tensor_4d_if(storer, o_map, at, staging.panel(panel)) };
        }
        bulk_commit_group_if(storer);
        // The warp meets again (`bar.warp.sync`): ptxas lowers the predicated copy to a loop
        // over the lanes that issue it, and without this it cannot tell that the warp leaves
        // that loop together. It then treats the loop over tiles as divergent, and the key
        // loop loses the uniform datapath (58 `R2UR` at head dim 64 against a07's 29, the
        // shuffles behind `BRA.DIV`); with it, 33.
        sync_warp(ALL_LANES);
    }

    /// The last box read out before the block's shared memory goes.
    #[inline(always)]
    fn finish(self) {
        bulk_wait_group_read_if::<0>(thread_idx() % WARPGROUP == 0);
    }
}

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As a07's `flash_persistent`, with [`a08::shared_bytes`](common::attention::a08::shared_bytes)
        /// of dynamic shared memory and a fourth tensor map at `maps`: O's, boxes of 64
        /// columns × `O_BOX_ROWS` rows, the 128-byte swizzle.
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(maps: *const u8, o: *mut u16, lse: *mut f32, dims: *const Dims, counter: *mut u32) {
            // SAFETY: forwarded.
            unsafe { flash_persistent::<$ty, StagedStores, $panels, { fragments::ONE_CHAIN }, { hopper::PV_PANEL }>(maps, o, lse, dims, counter) }
        }
    };
}

entry!(a08_tma_store_f16_d64, F16, 1, "a08 on f16, head dim 64.");
entry!(a08_tma_store_bf16_d64, Bf16, 1, "a08 on bf16, head dim 64.");
entry!(a08_tma_store_f16_d128, F16, 2, "a08 on f16, head dim 128.");
entry!(a08_tma_store_bf16_d128, Bf16, 2, "a08 on bf16, head dim 128.");
