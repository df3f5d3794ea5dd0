//! Step a03 — FlashAttention-2 on tensor cores (`mma.sync`, any GPU since Ampere).
//!
//! Idea: FlashAttention-2's forward pass: a block takes 128 query rows of one head, each of its
//!       4 warps 32 of them (two `mma` row tiles) for the whole key loop; per tile of 64 keys a
//!       warp computes its scores with `mma.sync`, each K fragment feeding both row tiles,
//!       updates its rows' running max and sum, and multiplies P, rounded to 16 bits and still
//!       in registers, by the V tile into O's f32 accumulators.
//! Changes from a02: tensor cores for both products; K and V by `cp.async` into swizzled shared
//!       memory, two stages; S, P and O as `mma` fragments; the scale in the exponent (`ex2`); a
//!       causal block stops at its last key.
//! Bottleneck: (expected) the softmax between the two products, and `ex2`'s throughput; each
//!       K or V fragment (`ldmatrix.x4`) feeds 4 `mma`, so shared memory keeps up.
//! Cost: 255 registers at head dims 64 and 128 (sm_90a; 0 and 24 bytes of spills), 48 or 96
//!       KB of shared memory: 2 blocks of 128 threads per SM; at 256, 16 rows a warp, 32 keys.
//! Requires: head dim exactly 64, 128 or 256 (the entry point's); Q, K, V and O 16-byte
//!       aligned, all their strides multiples of 8 elements (16-byte aligned rows); scale > 0.
//! Result: 339 / 374 / 308 TFLOP/s, d64/128/256, 4k, bf16: 112/105/95 % of FA2, H200, 2026-11-29.
//!
//! More: docs/lessons.md#a03
//!
//! # The fragments, once
//!
//! With `g = lane / 4` and `t = lane % 4` (layouts in [`crate::device::mma`]):
//! - **S = Q·Kᵀ** is `mma.m16n8k16` with A = 16 query rows × 16 head-dim columns and B = 16
//!   head-dim columns × 8 keys. B's "col" layout keeps k (the head dim) inside a register,
//!   which is how K's rows lie in memory: B comes from K's tile by a plain `ldmatrix`, and A
//!   from Q's (once, before the loop, where [`a03::q_in_registers`]; else per key tile). A
//!   warp's 32 rows are two such row tiles `mi`, 16 rows apart, which share every B fragment.
//! - Each lane ends with, of a row tile's 16 × `BLOCK_K` scores, rows `g` and `g + 8`, columns
//!   `8n + 2t` and `8n + 2t + 1` of each n8 tile `n` (`N8` = `BLOCK_K / 8` of them): a row's
//!   scores lie in the 4 lanes of a quad, a quarter each. Row maxima and sums are a lane's own
//!   loop, then two xor shuffles (1, 2).
//! - **P as an A operand.** A k16 slice of keys is two adjacent n8 tiles of S, `2j` and
//!   `2j + 1`. Their C fragments hold row `g`, keys `2t, 2t + 1` (tile `2j`, `c[0..2]`) and
//!   `8 + 2t, 8 + 2t + 1` (tile `2j + 1`, `c[0..2]`), and the same for row `g + 8` in
//!   `c[2..4]`; A's fragment of that slice wants `a[0]` = row `g`, k `2t, 2t + 1`; `a[1]` =
//!   row `g + 8`, same k; `a[2]` = row `g`, k `8 + 2t, 8 + 2t + 1`; `a[3]` = row `g + 8`,
//!   same. The same lane holds the same elements: P is kept as each n8 tile's two pairs
//!   rounded to 16 bits (`c[0..2]`, `c[2..4]`), and slice `j`'s fragment is tile `2j`'s two
//!   registers then tile `2j + 1`'s, with no shuffle and no shared memory.
//! - **O += P·V** has B = 16 keys × 8 head-dim columns from V's row-major tile, where k (the
//!   key) runs across rows: `ldmatrix.trans` gives B's layout, as for the GEMM's B (t02).
//!   O's accumulators have S's layout: rows `g`, `g + 8`, columns `8n + 2t`, `8n + 2t + 1`.
//!
//! # Shared memory
//!
//! Dynamic, [`a03::shared_bytes`] bytes: Q's tile (`BLOCK_Q` rows), then `STAGES` stages of
//! a K tile and a V tile ([`a03::BLOCK_K`] rows each). Every row is the head dim's 16-bit
//! values, 128 or 256 bytes, in 16-byte chunks; chunk `c` of row `r` is stored at position
//! `c ^ (r % 8)` of its row (t03's swizzle of B). The 8 rows an `ldmatrix` phase
//! reads are 8 consecutive rows starting at a multiple of 8, at one logical chunk: the swizzle
//! spreads them over the 8 positions of a 128-byte line of banks, so no two collide; the 8
//! chunks of one row that 8 consecutive threads copy land in 8 positions too.

