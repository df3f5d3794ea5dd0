//! The CPU reference: each output row computed in f64 from the inputs exactly as the GPU
//! reads them (f16 or bf16 values, which f64 holds exactly), its log-sum-exp beside it, and
//! the bound a GPU result must meet.
//!
//! Row `i` of (batch `b`, query head `h`): scores `s_j = scale · q_i·k_j` for the visible keys
//! `j`, `m = max s_j`, `l = Σ exp(s_j − m)`, output `o_i = Σ exp(s_j − m) · v_j / l`, and
//! `lse_i = m + ln l` (natural log; −∞ and a zero row when no key is visible).

use super::problem::Problem;
#[cfg(test)]
use super::problem::{Layout, Mask};
use crate::base::precision::Precision;
use common::input::{random_bf16_value, random_f16_value};

/// One reference row: the output's `head_dim` values and the log-sum-exp.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub out: Vec<f64>,
    pub lse: f64,
    /// The largest |v| over the visible keys' values, which scales the output's bound.
    pub v_max: f64,
}

/// Where the reference reads an input tensor's values.
#[derive(Clone, Copy, Debug)]
pub enum Tensor<'a> {
    /// Values in memory (the unit tests').
    Values(&'a [f32]),
    /// Element `i` of the random stream `seed` of `precision`, as the fill kernels wrote it
    /// on the device: computed again here, so that no copy of a large tensor is kept.
    Stream { seed: u64, precision: Precision },
}

impl Tensor<'_> {
    /// Element `i`.
    pub fn get(&self, i: usize) -> f32 {
        match *self {
            Tensor::Values(values) => values[i],
            Tensor::Stream { seed, precision: Precision::F16 } => random_f16_value(seed, i as u64),
            Tensor::Stream { seed, .. } => random_bf16_value(seed, i as u64),
        }
    }
}

/// The three input tensors.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    pub q: Tensor<'a>,
    pub k: Tensor<'a>,
    pub v: Tensor<'a>,
}

/// Row `row` of (batch `b`, query head `h`).
pub fn row(p: &Problem, x: &Inputs, b: usize, h: usize, row: usize) -> Row {
    let d = p.head_dim;
    let kv = p.kv_head(h);
    let keys = p.visible_keys(row);
    let q: Vec<f64> =
        (0..d).map(|c| f64::from(x.q.get(p.offset(p.heads_q, p.seq_q, b, h, row, c)))).collect();
    let scores: Vec<f64> = (0..keys)
        .map(|j| {
            let dot: f64 =
                (0..d).map(|c| q[c] * f64::from(x.k.get(p.offset(p.heads_kv, p.seq_k, b, kv, j, c)))).sum();
            dot * p.scale()
        })
        .collect();
    let mut out = vec![0.0; d];
    if keys == 0 {
        return Row { out, lse: f64::NEG_INFINITY, v_max: 0.0 };
    }
    let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut l = 0.0;
    let mut v_max: f64 = 0.0;
    for (j, s) in scores.iter().enumerate() {
        let w = (s - m).exp();
        l += w;
        for (c, o) in out.iter_mut().enumerate() {
            let v = f64::from(x.v.get(p.offset(p.heads_kv, p.seq_k, b, kv, j, c)));
            v_max = v_max.max(v.abs());
            *o += w * v;
        }
    }
    for o in &mut out {
        *o /= l;
    }
    Row { out, lse: m + l.ln(), v_max }
}

/// The unit roundoff of the inputs' and output's type: 2^-8 for bf16 (8 significant bits),
/// 2^-11 for f16.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roundoff(pub f64);

pub const BF16: Roundoff = Roundoff(1.0 / 256.0);
pub const F16: Roundoff = Roundoff(1.0 / 2048.0);

/// How far a GPU output element may lie from the reference: the probabilities rounded to the
/// input type before the second product (each off by at most `u` relative, so the weighted
/// sum by at most `u · v_max`), the output rounded once more (`u · |o| ≤ u · v_max`), and
/// f32 arithmetic elsewhere (2^-16 · v_max covers sums of 2^8 terms of 2^-24 each, and more).
pub fn output_bound(u: Roundoff, v_max: f64) -> f64 {
    (2.0 * u.0 + 1.0 / 65536.0) * v_max
}

