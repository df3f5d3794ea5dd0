//! What the Hopper attention steps (a04 on) share: the `wgmma` forms of the two products, the
//! tiles in 128-byte-swizzled panels the tensor cores read, a warpgroup's key-tile math
//! (scores, then the online softmax, then P·V) and its epilogue.
//!
//! # Shared memory
//!
//! Every tile (Q's, K's, V's) is stored as head dim / 64 *panels* of 64 columns, one after the
//! other; in a panel, row `r` is 128 bytes at `128·r`, its 16-byte chunk `c` at position
//! `c ^ (r % 8)`: the 128-byte swizzle the `wgmma` descriptors name
//! ([`descriptor`]), in 8-row atoms of 1 KB (and what TMA writes with the 128-byte swizzle).
//! - Q (A, K-major: a row's head-dim values contiguous) and K (B of the scores, also K-major,
//!   since a column of Kᵀ is a row of K): a k16 step is 32 bytes into the rows, and every 4
//!   steps the next panel; atoms along M (or N) 1 KB apart.
//! - V (B of P·V, N-major: a key's head-dim values contiguous): a k16 step is 16 rows (2
//!   atoms); one `wgmma` m64n64k16 per panel, or (a10, head dim 128) one m64n128k16 over both,
//!   the descriptor's leading offset stepping from the first panel's atoms to the second's.

use super::fragments::{self, RowStats, Tiles};
use super::{Bf16, F16, Half};
use crate::device::index::WARP_SIZE;
use crate::device::wgmma::{
    self, M64N64_ACC, M64N128_ACC, descriptor, mma_m64n64k16_a_regs_bf16, mma_m64n64k16_a_regs_f16,
    mma_m64n128k16_a_regs_bf16, mma_m64n128k16_a_regs_f16, mma_m64n128k16_b_k_major_bf16,
    mma_m64n128k16_b_k_major_f16,
};
use crate::unroll;
use common::attention::Dims;

/// Threads of a warpgroup, and the query rows it owns (one `wgmma` m64 tile).
pub const WARPGROUP: u32 = 4 * WARP_SIZE;
pub const WARPGROUP_ROWS: u32 = 64;
/// Rows of one warp within its warpgroup's accumulators; a thread holds two, this far apart.
pub const WARP_ROWS: u32 = 16;
pub const HALF_ROWS: u32 = 8;

/// Keys per tile: the N of the scores' `wgmma` (m64n128k16).
pub const KEYS: u32 = 128;

/// Columns of a panel; a swizzle row: 128 bytes, 64 16-bit values, 8 chunks; an atom: 8 rows.
pub const PANEL_COLUMNS: u32 = 64;
pub const ROW_BYTES: u32 = 128;
const CHUNK_BYTES: u32 = 16;
const ROW_CHUNKS: u32 = ROW_BYTES / CHUNK_BYTES;
const ATOM_BYTES: u32 = 8 * ROW_BYTES;
/// k values per `wgmma`, and its bytes along a K-major row.
const MMA_K: u32 = 16;
const MMA_K_BYTES: u32 = MMA_K * 2;
/// k16 steps per 128-byte row.
const STEPS_PER_ROW: usize = (ROW_BYTES / MMA_K_BYTES) as usize;

/// Scores per thread of one key tile (m64n128) and output per thread of one 64-column panel
/// (m64n64), as n8 tiles of 4.
const S_N8: usize = M64N128_ACC / 4;
pub const PANEL_N8: usize = M64N64_ACC / 4;
/// k16 slices of keys in a tile: the A fragments of P·V.
const KEY_K16: usize = (KEYS / MMA_K) as usize;

/// The N of P·V's `wgmma`: a panel at a time (m64n64k16, a04–a09), or, at head dim 128, both
/// panels at once (m64n128k16, a10: P read from registers once, half the `wgmma`).
pub const PV_PANEL: usize = 64;
pub const PV_BOTH_PANELS: usize = 128;

/// A warpgroup's scores of one key tile, as one thread holds them.
pub type Scores = Tiles<S_N8>;

/// P rounded to 16 bits as the A fragments of P·V, one per k16 slice of keys.
pub type Probabilities = [[u32; 4]; KEY_K16];

/// A warpgroup's output accumulators, `PANELS` panels of 64 columns.
pub type Output<const PANELS: usize> = [Tiles<PANEL_N8>; PANELS];

