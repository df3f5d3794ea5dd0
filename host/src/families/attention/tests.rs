//! The attention family's CPU tests: the registry against `common::attention`, the options
//! into problems, and the check catching what it must.

use super::problem::{Layout, Mask, Problem};
use super::reference::{self, Inputs, POISON_BITS, Tensor, check, half_value};
use super::registry::{ATTENTION_STEPS, HeadDims};
use super::settings;
use crate::base::precision::Precision;
use crate::cli::Options;
use clap::Parser;

#[test]
fn every_entry_point_is_named_after_its_step_or_shared_by_its_scheme() {
    for step in ATTENTION_STEPS {
        let ladder_number = &step.id[..3];
        for symbol in step.symbols() {
            assert!(symbol.starts_with(ladder_number), "{}: entry point {symbol}", step.id);
        }
        for precision in [Precision::Bf16, Precision::F16] {
            let dims: Vec<u32> = match step.head_dims {
                HeadDims::UpTo(max) => vec![1, 64, 128, max],
                HeadDims::Only(dims) => dims.to_vec(),
            };
            for d in dims {
                let entries = step.entries(precision, d);
                assert!(
                    entries.is_some(),
                    "{}: no {} kernel at head dim {d}",
                    step.id,
                    precision.short_name()
                );
                assert!(
                    entries.unwrap().iter().all(|e| !e.contains(if precision == Precision::F16 {
                        "bf16"
                    } else {
                        "_f16"
                    })),
                    "{}: {} entries name the other type",
                    step.id,
                    precision.short_name()
                );
            }
        }
        assert!(step.takes(0).is_err(), "{} takes head dim 0", step.id);
    }
}

fn options(args: &[&str]) -> Options {
    Options::try_parse_from(std::iter::once("host").chain(args.iter().copied())).expect("valid options")
}

#[test]
fn the_default_problems_are_flashattention_3s_setting() {
    let all = settings(&options(&[])).expect("the defaults are valid");
    // 3 lengths × 2 head dims × 2 masks, bf16.
    assert_eq!(all.len(), 12);
    for s in &all {
        let p = &s.problem;
        assert_eq!(p.batch * p.seq_q, 16384, "{}", p.describe());
        assert_eq!(p.heads_q * p.head_dim, 2048, "{}", p.describe());
        assert_eq!((p.heads_kv, p.seq_k, p.layout), (p.heads_q, p.seq_q, Layout::Bshd));
    }
    let custom = settings(&options(&[
        "--seq",
        "2^9,3000",
        "--seq-k",
        "777",
        "--head-dim",
        "128",
        "--mask",
        "causal",
        "--attn-type",
        "f16,bf16",
        "--batch",
        "3",
        "--group",
        "4",
        "--layout",
        "bhsd",
    ]))
    .unwrap();
    assert_eq!(custom.len(), 4);
    let p = custom[1].problem;
    assert_eq!(
        (p.batch, p.heads_q, p.heads_kv, p.seq_q, p.seq_k, p.mask),
        (3, 16, 4, 3000, 777, Mask::Causal)
    );
    assert_eq!(custom[0].precision, Precision::F16);
}

#[test]
fn options_that_make_no_problem_are_refused_with_the_reason() {
    let err = settings(&options(&["--head-dim", "96", "--hidden", "1000"])).unwrap_err().to_string();
    assert!(err.contains("--head-dim 96") && err.contains("divide"), "{err}");
    let err = settings(&options(&["--group", "3"])).unwrap_err().to_string();
    assert!(err.contains("--group 3"), "{err}");
    assert!(Options::try_parse_from(["host", "--mask", "sliding"]).is_err());
    assert!(Options::try_parse_from(["host", "--seq", "4x"]).is_err());
    assert_eq!(options(&["--seq", "4k"]).seq, vec![4096]);
}

/// bf16 bits of `x`, rounded to the nearest even.
fn bf16_bits(x: f64) -> u16 {
    let bits = (x as f32).to_bits();
    ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16
}

/// A small problem, its inputs (Q, K, V), and a correct output and log-sum-exps.
type Solved = (Problem, [Vec<f32>; 3], Vec<u16>, Vec<f32>);

