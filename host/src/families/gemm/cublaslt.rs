//! cuBLASLt as the FP8 baseline, loaded at run time: `C = A · B` with e4m3 A and B, f32
//! accumulate and an f32 C, per-tensor scales, the call PyTorch's `_scaled_mm` makes; or the
//! DeepSeek-V3 Technical Report's per-block scales (cuBLAS 12.9 on, Hopper), 1 × 128 for A
//! and 128 × 128 for B.
//!
//! FP8 products on Hopper take both operands K-major (the tensor cores' 8-bit `wgmma` has
//! no transpose, and cuBLASLt asks for its "TN" layout): A row-major (M × K), and B given
//! as Bᵀ, row-major N × K, each column of B one row of `bt`. In cuBLASLt's column-major
//! terms row-major C is Cᵀ (N × M, ld N) = op(Bᵀ') · A', with `bt` read as a K × N matrix
//! (ld K) and transposed, `a` as a K × M matrix (ld K) not.

use crate::base::error::{Error, Result};
use crate::base::gpu::Gpu;
use crate::base::memory::DeviceBuffer;
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublaslt::sys::{
    self, cublasComputeType_t, cublasLtHandle_t, cublasLtMatmulAlgo_t, cublasLtMatmulDesc_t,
    cublasLtMatmulDescAttributes_t, cublasLtMatmulHeuristicResult_t, cublasLtMatmulPreference_t,
    cublasLtMatmulPreferenceAttributes_t, cublasLtMatrixLayout_t, cublasStatus_t, cudaDataType,
};

/// The workspace cuBLASLt may use, as PyTorch gives it on Hopper.
pub const WORKSPACE_BYTES: usize = 32 << 20;

/// What cuBLASLt's FP8 kernels need of a shape: every dimension a multiple of 16 (16-byte
/// rows of 8-bit values and 16-byte aligned leading dimensions).
pub const FP8_MULTIPLE: u32 = 16;

fn check(status: cublasStatus_t, what: &str) -> Result<()> {
    if status == cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::new(format!("cuBLASLt {what}: {status:?}")))
    }
}

/// Whether the cuBLASLt library can be loaded on this machine.
pub fn available() -> bool {
    // SAFETY: only probes whether the library can be loaded.
    unsafe { sys::is_culib_present() }
}

/// Why cuBLASLt's FP8 product cannot take `m × n × k`, or `None`; `blocks`: with per-block
/// scales.
pub fn fp8_refusal(m: u32, n: u32, k: u32, blocks: bool) -> Option<String> {
    if [m, n, k].iter().any(|d| d % FP8_MULTIPLE != 0) {
        return Some(format!(
            "cuBLASLt FP8 needs M, N and K multiples of {FP8_MULTIPLE}; this product is {m}×{n}×{k}"
        ));
    }
    (blocks && !k.is_multiple_of(BLOCK_SCALED_K_MULTIPLE)).then(|| {
        format!(
            "cuBLASLt's block-scaled FP8 runs here with K a multiple of {BLOCK_SCALED_K_MULTIPLE}; K = {k}"
        )
    })
}

/// The alignment cuBLASLt requires of the scales' device pointers, in bytes.
pub const SCALE_ALIGN: usize = 16;

/// `cublasLtMatmulMatrixScale_t`'s values for the two block-scale modes (cuBLAS 12.9 on):
/// one f32 per 128 values along K (`VEC128_32F`), one per 128 × 128 block (`BLK128x128_32F`).
const SCALE_MODE_VEC128_32F: u32 = 4;
const SCALE_MODE_BLK128X128_32F: u32 = 5;

/// What a block-scaled product needs of a shape here: K a multiple of 512 (whole blocks of
/// 128, four of them to a 16-byte row of scales) besides the multiples of 16; the shapes this
/// project verified cuBLASLt's layouts of block scales on.
pub const BLOCK_SCALED_K_MULTIPLE: u32 = 512;

/// How an FP8 product is scaled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fp8Scaling {
    /// C = scale_a · scale_b · A · B; `fast_accumulation` sets
    /// `CUBLASLT_MATMUL_DESC_FAST_ACCUM`: the products' sums stay in the tensor cores'
    /// accumulators, whose additions keep fewer bits than f32; without it cuBLASLt adds
    /// partial sums into f32 as it goes, slower and closer to the exact sum.
    Tensor { scale_a: f32, scale_b: f32, fast_accumulation: bool },
    /// Per-block scales on the device, in the layouts cuBLASLt reads (`VEC128_32F` for our A,
    /// its B: `ceil(K / 128) × M`, row-major, a k block's scales of every row contiguous;
    /// `BLK128x128_32F` for our Bᵀ, its A: `ceil(N / 128) × ceil(K / 128)`, row-major),
    /// w19's layouts too. Its documentation does not spell them out: its GPU test pins them.
    Blocks { a_scales: u64, b_scales: u64 },
}

/// An open cuBLASLt handle and its workspace.
pub struct CublasLt {
    handle: cublasLtHandle_t,
    workspace: DeviceBuffer,
}

