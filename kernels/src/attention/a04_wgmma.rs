//! Step a04 — Hopper's warpgroup MMA (`wgmma`) for both products.
//!
//! Idea: a warpgroup (4 warps) owns 64 query rows. Its scores for 128 keys are head dim / 16
//!       `wgmma` m64n128k16 that read Q and K straight from shared memory (no `ldmatrix`), and
//!       P goes back, rounded to 16 bits, as the A operand *from registers* of O += P·V, whose
//!       B (V) the tensor cores read from shared memory too. The online softmax between the two
//!       products is a03's, on the same fragment layout (`fragments`).
//! Changes from a03: `wgmma` instead of `mma.sync` and `ldmatrix`; tiles in 128-byte-swizzled
//!       panels (the layout the tensor cores read); 2 warpgroups × 64 rows = 128 query rows
//!       per block, 128 keys per tile; a warpgroup past its last visible key skips the tile.
//! Bottleneck: (expected) each warpgroup in turn: its scores, then its softmax while its
//!       tensor cores wait, then P·V; the copies alone overlap the math.
//! Cost: 165 registers at head dim 64, 221 at 128 (sm_90a): one block of 256 threads per SM
//!       either way; 81 KB or 161 KB of dynamic shared memory.
//! Requires: an sm_90a device and PTX; head dim 64 or 128; 16-byte aligned rows (strides
//!       multiples of 8 elements); scale > 0.
//! Result: 461 TFLOP/s at head dim 128, seq 4k, bf16, 70 % of cuDNN, H100, 2026-11-25.
//!
//! More: docs/lessons.md#a04
//!
//! # Shared memory
//!
//! Dynamic, [`a04::shared_bytes`] bytes, its base rounded up to 1024 bytes: Q's tile
//! (`BLOCK_Q` rows), then `STAGES` stages of a K tile and a V tile (`BLOCK_K` rows each), each
//! in the swizzled panels of [`super::hopper`], which the copies write chunk by chunk.

use super::fragments::{ONE_CHAIN, RowStats};
use super::hopper::{self, KEYS, LaneRows, Output, PV_PANEL, Panels, Scores, WARPGROUP, WARPGROUP_ROWS, Wgmma};
use super::{Bf16, BlockHeads, F16, HeadRows};
use crate::device::async_copy::{cp_async_16, cp_async_commit, cp_async_wait_group};
use crate::device::index::{block_idx, block_idx_y, thread_idx};
use crate::device::shared::dynamic_shared_aligned;
use crate::device::sync::sync_threads;
use crate::device::wgmma;
use common::attention::Dims;
use common::attention::a04::{self, ALIGN_SLACK, BLOCK_K, BLOCK_Q, STAGES, THREADS};
use kernel_macros::kernel;

/// log2(e): exp(x) = 2^(x·log2 e).
const LOG2_E: f32 = core::f32::consts::LOG2_E;

const _: () = assert!(BLOCK_K == KEYS && WARPGROUP_ROWS * a04::WARPGROUPS == BLOCK_Q);

/// Starts (does not commit) the block's copies of rows `row0..row0 + ROWS` of `head` into
/// `tile`, a 16-byte chunk per copy; rows past the head's last are zero-filled by the copy.
///
/// # Safety
/// Every thread of the block calls it; `head` describes readable memory whose rows are
/// 16-byte aligned; `tile` lies in dynamic shared memory.
#[inline(always)]
unsafe fn copy_tile<const ROWS: u32, const PANELS: usize>(tile: Panels<ROWS, PANELS>, head: HeadRows, row0: u32) {
    let chunks = Panels::<ROWS, PANELS>::ROW_CHUNKS;
    // A thread copies one chunk column of rows `first`, `first + step`, …
    const { assert!(THREADS % Panels::<ROWS, PANELS>::ROW_CHUNKS == 0) };
    let step = THREADS / chunks;
    let (first, chunk) = (thread_idx() / chunks, thread_idx() % chunks);
    for pass in 0..ROWS / step {
        let r = first + pass * step;
        let (src, bytes) = head.chunk(row0 + r, chunk);
        // SAFETY: `bytes` readable aligned bytes at `src` (none past the head); the chunk lies
        // in the tile.
        unsafe { cp_async_16(tile.chunk(r, chunk), src, bytes) };
    }
}

/// The block's tiles: Q's, then `STAGES` × (K's, V's), from a 1024-byte aligned base.
#[derive(Clone, Copy)]
struct SharedTiles<const PANELS: usize> {
    base: u32,
}

impl<const PANELS: usize> SharedTiles<PANELS> {
    #[inline(always)]
    fn new() -> Self {
        Self { base: dynamic_shared_aligned(ALIGN_SLACK) }
    }

    #[inline(always)]
    fn q(self) -> Panels<BLOCK_Q, PANELS> {
        Panels { base: self.base }
    }

    #[inline(always)]
    fn k(self, stage: u32) -> Panels<KEYS, PANELS> {
        let kv = 2 * Panels::<KEYS, PANELS>::BYTES;
        Panels { base: self.base + Panels::<BLOCK_Q, PANELS>::BYTES + stage * kv }
    }

    #[inline(always)]
    fn v(self, stage: u32) -> Panels<KEYS, PANELS> {
        Panels { base: self.k(stage).base + Panels::<KEYS, PANELS>::BYTES }
    }
}