/// The `wgmma` forms of a 16-bit type.
pub trait Wgmma: Half {
    /// Scores: `acc (+)= A · B`, m64n128k16, A and B K-major by descriptor.
    ///
    /// # Safety
    /// As `wgmma::mma_m64n128k16_b_k_major_f16`.
    unsafe fn scores(acc: &mut [f32; M64N128_ACC], a: u64, b: u64, accumulate: bool);
    /// One output panel: `acc += A · B`, m64n64k16, A from registers, B N-major by descriptor.
    ///
    /// # Safety
    /// As `wgmma::mma_m64n64k16_a_regs_f16`.
    unsafe fn output(acc: &mut [f32; M64N64_ACC], a: [u32; 4], b: u64);
    /// Both output panels at head dim 128: `acc += A · B`, m64n128k16, A from registers, B
    /// N-major by descriptor.
    ///
    /// # Safety
    /// As `wgmma::mma_m64n128k16_a_regs_f16`.
    unsafe fn output_both(acc: &mut [f32; M64N128_ACC], a: [u32; 4], b: u64);
}

impl Wgmma for F16 {
    #[inline(always)]
    unsafe fn scores(acc: &mut [f32; M64N128_ACC], a: u64, b: u64, accumulate: bool) {
        // SAFETY: forwarded.
        unsafe { mma_m64n128k16_b_k_major_f16(acc, a, b, accumulate) }
    }
    #[inline(always)]
    unsafe fn output(acc: &mut [f32; M64N64_ACC], a: [u32; 4], b: u64) {
        // SAFETY: forwarded.
        unsafe { mma_m64n64k16_a_regs_f16(acc, a, b) }
    }
    #[inline(always)]
    unsafe fn output_both(acc: &mut [f32; M64N128_ACC], a: [u32; 4], b: u64) {
        // SAFETY: forwarded.
        unsafe { mma_m64n128k16_a_regs_f16(acc, a, b) }
    }
}

impl Wgmma for Bf16 {
    #[inline(always)]
    unsafe fn scores(acc: &mut [f32; M64N128_ACC], a: u64, b: u64, accumulate: bool) {
        // SAFETY: forwarded.
        unsafe { mma_m64n128k16_b_k_major_bf16(acc, a, b, accumulate) }
    }
    #[inline(always)]
    unsafe fn output(acc: &mut [f32; M64N64_ACC], a: [u32; 4], b: u64) {
        // SAFETY: forwarded.
        unsafe { mma_m64n64k16_a_regs_bf16(acc, a, b) }
    }
    #[inline(always)]
    unsafe fn output_both(acc: &mut [f32; M64N128_ACC], a: [u32; 4], b: u64) {
        // SAFETY: forwarded.
        unsafe { mma_m64n128k16_a_regs_bf16(acc, a, b) }
    }
}

/// A tile of `ROWS` rows of the head dim (`PANELS` × 64 columns) in swizzled panels.
#[derive(Clone, Copy)]
pub struct Panels<const ROWS: u32, const PANELS: usize> {
    pub base: u32,
}

impl<const ROWS: u32, const PANELS: usize> Panels<ROWS, PANELS> {
    pub const PANEL_BYTES: u32 = ROWS * ROW_BYTES;
    pub const BYTES: u32 = Self::PANEL_BYTES * PANELS as u32;
    /// 16-byte chunks per row of the head dim.
    pub const ROW_CHUNKS: u32 = PANELS as u32 * ROW_CHUNKS;

    /// The shared address of chunk `chunk` (of the whole head-dim row) of row `row`.
    #[inline(always)]
    pub fn chunk(self, row: u32, chunk: u32) -> u32 {
        let (panel, c) = (chunk / ROW_CHUNKS, chunk % ROW_CHUNKS);
        self.base + panel * Self::PANEL_BYTES + row * ROW_BYTES + (c ^ (row % 8)) * CHUNK_BYTES
    }

    /// The shared address of panel `panel`.
    #[inline(always)]
    pub fn panel(self, panel: u32) -> u32 {
        self.base + panel * Self::PANEL_BYTES
    }