use super::{Bf16, F16, Half};
use crate::device::async_copy::{cp_async_16, cp_async_16_whole, cp_async_commit, cp_async_wait_group};
use crate::device::convert::{exp2_approx, log2_approx};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::load::{I32x4, store_streaming_v4};
use crate::device::mma::{ldmatrix_x4, ldmatrix_x4_trans};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::{sync_threads, sync_warp};
use crate::device::warp::shuffle_xor_f32;
use crate::unroll;
use common::attention::Dims;
use common::attention::a03::{self, STAGES, THREADS, WARPS};
use core::num::NonZeroU32;
use kernel_macros::kernel;

/// log2(e): exp(x) = 2^(x·log2 e).
const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// ln(2): ln(x) = log2(x)·ln 2.
const LN_2: f32 = core::f32::consts::LN_2;

/// Rows of an `mma` tile (m16) and columns of an n8 tile.
const MMA_M: u32 = 16;
const MMA_N: u32 = 8;

// The geometry, in the const parameters of every piece below that holds fragments: `D16`
// k16 slices of the head dim, `M` 16-row `mma` tiles of query rows per warp
// (`a03::warp_rows` / 16) and `N8` n8 tiles of keys per key tile (`a03::block_k` / 8), both
// set by the head dim. Every loop over the row tiles is written out (`unroll!`): left to LLVM,
// the softmax's stayed a loop, and S and O, indexed by a variable, went to local memory.

/// A copy's and an `ldmatrix` row's unit: 16 bytes, eight 16-bit values.
const CHUNK_BYTES: u32 = 16;
const CHUNK_VALUES: u32 = 8;

/// Rows of a swizzle pattern: chunk positions are XORed with `row % SWIZZLE_ROWS`.
const SWIZZLE_ROWS: u32 = 8;

/// Q's A fragments of one warp, kept for the whole loop: [row tile][k16 slice of the head dim].
type QFragments<const D16: usize, const M: usize> = [[[u32; 4]; D16]; M];

/// One key tile's scores S of one warp: [row tile][n8 tile of keys].
type Scores<const M: usize, const N8: usize> = [[[f32; 4]; N8]; M];

/// P rounded to 16 bits, two values a register: [row tile][n8 tile of keys][rows g, g + 8].
/// n8 tiles `2j` and `2j + 1` are the A fragment of k16 slice `j` (the module comment).
type PFragments<const M: usize, const N8: usize> = [[[u32; 2]; N8]; M];

/// O's accumulators of one warp: [row tile][16 head-dim columns][n8 half].
type Output<const D16: usize, const M: usize> = [[[[f32; 4]; 2]; D16]; M];

/// One value per row of this lane: [row tile][rows g, g + 8].
type RowValues<V, const M: usize> = [[V; 2]; M];

/// The online softmax's running state of this lane's rows: `m`, the largest score seen so far
/// (unscaled; −∞ until a visible key), and `l`, this lane's part of the row's Σ 2^((s − m)·scale·
/// log2 e).
struct RowStats<const M: usize> {
    m: RowValues<f32, M>,
    l: RowValues<f32, M>,
}

/// A swizzled tile in shared memory: rows of `16·D16` 16-bit values (the head dim), that is
/// `2·D16` chunks of 16 bytes, chunk `c` of row `r` stored at position `c ^ (r % 8)`.
#[derive(Clone, Copy)]
struct Tile<const D16: usize> {
    base: u32,
}

impl<const D16: usize> Tile<D16> {
    const ROW_CHUNKS: u32 = 2 * D16 as u32;
    const ROW_BYTES: u32 = Self::ROW_CHUNKS * CHUNK_BYTES;
    /// Rows the block copies in one pass, a chunk per thread.
    const COPY_STEP: u32 = THREADS / Self::ROW_CHUNKS;

    /// The tile that starts `offset_rows` rows into the dynamic shared memory.
    #[inline(always)]
    fn at_row(offset_rows: u32) -> Self {
        Self { base: dynamic_shared::<u8>().address(0) + offset_rows * Self::ROW_BYTES }
    }

    /// The tile of this one's rows from `rows` on (a multiple of 8: the same swizzle).
    #[inline(always)]
    fn offset_rows(self, rows: u32) -> Self {
        Self { base: self.base + rows * Self::ROW_BYTES }
    }

    /// The shared address of chunk `chunk` of row `row`.
    #[inline(always)]
    fn chunk(self, row: u32, chunk: u32) -> u32 {
        self.base + (row * Self::ROW_CHUNKS + (chunk ^ (row % SWIZZLE_ROWS))) * CHUNK_BYTES
    }
}

/// Chunk pairs (k16 slices) in one swizzle pattern: chunks `c` and `c + 8` of a row share
/// `c ^ (r % 8)`'s low bits, so fragments 4 pairs apart lie 128 bytes apart.
const PAIRS_PER_PATTERN: usize = (SWIZZLE_ROWS / 2) as usize;

