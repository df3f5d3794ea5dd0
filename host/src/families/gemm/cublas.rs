//! cuBLAS as the baseline, loaded at run time. Row-major `C = A · B` is column-major
//! `Cᵀ = Bᵀ · Aᵀ`, so each call passes B first and swaps M and N.

use crate::base::error::{Error, Result};
use crate::base::gpu::Gpu;
use crate::base::precision::Precision;
use cudarc::cublas::sys::{
    self, cublasComputeType_t, cublasGemmAlgo_t, cublasHandle_t, cublasMath_t, cublasOperation_t,
    cublasStatus_t, cudaDataType_t,
};

/// The vendor product a GEMM step is measured against, in the same process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// cuBLAS SGEMM, f32 throughout (no TF32).
    Sgemm,
    /// cuBLAS GemmEx: 16-bit inputs, f32 compute and C.
    GemmEx,
    /// cuBLASLt's FP8 product (e4m3 A and Bᵀ, the scales `reference::FP8_SCALES`, f32 C).
    /// `fast_accumulation`: its `FAST_ACCUM` mode, the sums left in the tensor cores'
    /// accumulators throughout as in w14; without it (its default, and PyTorch's
    /// `_scaled_mm`'s) cuBLASLt adds partial sums into f32 as it goes, as the promoting steps
    /// do.
    Fp8 { fast_accumulation: bool },
    /// cuBLASLt's FP8 product with the DeepSeek-V3 Technical Report's per-block scales (1 ×
    /// 128 for A, 128 × 128 for B), promoting as w19 does.
    Fp8Blocks,
    /// cuBLASLt's promoting FP8 product with a bf16 C (`_scaled_mm`'s usual output), as w21.
    Fp8Bf16Out,
}

impl Baseline {
    /// The baselines of a product of `precision` inputs, in the table's order.
    pub fn of(precision: Precision) -> &'static [Baseline] {
        match precision {
            Precision::F32 => &[Baseline::Sgemm],
            Precision::F16 | Precision::Bf16 => &[Baseline::GemmEx],
            Precision::E4m3 => &[
                Baseline::Fp8 { fast_accumulation: true },
                Baseline::Fp8 { fast_accumulation: false },
                Baseline::Fp8Bf16Out,
            ],
            Precision::E4m3Blocks => &[Baseline::Fp8Blocks],
            // The promoting product alone: w20 promotes.
            Precision::E4m3E5m2 => &[Baseline::Fp8 { fast_accumulation: false }],
        }
    }

    /// Its records' kernel name.
    pub fn record_id(self) -> &'static str {
        match self {
            Baseline::Fp8 { fast_accumulation: true } => "cublaslt_fast_accum",
            Baseline::Fp8Blocks => "cublaslt_block_scales",
            Baseline::Fp8Bf16Out => "cublaslt_bf16_out",
            _ => "cublas",
        }
    }

    /// Its row's label in a table.
    pub fn label(self) -> &'static str {
        match self {
            Baseline::Sgemm => "cuBLAS SGEMM (no TF32)",
            Baseline::GemmEx => "cuBLAS GemmEx (f32 compute)",
            Baseline::Fp8 { fast_accumulation: true } => "cuBLASLt FP8, fast accum",
            Baseline::Fp8 { fast_accumulation: false } => "cuBLASLt FP8 (Bᵀ, f32 out)",
            Baseline::Fp8Blocks => "cuBLASLt FP8, block scales",
            Baseline::Fp8Bf16Out => "cuBLASLt FP8 (Bᵀ, bf16 out)",
        }
    }

    /// Its name where a step's record says what its % is of.
    pub fn vendor(self) -> &'static str {
        match self {
            Baseline::Sgemm => "cuBLAS SGEMM",
            Baseline::GemmEx => "cuBLAS GemmEx",
            Baseline::Fp8 { fast_accumulation: true } => "cuBLASLt FP8 fast accum",
            Baseline::Fp8 { fast_accumulation: false } => "cuBLASLt FP8",
            Baseline::Fp8Blocks => "cuBLASLt FP8 block scales",
            Baseline::Fp8Bf16Out => "cuBLASLt FP8 bf16 out",
        }
    }
}

/// An open cuBLAS handle on the runner's stream, and cuBLASLt for FP8 products (with the
/// plans of the shapes it has run, declared before it so that they are dropped first).
pub struct Cublas {
    handle: cublasHandle_t,
    fp8_plans: std::sync::Mutex<Vec<(Fp8Key, super::cublaslt::Fp8Plan)>>,
    lt: Option<super::cublaslt::CublasLt>,
}

/// An FP8 plan's shape, scaling (the block scales' pointers included), whether B is e5m2 and
/// whether C is bf16.
type Fp8Key = ((u32, u32, u32), super::cublaslt::Fp8Scaling, bool, bool);

fn check(status: cublasStatus_t, what: &str) -> Result<()> {
    if status == cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::new(format!("cuBLAS {what}: {status:?}")))
    }
}

/// Whether the cuBLAS library can be loaded on this machine.
pub fn available() -> bool {
    // SAFETY: only probes whether the library can be loaded.
    unsafe { sys::is_culib_present() }
}

