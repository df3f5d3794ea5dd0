//! Step a02 — one fused kernel: the online softmax, in f32 on CUDA cores.
//!
//! Idea: no scores in memory. A block takes `BLOCK_Q` query rows, a warp each, and walks the
//!       keys in tiles of `BLOCK_K`; each warp keeps its row's running max m, sum l and output
//!       in registers, and when a tile raises the max it first rescales l and the output by
//!       2^(m_old − m_new) (the online softmax of Milakov and Gimelshein, as in FlashAttention).
//!       Q, K and V are read once per block, O and the log-sum-exp written once.
//! Changes from a01: one kernel instead of three; K and V pass through shared memory in f32,
//!       a tile at a time, shared by the block's rows; a lane per key for the scores, a lane
//!       per head-dim column (and every 32nd after it) for P·V; scale · log2(e) folded into Q.
//! Bottleneck: shared-memory reads and SIMT FMAs: every multiply-add of a score reads its K
//!       element from shared memory (and Q's, broadcast), every one of P·V its V element;
//!       K and V take turns in one tile, four barriers per 32 keys. Tensor cores come in a03.
//! Cost: 48 registers on sm_90a (74 on sm_80), 41,088 bytes of static shared memory: 5
//!       blocks (40 warps) per H100 or H200 SM; K and V read once per 8 query rows.
//! Requires: head dim at most `MAX_HEAD_DIM` (256), which sizes the shared tiles.
//! Result: 4.3 TFLOP/s (head dim 64) and 6.8 (128) at seq 4k, bf16, H100, 2026-11-25.
//!
//! More: docs/lessons.md#a02
//!
//! Shared memory holds one tile of f32 at a time, K then V: 32 keys × 256 columns of f32 is
//! 32 KB, and two such tiles would pass the 48 KB a block may have without dynamic shared
//! memory. A tile's rows are `TILE_STRIDE = MAX_HEAD_DIM + 1` floats apart, so the 32 lanes of
//! a warp, each reading its own key's row at one column, hit 32 different banks.
//!
//! The causal mask (aligned at the bottom right) only ever uncovers keys from one row to the
//! next, so a block stops at its last row's last visible key: the tiles past it are never
//! loaded. Every thread runs every tile the block loads, and reaches its barriers, even when
//! its own row is past `seq_q` or sees no key in the tile.