/// Where this lane's `ldmatrix` rows lie in one tile: its row `row` (of the tile's first 16)
/// at the 4 chunk pairs of one swizzle pattern, chunk `2p + odd` of pair `p`. Every other
/// fragment of the lane is a constant away: 16 rows further is `16·ROW_BYTES` (the swizzle
/// repeats every 8 rows), 4 pairs further 128 bytes; the constant becomes the instruction's
/// offset (`ldmatrix [reg+imm]`). With each fragment's address written out instead
/// (`tile.chunk(row, chunk)`), LLVM hoists "this lane's part + a constant" of every
/// fragment out of the key loop, one register each held for the whole loop (ptxas -v: 164
/// registers instead of 133 at head dim 64, 245 instead of 227 at 128).
#[derive(Clone, Copy)]
struct LaneRows<const D16: usize> {
    at: [u32; PAIRS_PER_PATTERN],
}

impl<const D16: usize> LaneRows<D16> {
    #[inline(always)]
    fn new(tile: Tile<D16>, row: u32, odd: u32) -> Self {
        Self { at: core::array::from_fn(|p| tile.chunk(row, 2 * p as u32 + odd)) }
    }

    /// The lane's row 16·`rows16` further, chunk `2·pair + odd`.
    #[inline(always)]
    fn address(self, rows16: usize, pair: usize) -> u32 {
        self.at[pair % PAIRS_PER_PATTERN]
            + (rows16 as u32 * MMA_M) * Tile::<D16>::ROW_BYTES
            + (pair / PAIRS_PER_PATTERN) as u32 * SWIZZLE_ROWS * CHUNK_BYTES
    }
}

/// The block's tiles in dynamic shared memory: Q's (`BLOCK_Q` rows), then `STAGES` × (K's,
/// V's), key tiles of `BLOCK_K` rows; and the geometry's row counts.
#[derive(Clone, Copy)]
struct SharedTiles<const D16: usize, const M: usize, const N8: usize>;

impl<const D16: usize, const M: usize, const N8: usize> SharedTiles<D16, M, N8> {
    /// Query rows per warp and per block, keys per tile: `a03::warp_rows`, `block_q` and
    /// `block_k` of this head dim (checked by [`flash_attention`]).
    const WARP_ROWS: u32 = M as u32 * MMA_M;
    const BLOCK_Q: u32 = WARPS * Self::WARP_ROWS;
    const BLOCK_K: u32 = N8 as u32 * MMA_N;

    /// [`Self::WARP_ROWS`], [`Self::BLOCK_Q`] and [`Self::BLOCK_K`], of a value at hand.
    #[inline(always)]
    fn warp_rows(self) -> u32 {
        Self::WARP_ROWS
    }

    #[inline(always)]
    fn block_q(self) -> u32 {
        Self::BLOCK_Q
    }

    #[inline(always)]
    fn block_k(self) -> u32 {
        Self::BLOCK_K
    }

    #[inline(always)]
    fn q(self) -> Tile<D16> {
        Tile::at_row(0)
    }

    #[inline(always)]
    fn k(self, stage: u32) -> Tile<D16> {
        Tile::at_row(Self::BLOCK_Q + stage * 2 * Self::BLOCK_K)
    }

    #[inline(always)]
    fn v(self, stage: u32) -> Tile<D16> {
        Tile::at_row(Self::BLOCK_Q + stage * 2 * Self::BLOCK_K + Self::BLOCK_K)
    }
}

/// One head of Q, K or V in global memory: its row 0, its row stride (elements) and its rows.
#[derive(Clone, Copy)]
struct HeadRows {
    start: *const u16,
    stride: u64,
    rows: u32,
}

