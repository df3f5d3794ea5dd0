//! The CPU references of the scan family, and the checks of a kernel's whole output
//! against them: exact for `i32` (wrapping sums are the same in any order), within a bound
//! that grows with the element's index for `f32`, the element kept or dropped exactly for
//! compaction. Every check also reads the words after the output, which no kernel may write.
//!
//! The inputs are the counter-based streams of `common::input` (element `i` is a function of
//! the seed and `i`), so the references never need the input back from the GPU, and the
//! checks run in parallel chunks: the sums of the chunks first, then each chunk from its
//! start.

use super::registry::ElementType;
use common::input::{random_f32, random_i32};

/// Written over every output (and the guard after it) before a verification run: an output
/// a kernel forgets to write keeps it, which is not the scan of a random input (except with
/// probability about 2^-32 per element).
pub const POISON: u32 = 0xA5A5_A5A5;

/// Words after each output that no kernel may write (they must read [`POISON`] after the run).
pub const GUARD: usize = 64;

/// f32's unit roundoff, 2^-24: one addition's relative error at most.
const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;

/// Additions on the path of any output besides the look-back's chain over the tiles: a
/// thread's items, the block scan, the levels of the scan-then-propagate recursion.
const PATH_BASE: usize = 64;

/// The smallest tile of the ladder: the look-back and propagation chains add at most one
/// term per tile of this size before an element.
const SMALLEST_TILE: usize = 512;

/// Elements per chunk of a parallel check.
const CHUNK: usize = 1 << 22;

/// Element `i` of the `element` input stream `seed`, as bits.
pub fn input_bits(element: ElementType, seed: u64, i: usize) -> u32 {
    match element {
        ElementType::I32 => random_i32(seed, i as u64) as u32,
        ElementType::F32 => random_f32(seed, i as u64).to_bits(),
    }
}

/// The outcome of checking one output.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Elements (or guard words) that were wrong.
    pub wrong: usize,
    /// The first wrong one, described; empty when none.
    pub first: String,
    /// The largest |output − reference| over the elements (0 for `i32` and compaction when
    /// right), and for `f32` the largest ratio of that error to its bound.
    pub max_error: f64,
    pub max_error_over_bound: f64,
    /// How the check compares (for the records).
    pub method: &'static str,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.wrong == 0
    }

    fn merge(mut self, other: Check) -> Check {
        if self.first.is_empty() {
            self.first = other.first;
        }
        self.wrong += other.wrong;
        self.max_error = self.max_error.max(other.max_error);
        self.max_error_over_bound = self.max_error_over_bound.max(other.max_error_over_bound);
        self
    }

    fn empty(method: &'static str) -> Check {
        Check { wrong: 0, first: String::new(), max_error: 0.0, max_error_over_bound: 0.0, method }
    }

    fn note(&mut self, message: impl FnOnce() -> String) {
        if self.wrong == 0 {
            self.first = message();
        }
        self.wrong += 1;
    }
}

const EXACT: &str = "every element equal to the CPU's wrapping sum";
const BOUNDED: &str = "|GPU − f64 CPU| ≤ 2^-24 · (64 + i/512) · 2·max|prefix| per element";
const SELECTED: &str = "the kept elements and their count equal to the CPU's";

/// Runs `body(chunk_index, range)` over `n` elements in chunks on every core, merging the
/// checks in chunk order.
fn par_chunks(
    n: usize,
    method: &'static str,
    body: impl Fn(usize, std::ops::Range<usize>) -> Check + Sync,
) -> Check {
    let chunks = n.div_ceil(CHUNK);
    let threads = std::thread::available_parallelism().map_or(4, |t| t.get()).min(chunks.max(1));
    let results: Vec<Check> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let body = &body;
                scope.spawn(move || {
                    (t..chunks)
                        .step_by(threads)
                        .map(|c| (c, body(c, c * CHUNK..((c + 1) * CHUNK).min(n))))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, Check)> =
            handles.into_iter().flat_map(|h| h.join().expect("a check thread")).collect();
        all.sort_by_key(|&(c, _)| c);
        all.into_iter().map(|(_, check)| check).collect()
    });
    results.into_iter().fold(Check::empty(method), Check::merge)
}

/// The words after the `n` outputs: each must still be [`POISON`].
fn guard_check(output: &[u32], from: usize, mut check: Check) -> Check {
    for (k, &word) in output.iter().enumerate().skip(from) {
        if word != POISON {
            check.note(|| format!("word {k} (past the {from} outputs) was written: {word:#010x}"));
        }
    }
    check
}

/// Checks the scan of the first `n` elements of stream `seed` in `output` (`n` + [`GUARD`]
/// words as the GPU left them).
pub fn check_scan(element: ElementType, exclusive: bool, seed: u64, n: usize, output: &[u32]) -> Check {
    assert!(output.len() >= n, "the output read back is shorter than n");
    let check = match element {
        ElementType::I32 => check_i32(exclusive, seed, n, output),
        ElementType::F32 => check_f32(exclusive, seed, n, output),
    };
    guard_check(output, n, check)
}