use super::{Bf16, F16, Half};
use crate::device::convert::{exp2_approx, log2_approx, reciprocal_approx};
use crate::device::index::{ALL_LANES, WARP_SIZE, block_idx, block_idx_y, lane_idx, warp_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::device::warp::{shuffle_idx_u32, shuffle_xor_i32};
use crate::static_shared;
use common::attention::a02::{BLOCK_K, BLOCK_Q, MAX_HEAD_DIM, THREADS};
use common::attention::{Dims, Strides};
use core::f32::math::mul_add;
use kernel_macros::kernel;

/// log2(e): e^x = 2^(x·log2 e). Folded into Q with the scale, so the scores come out in
/// log2 units and every exponential is one `ex2.approx`.
const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// ln(2): ln x = log2(x)·ln 2.
const LN_2: f32 = core::f32::consts::LN_2;

/// Floats from one row of a shared tile to the next: one more than the widest row, so that
/// lane `j` reading column `c` of row `j` uses bank `(j + c) mod 32`.
const TILE_STRIDE: u32 = MAX_HEAD_DIM + 1;

/// Head-dim columns a lane owns in P·V and the epilogue: `lane + 32·t` for `t < COLUMN_SLOTS`.
const COLUMN_SLOTS: usize = (MAX_HEAD_DIM / WARP_SIZE) as usize;

/// Rows of a tile each warp loads.
const ROWS_PER_WARP: u32 = BLOCK_K / BLOCK_Q;

const _: () = assert!(THREADS == BLOCK_Q * WARP_SIZE, "a warp per query row");
const _: () = assert!(BLOCK_K == WARP_SIZE, "a lane per key of a tile");
const _: () = assert!(BLOCK_K % BLOCK_Q == 0, "whole rows per warp in the tile loads");
const _: () = assert!(MAX_HEAD_DIM % WARP_SIZE == 0, "whole column slots");
const _: () =
    assert!(4 * (BLOCK_Q * MAX_HEAD_DIM + BLOCK_K * TILE_STRIDE) <= 48 * 1024, "static shared memory");

static_shared! {
    /// The block's query rows in f32, times scale · log2(e); row `w` is warp `w`'s.
    fn a02_queries() -> [f32; (BLOCK_Q * MAX_HEAD_DIM) as usize]; // (BLOCK_Q, MAX_HEAD_DIM)
}

static_shared! {
    /// One tile of `BLOCK_K` rows of K, then of V, in f32, `TILE_STRIDE` floats apart.
    fn a02_tile() -> [f32; (BLOCK_K * TILE_STRIDE) as usize]; // (BLOCK_K, TILE_STRIDE)
}

/// The largest of the warp's 32 values, in every lane (a butterfly of `shfl.sync.bfly`).
#[inline(always)]
fn warp_max(value: f32) -> f32 {
    let mut v = value;
    let mut lanes = WARP_SIZE / 2;
    while lanes > 0 {
        v = v.max(f32::from_bits(shuffle_xor_i32(ALL_LANES, v.to_bits() as i32, lanes) as u32));
        lanes /= 2;
    }
    v
}

/// The sum of the warp's 32 values, in every lane.
#[inline(always)]
fn warp_sum(value: f32) -> f32 {
    let mut v = value;
    let mut lanes = WARP_SIZE / 2;
    while lanes > 0 {
        v += f32::from_bits(shuffle_xor_i32(ALL_LANES, v.to_bits() as i32, lanes) as u32);
        lanes /= 2;
    }
    v
}

/// Lane `src`'s value, in every lane (`shfl.sync.idx`).
#[inline(always)]
fn broadcast(value: f32, src: u32) -> f32 {
    f32::from_bits(shuffle_idx_u32(ALL_LANES, value.to_bits(), src))
}

/// The rows of one (batch, head) of a tensor, in elements from its start: where row 0
/// begins and how far apart rows lie (the head-dim columns of a row are contiguous).
/// Worked out once per block, so the loop carries two numbers instead of three strides.
#[derive(Clone, Copy)]
struct HeadRows {
    start: usize,
    stride: usize,
}

impl HeadRows {
    #[inline(always)]
    fn new(strides: &Strides, b: u32, h: u32) -> Self {
        Self { start: strides.row_offset(b, h, 0) as usize, stride: strides.row as usize }
    }

    /// Where row `s` begins.
    #[inline(always)]
    fn row(self, s: u32) -> usize {
        self.start + s as usize * self.stride
    }
}

/// This warp's query row (`start` elements into `q`) into its row of `queries`, in f32
/// times `factor` = scale · log2(e).
///
/// # Safety
/// `start..start + head_dim` lies inside Q; called by the warp's 32 lanes, and the row of
/// `queries` read only after a barrier.
#[inline(always)]
unsafe fn load_query<T: Half>(
    q: *const u16,
    start: usize,
    head_dim: u32,
    factor: f32,
    queries: SharedArray<f32>,
) {
    let mut c = lane_idx();
    while c < head_dim {
        // SAFETY: column c < head_dim of the row, inside Q; the warp's own row of `queries`.
        unsafe {
            queries.store(warp_idx() * MAX_HEAD_DIM + c, T::to_f32(*q.add(start + c as usize)) * factor)
        };
        c += WARP_SIZE;
    }
}

/// Rows `first..first + rows` of K or V (`src`, the rows of `head`) into rows `0..rows` of
/// `tile`, in f32: warp `w` takes rows `w`, `w + BLOCK_Q`, …, a lane every 32nd column
/// (a warp reads 64 contiguous bytes per load). A slot of 32 columns that starts inside
/// the row is stored whole, with zeros past `head_dim`, so that P·V may read whole slots.
///
/// # Safety
/// `src` holds the tensor and `head` its rows; `first + rows ≤ seq_k`, `rows ≤ BLOCK_K`;
/// called by every thread of the block between barriers that keep other threads off the
/// tile.
#[inline(always)]
unsafe fn load_tile<T: Half>(
    src: *const u16,
    head: HeadRows,
    head_dim: u32,
    first: u32,
    rows: u32,
    tile: SharedArray<f32>,
) {
    let (lane, padded_cols) = (lane_idx(), head_dim.next_multiple_of(WARP_SIZE));
    for i in 0..ROWS_PER_WARP {
        let r = warp_idx() + BLOCK_Q * i;
        if r >= rows {
            break;
        }
        let start = head.row(first + r);
        let mut c = lane;
        while c < padded_cols {
            // SAFETY: key first + r < seq_k, column c < head_dim: inside the tensor.
            let value = if c < head_dim { T::to_f32(unsafe { *src.add(start + c as usize) }) } else { 0.0 };
            // SAFETY: r < BLOCK_K, c < MAX_HEAD_DIM < TILE_STRIDE; this thread's element.
            unsafe { tile.store(r * TILE_STRIDE + c, value) };
            c += WARP_SIZE;
        }
    }
}

/// This lane's score, in log2 units: the dot product of the warp's query row with row
/// `lane` of the K tile, or −∞ where the lane's key is masked (`lane ≥ keys`).
///
/// # Safety
/// The warp's row of `queries` and rows `0..keys` of `tile` hold Q and K, written before a
/// barrier.
#[inline(always)]
unsafe fn score(queries: SharedArray<f32>, tile: SharedArray<f32>, keys: u32, head_dim: u32) -> f32 {
    let lane = lane_idx();
    if lane >= keys {
        return f32::NEG_INFINITY;
    }
    let (q_row, k_row) = (warp_idx() * MAX_HEAD_DIM, lane * TILE_STRIDE);
    let mut dot = 0.0f32;
    for c in 0..head_dim {
        // SAFETY: c < head_dim ≤ MAX_HEAD_DIM, lane < keys: written rows (the caller's barrier).
        dot = unsafe { mul_add(queries.load(q_row + c), tile.load(k_row + c), dot) };
    }
    dot
}

/// One query row's running state, in the registers of its warp's lanes.
struct RowState {
    /// The largest score so far (log2 units, the same in every lane); −∞ before any key.
    max: f32,
    /// This lane's share of Σ 2^(score − max) over the keys so far: the terms of the keys it
    /// scored. The warp adds the shares once, at the end ([`RowState::finish`]).
    sum: f32,
    /// Σ 2^(score − max) · v over the keys so far, at columns `lane + 32·t`.
    acc: [f32; COLUMN_SLOTS],
}

impl RowState {
    #[inline(always)]
    fn new() -> Self {
        Self { max: f32::NEG_INFINITY, sum: 0.0, acc: [0.0; COLUMN_SLOTS] }
    }

    /// The online softmax: folds this lane's score `s` of a tile into the row's max,
    /// rescales the sum and the accumulator to the new max, and returns this lane's
    /// p = 2^(s − max). The tile holds at least one visible key, so the new max is finite:
    /// the first time, 2^(−∞ − max) = 0 rescales the empty state; a masked key's p is 0.
    /// Every lane of the warp calls it.
    #[inline(always)]
    fn update(&mut self, s: f32) -> f32 {
        let max = self.max.max(warp_max(s));
        let rescale = exp2_approx(self.max - max);
        let p = exp2_approx(s - max);
        self.sum = self.sum * rescale + p;
        for a in &mut self.acc {
            *a *= rescale;
        }
        self.max = max;
        p
    }

    /// P·V for one tile: adds `p_j · V[j][c]` for the tile's first `keys` keys, `p_j` from
    /// lane `j`, to this lane's columns. Every lane of the warp calls it.
    ///
    /// # Safety
    /// Rows `0..keys` of `tile` hold V, written before a barrier, zeros from `head_dim` to
    /// the next multiple of 32.
    #[inline(always)]
    unsafe fn accumulate(&mut self, p: f32, tile: SharedArray<f32>, keys: u32, head_dim: u32) {
        let lane = lane_idx();
        for j in 0..keys {
            let p_j = broadcast(p, j);
            for (t, a) in self.acc.iter_mut().enumerate() {
                let slot = WARP_SIZE * t as u32;
                // A test on the slot, the same in every lane: the zero padding makes a slot
                // that starts inside the row whole.
                if slot < head_dim {
                    // SAFETY: j < keys, slot + lane < MAX_HEAD_DIM: a written element (the
                    // caller's barrier).
                    let v_jc = unsafe { tile.load(j * TILE_STRIDE + slot + lane) };
                    *a = mul_add(p_j, v_jc, *a);
                }
            }
        }
    }

    /// The epilogue: O = acc / l rounded to `T` into `o[o_start..]` and the natural
    /// log-sum-exp ln l + max·ln 2 into `*lse`; a row that saw no key gets zeros and −∞.
    /// Every lane of the warp calls it; only a row inside the problem (`inside`) writes.
    ///
    /// # Safety
    /// When `inside`: `o_start..o_start + head_dim` lies inside O and `lse` points into the
    /// LSE array.
    #[inline(always)]
    unsafe fn finish<T: Half>(self, inside: bool, o: *mut u16, o_start: usize, head_dim: u32, lse: *mut f32) {
        let sum = warp_sum(self.sum);
        if !inside {
            return;
        }
        let (inverse, log_sum_exp) = if sum > 0.0 {
            (reciprocal_approx(sum), (self.max + log2_approx(sum)) * LN_2)
        } else {
            (0.0, f32::NEG_INFINITY)
        };
        let lane = lane_idx();
        for (t, a) in self.acc.iter().enumerate() {
            let c = lane + WARP_SIZE * t as u32;
            if c < head_dim {
                // SAFETY: column c < head_dim of the row: inside O.
                unsafe { *o.add(o_start + c as usize) = T::from_f32(a * inverse) };
            }
        }
        if lane == 0 {
            // SAFETY: the caller's LSE element.
            unsafe { *lse = log_sum_exp };
        }
    }
}

/// softmax(Q·Kᵀ·scale + mask)·V for `BLOCK_Q` query rows of one (batch, query head), a warp
/// per row: the keys in tiles of `BLOCK_K`, K then V through the shared tile, the online
/// softmax in registers.
///
/// # Safety
/// `dims` points to the problem, `q`, `k`, `v`, `o` hold its tensors and `lse` holds `rows`
/// f32; head_dim is 1 to `MAX_HEAD_DIM`; launched with `THREADS` threads per block and a
/// grid of ⌈seq_q / BLOCK_Q⌉ × batch · heads_q blocks, no dynamic shared memory.
#[inline(always)]
unsafe fn fused<T: Half>(
    q: *const u16,
    k: *const u16,
    v: *const u16,
    o: *mut u16,
    lse: *mut f32,
    dims: *const Dims,
) {
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    // SAFETY: a launched grid has batch · heads_q ≥ 1 blocks in y, and the host writes
    // group ≥ 1: the divisions below need no zero check.
    unsafe { core::hint::assert_unchecked(d.heads_q > 0 && d.group > 0) };
    let (queries, tile) = (a02_queries(), a02_tile());
    let y = block_idx_y();
    let (b, h) = (y / d.heads_q, y % d.heads_q);
    let (k_head, v_head) = (HeadRows::new(&d.k, b, h / d.group), HeadRows::new(&d.v, b, h / d.group));
    let first_row = block_idx() * BLOCK_Q;
    let row = first_row + warp_idx();
    let inside = row < d.seq_q;
    // The keys this warp's row sees, and those the block's rows see: the last row's, since
    // the causal mask only ever uncovers keys from one row to the next.
    let row_keys = if inside { d.visible_keys(row) } else { 0 };
    let block_keys = d.visible_keys(d.seq_q.min(first_row + BLOCK_Q) - 1);
    if inside {
        // SAFETY: row < seq_q: inside Q; read after the first tile's barrier.
        unsafe {
            load_query::<T>(q, d.q.row_offset(b, h, row) as usize, d.head_dim, d.scale * LOG2_E, queries)
        };
    }
    // Where the epilogue writes: the row of O, and the LSE of (batch, head) y, row `row`.
    let o_start = d.o.row_offset(b, h, row) as usize;
    let lse_at = (u64::from(y) * u64::from(d.seq_q) + u64::from(row)) as usize;
    let mut state = RowState::new();
    // Every thread runs every tile and reaches its four barriers, whatever its row sees.
    let mut first = 0;
    while first < block_keys {
        let tile_keys = BLOCK_K.min(block_keys - first);
        // This row's visible keys in the tile: a prefix of it (at most `tile_keys`).
        let keys = BLOCK_K.min(row_keys.saturating_sub(first));
        // SAFETY: first + tile_keys ≤ block_keys ≤ seq_k; the whole block, between barriers.
        unsafe { load_tile::<T>(k, k_head, d.head_dim, first, tile_keys, tile) };
        sync_threads(); // the K tile (and the first time the query rows) written
        let p = if keys > 0 {
            // SAFETY: the barrier above; keys ≤ tile_keys rows written.
            state.update(unsafe { score(queries, tile, keys, d.head_dim) })
        } else {
            0.0
        };
        sync_threads(); // every warp done with K
        // SAFETY: as for K.
        unsafe { load_tile::<T>(v, v_head, d.head_dim, first, tile_keys, tile) };
        sync_threads(); // the V tile written
        if keys > 0 {
            // SAFETY: the barrier above; keys ≤ tile_keys rows written, padded with zeros.
            unsafe { state.accumulate(p, tile, keys, d.head_dim) };
        }
        sync_threads(); // every warp done with V
        first += BLOCK_K;
    }
    // SAFETY: when the row is inside the problem, its row of O and its LSE element.
    unsafe { state.finish::<T>(inside, o, o_start, d.head_dim, lse.wrapping_add(lse_at)) };
}

/// a02 on f16.
///
/// # Safety
/// As [`fused`].
#[kernel(max_threads = THREADS)]
pub unsafe fn a02_fused_f16(
    q: *const u16,
    k: *const u16,
    v: *const u16,
    o: *mut u16,
    lse: *mut f32,
    dims: *const Dims,
) {
    // SAFETY: forwarded.
    unsafe { fused::<F16>(q, k, v, o, lse, dims) }
}

/// a02 on bf16.
///
/// # Safety
/// As [`fused`].
#[kernel(max_threads = THREADS)]
pub unsafe fn a02_fused_bf16(
    q: *const u16,
    k: *const u16,
    v: *const u16,
    o: *mut u16,
    lse: *mut f32,
    dims: *const Dims,
) {
    // SAFETY: forwarded.
    unsafe { fused::<Bf16>(q, k, v, o, lse, dims) }
}