impl Drop for CublasLt {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `open` and is destroyed once.
        unsafe { sys::cublasLtDestroy(self.handle) };
    }
}

/// One FP8 product's descriptors and algorithm, found once so that a timed loop only
/// launches ([`Fp8Plan::run`]). It holds the handle and the workspace of the [`CublasLt`]
/// that made it, which must outlive it.
pub struct Fp8Plan {
    handle: cublasLtHandle_t,
    workspace: u64,
    desc: cublasLtMatmulDesc_t,
    layouts: [cublasLtMatrixLayout_t; 3],
    algo: cublasLtMatmulAlgo_t,
    /// The per-tensor scales on the device, which the descriptor points to: alive as long as
    /// it (block scales belong to the caller).
    _scales: Option<DeviceBuffer>,
}

impl Drop for Fp8Plan {
    fn drop(&mut self) {
        // SAFETY: each was created once by `plan_fp8` (or is still null) and is destroyed
        // once.
        unsafe {
            for layout in self.layouts.into_iter().filter(|l| !l.is_null()) {
                sys::cublasLtMatrixLayoutDestroy(layout);
            }
            if !self.desc.is_null() {
                sys::cublasLtMatmulDescDestroy(self.desc);
            }
        }
    }
}

impl CublasLt {
    /// Opens cuBLASLt with a [`WORKSPACE_BYTES`] workspace on `gpu`. `None` when the
    /// library cannot be loaded: the caller reports the run without it.
    pub fn open(gpu: &Gpu) -> Result<Option<CublasLt>> {
        if !available() {
            return Ok(None);
        }
        let mut handle = std::ptr::null_mut();
        // SAFETY: writes a handle.
        unsafe { check(sys::cublasLtCreate(&mut handle), "create")? };
        let workspace = DeviceBuffer::alloc(gpu, WORKSPACE_BYTES, "cuBLASLt's workspace")?;
        Ok(Some(CublasLt { handle, workspace }))
    }

