//! cuBLAS as the baseline, loaded at run time. Row-major `C = A · B` is column-major
//! `Cᵀ = Bᵀ · Aᵀ`, so each call passes B first and swaps M and N.

use crate::error::{Error, Result};
use crate::gpu::Gpu;
use cudarc::cublas::sys::{self, cublasHandle_t, cublasMath_t, cublasOperation_t, cublasStatus_t};

/// An open cuBLAS handle on the runner's stream.
pub struct Cublas {
    handle: cublasHandle_t,
}

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
        Ok(Some(Cublas { handle }))
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
                self.handle, op, op, n as i32, m as i32, k as i32, &alpha, b as *const f32, n as i32, a as *const f32,
                k as i32, &beta, c as *mut f32, n as i32,
            )
        };
        check(status, "SGEMM")
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `open` and is destroyed once.
        unsafe { sys::cublasDestroy_v2(self.handle) };
    }
}
