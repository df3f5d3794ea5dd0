//! Step a01 — three kernels: the scores to memory, a softmax per row, then P·V.
//!
//! Idea: attention as it is written: S = Q·Kᵀ·scale (−∞ where the mask hides a key) into an
//!       f32 array of batch · heads · seq_q · seq_k, a block per row turns it into P in place
//!       (max, exponentials, sum: the row's log-sum-exp), and O = P·V. One thread per score
//!       and per output, every operand from global memory.
//! Bottleneck: the scores' round trip through memory: 8 bytes per score, written and read
//!       twice, where the inputs are 2 bytes per element; and seq² of memory.
//! Cost: 4 · rows · seq_k bytes of scores; three launches.
//! Result: 0.9 TFLOP/s at head dim 128, seq 512, bf16, H100, 2026-11-25.
//!
//! More: docs/lessons.md#a01

use super::{Bf16, F16, Half};
use crate::device::convert::{exp2_approx, log2_approx};
use crate::device::index::{block_dim, block_idx, block_idx_y, block_idx_z, lane_idx, thread_idx, thread_idx_y, warp_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::device::warp::shuffle_xor_f32;
use crate::static_shared;
use common::attention::a01::{SOFTMAX_THREADS, TILE_X, TILE_Y};
use common::attention::Dims;
use kernel_macros::kernel;

/// log2(e): exp(x) = 2^(x·log2 e).
const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// ln(2): ln(x) = log2(x)·ln 2.
const LN_2: f32 = core::f32::consts::LN_2;

/// Warps in the softmax's block.
const WARPS: u32 = SOFTMAX_THREADS / 32;

/// The scores of (batch, query head) `z`, query row `i`, key `j`: `scale · q_i·k_j`, or −∞
/// where the mask hides key `j`. Grid: x over keys, y over query rows (`TILE_X` × `TILE_Y`
/// threads per block), z over batch · query heads.
///
/// # Safety
/// `dims` points to the problem; `q`, `k` hold its tensors; `s` holds `rows · seq_k` f32.
#[inline(always)]
unsafe fn scores<T: Half>(q: *const u16, k: *const u16, s: *mut f32, dims: *const Dims) {
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    let j = block_idx() * TILE_X + thread_idx();
    let i = block_idx_y() * TILE_Y + thread_idx_y();
    let z = block_idx_z();
    if i >= d.seq_q || j >= d.seq_k {
        return;
    }
    let (b, h) = (z / d.heads_q, z % d.heads_q);
    let score = if j < d.visible_keys(i) {
        let qi = d.q.row_offset(b, h, i) as usize;
        let kj = d.k.row_offset(b, h / d.group, j) as usize;
        let mut dot = 0.0f32;
        for c in 0..d.head_dim as usize {
            // SAFETY: row i of Q and row j of K lie inside their tensors.
            dot += unsafe { T::to_f32(*q.add(qi + c)) * T::to_f32(*k.add(kj + c)) };
        }
        dot * d.scale
    } else {
        f32::NEG_INFINITY
    };
    let row = u64::from(z) * u64::from(d.seq_q) + u64::from(i);
    // SAFETY: row < rows, j < seq_k.
    unsafe { *s.add((row * u64::from(d.seq_k) + u64::from(j)) as usize) = score };
}

static_shared! {
    /// The softmax's per-warp maxima, then its per-warp sums.
    fn softmax_partials() -> [f32; 2 * WARPS as usize];
}

/// The block's `op`-reduction of one value per thread, to every thread, through
/// `partials[base..base + WARPS]`.
///
/// # Safety
/// Every thread of a `SOFTMAX_THREADS` block; `partials[base..]` no one else's until the
/// next barrier after the return.
#[inline(always)]
unsafe fn block_reduce(value: f32, op: impl Fn(f32, f32) -> f32, partials: SharedArray<f32>, base: u32) -> f32 {
    let mut v = value;
    let mut lanes = 16;
    while lanes > 0 {
        v = op(v, shuffle_xor_f32(v, lanes));
        lanes /= 2;
    }
    if lane_idx() == 0 {
        // SAFETY: the warp's own slot.
        unsafe { partials.store(base + warp_idx(), v) };
    }
    sync_threads();
    // SAFETY: every slot written before the barrier.
    let mut all = unsafe { partials.load(base) };
    for w in 1..WARPS {
        // SAFETY: as above.
        all = op(all, unsafe { partials.load(base + w) });
    }
    all
}

/// Turns each row of the scores into probabilities in place and writes its log-sum-exp
/// (natural log): a block of `SOFTMAX_THREADS` per row. A row with no visible key becomes
/// zeros and −∞.
///
/// # Safety
/// One block per row of `s` (`rows` rows of `seq_k` f32); `lse` holds `rows` f32.
#[kernel(max_threads = SOFTMAX_THREADS)]
pub unsafe fn a01_softmax(s: *mut f32, lse: *mut f32, seq_k: u32) {
    let partials: SharedArray<f32> = softmax_partials();
    let row = block_idx() as usize;
    let base = row * seq_k as usize;
    let mut m = f32::NEG_INFINITY;
    let mut j = thread_idx();
    while j < seq_k {
        // SAFETY: inside the row.
        m = m.max(unsafe { *s.add(base + j as usize) });
        j += block_dim();
    }
    // SAFETY: every thread, once; the first half of the partials.
    let m = unsafe { block_reduce(m, f32::max, partials, 0) };
    let mut sum = 0.0f32;
    j = thread_idx();
    while j < seq_k {
        // SAFETY: inside the row; this thread's elements.
        unsafe {
            let p = if m == f32::NEG_INFINITY { 0.0 } else { exp2_approx((*s.add(base + j as usize) - m) * LOG2_E) };
            *s.add(base + j as usize) = p;
            sum += p;
        }
        j += block_dim();
    }
    // SAFETY: every thread, once; the second half of the partials.
    let sum = unsafe { block_reduce(sum, |a, b| a + b, partials, WARPS) };
    let inverse = if sum > 0.0 { 1.0 / sum } else { 0.0 };
    j = thread_idx();
    while j < seq_k {
        // SAFETY: inside the row; this thread's elements.
        unsafe { *s.add(base + j as usize) *= inverse };
        j += block_dim();
    }
    if thread_idx() == 0 {
        let value = if sum > 0.0 { m + log2_approx(sum) * LN_2 } else { f32::NEG_INFINITY };
        // SAFETY: row < rows.
        unsafe { *lse.add(row) = value };
    }
}

/// O's element (batch, query head) `z`, row `i`, column `c`: `Σ_j p_ij · v_jc`, rounded to
/// `T`. Grid: x over head-dim columns, y over query rows (`TILE_X` × `TILE_Y`), z over
/// batch · query heads.
///
/// # Safety
/// As [`scores`]; `p` holds the probabilities; `o` holds O.
#[inline(always)]
unsafe fn output<T: Half>(p: *const f32, v: *const u16, o: *mut u16, dims: *const Dims) {
    // SAFETY: the caller's problem.
    let d = unsafe { *dims };
    let c = block_idx() * TILE_X + thread_idx();
    let i = block_idx_y() * TILE_Y + thread_idx_y();
    let z = block_idx_z();
    if i >= d.seq_q || c >= d.head_dim {
        return;
    }
    let (b, h) = (z / d.heads_q, z % d.heads_q);
    let row = (u64::from(z) * u64::from(d.seq_q) + u64::from(i)) * u64::from(d.seq_k);
    let mut acc = 0.0f32;
    for j in 0..d.visible_keys(i) {
        let vj = d.v.row_offset(b, h / d.group, j) as usize + c as usize;
        // SAFETY: inside the row of P and row j of V.
        acc += unsafe { *p.add((row + u64::from(j)) as usize) * T::to_f32(*v.add(vj)) };
    }
    // SAFETY: inside O.
    unsafe { *o.add(d.o.row_offset(b, h, i) as usize + c as usize) = T::from_f32(acc) };
}

/// a01's scores on f16.
///
/// # Safety
/// As [`scores`].
#[kernel(max_threads = TILE_X * TILE_Y)]
pub unsafe fn a01_scores_f16(q: *const u16, k: *const u16, s: *mut f32, dims: *const Dims) {
    // SAFETY: forwarded.
    unsafe { scores::<F16>(q, k, s, dims) }
}

/// a01's scores on bf16.
///
/// # Safety
/// As [`scores`].
#[kernel(max_threads = TILE_X * TILE_Y)]
pub unsafe fn a01_scores_bf16(q: *const u16, k: *const u16, s: *mut f32, dims: *const Dims) {
    // SAFETY: forwarded.
    unsafe { scores::<Bf16>(q, k, s, dims) }
}

/// a01's output on f16.
///
/// # Safety
/// As [`output`].
#[kernel(max_threads = TILE_X * TILE_Y)]
pub unsafe fn a01_output_f16(p: *const f32, v: *const u16, o: *mut u16, dims: *const Dims) {
    // SAFETY: forwarded.
    unsafe { output::<F16>(p, v, o, dims) }
}

/// a01's output on bf16.
///
/// # Safety
/// As [`output`].
#[kernel(max_threads = TILE_X * TILE_Y)]
pub unsafe fn a01_output_bf16(p: *const f32, v: *const u16, o: *mut u16, dims: *const Dims) {
    // SAFETY: forwarded.
    unsafe { output::<Bf16>(p, v, o, dims) }
}