/// A small problem solved by the reference, its output rounded to bf16.
fn solved(mask: Mask) -> Solved {
    let p = Problem {
        batch: 2,
        heads_q: 2,
        heads_kv: 1,
        seq_q: 9,
        seq_k: 5,
        head_dim: 16,
        layout: Layout::Bshd,
        mask,
        softmax_scale: None,
    };
    let values = |seed: u64, n: usize| {
        (0..n as u64).map(|i| common::input::random_bf16_value(seed, i)).collect::<Vec<_>>()
    };
    let (q, k, v) = (values(1, p.q_elements()), values(2, p.kv_elements()), values(3, p.kv_elements()));
    let x = Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) };
    let mut o = vec![POISON_BITS; p.q_elements()];
    let mut lse = vec![f32::NAN; p.rows()];
    for b in 0..p.batch {
        for h in 0..p.heads_q {
            for i in 0..p.seq_q {
                let r = reference::row(&p, &x, b, h, i);
                for (c, &value) in r.out.iter().enumerate() {
                    o[p.offset(p.heads_q, p.seq_q, b, h, i, c)] = bf16_bits(value);
                }
                lse[p.lse_index(b, h, i)] = r.lse as f32;
            }
        }
    }
    (p, [q, k, v], o, lse)
}

#[test]
fn the_check_passes_a_right_result_and_fails_each_kind_of_wrong_one() {
    for mask in [Mask::None, Mask::Causal] {
        let (p, [q, k, v], o, lse) = solved(mask);
        let x = Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) };
        let run = |o: &[u16], lse: &[f32]| check(&p, &x, Precision::Bf16, o, lse, 7);
        let good = run(&o, &lse);
        assert!(good.passed(), "{mask:?}: {}", good.first);
        assert_eq!(good.rows, p.rows());
        // One element a few roundings off.
        let mut off = o.clone();
        let at = p.offset(p.heads_q, p.seq_q, 1, 1, 8, 3);
        off[at] = bf16_bits(f64::from(half_value(Precision::Bf16, off[at])) + 0.1);
        assert!(!run(&off, &lse).passed(), "{mask:?}: an output 0.1 off passed");
        // One element never written.
        let mut unwritten = o.clone();
        unwritten[5] = POISON_BITS;
        let failed = run(&unwritten, &lse);
        assert!(!failed.passed() && failed.first.contains("never written"), "{}", failed.first);
        // A log-sum-exp off, and one NaN.
        let mut wrong_lse = lse.clone();
        wrong_lse[p.rows() - 1] += 0.01;
        assert!(!run(&o, &wrong_lse).passed(), "{mask:?}: a log-sum-exp 0.01 off passed");
        wrong_lse[p.rows() - 1] = f32::NAN;
        assert!(!run(&o, &wrong_lse).passed(), "{mask:?}: a NaN log-sum-exp passed");
    }
    // Under the causal mask with more queries than keys, the first rows see nothing: −∞ is
    // right there, and only there.
    let (p, [q, k, v], o, mut lse) = solved(Mask::Causal);
    let x = Inputs { q: Tensor::Values(&q), k: Tensor::Values(&k), v: Tensor::Values(&v) };
    assert_eq!(lse[0], f32::NEG_INFINITY);
    lse[0] = 0.0;
    assert!(
        !check(&p, &x, Precision::Bf16, &o, &lse, 7).passed(),
        "a row that sees no key passed a finite log-sum-exp"
    );
}

#[test]
fn large_problems_check_sampled_rows_at_the_edges() {
    let p = Problem {
        batch: 4,
        heads_q: 16,
        heads_kv: 16,
        seq_q: 4096,
        seq_k: 1000,
        head_dim: 64,
        layout: Layout::Bshd,
        mask: Mask::Causal,
        softmax_scale: None,
    };
    let rows = reference::rows_to_check(&p, 3);
    assert!(rows.len() > reference::SAMPLED_ROWS / 2 && rows.len() <= reference::SAMPLED_ROWS);
    for want in [(0, 0, 0), (3, 15, 4095), (0, 0, 3096), (3, 15, 3095)] {
        assert!(rows.contains(&want), "{want:?} not among the sampled rows");
    }
    assert!(rows.iter().all(|&(b, h, i)| b < 4 && h < 16 && i < 4096));
}

#[test]
fn half_values_decode_both_types() {
    assert_eq!(half_value(Precision::F16, 0x3c00), 1.0);
    assert_eq!(half_value(Precision::F16, 0xc000), -2.0);
    assert_eq!(half_value(Precision::F16, 0x0001), 2f32.powi(-24));
    assert!(half_value(Precision::F16, POISON_BITS).is_nan());
    assert_eq!(half_value(Precision::Bf16, 0x3f80), 1.0);
    assert!(half_value(Precision::Bf16, POISON_BITS).is_nan());
}