/// Starts (does not commit) the block's copies of rows `row0..row0 + rows` of `head` into
/// `tile`, a 16-byte chunk per copy; rows past the head's last are zero-filled by the copy
/// (`src_bytes` = 0, nothing read). A thread's source moves by one add per pass, and a tile
/// whose rows all lie in the head (every key tile but the last) copies with no check per row.
/// A pass of whole swizzle patterns (8 rows, at head dims 64 and 128) keeps a thread's chunk
/// position, so its destination moves by a constant too; at 256 a pass is 4 rows, and the
/// position alternates between two.
///
/// # Safety
/// Every thread of the block calls it; `head` describes readable memory whose rows are
/// 16-byte aligned; `tile` has `rows` rows of dynamic shared memory, a multiple of
/// `Tile::COPY_STEP` (checked at compile time by the caller: `rows` is a constant).
#[inline(always)]
unsafe fn copy_tile<const D16: usize>(tile: Tile<D16>, head: HeadRows, row0: u32, rows: u32) {
    // A thread copies one chunk column of rows `first`, `first + step`, …: THREADS is a
    // multiple of a row's chunks, so the column stays the same on every pass.
    let (chunks, step) = (Tile::<D16>::ROW_CHUNKS, Tile::<D16>::COPY_STEP);
    const { assert!(THREADS % Tile::<D16>::ROW_CHUNKS == 0) };
    let (first, chunk) = (thread_idx() / chunks, thread_idx() % chunks);
    // Whole swizzle patterns per pass: the same chunk position on every pass. Else (4 rows a
    // pass) a pass's destination is computed as it comes.
    let whole_patterns = const { Tile::<D16>::COPY_STEP % SWIZZLE_ROWS == 0 };
    const { assert!(SWIZZLE_ROWS % Tile::<D16>::COPY_STEP == 0 || Tile::<D16>::COPY_STEP % SWIZZLE_ROWS == 0) };
    let (dst, pass_bytes) = (tile.chunk(first, chunk), step * Tile::<D16>::ROW_BYTES);
    let offset = (row0 + first) as u64 * head.stride + u64::from(chunk * CHUNK_VALUES);
    let mut src = head.start.wrapping_add(offset as usize);
    let pass_stride = (step as u64 * head.stride) as usize;
    if row0 + rows <= head.rows {
        // Every row lies in the head: no check, no operand to select.
        for pass in 0..rows / step {
            let at = if whole_patterns { dst + pass * pass_bytes } else { tile.chunk(first + pass * step, chunk) };
            // SAFETY: 16 aligned readable bytes of the caller's head; the chunk lies in the tile.
            unsafe { cp_async_16_whole(at, src) };
            src = src.wrapping_add(pass_stride);
        }
    } else {
        for pass in 0..rows / step {
            let inside = row0 + first + pass * step < head.rows;
            let from = if inside { src } else { head.start };
            let at = if whole_patterns { dst + pass * pass_bytes } else { tile.chunk(first + pass * step, chunk) };
            // SAFETY: 16 aligned readable bytes when inside (the caller's head), none read
            // otherwise; the destination chunk lies in the tile.
            unsafe { cp_async_16(at, from, if inside { 16 } else { 0 }) };
            src = src.wrapping_add(pass_stride);
        }
    }
}

/// Q's A fragments of this warp's rows: loaded once and kept in registers for the whole loop,
/// or, where [`a03::q_in_registers`] says no, read again from Q's tile for each key tile (their
/// registers go to S and O). For row tile `mi` and k16 slice `kk`, lanes 0–15 point at rows
/// 0–15 at chunk `2kk` and lanes 16–31 at the same rows at chunk `2kk + 1`, so the four 8 × 8
/// matrices are (rows 0–7, k 0–7), (8–15, k 0–7), (0–7, k 8–15), (8–15, k 8–15): `a[0..4]`.
#[derive(Clone, Copy)]
struct QOperand<const D16: usize, const M: usize> {
    frags: QFragments<D16, M>,
    /// The warp's rows of Q's tile, as a tile of their own.
    rows: Tile<D16>,
    lane: u32,
}

impl<const D16: usize, const M: usize> QOperand<D16, M> {
    const IN_REGISTERS: bool = a03::q_in_registers(16 * D16 as u32);
    const WARP_ROWS: u32 = M as u32 * MMA_M;

    /// # Safety
    /// The whole warp calls it; Q's tile holds the block's rows (copies landed, a barrier).
    #[inline(always)]
    unsafe fn new(q: Tile<D16>, warp: u32, lane: u32) -> Self {
        let mut operand =
            Self { frags: [[[0u32; 4]; D16]; M], rows: q.offset_rows(warp * Self::WARP_ROWS), lane };
        if Self::IN_REGISTERS {
            let rows = operand.lane_rows();
            unroll!(M, at most 2, mi => {
                for (kk, frag) in operand.frags[mi].iter_mut().enumerate() {
                    // SAFETY: the whole warp; an aligned chunk inside Q's tile.
                    *frag = unsafe { ldmatrix_x4(rows.address(mi, kk)) };
                }
            });
        }
        operand
    }

    /// Where this lane's `ldmatrix` rows lie in the warp's rows.
    #[inline(always)]
    fn lane_rows(&self) -> LaneRows<D16> {
        LaneRows::new(self.rows, self.lane % 16, self.lane / 16)
    }

    /// The A fragments of k16 slice `kk`, one per row tile.
    ///
    /// # Safety
    /// The whole warp calls it; Q's tile still holds the block's rows.
    #[inline(always)]
    unsafe fn slice(&self, kk: usize) -> [[u32; 4]; M] {
        if Self::IN_REGISTERS {
            core::array::from_fn(|mi| self.frags[mi][kk])
        } else {
            let rows = self.lane_rows();
            // SAFETY: the whole warp; an aligned chunk inside Q's tile.
            core::array::from_fn(|mi| unsafe { ldmatrix_x4(rows.address(mi, kk)) })
        }
    }
}

