//! The GEMM family's GPU tests: every step and its C++ twin on shapes that are multiples of
//! no tile (right where it takes the shape, refused with its own message where it does
//! not), and cuBLAS's row-major call against the same reference.

use super::cublaslt::Fp8Scaling;
use super::reference::Inputs;
use super::registry::{GemmKernel, kernels};
use super::runner::GemmBench;
use crate::base::memory::DeviceBuffer;
use crate::base::precision::{Precision, half_value};
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

/// The shapes of the 8-bit step, which needs K and N multiples of 16: M awkward, N and K
/// multiples of no tile (nor of 32), a K shorter than one k tile and one shorter than the
/// stages, more tiles than a persistent grid has blocks, and one shape it must refuse.
pub const FP8_GEMM_SHAPES: &[(u32, u32, u32)] = &[
    (1, 16, 16),
    (17, 48, 80),
    (130, 272, 144),
    (1000, 1008, 1040),
    (2100, 2320, 208),
    (4100, 2320, 80),
    (136, 264, 1000),
];

/// The shapes a kernel's GPU test runs it on.
fn shapes_for(kernel: &GemmKernel) -> &'static [(u32, u32, u32)] {
    if kernel.precision.is_fp8() { FP8_GEMM_SHAPES } else { SHAPES }
}

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
    let no_lt = (!super::cublaslt::available()).then(|| "cuBLASLt could not be loaded".to_string());
    tests.push(
        GpuTest::new("cublaslt/fp8_matches_the_reference", cublaslt_fp8_matches).ignored_if(no_lt.clone()),
    );
    tests.push(
        GpuTest::new("cublaslt/fp8_block_scales_match_the_reference", cublaslt_block_scales_match)
            .ignored_if(no_lt),
    );
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
    for &shape in shapes_for(kernel) {
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
            let check = text(bench.check_cublas(&cublas, super::cublas::Baseline::of(precision)[0]))?;
            if check.passed() {
                Ok(())
            } else {
                Err(format!("cuBLAS {precision:?} on {shape:?}: error {:e}", check.error))
            }
        })?;
    }
    Ok(())
}

/// Shapes for cuBLASLt's FP8 product (multiples of 16, as it needs; no other tile's): one
/// it must refuse, with its message.
const FP8_SHAPES: &[(u32, u32, u32)] = &[(16, 16, 16), (272, 80, 144), (1040, 528, 2064), (4112, 16, 96)];

/// The error cuBLASLt's FP8 product may show when it promotes its partial sums into f32:
/// measured 1.6e-5 at 16×16×16 and 1.0e-4 at 4096 × 4096 × K for every K from 1024 to
/// 16384 (H100): the tensor cores add each partial sum with fewer bits than f32, but the
/// error does not grow with K. Its fast accumulation is held to the FP8 steps' bound.
const PROMOTED_FP8_BOUND: f64 = 1e-3;

/// The same with C rounded to bf16: each value within 2^-9 of itself (8 significant bits,
/// rounded to nearest), so the relative Frobenius error within 2^-9 of the product's.
const BF16_OUT_BOUND: f64 = 3e-3;

/// cuBLASLt's FP8 product (e4m3 A, K-major B, per-tensor scales, f32 C), promoting and fast,
/// with an e5m2 B and with a bf16 C promoting, against the exact values in f64, on random codes; and its
/// refusal of a K that is no multiple of 16.
fn cublaslt_fp8_matches() -> Result<(), String> {
    use common::fp8::{E4M3, E5M2, Format};
    use common::input::random_f32;
    let gpu = gpu()?;
    let lt = text(super::cublaslt::CublasLt::open(gpu))?.ok_or("cuBLASLt not loaded")?;
    let (scale_a, scale_b) = (0.5f32, 0.25f32);
    let codes = |format: Format, seed: u64, count: usize| -> Vec<u8> {
        (0..count as u64).map(|i| format.from_f32(4.0 * random_f32(seed, i))).collect()
    };
    let upload = |values: &[u8], what: &str| text(DeviceBuffer::with_values(gpu, values, what));
    // (B's format, fast accumulation, bf16 C, bound): e4m3 promoting and fast, e5m2 B promoting
    // (w20's), e4m3 promoting into a bf16 C (w21's).
    let modes = [
        (E4M3, false, false, PROMOTED_FP8_BOUND),
        (E4M3, true, false, super::registry::tolerance(Precision::E4m3)),
        (E5M2, false, false, PROMOTED_FP8_BOUND),
        (E4M3, false, true, BF16_OUT_BOUND),
    ];
    for &(m, n, k) in FP8_SHAPES {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let a = codes(E4M3, 1, mu * ku);
        let a_dev = upload(&a, "FP8 A")?;
        let a: Vec<f64> = a.iter().map(|&c| f64::from(E4M3.to_f32(c))).collect();
        let c_dev = text(DeviceBuffer::alloc(gpu, mu * nu * 4, "FP8 C"))?;
        for (b_format, fast, c_bf16, bound) in modes {
            let bt = codes(b_format, 2, nu * ku);
            let bt_dev = upload(&bt, "FP8 Bᵀ")?;
            let bt: Vec<f64> = bt.iter().map(|&c| f64::from(b_format.to_f32(c))).collect();
            let scale = f64::from(scale_a) * f64::from(scale_b);
            let want: Vec<f64> = (0..mu * nu)
                .map(|e| {
                    let (row, col) = (e / nu, e % nu);
                    scale * (0..ku).map(|kk| a[row * ku + kk] * bt[col * ku + kk]).sum::<f64>()
                })
                .collect();
            text(c_dev.fill_words(gpu, 0x7fc0_0000, mu * nu))?;
            let scaling = Fp8Scaling::Tensor { scale_a, scale_b, fast_accumulation: fast };
            let b_e5m2 = b_format == E5M2;
            let plan = text(lt.plan_fp8(gpu, (m, n, k), scaling, (b_e5m2, c_bf16)))?;
            // SAFETY: A holds m·k codes, Bᵀ n·k, C room for m·n f32, as the plan's shape.
            text(unsafe { plan.run(gpu, a_dev.ptr(), bt_dev.ptr(), c_dev.ptr()) })?;
            let got: Vec<f32> = if c_bf16 {
                let bits = text(c_dev.read::<u16>(gpu, mu * nu))?;
                bits.into_iter().map(|b| half_value(Precision::Bf16, b)).collect()
            } else {
                text(c_dev.read::<f32>(gpu, mu * nu))?
            };
            let error = super::reference::relative_error(&got, &want);
            if !(error <= bound) {
                return Err(format!(
                    "cuBLASLt FP8 (B e5m2: {b_e5m2}, fast accumulation: {fast}, bf16 C: {c_bf16}) on {m}×{n}×{k}: \
                     relative error {error:e} over {bound:e}"
                ));
            }
        }
    }
    let unscaled = Fp8Scaling::Tensor { scale_a: 1.0, scale_b: 1.0, fast_accumulation: false };
    match lt.plan_fp8(gpu, (272, 80, 100), unscaled, (false, false)) {
        Err(e) if e.to_string().contains("multiples of 16") => Ok(()),
        Err(e) => Err(format!("cuBLASLt FP8 refused K = 100 with `{e}`")),
        Ok(_) => Err("cuBLASLt FP8 planned K = 100, which it must refuse".into()),
    }
}

