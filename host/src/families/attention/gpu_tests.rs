//! The attention family's GPU tests: every step (and its C++ twin) in bf16 and f16 on
//! awkward shapes — lengths that are multiples of no tile, more queries than keys under the
//! causal mask (rows that see no key), grouped-query heads, both layouts, no keys at all, a
//! sharp softmax whose running maximum keeps moving — with poisoned outputs; head dims off the
//! usual ones for the steps that take any; and a problem whose tensors pass 2^31 elements.

use super::problem::{Layout, Mask, Problem};
use super::registry::{ATTENTION_STEPS, AttentionStep, HeadDims, PRECISIONS};
use super::runner::AttentionBench;
use crate::base::precision::Precision;
use crate::families::family::GpuTest;
use crate::testing::{arch_unavailable, gpu, memory_short, text, twins, twins_absent};
use crate::twins::Code;

/// A problem of the tests.
const fn shape(
    (batch, heads_q, heads_kv): (usize, usize, usize),
    (seq_q, seq_k): (usize, usize),
    head_dim: usize,
    mask: Mask,
    layout: Layout,
) -> Problem {
    Problem { batch, heads_q, heads_kv, seq_q, seq_k, head_dim, layout, mask, softmax_scale: None }
}

/// The awkward shapes every step is checked on, at each head dim it takes of 64, 128 and 256.
fn awkward(head_dim: usize) -> Vec<Problem> {
    let d = head_dim;
    vec![
        // One query, one key.
        shape((1, 1, 1), (1, 1), d, Mask::None, Layout::Bhsd),
        // Grouped-query heads, lengths that are multiples of nothing, more keys than queries.
        shape((2, 4, 2), (77, 203), d, Mask::None, Layout::Bshd),
        // Causal with fewer keys than queries: the first 65 rows see no key.
        shape((1, 3, 3), (130, 65), d, Mask::Causal, Layout::Bhsd),
        // Causal with more keys than queries (decoding-like), grouped heads.
        shape((2, 6, 2), (100, 300), d, Mask::Causal, Layout::Bshd),
        // Square causal across several tiles of every step, a tile and one more.
        shape((1, 2, 1), (257, 257), d, Mask::Causal, Layout::Bshd),
        // No keys at all: zeros and −∞ everywhere.
        shape((1, 2, 2), (5, 0), d, Mask::None, Layout::Bhsd),
        // No queries: nothing to write.
        shape((1, 2, 2), (0, 9), d, Mask::Causal, Layout::Bshd),
        // A sharp softmax (scale 1 instead of 1/√d): scores spread over tens, the running
        // maximum moves tile after tile and the rescaling carries the result.
        Problem { softmax_scale: Some(1.0), ..shape((1, 2, 2), (96, 700), d, Mask::None, Layout::Bshd) },
    ]
}

/// Head dims other than 64 and 128, for the steps that take any.
const ODD_HEAD_DIMS: &[usize] = &[1, 40, 96, 256];

/// Past 2^31 elements in Q and O (4 × 16 heads × (2^18 + 3) rows × 128): 32-bit element
/// offsets would wrap. Few keys keep it quick.
const LARGE: Problem = shape((4, 16, 16), ((1 << 18) + 3, 40), 128, Mask::Causal, Layout::Bshd);

/// Device memory the large test needs: Q and O of 4 GiB each, a01's scores of 2 GiB, spare.
const LARGE_NEEDS_GIB: u64 = 14;

pub fn all(gpu_present: bool) -> Vec<GpuTest> {
    let mut tests = Vec::new();
    for step in ATTENTION_STEPS {
        for precision in PRECISIONS {
            for (label, code_is_twin) in [("", false), ("cpp_twin/", true)] {
                let name = format!("attention/{}/{}/{label}awkward_shapes", step.id, precision.short_name());
                let ignored = unavailable(gpu_present, step)
                    .or_else(|| code_is_twin.then(|| twins_absent(gpu_present)).flatten());
                tests.push(
                    GpuTest::new(name, move || {
                        let code = if code_is_twin { Code::Cpp(twins()?) } else { Code::Rust };
                        let problems: Vec<Problem> = [64, 128, 256]
                            .into_iter()
                            .filter(|&d| step.takes(d as u32).is_ok())
                            .flat_map(awkward)
                            .collect();
                        on_problems(step, precision, code, &problems)
                    })
                    .ignored_if(ignored),
                );
            }
        }
        if matches!(step.head_dims, HeadDims::UpTo(_)) {
            tests.push(
                GpuTest::new(format!("attention/{}/odd_head_dims", step.id), move || {
                    let problems: Vec<Problem> = ODD_HEAD_DIMS
                        .iter()
                        .filter(|&&d| step.takes(d as u32).is_ok())
                        .map(|&d| shape((1, 2, 1), (33, 71), d, Mask::Causal, Layout::Bshd))
                        .collect();
                    on_problems(step, Precision::Bf16, Code::Rust, &problems)
                })
                .ignored_if(unavailable(gpu_present, step)),
            );
        }
        tests.push(
            GpuTest::new(format!("attention/{}/past_2^31_elements", step.id), move || {
                on_problems(step, Precision::Bf16, Code::Rust, &[LARGE])
            })
            .ignored_if(
                unavailable(gpu_present, step).or_else(|| memory_short(gpu_present, LARGE_NEEDS_GIB)),
            ),
        );
    }
    tests
}

/// Why `step` cannot run here although a GPU is present, or `None`.
fn unavailable(gpu_present: bool, step: &AttentionStep) -> Option<String> {
    arch_unavailable(gpu_present, step.id, step.arch)
}

/// Checks `step` (Rust or its twin) on each problem, on a fresh random input each.
fn on_problems(
    step: &AttentionStep,
    precision: Precision,
    code: Code,
    problems: &[Problem],
) -> Result<(), String> {
    let gpu = gpu()?;
    for (i, &problem) in problems.iter().enumerate() {
        let seed = 0xa77e_0000 + i as u64;
        let bench = text(AttentionBench::new(gpu, problem, precision, seed))?;
        let plan = text(bench.plan(step, code))?;
        // Twice on the same plan: a launch that leaves state behind (a persistent grid's
        // tile counter, which each launch must leave at zero) shows on the second.
        for launch in ["first", "second"] {
            let check = text(bench.check(&plan))?;
            if !check.passed() {
                return Err(format!(
                    "{} {} on {}, {launch} launch: {} wrong; first: {}",
                    step.id,
                    precision.short_name(),
                    problem.describe(),
                    check.wrong,
                    check.first
                ));
            }
            if check.rows == 0 && problem.rows() > 0 {
                return Err(format!("{}: no row was compared with the reference", problem.describe()));
            }
        }
    }
    Ok(())
}