    /// The plan of row-major `C (m × n, f32, or bf16 where `c_bf16`) = A (m × k, e4m3) · B`
    /// scaled as `scaling` says, B given as `bt` (n × k, e4m3, or e5m2 where `b_e5m2`,
    /// row-major: K-major B): descriptors, layouts and the heuristic's first algorithm.
    pub fn plan_fp8(
        &self,
        gpu: &Gpu,
        (m, n, k): (u32, u32, u32),
        scaling: Fp8Scaling,
        (b_e5m2, c_bf16): (bool, bool),
    ) -> Result<Fp8Plan> {
        let blocks = matches!(scaling, Fp8Scaling::Blocks { .. });
        if let Some(refusal) = fp8_refusal(m, n, k, blocks) {
            return Err(Error::new(refusal));
        }
        // Per-tensor scales each in a slot of its own: cuBLASLt declines
        // (CUBLAS_STATUS_NOT_SUPPORTED, at the call, not in the heuristic) a scale pointer not
        // 16-byte aligned.
        let (scale_pointers, own_scales) = match scaling {
            Fp8Scaling::Tensor { scale_a, scale_b, .. } => {
                let slot = SCALE_ALIGN / 4;
                let mut slots = vec![0.0f32; 2 * slot];
                (slots[0], slots[slot]) = (scale_a, scale_b);
                let scales = DeviceBuffer::with_values(gpu, &slots, "cuBLASLt's FP8 scales")?;
                ((scales.ptr(), scales.ptr() + SCALE_ALIGN as u64), Some(scales))
            }
            Fp8Scaling::Blocks { a_scales, b_scales } => ((a_scales, b_scales), None),
        };
        let set_desc =
            |desc: cublasLtMatmulDesc_t, attr: cublasLtMatmulDescAttributes_t, value: &[u8], what: &str| {
                // SAFETY: `value` holds the attribute's bytes, as its type says.
                check(
                    unsafe {
                        sys::cublasLtMatmulDescSetAttribute(desc, attr, value.as_ptr().cast(), value.len())
                    },
                    what,
                )
            };
        // The plan owns what is created from here on (its `Drop` destroys it on an error too).
        let mut plan = Fp8Plan {
            handle: self.handle,
            workspace: self.workspace.ptr(),
            desc: std::ptr::null_mut(),
            layouts: [std::ptr::null_mut(); 3],
            // SAFETY: a plain C struct of integers, for which all zeros is a valid value.
            algo: unsafe { std::mem::zeroed() },
            _scales: own_scales,
        };
        // SAFETY: writes a descriptor.
        unsafe {
            check(
                sys::cublasLtMatmulDescCreate(
                    &mut plan.desc,
                    cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    cudaDataType::CUDA_R_32F,
                ),
                "FP8 matmul descriptor",
            )?
        };
        let desc = plan.desc;
        let transpose = (cublasOperation_t::CUBLAS_OP_T as i32).to_ne_bytes();
        let keep = (cublasOperation_t::CUBLAS_OP_N as i32).to_ne_bytes();
        let (a_scale, b_scale) = (scale_pointers.0.to_ne_bytes(), scale_pointers.1.to_ne_bytes());
        set_desc(desc, cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA, &transpose, "TRANSA")?;
        set_desc(desc, cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB, &keep, "TRANSB")?;
        // cuBLASLt's A is our Bᵀ and its B our A: the scales follow the operands.
        set_desc(
            desc,
            cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
            &b_scale,
            "A scale",
        )?;
        set_desc(
            desc,
            cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
            &a_scale,
            "B scale",
        )?;
        match scaling {
            Fp8Scaling::Tensor { fast_accumulation, .. } => set_desc(
                desc,
                cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                &[u8::from(fast_accumulation)],
                "fast accumulation",
            )?,
            Fp8Scaling::Blocks { .. } => {
                // Its A is our Bᵀ, in 128 × 128 blocks; its B our A, in 1 × 128 blocks.
                set_desc(
                    desc,
                    cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                    &SCALE_MODE_BLK128X128_32F.to_ne_bytes(),
                    "A scale mode (128 × 128 blocks)",
                )?;
                set_desc(
                    desc,
                    cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                    &SCALE_MODE_VEC128_32F.to_ne_bytes(),
                    "B scale mode (1 × 128 blocks)",
                )?;
            }
        }
        let layout = |ty: cudaDataType, rows: u32, cols: u32, ld: u32| -> Result<cublasLtMatrixLayout_t> {
            let mut layout: cublasLtMatrixLayout_t = std::ptr::null_mut();
            // SAFETY: writes a layout (column-major, the default order).
            unsafe {
                check(
                    sys::cublasLtMatrixLayoutCreate(
                        &mut layout,
                        ty,
                        u64::from(rows),
                        u64::from(cols),
                        i64::from(ld),
                    ),
                    "FP8 matrix layout",
                )?
            };
            Ok(layout)
        };
        let b_type = if b_e5m2 { cudaDataType::CUDA_R_8F_E5M2 } else { cudaDataType::CUDA_R_8F_E4M3 };
        plan.layouts[0] = layout(b_type, k, n, k)?;
        plan.layouts[1] = layout(cudaDataType::CUDA_R_8F_E4M3, k, m, k)?;
        let c_type = if c_bf16 { cudaDataType::CUDA_R_16BF } else { cudaDataType::CUDA_R_32F };
        plan.layouts[2] = layout(c_type, n, m, n)?;
        let layouts = plan.layouts;
        let mut preference: cublasLtMatmulPreference_t = std::ptr::null_mut();
        // SAFETY: a plain C struct of integers and an algorithm, valid all zeros.
        let mut result: cublasLtMatmulHeuristicResult_t = unsafe { std::mem::zeroed() };
        let mut found = 0;
        let workspace_bytes = (WORKSPACE_BYTES as u64).to_ne_bytes();
        // SAFETY: a preference created, set and destroyed here; the descriptors above; one
        // result slot for one requested algorithm.
        unsafe {
            check(sys::cublasLtMatmulPreferenceCreate(&mut preference), "FP8 preference")?;
            let status = sys::cublasLtMatmulPreferenceSetAttribute(
                preference,
                cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                workspace_bytes.as_ptr().cast(),
                workspace_bytes.len(),
            );
            let heuristic = sys::cublasLtMatmulAlgoGetHeuristic(
                self.handle,
                desc,
                layouts[0],
                layouts[1],
                layouts[2],
                layouts[2],
                preference,
                1,
                &mut result,
                &mut found,
            );
            sys::cublasLtMatmulPreferenceDestroy(preference);
            check(status, "FP8 workspace preference")?;
            check(heuristic, "FP8 heuristic")?;
        }
        if found == 0 {
            return Err(Error::new(format!("cuBLASLt has no FP8 algorithm for {m}×{n}×{k} on this GPU")));
        }
        plan.algo = result.algo;
        Ok(plan)
    }
}

impl Fp8Plan {
    /// Queues the product on `gpu`'s stream.
    ///
    /// # Safety
    /// `a` and `bt` are device pointers to m·k and n·k e4m3 codes, `c` to m·n `f32`, of the
    /// plan's shape; nothing else writes `c` meanwhile; the [`CublasLt`] that made the plan
    /// is still open.
    pub unsafe fn run(&self, gpu: &Gpu, a: u64, bt: u64, c: u64) -> Result<()> {
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: the plan's descriptors describe these buffers (the caller's contract); the
        // workspace is the handle's, used by one call at a time on one stream.
        let status = unsafe {
            sys::cublasLtMatmul(
                self.handle,
                self.desc,
                (&alpha as *const f32).cast(),
                bt as *const _,
                self.layouts[0],
                a as *const _,
                self.layouts[1],
                (&beta as *const f32).cast(),
                c as *const _,
                self.layouts[2],
                c as *mut _,
                self.layouts[2],
                &self.algo,
                self.workspace as *mut _,
                WORKSPACE_BYTES,
                gpu.stream.cu_stream() as _,
            )
        };
        check(status, "FP8 matmul")
    }
}
