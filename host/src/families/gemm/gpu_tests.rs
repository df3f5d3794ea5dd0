//! The GEMM family's GPU tests: every step and its C++ twin on shapes that are multiples of
//! no tile (right where it takes the shape, refused with its own message where it does
//! not), and cuBLAS's row-major call against the same reference.

use super::registry::{GemmKernel, kernels};
use super::runner::GemmBench;
use crate::base::precision::Precision;
use crate::families::family::GpuTest;
use crate::testing::{arch_unavailable, gpu, text, twins, twins_absent};
use crate::twins::Code;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// GEMM shapes that are multiples of no tile.
pub const SHAPES: &[(u32, u32, u32)] = &[
    (1, 1, 1),
    (17, 17, 17),
    (4096, 1, 777),
    (1, 4097, 33),
    (33, 65, 129),
    (1000, 1000, 1000),
    (4097, 17, 1000),
    (17, 24, 40),
    (4097, 8, 8),
    (136, 264, 1000),
    (130, 264, 72),
    // More tiles than a persistent grid has blocks (132 SMs): each block walks several
    // tiles, an odd count of 128-row tiles leaves a cluster pair half outside M, and K
    // gives fewer k tiles than stages, so the stage counter wraps inside a tile.
    (2100, 2312, 136),
    (4100, 2312, 72),
];

pub fn all(gpu_present: bool) -> Vec<GpuTest> {
    let mut tests = Vec::new();
    for kernel in kernels() {
        // A kernel this device cannot run (sm_90a's wgmma elsewhere) is ignored, with why.
        let unavailable = arch_unavailable(gpu_present, kernel.id, kernel.arch);
        tests.push(
            GpuTest::new(format!("{}/awkward_shapes", kernel.id), move || awkward(kernel, Code::Rust))
                .ignored_if(unavailable.clone()),
        );
        // Its C++ twin on the same shapes, ignored where the step is, or without NVRTC.
        tests.push(
            GpuTest::new(format!("{}/cpp_twin/awkward_shapes", kernel.id), move || {
                awkward(kernel, Code::Cpp(twins()?))
            })
            .ignored_if(unavailable.or_else(|| twins_absent(gpu_present))),
        );
    }
    let no_cublas = (!super::cublas::available()).then(|| "cuBLAS could not be loaded".to_string());
    tests.push(GpuTest::new("cublas/row_major_matches_the_reference", cublas_matches).ignored_if(no_cublas));
    tests
}

type BenchKey = (Precision, (u32, u32, u32));

/// One bench per precision and shape, filled once and shared by every test (the lock also
/// keeps the tests from interleaving their launches).
fn with_bench<T>(
    precision: Precision,
    shape: (u32, u32, u32),
    body: impl FnOnce(&GemmBench<'static>) -> Result<T, String>,
) -> Result<T, String> {
    static BENCHES: OnceLock<Mutex<HashMap<BenchKey, GemmBench<'static>>>> = OnceLock::new();
    let gpu = gpu()?;
    let mut benches = BENCHES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    let key = (precision, shape);
    if let std::collections::hash_map::Entry::Vacant(e) = benches.entry(key) {
        let (m, n, k) = shape;
        e.insert(text(GemmBench::new(gpu, precision, m, n, k, crate::base::clock::clock_seed()))?);
    }
    body(&benches[&key])
}

/// `kernel` (the Rust step or its twin: `code`) on every shape of [`SHAPES`]: right where
/// it takes the shape, refused with its own message where it does not.
fn awkward(kernel: &'static GemmKernel, code: Code<'static>) -> Result<(), String> {
    let who = format!("{} ({})", kernel.id, code.name());
    for &shape in SHAPES {
        let (m, n, k) = shape;
        if let Some(refusal) = kernel.refusal(m, n, k) {
            with_bench(kernel.precision, shape, |bench| match bench.check_kernel(kernel, code) {
                Err(e) if e.to_string() == refusal => Ok(()),
                Err(e) => Err(format!("{who} on {shape:?}: refused with `{e}`, expected `{refusal}`")),
                Ok(_) => Err(format!("{who} ran on {shape:?}, which it must refuse")),
            })?;
            continue;
        }
        with_bench(kernel.precision, shape, |bench| {
            let check = text(bench.check_kernel(kernel, code))?;
            if check.passed() {
                Ok(())
            } else {
                Err(format!("{who} on {shape:?}: relative error {:e} ({})", check.error, check.method))
            }
        })?;
    }
    Ok(())
}

fn cublas_matches() -> Result<(), String> {
    let cublas = text(super::cublas::Cublas::open(gpu()?))?.ok_or("cuBLAS not loaded")?;
    for (&shape, precision) in
        SHAPES.iter().flat_map(|s| [Precision::F32, Precision::F16, Precision::Bf16].map(|p| (s, p)))
    {
        with_bench(precision, shape, |bench| {
            let check = text(bench.check_cublas(&cublas))?;
            if check.passed() {
                Ok(())
            } else {
                Err(format!("cuBLAS {precision:?} on {shape:?}: error {:e}", check.error))
            }
        })?;
    }
    Ok(())
}