/// S = Q·Kᵀ for one key tile (unscaled): for each k16 slice `kk` of the head dim (Q's A
/// fragments of both row tiles, from registers or from Q's tile) and each 16 keys `pair`, one
/// `ldmatrix.x4` of K gives the B fragments of two n8 tiles of keys, used by both row tiles. Lane
/// `l` points at key `pair·16 + (l / 16)·8 + l % 8`, chunk `2kk + (l / 8) % 2`: the matrices are
/// (keys 0–7, k 0–7), (keys 0–7, k 8–15) = `b[0]`, `b[1]` of n8 tile `2·pair`, then the same
/// for keys 8–15, n8 tile `2·pair + 1`.
///
/// # Safety
/// The whole warp calls it; `k` holds the key tile.
#[inline(always)]
unsafe fn tile_scores<T: Half, const D16: usize, const M: usize, const N8: usize>(
    q: &QOperand<D16, M>,
    k: Tile<D16>,
    lane: u32,
) -> Scores<M, N8> {
    let mut s = [[[0.0f32; 4]; N8]; M];
    let rows = LaneRows::new(k, (lane / 16) * 8 + lane % 8, (lane / 8) % 2);
    unroll!(D16, at most 16, kk => {
        // SAFETY: the whole warp; Q's tile holds the block's rows.
        let a = unsafe { q.slice(kk) };
        unroll!(N8 / 2, at most 8, pair => {
            // SAFETY: the whole warp; an aligned chunk inside the K tile.
            let b = unsafe { ldmatrix_x4(rows.address(pair, kk)) };
            for mi in 0..M {
                s[mi][2 * pair] = T::mma_m16n8k16(a[mi], [b[0], b[1]], s[mi][2 * pair]);
                s[mi][2 * pair + 1] = T::mma_m16n8k16(a[mi], [b[2], b[3]], s[mi][2 * pair + 1]);
            }
        });
    });
    s
}

/// Sets to −∞ the scores of keys a row does not see: element `e` of n8 tile `n` is key
/// `k0 + 8n + 2t + e % 2` of row `g` (e < 2) or `g + 8`, masked when it is at or past that
/// row's visible count (past `seq_k`, or past the causal diagonal).
#[inline(always)]
fn mask_scores<const M: usize, const N8: usize>(s: &mut Scores<M, N8>, k0: u32, visible: &RowValues<u32, M>, t: u32) {
    unroll!(M, at most 2, mi => {
        unroll!(N8, at most 16, n => {
            for (e, score) in s[mi][n].iter_mut().enumerate() {
                let key = k0 + n as u32 * MMA_N + 2 * t + e as u32 % 2;
                if key >= visible[mi][e / 2] {
                    *score = f32::NEG_INFINITY;
                }
            }
        });
    });
}

/// The online-softmax step for one key tile: each row's new maximum `m` (over its quad, two
/// xor shuffles), the factor `alpha = 2^((m_old − m_new)·scale·log2 e)` that rescales what was
/// accumulated under the old maximum, the probabilities `p = 2^((s − m_new)·scale·log2 e)`
/// (one `fma` and one `ex2` each, rounded to `T` in pairs at once), and the running sum
/// `l ← l·alpha + Σp`. A lane keeps its own part of `l` (alpha is the same in the 4 lanes of
/// a row); the epilogue adds the parts.
///
/// A row that has seen only masked keys keeps `m = −∞`; its exponentials are then taken
/// against 0 instead, so that −∞ − (−∞) never makes a NaN: `p` = 2^−∞ = 0, `alpha` = 0.
///
/// Returns P rounded to `T`, each n8 tile's two registers (the A fragments of the module
/// comment, two tiles a k16 slice), and alpha.
#[inline(always)]
fn online_softmax<T: Half, const M: usize, const N8: usize>(
    s: &Scores<M, N8>,
    stats: &mut RowStats<M>,
    scale_log2: f32,
) -> (PFragments<M, N8>, RowValues<f32, M>) {
    let RowStats { m, l } = stats;
    let mut alpha = [[0.0f32; 2]; M];
    let mut p = [[[0u32; 2]; N8]; M];
    unroll!(M, at most 2, mi => {
        unroll!(2, half => {
            let mut row_max = m[mi][half];
            for c in &s[mi] {
                row_max = row_max.max(c[2 * half]).max(c[2 * half + 1]);
            }
            row_max = row_max.max(shuffle_xor_f32(row_max, 1));
            row_max = row_max.max(shuffle_xor_f32(row_max, 2));
            let reference = if row_max == f32::NEG_INFINITY { 0.0 } else { row_max };
            let offset = -reference * scale_log2;
            alpha[mi][half] = exp2_approx(core::f32::math::mul_add(m[mi][half], scale_log2, offset));
            m[mi][half] = row_max;
            let mut sum = 0.0f32;
            for (pn, c) in p[mi].iter_mut().zip(&s[mi]) {
                let exp = |x: f32| exp2_approx(core::f32::math::mul_add(x, scale_log2, offset));
                let (p0, p1) = (exp(c[2 * half]), exp(c[2 * half + 1]));
                sum += p0;
                sum += p1;
                pn[half] = T::pack_x2(p0, p1);
            }
            l[mi][half] = core::f32::math::mul_add(l[mi][half], alpha[mi][half], sum);
        });
    });
    (p, alpha)
}