    /// The descriptor of this tile as a K-major operand at k16 step `kk`, from row `row0`
    /// (a multiple of 8): 32 bytes into the rows per step, the next panel every 4.
    #[inline(always)]
    fn k_major(self, row0: u32, kk: usize) -> u64 {
        let (panel, step) = ((kk / STEPS_PER_ROW) as u32, (kk % STEPS_PER_ROW) as u32);
        descriptor(self.panel(panel) + row0 * ROW_BYTES + step * MMA_K_BYTES, 0, ATOM_BYTES)
    }

    /// The descriptor of panel `panel` of this tile as an N-major operand at k16 step `kk`
    /// (rows `16kk …`): atoms along N a panel apart, along K 1 KB apart.
    #[inline(always)]
    fn n_major(self, panel: usize, kk: usize) -> u64 {
        descriptor(self.panel(panel as u32) + kk as u32 * MMA_K * ROW_BYTES, Self::PANEL_BYTES, ATOM_BYTES)
    }
}

/// Where a thread of a warpgroup stands among the block's query rows: its two rows (g and
/// g + 8 of its warp's 16) and the keys each sees, and the keys every row of its warp sees
/// (below which a key tile needs no mask).
#[derive(Clone, Copy)]
pub struct LaneRows {
    pub rows: [u32; 2],
    pub visible: [u32; 2],
    pub unmasked_keys: u32,
    /// `lane % 4`: which columns of each n8 tile the lane holds.
    pub t: u32,
}

impl LaneRows {
    /// Thread `thread` (of its warpgroup's 128) of the warpgroup whose rows start at
    /// `group_row0`.
    #[inline(always)]
    pub fn new(d: &Dims, group_row0: u32, thread: u32) -> Self {
        let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
        let warp_row0 = group_row0 + warp * WARP_ROWS;
        let rows = [warp_row0 + lane / 4, warp_row0 + lane / 4 + HALF_ROWS];
        Self { rows, visible: rows.map(|row| d.visible_keys(row)), unmasked_keys: d.visible_keys(warp_row0), t: lane % 4 }
    }
}

/// Issues (does not wait for) the warpgroup's scores of one key tile: S = Q·Kᵀ as head dim / 16
/// `wgmma` m64n128k16, the first overwriting the last tile's scores; `q_row0` is the
/// warpgroup's first row in Q's tile.
///
/// # Safety
/// The whole warpgroup calls it; Q's and K's tiles have landed and stay unchanged, and `s`
/// unread, until a `wait_group` has seen the group finish.
#[inline(always)]
pub unsafe fn issue_scores<T: Wgmma, const Q_ROWS: u32, const PANELS: usize>(
    s: &mut Scores,
    q: Panels<Q_ROWS, PANELS>,
    q_row0: u32,
    k: Panels<KEYS, PANELS>,
) {
    wgmma::fence();
    for kk in 0..4 * PANELS {
        // SAFETY: the caller's contract.
        unsafe { T::scores(fragments::flat(s), q.k_major(q_row0, kk), k.k_major(0, kk), kk > 0) };
    }
    wgmma::commit_group();
}

/// The probabilities `p` rounded to `T` as P·V's A fragments.
#[inline(always)]
pub fn pack_probabilities<T: Half>(p: &Scores) -> Probabilities {
    let mut a = [[0u32; 4]; KEY_K16];
    // (Written out: as a loop, LLVM keeps it one and moves the scores to local memory to
    // index them.)
    const { assert!(KEY_K16 == 8, "the unroll! below covers 8 slices") };
    unroll!(8, kk => {
        a[kk] = fragments::p_fragment::<T, S_N8>(p, kk);
    });
    a
}

/// Issues (does not wait for) O += P·V for one key tile: P's k16 slices from registers, V's
/// panels from shared memory, `PV_N` columns per `wgmma` ([`PV_PANEL`] or
/// [`PV_BOTH_PANELS`]).
///
/// # Safety
/// The whole warpgroup calls it; V's tile has landed and stays unchanged, and `p` unchanged
/// and `out` unread, until a `wait_group` has seen the group finish.
#[inline(always)]
pub unsafe fn issue_output<T: Wgmma, const PANELS: usize, const PV_N: usize>(
    out: &mut Output<PANELS>,
    p: &Probabilities,
    v: Panels<KEYS, PANELS>,
) {
    const { assert!(PV_N == PV_PANEL || (PV_N == PV_BOTH_PANELS && PANELS == 2), "a panel, or both of two") };
    wgmma::fence();
    if PV_N == PV_BOTH_PANELS {
        // SAFETY: PANELS is 2 here (the assertion above): `[[[f32; 4]; 8]; 2]` and `[f32; 64]`
        // have the same size, alignment and layout, the first panel's n8 tiles the m64n128
        // accumulator's 0–7 and the second's 8–15.
        let both = unsafe { &mut *(out as *mut Output<PANELS>).cast::<[f32; M64N128_ACC]>() };
        unroll!(8, kk => {
            // SAFETY: the caller's contract; the descriptor at the first panel names both.
            unsafe { T::output_both(both, p[kk], v.n_major(0, kk)) };
        });
    } else {
        unroll!(8, kk => {
            for (panel, acc) in out.iter_mut().enumerate() {
                // SAFETY: the caller's contract.
                unsafe { T::output(fragments::flat(acc), p[kk], v.n_major(panel, kk)) };
            }
        });
    }
    wgmma::commit_group();
}