/// Shapes for cuBLASLt's block-scaled FP8 product: K a multiple of 512, M and N of 16 and not
/// of 128 (a partial block of B's columns).
const BLOCK_SCALED_SHAPES: &[(u32, u32, u32)] = &[(16, 16, 512), (272, 400, 1024), (1040, 528, 2048)];

/// cuBLASLt's FP8 product with per-block scales (w19's baseline) against the f64 reference of
/// the same inputs and scales (`Inputs::reference`); a wrong guess of the layout of A's
/// scales is named in the failure, with the other layout's error beside it. And its refusal
/// of a K that is no multiple of 512.
fn cublaslt_block_scales_match() -> Result<(), String> {
    let gpu = gpu()?;
    let lt = text(super::cublaslt::CublasLt::open(gpu))?.ok_or("cuBLASLt not loaded")?;
    let upload = |bytes: &[u8], what: &str| text(DeviceBuffer::with_values(gpu, bytes, what));
    let upload_f32 = |values: &[f32], what: &str| text(DeviceBuffer::with_values(gpu, values, what));
    // A's scales as cuBLASLt is given them (k block by k block: `Inputs::a_scales(false)`),
    // then the other way round, whose error the failure names beside.
    const ROWS_FIRST: [bool; 2] = [false, true];
    for &(m, n, k) in BLOCK_SCALED_SHAPES {
        let inputs = Inputs { precision: Precision::E4m3Blocks, m, n, k, seed_a: 11, seed_b: 12 };
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let a = upload(&crate::base::inputs::e4m3_codes(inputs.seed_a, mu * ku), "FP8 A")?;
        let bt = upload(&crate::base::inputs::e4m3_codes(inputs.seed_b, nu * ku), "FP8 Bᵀ")?;
        let c = text(DeviceBuffer::alloc(gpu, mu * nu * 4, "FP8 C"))?;
        let b_scales = upload_f32(&inputs.b_scales(), "B's block scales")?;
        let entries = inputs.entries();
        let want = inputs.reference(&entries);
        // The layout cuBLASLt is given, then the other one.
        let mut errors = Vec::new();
        for rows_first in ROWS_FIRST {
            let a_scales = upload_f32(&inputs.a_scales(rows_first), "A's block scales")?;
            text(c.fill_words(gpu, 0x7fc0_0000, mu * nu))?;
            let scaling = Fp8Scaling::Blocks { a_scales: a_scales.ptr(), b_scales: b_scales.ptr() };
            let plan = text(lt.plan_fp8(gpu, (m, n, k), scaling, (false, false)))?;
            // SAFETY: A holds m·k codes, Bᵀ n·k, C m·n f32, the scales their counts.
            text(unsafe { plan.run(gpu, a.ptr(), bt.ptr(), c.ptr()) })?;
            let all = text(c.read::<f32>(gpu, mu * nu))?;
            let got: Vec<f32> = entries.iter().map(|&(i, j)| all[i as usize * nu + j as usize]).collect();
            errors.push(super::reference::relative_error(&got, &want));
        }
        if !(errors[0] <= PROMOTED_FP8_BOUND) {
            let layout = |rows_first: bool| if rows_first { "M × K/128" } else { "K/128 × M" };
            return Err(format!(
                "cuBLASLt FP8 with block scales on {m}×{n}×{k}: relative error {:e} with A's scales laid out \
                 {}, {:e} with them {}",
                errors[0],
                layout(ROWS_FIRST[0]),
                errors[1],
                layout(ROWS_FIRST[1])
            ));
        }
    }
    let scaling = Fp8Scaling::Blocks { a_scales: 0, b_scales: 0 };
    match lt.plan_fp8(gpu, (272, 80, 256), scaling, (false, false)) {
        Err(e) if e.to_string().contains("multiple of 512") => Ok(()),
        Err(e) => Err(format!("cuBLASLt's block-scaled FP8 refused K = 256 with `{e}`")),
        Ok(_) => Err("cuBLASLt's block-scaled FP8 planned K = 256, which it must refuse".into()),
    }
}