/// How far a GPU log-sum-exp may lie from the reference: f32 maxima, exponentials and a sum,
/// relative to the row's largest score magnitude.
pub fn lse_bound(lse: f64) -> f64 {
    1e-5 * lse.abs().max(1.0)
}

/// Whether `got` passes against `want` within `bound` (NaN never passes; −∞ only against −∞).
pub fn close(got: f64, want: f64, bound: f64) -> bool {
    if want == f64::NEG_INFINITY {
        return got == f64::NEG_INFINITY;
    }
    (got - want).abs() <= bound
}

pub use crate::base::precision::half_value;

/// The 16-bit pattern every output element is set to before a run: a NaN in f16 and in
/// bf16, so that an element the kernel does not write can never pass.
pub const POISON_BITS: u16 = 0xffff;

/// Problems with at most this many rows are checked row by row in full; larger ones on
/// [`SAMPLED_ROWS`] rows (and every element for being written and finite).
pub const FULL_CHECK_ROWS: usize = 8192;

/// Rows the reference computes on a large problem.
pub const SAMPLED_ROWS: usize = 192;

/// The rows (batch, query head, row) checked against the reference: all of a small problem;
/// of a large one, the first and last (batch, head) pairs and random ones, at rows where
/// kernels go wrong (the first, the last, tile edges, the causal mask's first visible
/// rows) and random rows.
pub fn rows_to_check(p: &Problem, seed: u64) -> Vec<(usize, usize, usize)> {
    let pairs = p.batch * p.heads_q;
    if p.rows() <= FULL_CHECK_ROWS {
        return (0..pairs)
            .flat_map(|z| (0..p.seq_q).map(move |i| (z / p.heads_q, z % p.heads_q, i)))
            .collect();
    }
    let last = p.seq_q - 1;
    let mut rows: Vec<usize> = vec![0, 1, last, last.saturating_sub(1)];
    for edge in [63, 64, 127, 128, 129] {
        rows.push(edge.min(last));
    }
    // The first row that sees a key, and its neighbours, under the bottom-right mask.
    let first_seen = p.seq_q.saturating_sub(p.seq_k);
    rows.extend([first_seen.saturating_sub(1), first_seen, first_seen + 1].map(|r| r.min(last)));
    let mut random = seed;
    let mut next = |bound: usize| {
        random = common::input::splitmix64(random);
        (random % bound as u64) as usize
    };
    let mut picked = Vec::with_capacity(SAMPLED_ROWS);
    let fixed = rows.len();
    while picked.len() < SAMPLED_ROWS {
        let z = match picked.len() % 4 {
            0 => 0,
            1 => pairs - 1,
            _ => next(pairs),
        };
        let i = if picked.len() / 4 < fixed { rows[picked.len() / 4] } else { next(p.seq_q) };
        picked.push((z / p.heads_q, z % p.heads_q, i));
    }
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// The outcome of checking one run's output and log-sum-exps.
#[derive(Clone, Debug)]
pub struct Check {
    /// Output elements and log-sum-exps that failed (unwritten, NaN, or off the reference).
    pub wrong: usize,
    /// The first failure, in words.
    pub first: String,
    /// The largest |GPU − reference| over the checked output elements.
    pub max_error: f64,
    /// The largest error over its bound (≤ 1 passes).
    pub max_error_over_bound: f64,
    /// Rows compared with the reference.
    pub rows: usize,
    /// How it was checked, for the records.
    pub method: String,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.wrong == 0
    }
}