/// The forward pass for one block of `BLOCK_Q` query rows of one (batch, query head), head
/// dim `64·PANELS`, 16-bit type `T`.
///
/// # Safety
/// `dims` points to the problem, whose head dim is `64·PANELS`, whose strides are multiples of
/// 8 elements and whose head counts are not zero; `q`, `k`, `v`, `o` hold its tensors and
/// `lse` batch · heads_q · seq_q f32. Launched with `THREADS` threads, a grid of
/// ⌈seq_q / BLOCK_Q⌉ × batch · heads_q blocks and [`a04::shared_bytes`]`(64·PANELS)` bytes of
/// dynamic shared memory, on an sm_90a device.
#[inline(always)]
unsafe fn flash_wgmma<T: Wgmma, const PANELS: usize>(
    q: *const u16,
    k: *const u16,
    v: *const u16,
    o: *mut u16,
    lse: *mut f32,
    dims: *const Dims,
) {
    const { assert!(PANELS == 1 || PANELS == 2, "head dim 64 or 128") };
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    let tid = thread_idx();
    let warpgroup = tid / WARPGROUP;
    let q0 = block_idx() * BLOCK_Q;
    // SAFETY: the caller's head counts.
    let heads = unsafe { BlockHeads::new(&d, block_idx_y(), q, k, v) };
    let tiles = SharedTiles::<PANELS>::new();

    // The key tiles the block reads: up to the last key its last row sees.
    let last_row = (q0 + BLOCK_Q).min(d.seq_q) - 1;
    let key_tiles = d.visible_keys(last_row).div_ceil(BLOCK_K);
    // Starts the copies of key tile `j` into stage `j % STAGES` (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    let load_kv = |j: u32| {
        if j < key_tiles {
            let stage = j % STAGES;
            // SAFETY: the whole block; K's and V's heads; the stage's tiles.
            unsafe {
                copy_tile(tiles.k(stage), heads.k, j * BLOCK_K);
                copy_tile(tiles.v(stage), heads.v, j * BLOCK_K);
            }
        }
        cp_async_commit();
    };
    // SAFETY: the whole block; Q's head and tile.
    unsafe { copy_tile(tiles.q(), heads.q, q0) };
    load_kv(0);

    // This warpgroup's rows and this thread's two; the keys the warpgroup's last row sees,
    // past which it skips a tile (none when its rows are all past seq_q).
    let group_row0 = q0 + warpgroup * WARPGROUP_ROWS;
    let lane = LaneRows::new(&d, group_row0, tid % WARPGROUP);
    let group_keys =
        if group_row0 < d.seq_q { d.visible_keys((group_row0 + WARPGROUP_ROWS).min(d.seq_q) - 1) } else { 0 };
    let scale_log2 = d.scale * LOG2_E;

    let mut stats = RowStats::EMPTY;
    let mut s: Scores = [[0.0; 4]; 16];
    let mut out: Output<PANELS> = [[[0.0; 4]; 8]; PANELS];
    for j in 0..key_tiles {
        // Tile j's copies (and Q's, the first time) are the only ones in flight: wait for them,
        // hand them to the tensor cores' proxy, then to the whole block (every warpgroup is
        // then done with tile j − 1, whose stage the next copies refill).
        cp_async_wait_group::<0>();
        wgmma::fence_proxy_async_shared();
        sync_threads();
        load_kv(j + 1);
        let k0 = j * BLOCK_K;
        if k0 >= group_keys {
            continue; // every row of this warpgroup is past these keys (causal)
        }
        let stage = j % STAGES;
        // SAFETY: the whole warpgroup; the stage's K tile and Q's landed; waited for at once.
        unsafe { hopper::issue_scores::<T, BLOCK_Q, PANELS>(&mut s, tiles.q(), warpgroup * WARPGROUP_ROWS, tiles.k(stage)) };
        wgmma::wait_group::<0>();
        let alpha = hopper::softmax::<ONE_CHAIN>(&mut s, &mut stats, &lane, k0, scale_log2);
            hopper::rescale(&mut out, alpha);
            let p = hopper::pack_probabilities::<T>(&s);
        // SAFETY: the whole warpgroup; the stage's V tile landed; waited for at once.
        unsafe { hopper::issue_output::<T, PANELS, PV_PANEL>(&mut out, &p, tiles.v(stage)) };
        wgmma::wait_group::<0>();
    }

    // A block with no key tile never waited for Q's copies: none may outlive it.
    cp_async_wait_group::<0>();
    let o_rows = o.wrapping_add(d.o.row_offset(heads.b, heads.h, 0) as usize);
    let lse_rows = lse.wrapping_add(heads.pair as usize * d.seq_q as usize);
    // SAFETY: the whole warp; this head's O and log-sum-exps.
    unsafe { hopper::store_output::<T, PANELS>(&out, &stats, &lane, &d, o_rows, lse_rows) };
}

macro_rules! entry {
    ($name:ident, $ty:ident, $panels:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As [`flash_wgmma`].
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, dims: *const Dims) {
            // SAFETY: forwarded.
            unsafe { flash_wgmma::<$ty, $panels>(q, k, v, o, lse, dims) }
        }
    };
}

entry!(a04_wgmma_f16_d64, F16, 1, "a04 on f16, head dim 64.");
entry!(a04_wgmma_bf16_d64, Bf16, 1, "a04 on bf16, head dim 64.");
entry!(a04_wgmma_f16_d128, F16, 2, "a04 on f16, head dim 128.");
entry!(a04_wgmma_bf16_d128, Bf16, 2, "a04 on bf16, head dim 128.");