/// O ← O·alpha, row by row: what was summed under the old maximum, brought to the new one.
#[inline(always)]
fn rescale_output<const D16: usize, const M: usize>(o: &mut Output<D16, M>, alpha: &RowValues<f32, M>) {
    unroll!(M, at most 2, mi => {
        // Written out: at head dim 256 LLVM keeps a loop over the 16 pairs, and O goes to local
        // memory.
        unroll!(D16, at most 16, pair => {
            for c in &mut o[mi][pair] {
                c[0] *= alpha[mi][0];
                c[1] *= alpha[mi][0];
                c[2] *= alpha[mi][1];
                c[3] *= alpha[mi][1];
            }
        });
    });
}

/// O += P·V for one key tile: for each k16 slice `kk` of keys (P's n8 tiles `2kk`, `2kk + 1`
/// as one A fragment) and each 16 head-dim columns `pair`, one `ldmatrix.x4.trans` of V gives
/// the B fragments of two n8 tiles of columns. Lane
/// `l` points at key `16kk + l % 16`, chunk `2·pair + l / 16`: the matrices are (keys 0–7,
/// columns 0–7), (keys 8–15, columns 0–7) = `b[0]`, `b[1]` of n8 tile 0, then columns 8–15.
///
/// # Safety
/// The whole warp calls it; `v` holds the value tile.
#[inline(always)]
unsafe fn accumulate_pv<T: Half, const D16: usize, const M: usize, const N8: usize>(
    o: &mut Output<D16, M>,
    p: &PFragments<M, N8>,
    v: Tile<D16>,
    lane: u32,
) {
    let rows = LaneRows::new(v, lane % 16, lane / 16);
    unroll!(N8 / 2, at most 8, kk => {
        let a: [[u32; 4]; M] = core::array::from_fn(|mi| {
            let (lo, hi) = (p[mi][2 * kk], p[mi][2 * kk + 1]);
            [lo[0], lo[1], hi[0], hi[1]]
        });
        unroll!(D16, at most 16, pair => {
            // SAFETY: the whole warp; an aligned chunk inside the V tile.
            let b = unsafe { ldmatrix_x4_trans(rows.address(kk, pair)) };
            for mi in 0..M {
                o[mi][pair][0] = T::mma_m16n8k16(a[mi], [b[0], b[1]], o[mi][pair][0]);
                o[mi][pair][1] = T::mma_m16n8k16(a[mi], [b[2], b[3]], o[mi][pair][1]);
            }
        });
    });
}

/// The epilogue: each row's sum completed over its quad and its log-sum-exp `m·scale + ln l`
/// written by the quad's lane 0; O / l rounded to `T`, two columns (4 bytes) a lane, into the
/// warp's own rows of Q's tile (`staging`: no other warp reads them, and this one no more),
/// then read back 16 bytes a lane and stored by whole rows: a store instruction writes 4 rows'
/// 128 bytes (2 rows' 256 at head dim 128) instead of 16 bytes in each of 8 rows. A row that
/// saw no key (l = 0) gets O = 0 and −∞. Rows at or past `seq_q` (the last block's padding)
/// store nothing.
///
/// The staging writes meet no bank conflict: the 8 rows `g` of one write lie at the 8 chunk
/// positions `c ^ g` of a line of banks, the 4 lanes `t` at 4 words of each.
///
/// # Safety
/// The whole warp calls it, after its key loop; `o_rows` is row 0 of this head's O (row stride
/// `d.o.row`) and `lse_rows` its `seq_q` log-sum-exps; `rows` are this lane's rows and
/// `staging` the warp's `WARP_ROWS` rows of Q's tile, whose first is `warp_row0`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_output<T: Half, const D16: usize, const M: usize>(
    o: &Output<D16, M>,
    stats: &RowStats<M>,
    rows: &RowValues<u32, M>,
    d: &Dims,
    staging: Tile<D16>,
    warp_row0: u32,
    o_rows: *mut u16,
    lse_rows: *mut f32,
    lane: u32,
) {
    let (g, t) = (lane / 4, lane % 4);
    // The shuffles first, with every lane, before any lane-dependent branch.
    let mut sum = stats.l;
    for row_sums in sum.iter_mut() {
        for s in row_sums.iter_mut() {
            *s += shuffle_xor_f32(*s, 1);
            *s += shuffle_xor_f32(*s, 2);
        }
    }
    unroll!(M, at most 2, mi => {
        unroll!(2, half => {
            let l = sum[mi][half];
            let inverse = if l > 0.0 { 1.0 / l } else { 0.0 };
            // Columns 16·pair + 8·n8 + 2t and the next: chunk 2·pair + n8, its word t.
            let r = mi as u32 * MMA_M + 8 * half as u32 + g;
            // Written out, as in `rescale_output`.
            unroll!(D16, at most 16, pair => {
                for (n8, c) in o[mi][pair].iter().enumerate() {
                    let packed = T::pack_x2(c[2 * half] * inverse, c[2 * half + 1] * inverse);
                    let at = staging.chunk(r, 2 * pair as u32 + n8 as u32) + 4 * t;
                    // SAFETY: a 4-byte aligned word of the warp's own rows of Q's tile.
                    unsafe { SharedArray::<u32>::from_address(at).store(0, packed) };
                }
            });
            let row = rows[mi][half];
            if t == 0 && row < d.seq_q {
                let lse = if l > 0.0 {
                    stats.m[mi][half] * d.scale + log2_approx(l) * LN_2
                } else {
                    f32::NEG_INFINITY
                };
                // SAFETY: row < seq_q.
                unsafe { *lse_rows.add(row as usize) = lse };
            }
        });
    });
    sync_warp(u32::MAX);
    // Chunk `unit % ROW_CHUNKS` of row `unit / ROW_CHUNKS`: a pass covers whole rows, each
    // quarter-warp one row's 8 consecutive chunks (8 positions of a line of banks).
    let chunks = Tile::<D16>::ROW_CHUNKS;
    for pass in 0..M as u32 * MMA_M * chunks / WARP_SIZE {
        let unit = pass * WARP_SIZE + lane;
        let (r, chunk) = (unit / chunks, unit % chunks);
        let row = warp_row0 + r;
        if row < d.seq_q {
            // SAFETY: a 16-byte aligned chunk of the warp's rows, written above and visible
            // after the warp's barrier.
            let v = unsafe { SharedArray::<u32>::from_address(staging.chunk(r, chunk)).load_v4(0) };
            let offset = row as u64 * d.o.row + u64::from(chunk * CHUNK_VALUES);
            let out = o_rows.wrapping_add(offset as usize) as *mut I32x4;
            // SAFETY: row < seq_q, the chunk inside the head dim: inside O; 16-byte aligned
            // (O's base and row stride, and the chunk's 8 elements).
            unsafe { store_streaming_v4(out, I32x4(v.map(|w| w as i32))) };
        }
    }
}

