//! The online softmax on a warp's accumulator fragments, as the tensor-core steps hold them.
//!
//! A warp's 16 rows of an f32 accumulator, `mma.sync` m16n8's or `wgmma`'s (whose warp `w`
//! holds rows `16w … 16w + 15` in the same layout), lie in each lane as a flat array: with
//! `g = lane / 4` and `t = lane % 4`, element `i` is row `g` (`i % 4 < 2`) or `g + 8`,
//! column `8·(i / 4) + 2t + i % 2`. A row's values are spread over the 4 lanes of a quad,
//! 2 per n8 tile each; its maximum and sum are a lane's loop, then two xor shuffles.
//!
//! The pieces work on `[[f32; 4]; N8]`, one `[f32; 4]` per n8 tile of columns: S of one key
//! tile (`N8` = keys / 8) and O (head dim / 8, or a panel of it). (Nested, not flat: LLVM
//! unrolls a loop over 16 tiles of 4 where it keeps a loop over 64 elements, and then moves
//! the array to local memory to index it.) [`flat`] gives the flat view `wgmma` takes.

use super::Half;
use crate::device::convert::{exp2_approx, log2_approx};
use crate::device::warp::shuffle_xor_f32;

/// ln(2): ln(x) = log2(x)·ln 2.
const LN_2: f32 = core::f32::consts::LN_2;

/// Accumulator elements per n8 tile of a lane (two rows × two columns).
const PER_N8: usize = 4;

/// A lane's accumulators of `N8` n8 tiles: tile `n` holds row `g`, columns `8n + 2t`,
/// `8n + 2t + 1` in `[0]`, `[1]`, and the same columns of row `g + 8` in `[2]`, `[3]`.
pub type Tiles<const N8: usize> = [[f32; PER_N8]; N8];

/// The flat view of `tiles`, as `wgmma`'s accumulator operands list them (element `4n + e`
/// is `tiles[n][e]`).
#[inline(always)]
pub fn flat<const N8: usize, const N: usize>(tiles: &mut Tiles<N8>) -> &mut [f32; N] {
    const { assert!(N == PER_N8 * N8) };
    // SAFETY: `[[f32; 4]; N8]` and `[f32; 4·N8]` have the same size, alignment and layout.
    unsafe { &mut *(tiles as *mut Tiles<N8>).cast::<[f32; N]>() }
}

/// The column of element `e` of n8 tile `n` for the lane with `t = lane % 4`.
#[inline(always)]
pub const fn column(n: usize, e: usize, t: u32) -> u32 {
    8 * n as u32 + 2 * t + (e % 2) as u32
}

/// The online softmax's running state of a lane's two rows: `m`, the largest score seen so
/// far (unscaled; −∞ until a visible key), and `l`, this lane's part of the row's
/// Σ 2^((s − m)·scale·log2 e) (the quad's parts are added at the end).
#[derive(Clone, Copy)]
pub struct RowStats {
    pub m: [f32; 2],
    pub l: [f32; 2],
}

impl RowStats {
    pub const EMPTY: Self = Self { m: [f32::NEG_INFINITY; 2], l: [0.0; 2] };
}

/// Sets to −∞ the scores of keys a row does not see: element `e` of tile `n` is key
/// `k0 + column(n, e, t)` of row `g` (e < 2) or `g + 8`, masked when at or past that row's
/// visible count (`visible`).
#[inline(always)]
pub fn mask<const N8: usize>(s: &mut Tiles<N8>, k0: u32, visible: [u32; 2], t: u32) {
    // By 8 tiles (64 keys), each group's loop unrolled: over all 16 tiles of a 128-key tile
    // LLVM keeps the loop, and the scores go to local memory to be indexed.
    const GROUP: usize = 8;
    const { assert!(N8 <= GROUP || N8 == 2 * GROUP, "up to 128 keys") };
    if N8 <= GROUP {
        mask_tiles(s, k0, visible, t);
    } else {
        let groups = s.as_chunks_mut::<GROUP>().0;
        crate::unroll!(2, i => {
            mask_tiles(&mut groups[i], k0 + (i * GROUP) as u32 * 8, visible, t);
        });
    }
}

/// [`mask`] over up to 8 tiles.
#[inline(always)]
fn mask_tiles<const N8: usize>(s: &mut Tiles<N8>, k0: u32, visible: [u32; 2], t: u32) {
    for (n, c) in s.iter_mut().enumerate() {
        for (e, score) in c.iter_mut().enumerate() {
            // A select, not a branch: 64 branches would keep LLVM from unrolling the loop.
            let hidden = k0 + column(n, e, t) >= visible[e / 2];
            *score = if hidden { f32::NEG_INFINITY } else { *score };
        }
    }
}

/// A row's maximum and sum as one chain through its scores in order (a04–a08).
pub const ONE_CHAIN: usize = 1;