impl Cublas {
    /// Opens cuBLAS on `gpu`'s stream, in its default math mode (no TF32 for SGEMM). `None`
    /// when the library cannot be loaded: the caller reports the ladder without it.
    pub fn open(gpu: &Gpu) -> Result<Option<Cublas>> {
        if !available() {
            return Ok(None);
        }
        let mut handle = std::ptr::null_mut();
        // SAFETY: writes a handle; the stream belongs to the current context.
        unsafe {
            check(sys::cublasCreate_v2(&mut handle), "create")?;
            check(sys::cublasSetStream_v2(handle, gpu.stream.cu_stream() as _), "set stream")?;
            check(sys::cublasSetMathMode(handle, cublasMath_t::CUBLAS_DEFAULT_MATH), "set math mode")?;
        }
        let lt = super::cublaslt::CublasLt::open(gpu)?;
        Ok(Some(Cublas { handle, fp8_plans: Default::default(), lt }))
    }

    /// Row-major `C = A · B` in FP32 (SGEMM), queued on the stream.
    ///
    /// # Safety
    /// `a`, `b`, `c` are device pointers to M·K, K·N and M·N `f32`.
    pub unsafe fn sgemm(&self, m: u32, n: u32, k: u32, a: u64, b: u64, c: u64) -> Result<()> {
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: column-major Cᵀ (n × m, ld n) = Bᵀ (n × k, ld n) · Aᵀ (k × m, ld k).
        let status = unsafe {
            sys::cublasSgemm_v2(
                self.handle,
                op,
                op,
                n as i32,
                m as i32,
                k as i32,
                &alpha,
                b as *const f32,
                n as i32,
                a as *const f32,
                k as i32,
                &beta,
                c as *mut f32,
                n as i32,
            )
        };
        check(status, "SGEMM")
    }

    /// Row-major `C = A · B` for `precision` inputs: SGEMM for FP32, `cublasGemmEx` with
    /// 16-bit A and B, f32 C and f32 compute otherwise.
    ///
    /// # Safety
    /// `a`, `b` are device pointers to M·K and K·N elements of `precision`, `c` to M·N `f32`.
    // The arguments of the product itself, as cuBLAS takes them: a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gemm(
        &self,
        precision: Precision,
        m: u32,
        n: u32,
        k: u32,
        a: u64,
        b: u64,
        c: u64,
    ) -> Result<()> {
        let input = match precision {
            // SAFETY: forwarded.
            Precision::F32 => return unsafe { self.sgemm(m, n, k, a, b, c) },
            Precision::F16 => cudaDataType_t::CUDA_R_16F,
            Precision::Bf16 => cudaDataType_t::CUDA_R_16BF,
            Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2 => {
                return Err(Error::new("cuBLAS GemmEx takes no FP8 inputs: FP8 products go through `fp8`"));
            }
        };
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: column-major Cᵀ = Bᵀ · Aᵀ as in `sgemm`; alpha and beta are f32 as the
        // compute type asks.
        let status = unsafe {
            sys::cublasGemmEx(
                self.handle,
                op,
                op,
                n as i32,
                m as i32,
                k as i32,
                (&alpha as *const f32).cast(),
                b as *const _,
                input,
                n as i32,
                a as *const _,
                input,
                k as i32,
                (&beta as *const f32).cast(),
                c as *mut _,
                cudaDataType_t::CUDA_R_32F,
                n as i32,
                cublasComputeType_t::CUBLAS_COMPUTE_32F,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        };
        check(status, "GemmEx")
    }
}

impl Cublas {
    /// Row-major `C (f32, or bf16 where `c_bf16`) = A · B` with e4m3 A (M × K) and B given as
    /// Bᵀ (N × K, e4m3, or e5m2 where `b_e5m2`), scaled as `scaling` says, through cuBLASLt,
    /// its plan for the shape and scaling made at the first call and kept.
    ///
    /// # Safety
    /// `a` and `bt` are device pointers to M·K and N·K e4m3 codes, `c` to M·N `f32`; block
    /// scales hold their counts.
    pub unsafe fn fp8(
        &self,
        gpu: &Gpu,
        scaling: super::cublaslt::Fp8Scaling,
        (b_e5m2, c_bf16): (bool, bool),
        shape: (u32, u32, u32),
        (a, bt, c): (u64, u64, u64),
    ) -> Result<()> {
        let lt =
            self.lt.as_ref().ok_or_else(|| Error::new("cuBLASLt could not be loaded: no FP8 baseline"))?;
        let key = (shape, scaling, b_e5m2, c_bf16);
        let mut plans = self.fp8_plans.lock().unwrap_or_else(|p| p.into_inner());
        if !plans.iter().any(|(planned, _)| *planned == key) {
            plans.push((key, lt.plan_fp8(gpu, shape, scaling, (b_e5m2, c_bf16))?));
        }
        let plan = &plans.iter().find(|(planned, _)| *planned == key).expect("planned above").1;
        // SAFETY: the caller's buffers, of the plan's shape; `lt` is open while `self` is.
        unsafe { plan.run(gpu, a, bt, c) }
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `open` and is destroyed once.
        unsafe { sys::cublasDestroy_v2(self.handle) };
    }
}