/// Checks a run's output `o` (16-bit `precision` bits, the whole tensor in the problem's
/// layout) and `lse` (f32, [`Problem::lse_index`] order): every element written and finite,
/// every log-sum-exp finite or −∞ where the row sees no key, and the rows of
/// [`rows_to_check`] within the bounds of the reference, computed in parallel.
pub fn check(p: &Problem, x: &Inputs, precision: Precision, o: &[u16], lse: &[f32], seed: u64) -> Check {
    let u = if precision == Precision::F16 { F16 } else { BF16 };
    let mut out = Check {
        wrong: 0,
        first: String::new(),
        max_error: 0.0,
        max_error_over_bound: 0.0,
        rows: 0,
        method: String::new(),
    };
    let fail = |out: &mut Check, what: String| {
        if out.wrong == 0 {
            out.first = what;
        }
        out.wrong += 1;
    };
    if let Some(at) = o.iter().position(|&bits| !half_value(precision, bits).is_finite()) {
        let bad = o.iter().filter(|&&bits| !half_value(precision, bits).is_finite()).count();
        let what = if o[at] == POISON_BITS { "never written (still poisoned)" } else { "not finite" };
        fail(&mut out, format!("output element {at} {what}"));
        out.wrong += bad - 1;
    }
    let lse_wrong = |index: usize| {
        let (row, value) = (index % p.seq_q, lse[index]);
        if p.visible_keys(row) == 0 { value != f32::NEG_INFINITY } else { !value.is_finite() }
    };
    if let Some(at) = (0..p.rows()).find(|&i| lse_wrong(i)) {
        let bad = (0..p.rows()).filter(|&i| lse_wrong(i)).count();
        fail(&mut out, format!("log-sum-exp {at} is {} (row {} of its head)", lse[at], at % p.seq_q));
        out.wrong += bad - 1;
    }
    let rows = rows_to_check(p, seed);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(64);
    let chunk = rows.len().div_ceil(threads).max(1);
    let references: Vec<Row> = std::thread::scope(|scope| {
        let handles: Vec<_> = rows
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || part.iter().map(|&(b, h, i)| row(p, x, b, h, i)).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("reference thread")).collect()
    });
    for (&(b, h, i), want) in rows.iter().zip(&references) {
        let bound = output_bound(u, want.v_max);
        for (c, &w) in want.out.iter().enumerate() {
            let got = f64::from(half_value(precision, o[p.offset(p.heads_q, p.seq_q, b, h, i, c)]));
            let error = (got - w).abs();
            if close(got, w, bound) {
                out.max_error = out.max_error.max(error);
                if bound > 0.0 {
                    out.max_error_over_bound = out.max_error_over_bound.max(error / bound);
                }
            } else if got.is_finite() {
                fail(
                    &mut out,
                    format!(
                        "batch {b}, head {h}, row {i}, column {c}: {got} where the reference is {w:.6} (bound {bound:.2e})"
                    ),
                );
            }
        }
        let got = f64::from(lse[p.lse_index(b, h, i)]);
        if !close(got, want.lse, lse_bound(want.lse)) {
            fail(
                &mut out,
                format!(
                    "batch {b}, head {h}, row {i}: log-sum-exp {got} where the reference is {:.6}",
                    want.lse
                ),
            );
        }
    }
    out.rows = rows.len();
    out.method = format!(
        "{} rows against an f64 reference (|error| ≤ (2u + 2^-16)·max|v|, u = {}; log-sum-exp within 1e-5 relative); every element written and finite",
        if rows.len() == p.rows() {
            "every one of the".to_string()
        } else {
            format!("{} sampled of {}", rows.len(), p.rows())
        },
        if precision == Precision::F16 { "2^-11" } else { "2^-8" }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(seq_q: usize, seq_k: usize, mask: Mask, layout: Layout) -> Problem {
        Problem {
            batch: 2,
            heads_q: 4,
            heads_kv: 2,
            seq_q,
            seq_k,
            head_dim: 8,
            layout,
            mask,
            softmax_scale: None,
        }
    }

    fn inputs(p: &Problem) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let values =
            |seed: u64, n: usize| (0..n as u64).map(|i| common::input::random_bf16_value(seed, i)).collect();
        (values(1, p.q_elements()), values(2, p.kv_elements()), values(3, p.kv_elements()))
    }

    #[test]
    fn equal_scores_average_the_values() {
        // Q = 0: every score is 0, every weight 1/seq_k, the output the mean of V's rows.
        let p = problem(3, 5, Mask::None, Layout::Bhsd);
        let (_, k, v) = inputs(&p);
        let q = vec![0.0; p.q_elements()];
        let r =
            row(&p, &Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) }, 1, 3, 2);
        for c in 0..p.head_dim {
            let mean: f64 = (0..5).map(|j| f64::from(v[p.offset(2, 5, 1, 1, j, c)])).sum::<f64>() / 5.0;
            assert!((r.out[c] - mean).abs() < 1e-12, "column {c}: {} against {mean}", r.out[c]);
        }
        assert!((r.lse - (5f64).ln()).abs() < 1e-12);
    }

    #[test]
    fn causal_rows_see_their_keys_aligned_at_the_bottom_right() {
        let square = problem(4, 4, Mask::Causal, Layout::Bhsd);
        assert_eq!((0..4).map(|r| square.visible_keys(r)).collect::<Vec<_>>(), [1, 2, 3, 4]);
        let fewer_queries = problem(2, 5, Mask::Causal, Layout::Bhsd);
        assert_eq!((0..2).map(|r| fewer_queries.visible_keys(r)).collect::<Vec<_>>(), [4, 5]);
        let more_queries = problem(5, 2, Mask::Causal, Layout::Bhsd);
        assert_eq!((0..5).map(|r| more_queries.visible_keys(r)).collect::<Vec<_>>(), [0, 0, 0, 1, 2]);
        // The first row of a square causal problem is V's first row, whatever Q and K.
        let (q, k, v) = inputs(&square);
        let r = row(
            &square,
            &Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) },
            0,
            1,
            0,
        );
        for c in 0..square.head_dim {
            assert_eq!(r.out[c], f64::from(v[square.offset(2, 4, 0, 0, 0, c)]));
        }
        // A row that sees no key: zeros and −∞.
        let (q, k, v) = inputs(&more_queries);
        let r = row(
            &more_queries,
            &Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) },
            0,
            0,
            1,
        );
        assert!(r.out.iter().all(|&o| o == 0.0) && r.lse == f64::NEG_INFINITY);
    }

    #[test]
    fn the_two_layouts_give_the_same_rows() {
        let a = problem(7, 9, Mask::Causal, Layout::Bhsd);
        let b = Problem { layout: Layout::Bshd, ..a };
        let (q, k, v) = inputs(&a);
        // The same values, moved from a's layout to b's.
        let relayout = |x: &[f32], heads: usize, seq: usize| {
            let mut y = vec![0.0; x.len()];
            for bi in 0..a.batch {
                for h in 0..heads {
                    for s in 0..seq {
                        for c in 0..a.head_dim {
                            y[b.offset(heads, seq, bi, h, s, c)] = x[a.offset(heads, seq, bi, h, s, c)];
                        }
                    }
                }
            }
            y
        };
        let (qb, kb, vb) = (relayout(&q, 4, 7), relayout(&k, 2, 9), relayout(&v, 2, 9));
        for (bi, h, r) in [(0, 0, 0), (1, 3, 6), (0, 2, 4)] {
            assert_eq!(
                row(
                    &a,
                    &Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) },
                    bi,
                    h,
                    r
                ),
                row(
                    &b,
                    &Inputs { q: Tensor::Values(&qb), k: Tensor::Values(&kb), v: Tensor::Values(&vb) },
                    bi,
                    h,
                    r
                )
            );
        }
    }

    #[test]
    fn grouped_query_heads_share_their_key_value_head() {
        let p = problem(3, 3, Mask::None, Layout::Bshd);
        assert_eq!((0..4).map(|h| p.kv_head(h)).collect::<Vec<_>>(), [0, 0, 1, 1]);
        assert!(Problem { heads_kv: 3, ..p }.invalid().is_some());
        assert!(p.invalid().is_none());
    }

    #[test]
    fn bounds_refuse_nan_and_a_rounding_too_many() {
        assert!(!close(f64::NAN, 0.5, 1.0));
        assert!(!close(0.0, f64::NEG_INFINITY, 1.0));
        assert!(close(f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0));
        let bound = output_bound(BF16, 1.0);
        assert!(close(0.5 + 2.0 / 256.0, 0.5, bound));
        assert!(!close(0.5 + 3.0 / 256.0, 0.5, bound));
    }

    #[test]
    fn flops_count_as_the_literature_does() {
        let p = Problem {
            batch: 16,
            heads_q: 16,
            heads_kv: 16,
            seq_q: 1024,
            seq_k: 1024,
            head_dim: 128,
            layout: Layout::Bshd,
            mask: Mask::None,
            softmax_scale: None,
        };
        assert_eq!(p.flops(), 4.0 * 256.0 * 1024.0 * 1024.0 * 128.0);
        assert_eq!(Problem { mask: Mask::Causal, ..p }.flops(), p.flops() / 2.0);
    }
}
