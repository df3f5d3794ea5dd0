//! The reduction family's GPU tests: every kernel (and its C++ twin) at every block size it
//! can be launched with, on random inputs of awkward sizes with poisoned outputs; the
//! single-launch kernels' state back at zero after every launch; and every kernel past 2^32
//! elements, where 32-bit index arithmetic would wrap.

use super::registry::{Finish, REDUCE_KERNELS, ReduceKernel};
use super::runner::ReduceBench;
use crate::families::family::GpuTest;
use crate::testing::{gpu, memory_short, text, twins, twins_absent};
use crate::twins::Code;
use common::input::random_i32;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Sizes every kernel is checked at: empty, one element, less than a warp, not a multiple
/// of any block or batch, and past the L2 with a ragged end.
pub const SIZES: &[usize] = &[0, 1, 31, 1000, (1 << 20) + 3, (1 << 24) + 7];

/// A size past 2^32 elements (16 GiB of input): kernels must index in 64 bits.
const LARGE: usize = (1 << 32) + 5;

/// Device memory the large test needs: the input, the partials and room to spare.
const LARGE_NEEDS_GIB: u64 = 20;

pub fn all(gpu_present: bool) -> Vec<GpuTest> {
    let mut tests = vec![GpuTest::new("fill_matches_the_cpu_generator", fill_matches_the_cpu_generator)];
    for kernel in REDUCE_KERNELS {
        for block in kernel.block_sizes() {
            tests.push(GpuTest::new(format!("{}/block_{block}/awkward_sizes", kernel.id), move || {
                sums_are_exact(kernel, block, SIZES, Code::Rust)
            }));
            tests.push(
                GpuTest::new(format!("{}/block_{block}/cpp_twin/awkward_sizes", kernel.id), move || {
                    sums_are_exact(kernel, block, SIZES, Code::Cpp(twins()?))
                })
                .ignored_if(twins_absent(gpu_present)),
            );
        }
    }
    for kernel in
        REDUCE_KERNELS.iter().filter(|k| matches!(k.finish, Finish::LastBlock | Finish::PackedTally))
    {
        tests.push(GpuTest::new(format!("{}/state_returns_to_zero", kernel.id), move || {
            state_returns_to_zero(kernel)
        }));
    }
    let too_small = memory_short(gpu_present, LARGE_NEEDS_GIB);
    tests.push(GpuTest::new("all_kernels/n_past_2^32", all_kernels_past_2_pow_32).ignored_if(too_small));
    tests
}

/// One input per size, filled once and shared by every test (the lock also keeps the
/// tests from interleaving their launches).
fn with_bench<T>(
    n: usize,
    body: impl FnOnce(&ReduceBench<'static>) -> Result<T, String>,
) -> Result<T, String> {
    static BENCHES: OnceLock<Mutex<HashMap<usize, ReduceBench<'static>>>> = OnceLock::new();
    let gpu = gpu()?;
    let mut benches = BENCHES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let std::collections::hash_map::Entry::Vacant(e) = benches.entry(n) {
        let seed = crate::base::clock::clock_seed() ^ n as u64;
        e.insert(text(ReduceBench::new(gpu, n, seed))?);
    }
    body(&benches[&n])
}

fn check(bench: &ReduceBench, kernel: &ReduceKernel, block: u32, code: Code) -> Result<(), String> {
    let plan = text(bench.plan(kernel, block, code))?;
    let check = text(bench.check(&plan))?;
    if check.passed() {
        Ok(())
    } else {
        Err(format!(
            "{} ({}, block {block}) on n = {} (seed {}): got {}, expected {}",
            kernel.id,
            code.name(),
            bench.n,
            bench.seed,
            check.got,
            check.expected
        ))
    }
}

fn sums_are_exact(
    kernel: &'static ReduceKernel,
    block: u32,
    sizes: &[usize],
    code: Code,
) -> Result<(), String> {
    for &n in sizes {
        with_bench(n, |bench| check(bench, kernel, block, code))?;
    }
    Ok(())
}

fn fill_matches_the_cpu_generator() -> Result<(), String> {
    let n = (1 << 20) + 3;
    with_bench(n, |bench| {
        let on_gpu = text(bench.input_prefix(n))?;
        for (i, &v) in on_gpu.iter().enumerate() {
            let want = random_i32(bench.seed, i as u64);
            if v != want {
                return Err(format!("element {i}: GPU {v}, CPU {want}"));
            }
        }
        Ok(())
    })
}

/// A single-launch kernel leaves its counter or tally at 0 after every launch, at every
/// grid size, run after run; state left behind would make the next launch finish early or
/// add a stale sum.
fn state_returns_to_zero(kernel: &'static ReduceKernel) -> Result<(), String> {
    let block = text(kernel.block_size(None))?;
    for &n in SIZES {
        with_bench(n, |bench| {
            for run in 0..5 {
                check(bench, kernel, block, Code::Rust)?;
                let state = text(bench.persistent_state())?;
                if state != [0; 3] {
                    return Err(format!("n = {n}, run {run}: state left at {state:?}"));
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Every kernel (default block) on more than 2^32 elements: any 32-bit index arithmetic
/// on the element index would wrap and miss or repeat elements.
fn all_kernels_past_2_pow_32() -> Result<(), String> {
    let gpu = gpu()?;
    let bench = text(ReduceBench::new(gpu, LARGE, crate::base::clock::clock_seed()))?;
    let twins = crate::twins::nvrtc_absent_reason().is_none().then(twins).transpose()?;
    for kernel in REDUCE_KERNELS {
        let block = text(kernel.block_size(None))?;
        check(&bench, kernel, block, Code::Rust)?;
        if let Some(twins) = twins {
            check(&bench, kernel, block, Code::Cpp(twins))?;
        }
    }
    Ok(())
}
