//! The scan family's GPU tests: every step (and its C++ twin) in both element types,
//! inclusive and exclusive, on random inputs of awkward sizes with poisoned outputs and
//! guard words; in place; the single-pass steps with their tile claims shuffled and their
//! state reused launch after launch (what a look-back race or a stale status word would
//! break); every step past 2^31 elements; and CUB's library where it is built.

use super::cub::Cub;
use super::reference::Check;
use super::registry::{ElementType, MIN_BLOCK, SCAN_STEPS, ScanStep, Scheme};
use super::runner::{Launch, Placement, ScanBench};
use crate::families::family::GpuTest;
use crate::testing::{arch_unavailable, gpu, memory_short, text, twins, twins_absent};
use crate::twins::Code;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Sizes every step is checked at besides its tile's neighbours: empty, one element, less
/// than a warp, not a multiple of anything, and past the L2 with a ragged end.
const SIZES: &[usize] = &[0, 1, 31, 1000, (1 << 20) + 3];

/// Past 2^31 elements: 32-bit element indices would wrap (2 × 8 GiB of buffers).
const LARGE: usize = (1 << 31) + 3;

/// Device memory the large test needs: input and output with room to spare.
const LARGE_NEEDS_GIB: u64 = 20;

/// Many tiles (2049 of the single-pass steps' 8192): long look-backs.
const MANY_TILES: usize = (1 << 24) + 7;

/// The test-only jitter, in ns: blocks sleep up to this long before claiming a tile and
/// before looking back.
const JITTER_NS: u32 = 2000;

/// Launches of one plan in the state test: each must read only its own epoch's words.
const REPEATS: usize = 4;

pub fn all(gpu_present: bool) -> Vec<GpuTest> {
    let mut tests = Vec::new();
    for step in SCAN_STEPS {
        for element in [ElementType::I32, ElementType::F32] {
            if step.entries(element).is_none() {
                continue;
            }
            let modes: &[bool] = if step.scheme == Scheme::Compaction { &[false] } else { &[false, true] };
            for &exclusive in modes {
                let name = format!("scan/{}/{}/{}", step.id, element.name(), operation(step, exclusive));
                tests.push(
                    GpuTest::new(format!("{name}/awkward_sizes"), move || {
                        at_sizes(step, element, exclusive, &sizes(step), Code::Rust)
                    })
                    .ignored_if(unavailable(gpu_present, step)),
                );
                tests.push(
                    GpuTest::new(format!("{name}/cpp_twin/awkward_sizes"), move || {
                        at_sizes(step, element, exclusive, &sizes(step), Code::Cpp(twins()?))
                    })
                    .ignored_if(unavailable(gpu_present, step).or_else(|| twins_absent(gpu_present))),
                );
            }
        }
        tests.push(
            GpuTest::new(format!("scan/{}/in_place", step.id), move || in_place(step))
                .ignored_if(unavailable(gpu_present, step)),
        );
        if matches!(step.scheme, Scheme::SinglePass | Scheme::Ring | Scheme::Compaction) {
            tests.push(
                GpuTest::new(format!("scan/{}/shuffled_claims_and_reused_state", step.id), move || {
                    shuffled_and_reused(step, Code::Rust)
                })
                .ignored_if(unavailable(gpu_present, step)),
            );
            tests.push(
                GpuTest::new(
                    format!("scan/{}/cpp_twin/shuffled_claims_and_reused_state", step.id),
                    move || shuffled_and_reused(step, Code::Cpp(twins()?)),
                )
                .ignored_if(unavailable(gpu_present, step).or_else(|| twins_absent(gpu_present))),
            );
        }
    }
    let no_cub = gpu_present.then(|| Cub::open().err()).flatten();
    tests.push(GpuTest::new("scan/cub/scan_and_select_match_the_cpu", cub_matches).ignored_if(no_cub));
    let too_small = memory_short(gpu_present, LARGE_NEEDS_GIB);
    tests.push(GpuTest::new("scan/all_steps/n_past_2^31", all_steps_past_2_pow_31).ignored_if(too_small));
    tests
}

/// Why `step` cannot run on this device (its PTX target), or `None`.
fn unavailable(gpu_present: bool, step: &ScanStep) -> Option<String> {
    arch_unavailable(gpu_present, step.id, step.arch)
}

fn operation(step: &ScanStep, exclusive: bool) -> &'static str {
    match (step.scheme, exclusive) {
        (Scheme::Compaction, _) => "compaction",
        (_, true) => "exclusive",
        (_, false) => "inclusive",
    }
}

/// The awkward sizes and the step's own tile's neighbours.
fn sizes(step: &ScanStep) -> Vec<usize> {
    let tile = step.tile as usize;
    let mut sizes = SIZES.to_vec();
    sizes.extend([tile - 1, tile + 1]);
    sizes
}