/// The forward pass for one block of `BLOCK_Q` query rows of one (batch, query head), head
/// dim `16·D16`, 16-bit type `T`; `M` row tiles per warp and `N8` n8 tiles of keys per key tile
/// (the head dim's `a03::warp_rows` and `a03::block_k`).
///
/// # Safety
/// `dims` points to the problem, whose head dim is `16·D16` and whose strides are multiples
/// of 8 elements; `q`, `k`, `v`, `o` hold its tensors and `lse` batch · heads_q · seq_q f32.
/// Launched with `THREADS` threads, a grid of ⌈seq_q / `a03::block_q`⌉ × batch · heads_q blocks,
/// and [`a03::shared_bytes`]`(16·D16)` bytes of dynamic shared memory.
#[inline(always)]
unsafe fn flash_attention<T: Half, const D16: usize, const M: usize, const N8: usize>(
    q: *const u16,
    k: *const u16,
    v: *const u16,
    o: *mut u16,
    lse: *mut f32,
    dims: *const Dims,
) {
    // The chunk-pair patterns of `LaneRows` and the tiles' copies assume rows of 8, 16 or 32
    // chunks; the geometry is the head dim's.
    const { assert!(D16 == 4 || D16 == 8 || D16 == 16, "head dim 64, 128 or 256") };
    const {
        let head_dim = 16 * D16 as u32;
        assert!(SharedTiles::<D16, M, N8>::WARP_ROWS == a03::warp_rows(head_dim), "a03::warp_rows");
        assert!(SharedTiles::<D16, M, N8>::BLOCK_K == a03::block_k(head_dim), "a03::block_k");
    };
    const { assert!(SharedTiles::<D16, M, N8>::BLOCK_K % Tile::<D16>::COPY_STEP == 0, "whole passes") };
    const { assert!(SharedTiles::<D16, M, N8>::BLOCK_Q % Tile::<D16>::COPY_STEP == 0, "whole passes") };
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    let (warp, lane) = (thread_idx() / WARP_SIZE, thread_idx() % WARP_SIZE);
    let (g, t) = (lane / 4, lane % 4);
    let tiles = SharedTiles::<D16, M, N8>;
    let (q0, y) = (block_idx() * tiles.block_q(), block_idx_y());
    // SAFETY: a problem has at least one query head, and one per key/value head. (Divisors
    // known to be non-zero: no division-by-zero panic, whose call would cost registers.)
    let (heads_q, group) =
        unsafe { (NonZeroU32::new_unchecked(d.heads_q), NonZeroU32::new_unchecked(d.group)) };
    let (b, h) = (y / heads_q, y % heads_q);
    let kv_head = h / group;
    let head = |start: *const u16, offset: u64, stride: u64, rows: u32| HeadRows {
        start: start.wrapping_add(offset as usize),
        stride,
        rows,
    };
    let q_head = head(q, d.q.row_offset(b, h, 0), d.q.row, d.seq_q);
    let k_head = head(k, d.k.row_offset(b, kv_head, 0), d.k.row, d.seq_k);
    let v_head = head(v, d.v.row_offset(b, kv_head, 0), d.v.row, d.seq_k);

    // The key tiles this block reads: up to the last key its last row sees (all keys, or
    // fewer under the causal mask; none when every row's keys are masked).
    let last_row = (q0 + tiles.block_q()).min(d.seq_q) - 1;
    let key_tiles = d.visible_keys(last_row).div_ceil(tiles.block_k());
    // Starts the copies of key tile `j` into stage `j % STAGES` (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    let load_kv = |j: u32| {
        if j < key_tiles {
            let stage = j % STAGES;
            // SAFETY: the whole block; K's and V's heads, 16-byte aligned rows; the stage's
            // tiles of BLOCK_K rows.
            unsafe {
                copy_tile(tiles.k(stage), k_head, j * tiles.block_k(), tiles.block_k());
                copy_tile(tiles.v(stage), v_head, j * tiles.block_k(), tiles.block_k());
            }
        }
        cp_async_commit();
    };

    // Prologue: Q's tile (its own group, the oldest), then the first STAGES − 1 key tiles.
    // SAFETY: the whole block; Q's head; Q's tile of BLOCK_Q rows.
    unsafe { copy_tile(tiles.q(), q_head, q0, tiles.block_q()) };
    cp_async_commit();
    for j in 0..STAGES - 1 {
        load_kv(j);
    }
    cp_async_wait_group::<{ STAGES - 1 }>();
    sync_threads();
    // SAFETY: the whole warp; Q's tile landed and is visible after the barrier.
    let q_frags = unsafe { QOperand::<D16, M>::new(tiles.q(), warp, lane) };

    // This lane's rows (g and g + 8 of each row tile) and the keys each sees; and the keys
    // every row of the warp sees (its first row's: the count grows with the row), below
    // which a tile needs no mask.
    let warp_row0 = q0 + warp * tiles.warp_rows();
    let rows: RowValues<u32, M> =
        core::array::from_fn(|mi| [0, 8].map(|dr| warp_row0 + mi as u32 * MMA_M + g + dr));
    let visible = rows.map(|r| r.map(|row| d.visible_keys(row)));
    let unmasked_keys = d.visible_keys(warp_row0);
    let scale_log2 = d.scale * LOG2_E;

    let mut stats = RowStats { m: [[f32::NEG_INFINITY; 2]; M], l: [[0.0; 2]; M] };
    let mut acc = [[[[0.0f32; 4]; 2]; D16]; M];
    for j in 0..key_tiles {
        // Tile j's group is the oldest but STAGES − 2 of those in flight: wait for it, then
        // make every thread's copies visible (and every warp done with tile j − 1, whose
        // stage the next load reuses).
        cp_async_wait_group::<{ STAGES - 2 }>();
        sync_threads();
        load_kv(j + STAGES - 1);
        let stage = j % STAGES;
        // SAFETY: the whole warp; the stage's K tile landed.
        let mut s = unsafe { tile_scores::<T, D16, M, N8>(&q_frags, tiles.k(stage), lane) };
        let k0 = j * tiles.block_k();
        if k0 + tiles.block_k() > unmasked_keys {
            mask_scores(&mut s, k0, &visible, t);
        }
        let (p, alpha) = online_softmax::<T, M, N8>(&s, &mut stats, scale_log2);
        rescale_output(&mut acc, &alpha);
        // SAFETY: the whole warp; the stage's V tile landed.
        unsafe { accumulate_pv::<T, D16, M, N8>(&mut acc, &p, tiles.v(stage), lane) };
    }

    let o_rows = o.wrapping_add(d.o.row_offset(b, h, 0) as usize);
    let lse_rows = lse.wrapping_add(y as usize * d.seq_q as usize);
    let staging = tiles.q().offset_rows(warp * tiles.warp_rows());
    // SAFETY: the whole warp, after its loop; this head's O and log-sum-exps; its Q rows.
    unsafe { store_output::<T, D16, M>(&acc, &stats, &rows, &d, staging, warp_row0, o_rows, lse_rows, lane) };
}