fn check_i32(exclusive: bool, seed: u64, n: usize, output: &[u32]) -> Check {
    let sums =
        chunk_values(n, |range| range.fold(0i32, |acc, i| acc.wrapping_add(random_i32(seed, i as u64))));
    let starts: Vec<i32> = sums
        .iter()
        .scan(0i32, |running, &s| {
            let start = *running;
            *running = running.wrapping_add(s);
            Some(start)
        })
        .collect();
    par_chunks(n, EXACT, |c, range| {
        let mut check = Check::empty(EXACT);
        let mut running = starts[c];
        for i in range {
            let x = random_i32(seed, i as u64);
            let next = running.wrapping_add(x);
            let expected = if exclusive { running } else { next };
            running = next;
            let got = output[i] as i32;
            if got != expected {
                check.note(|| format!("element {i}: got {got}, expected {expected}"));
            }
        }
        check
    })
}

/// One value per chunk of `n` elements, computed in parallel.
fn chunk_values<T: Send + Default + Clone>(
    n: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> Vec<T> {
    let chunks = n.div_ceil(CHUNK);
    let mut values = vec![T::default(); chunks];
    let threads = std::thread::available_parallelism().map_or(4, |t| t.get()).max(1);
    std::thread::scope(|scope| {
        for (t, part) in values.chunks_mut(chunks.div_ceil(threads).max(1)).enumerate() {
            let f = &f;
            let first = t * chunks.div_ceil(threads).max(1);
            scope.spawn(move || {
                for (k, value) in part.iter_mut().enumerate() {
                    let c = first + k;
                    *value = f(c * CHUNK..((c + 1) * CHUNK).min(n));
                }
            });
        }
    });
    values
}

/// The bound on an `f32` output's error at element `i`, where `scale` bounds every partial
/// sum's magnitude up to it: each addition on the output's path errs by at most one unit
/// roundoff of its result, every result is a sum over a contiguous range (at most twice the
/// largest prefix), and the path has at most `PATH_BASE + i / SMALLEST_TILE` additions.
pub fn f32_bound(i: usize, max_prefix: f64) -> f64 {
    let path = (PATH_BASE + i / SMALLEST_TILE + 1) as f64;
    // The last term: the output's own rounding to f32.
    UNIT_ROUNDOFF * path * 2.0 * max_prefix + f64::from(f32::EPSILON) * max_prefix
}

fn check_f32(exclusive: bool, seed: u64, n: usize, output: &[u32]) -> Check {
    // Per chunk: its sum and the largest |prefix| within it, counted from the chunk's start.
    let chunks = chunk_values(n, |range| {
        let (mut sum, mut peak) = (0.0f64, 0.0f64);
        for i in range {
            sum += f64::from(random_f32(seed, i as u64));
            peak = peak.max(sum.abs());
        }
        (sum, peak)
    });
    // Each chunk's start, and a bound on every |prefix| up to its end.
    let mut starts = Vec::with_capacity(chunks.len());
    let (mut running, mut largest) = (0.0f64, 0.0f64);
    for &(sum, peak) in &chunks {
        largest = largest.max(running.abs() + peak);
        starts.push((running, largest));
        running += sum;
    }
    par_chunks(n, BOUNDED, |c, range| {
        let mut check = Check::empty(BOUNDED);
        let (mut running, scale) = starts[c];
        for i in range {
            let next = running + f64::from(random_f32(seed, i as u64));
            let expected = if exclusive { running } else { next };
            running = next;
            let got = f32::from_bits(output[i]);
            let error = (f64::from(got) - expected).abs();
            let bound = f32_bound(i, scale.max(1.0));
            // NaN fails: `error <= bound` is false.
            if error <= bound {
                check.max_error = check.max_error.max(error);
                check.max_error_over_bound = check.max_error_over_bound.max(error / bound);
            } else {
                check.note(|| format!("element {i}: got {got}, expected {expected} (bound {bound:.3e})"));
                if error.is_finite() {
                    check.max_error = check.max_error.max(error);
                    check.max_error_over_bound = check.max_error_over_bound.max(error / bound);
                } else {
                    check.max_error = f64::INFINITY;
                }
            }
        }
        check
    })
}

/// Whether compaction keeps `x` (the kernels' `common::scan::keep_i32`).
pub fn kept(x: i32) -> bool {
    common::scan::keep_i32(x)
}

/// The number of the first `n` elements of stream `seed` that compaction keeps.
pub fn kept_count(seed: u64, n: usize) -> usize {
    chunk_values(n, |range| range.filter(|&i| kept(random_i32(seed, i as u64))).count()).iter().sum()
}

/// Checks compaction of the first `n` elements of stream `seed`: `count` is what the kernel
/// wrote as the count, `output` its `n` + [`GUARD`] words. In place, the words between the
/// kept elements and `n` still hold input, and only the guard is checked past them.
pub fn check_compaction(seed: u64, n: usize, count: u32, output: &[u32], in_place: bool) -> Check {
    let counts = chunk_values(n, |range| range.filter(|&i| kept(random_i32(seed, i as u64))).count());
    let total: usize = counts.iter().sum();
    let starts: Vec<usize> = counts
        .iter()
        .scan(0usize, |running, &c| {
            let start = *running;
            *running += c;
            Some(start)
        })
        .collect();
    let mut check = par_chunks(n, SELECTED, |c, range| {
        let mut check = Check::empty(SELECTED);
        let mut at = starts[c];
        for i in range {
            let x = random_i32(seed, i as u64);
            if kept(x) {
                let got = output[at] as i32;
                if got != x {
                    check.note(|| format!("kept element {at} (input {i}): got {got}, expected {x}"));
                }
                at += 1;
            }
        }
        check
    });
    if count as usize != total {
        check.note(|| format!("count: got {count}, expected {total}"));
    }
    // Past the kept elements nothing may be written (not even the dropped elements' slots).
    guard_check(output, if in_place { n } else { total }, check)
}