/// The online softmax of one key tile's scores `s` (in place, into probabilities), keys from
/// `k0`: masked where a row of the warp does not see them all, then the step of
/// [`fragments::softmax_step`], in `CHAINS` chains; returns the factors that bring the output
/// to the new maxima.
#[inline(always)]
pub fn softmax<const CHAINS: usize>(
    s: &mut Scores,
    stats: &mut RowStats,
    lane: &LaneRows,
    k0: u32,
    scale_log2: f32,
) -> [f32; 2] {
    if k0 + KEYS > lane.unmasked_keys {
        fragments::mask(s, k0, lane.visible, lane.t);
    }
    fragments::softmax_step::<_, CHAINS>(s, stats, scale_log2)
}

/// O ← O·alpha, row by row.
#[inline(always)]
pub fn rescale<const PANELS: usize>(out: &mut Output<PANELS>, alpha: [f32; 2]) {
    for panel in out.iter_mut() {
        fragments::rescale(panel, alpha);
    }
}

/// The epilogue: each row's sum over its quad, O / l rounded to `T` and stored (two columns,
/// 4 bytes, per store), and the log-sum-exp by the quad's lane 0. Rows past seq_q store
/// nothing; a row that saw no key (l = 0) gets zeros and −∞.
///
/// # Safety
/// The whole warp calls it; `o_rows` is row 0 of this head's O (row stride `d.o.row`) and
/// `lse_rows` its `seq_q` log-sum-exps.
#[inline(always)]
pub unsafe fn store_output<T: Half, const PANELS: usize>(
    out: &Output<PANELS>,
    stats: &RowStats,
    lane: &LaneRows,
    d: &Dims,
    o_rows: *mut u16,
    lse_rows: *mut f32,
) {
    let sums = fragments::row_sums(stats);
    for half in 0..2 {
        let row = lane.rows[half];
        if row >= d.seq_q {
            continue;
        }
        let l = sums[half];
        let inverse = if l > 0.0 { 1.0 / l } else { 0.0 };
        let out_row = o_rows.wrapping_add((row as u64 * d.o.row) as usize);
        for (panel, acc) in out.iter().enumerate() {
            for (n, c) in acc.iter().enumerate() {
                let column = PANEL_COLUMNS * panel as u32 + fragments::column(n, 0, lane.t);
                let packed = T::pack_x2(c[2 * half] * inverse, c[2 * half + 1] * inverse);
                // SAFETY: row < seq_q, column + 1 < head dim: inside O; 4-byte aligned (even
                // column, row offsets multiples of 8 elements).
                unsafe { *(out_row.wrapping_add(column as usize) as *mut u32) = packed };
            }
        }
        // SAFETY: row < seq_q: this head's log-sum-exps.
        unsafe { store_log_sum_exp(stats, l, lane, half, d, lse_rows) };
    }
}

/// The log-sum-exp of the lane's row `half` (`l` its sum over the quad), stored by the quad's
/// lane 0.
///
/// # Safety
/// The row lies below seq_q; `lse_rows` is this head's `seq_q` log-sum-exps.
#[inline(always)]
pub unsafe fn store_log_sum_exp(stats: &RowStats, l: f32, lane: &LaneRows, half: usize, d: &Dims, lse_rows: *mut f32) {
    if lane.t == 0 {
        // SAFETY: the caller's row.
        unsafe { *lse_rows.add(lane.rows[half] as usize) = fragments::log_sum_exp(stats.m[half], l, d.scale) };
    }
}