macro_rules! entry {
    ($name:ident, $ty:ident, $d16:literal, $m:literal, $n8:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// As [`flash_attention`], at the entry point's head dim.
        #[kernel(max_threads = THREADS)]
        pub unsafe fn $name(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, dims: *const Dims) {
            // SAFETY: forwarded.
            unsafe { flash_attention::<$ty, $d16, $m, $n8>(q, k, v, o, lse, dims) }
        }
    };
}

// Head dim, then row tiles per warp and n8 tiles of keys: a03::warp_rows / 16, block_k / 8.
entry!(a03_mma_sync_f16_d64, F16, 4, 2, 8, "a03 on f16, head dim 64.");
entry!(a03_mma_sync_bf16_d64, Bf16, 4, 2, 8, "a03 on bf16, head dim 64.");
entry!(a03_mma_sync_f16_d128, F16, 8, 2, 8, "a03 on f16, head dim 128.");
entry!(a03_mma_sync_bf16_d128, Bf16, 8, 2, 8, "a03 on bf16, head dim 128.");
entry!(a03_mma_sync_f16_d256, F16, 16, 1, 4, "a03 on f16, head dim 256.");
entry!(a03_mma_sync_bf16_d256, Bf16, 16, 1, 4, "a03 on bf16, head dim 256.");