/// One key tile's online-softmax step, in place: each row's new maximum (the quad's, two xor
/// shuffles), the probabilities `p = 2^((s − m_new)·scale·log2 e)` written over the scores
/// (one `fma` and one `ex2` each), the running sum `l ← l·alpha + Σp`; returns each row's
/// `alpha = 2^((m_old − m_new)·scale·log2 e)`, which rescales what was summed under the old
/// maximum. A row that has seen only masked keys keeps `m = −∞`; its exponentials are taken
/// against 0 instead, so that −∞ − (−∞) never makes a NaN: `p` = 0, `alpha` = 0.
///
/// A lane's part of a row's maximum and sum is taken in `CHAINS` independent chains, n8 tile
/// `n` into chain `n % CHAINS`, joined as a tree ([`tree`]): one chain ([`ONE_CHAIN`]) is
/// `2·N8` dependent instructions in a row, four a quarter of that and two more.
///
/// Every lane of the warp calls it (the shuffles).
#[inline(always)]
pub fn softmax_step<const N8: usize, const CHAINS: usize>(
    s: &mut Tiles<N8>,
    stats: &mut RowStats,
    scale_log2: f32,
) -> [f32; 2] {
    let mut alpha = [0.0f32; 2];
    // (Written out, as the loop over tiles inside is long: kept a loop, it would move the
    // statistics to local memory to index them.)
    crate::unroll!(2, half => {
        // Chain 0 starts from the running maximum, the others from −∞.
        let mut maxes = [f32::NEG_INFINITY; CHAINS];
        maxes[0] = stats.m[half];
        for (n, c) in s.iter().enumerate() {
            let chain = &mut maxes[n % CHAINS];
            *chain = chain.max(c[2 * half]).max(c[2 * half + 1]);
        }
        let mut row_max = tree(maxes, f32::max);
        row_max = row_max.max(shuffle_xor_f32(row_max, 1));
        row_max = row_max.max(shuffle_xor_f32(row_max, 2));
        let reference = if row_max == f32::NEG_INFINITY { 0.0 } else { row_max };
        let offset = -reference * scale_log2;
        alpha[half] = exp2_approx(core::f32::math::mul_add(stats.m[half], scale_log2, offset));
        stats.m[half] = row_max;
        let mut sums = [0.0f32; CHAINS];
        for (n, c) in s.iter_mut().enumerate() {
            // (Written out: as a loop over the pair, the chains went to local memory.)
            let (lo, hi) = (2 * half, 2 * half + 1);
            c[lo] = exp2_approx(core::f32::math::mul_add(c[lo], scale_log2, offset));
            sums[n % CHAINS] += c[lo];
            c[hi] = exp2_approx(core::f32::math::mul_add(c[hi], scale_log2, offset));
            sums[n % CHAINS] += c[hi];
        }
        let sum = tree(sums, |a, b| a + b);
        stats.l[half] = core::f32::math::mul_add(stats.l[half], alpha[half], sum);
    });
    alpha
}

/// `chains` joined pairwise by `join`, a tree: `((c0 ∘ c1) ∘ (c2 ∘ c3))` for four, `c0` for one.
#[inline(always)]
pub fn tree<const CHAINS: usize>(mut chains: [f32; CHAINS], join: impl Fn(f32, f32) -> f32) -> f32 {
    const { assert!(CHAINS.is_power_of_two(), "a power of two of chains") };
    let mut width = CHAINS;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            chains[i] = join(chains[2 * i], chains[2 * i + 1]);
        }
    }
    chains[0]
}

/// O ← O·alpha, row by row: what was summed under the old maximum, brought to the new one.
#[inline(always)]
pub fn rescale<const N8: usize>(o: &mut Tiles<N8>, alpha: [f32; 2]) {
    for c in o.iter_mut() {
        c[0] *= alpha[0];
        c[1] *= alpha[0];
        c[2] *= alpha[1];
        c[3] *= alpha[1];
    }
}

/// The A fragment of k16 slice `kk` of P, rounded to `T`: n8 tiles `2kk` and `2kk + 1` of
/// the probabilities hold row `g`, keys `2t, 2t + 1` and `8 + 2t, 8 + 2t + 1` (and the same
/// for `g + 8`), which is what an m16 × k16 A fragment asks of this lane: packing pairs is
/// the whole conversion, with no shuffle and no shared memory.
#[inline(always)]
pub fn p_fragment<T: Half, const N8: usize>(p: &Tiles<N8>, kk: usize) -> [u32; 4] {
    let (lo, hi) = (p[2 * kk], p[2 * kk + 1]);
    [T::pack_x2(lo[0], lo[1]), T::pack_x2(lo[2], lo[3]), T::pack_x2(hi[0], hi[1]), T::pack_x2(hi[2], hi[3])]
}

/// Each row's whole sum `l`, over its quad (every lane of the warp calls it).
#[inline(always)]
pub fn row_sums(stats: &RowStats) -> [f32; 2] {
    stats.l.map(|l| {
        let l = l + shuffle_xor_f32(l, 1);
        l + shuffle_xor_f32(l, 2)
    })
}

/// The natural log-sum-exp of a row from its maximum (unscaled) and whole sum: `m·scale +
/// ln l`, or −∞ for a row that saw no key (`l` = 0).
#[inline(always)]
pub fn log_sum_exp(m: f32, l: f32, scale: f32) -> f32 {
    if l > 0.0 { m * scale + log2_approx(l) * LN_2 } else { f32::NEG_INFINITY }
}