/// One input per size and element type, filled once and shared by every test (the lock also
/// keeps the tests from interleaving their launches).
fn with_bench<T>(
    n: usize,
    element: ElementType,
    body: impl FnOnce(&ScanBench<'static>) -> Result<T, String>,
) -> Result<T, String> {
    type Benches = HashMap<(usize, ElementType), ScanBench<'static>>;
    static BENCHES: OnceLock<Mutex<Benches>> = OnceLock::new();
    let gpu = gpu()?;
    let mut benches = BENCHES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let std::collections::hash_map::Entry::Vacant(e) = benches.entry((n, element)) {
        let seed = crate::base::clock::clock_seed() ^ n as u64;
        e.insert(text(ScanBench::new(gpu, n, seed, element))?);
    }
    body(&benches[&(n, element)])
}

/// What a failed check says.
fn failure(step: &ScanStep, bench: &ScanBench, code: Code, what: &str, check: &Check) -> String {
    format!(
        "{} ({}, {} {what}) on n = {} (seed {}): {} wrong, the first: {}",
        step.id,
        code.name(),
        bench.element.name(),
        bench.n,
        bench.seed,
        check.wrong,
        check.first
    )
}

fn run_once(
    bench: &ScanBench,
    step: &ScanStep,
    code: Code,
    placement: Placement,
    exclusive: bool,
) -> Result<(), String> {
    let plan = text(bench.plan(step, code, placement, exclusive, Launch::of(step)))?;
    let check = text(bench.check(&plan, exclusive))?;
    let what = format!(
        "{}{}",
        operation(step, exclusive),
        if placement == Placement::InPlace { ", in place" } else { "" }
    );
    if check.passed() { Ok(()) } else { Err(failure(step, bench, code, &what, &check)) }
}

fn at_sizes(
    step: &ScanStep,
    element: ElementType,
    exclusive: bool,
    sizes: &[usize],
    code: Code,
) -> Result<(), String> {
    for &n in sizes {
        with_bench(n, element, |bench| run_once(bench, step, code, Placement::OutOfPlace, exclusive))?;
    }
    Ok(())
}

/// Output over input: every step reads each element before anything writes it.
fn in_place(step: &'static ScanStep) -> Result<(), String> {
    for element in [ElementType::I32, ElementType::F32].into_iter().filter(|&e| step.entries(e).is_some()) {
        for n in [1000, (1 << 20) + 3] {
            for exclusive in [false, true] {
                with_bench(n, element, |bench| {
                    run_once(bench, step, Code::Rust, Placement::InPlace, exclusive)
                })?;
            }
        }
    }
    Ok(())
}

/// A single-pass step over many tiles with its blocks' claims and look-backs delayed by
/// random times (the test-only jitter), one plan launched several times (its state is never
/// reset: each launch must see only its own epoch's status words), every run checked.
fn shuffled_and_reused(step: &'static ScanStep, code: Code) -> Result<(), String> {
    let exclusive = false;
    with_bench(MANY_TILES, ElementType::I32, |bench| {
        // The smallest block too, where the step takes one: more tiles, longer look-backs.
        for launch in [
            Launch::of(step),
            Launch {
                block: if step.block_at_launch() { MIN_BLOCK } else { step.threads },
                jitter: JITTER_NS,
            },
            Launch { jitter: JITTER_NS, ..Launch::of(step) },
        ] {
            let jitter = launch.jitter;
            let plan = text(bench.plan(step, code, Placement::OutOfPlace, exclusive, launch))?;
            for run in 0..REPEATS {
                let check = text(bench.check(&plan, exclusive))?;
                if !check.passed() {
                    let what = format!(
                        "block {}, jitter {jitter} ns, launch {} of one state",
                        launch.block,
                        run + 1
                    );
                    return Err(failure(step, bench, code, &what, &check));
                }
            }
        }
        Ok(())
    })
}

/// CUB's scans (both element types, inclusive and exclusive) and select match the CPU at
/// the awkward sizes: the baseline is checked like the steps it is compared with.
fn cub_matches() -> Result<(), String> {
    let cub = Cub::open()?;
    for &n in SIZES {
        for element in [ElementType::I32, ElementType::F32] {
            with_bench(n, element, |bench| {
                for (exclusive, compaction) in [(false, false), (true, false), (false, true)] {
                    if compaction && element == ElementType::F32 {
                        continue;
                    }
                    let (check, _) = text(bench.cub(&cub, exclusive, compaction, None))?;
                    if !check.passed() {
                        return Err(format!(
                            "CUB ({} {}, exclusive {exclusive}, select {compaction}) on n = {n}: {}",
                            element.name(),
                            if compaction { "select" } else { "scan" },
                            check.first
                        ));
                    }
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// Every step (and twin) on more than 2^31 elements, inclusive i32: 32-bit index
/// arithmetic on element indices would wrap.
fn all_steps_past_2_pow_31() -> Result<(), String> {
    let gpu = gpu()?;
    let bench = text(ScanBench::new(gpu, LARGE, crate::base::clock::clock_seed(), ElementType::I32))?;
    let twins = crate::twins::nvrtc_absent_reason().is_none().then(twins).transpose()?;
    for step in SCAN_STEPS.iter().filter(|s| unavailable(true, s).is_none()) {
        run_once(&bench, step, Code::Rust, Placement::OutOfPlace, false)?;
        if let Some(twins) = twins {
            run_once(&bench, step, Code::Cpp(twins), Placement::OutOfPlace, false)?;
        }
    }
    Ok(())
}
