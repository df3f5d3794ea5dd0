//! Step g02 — coalesced global access.
//!
//! Idea: swap the mapping: consecutive threads of a warp take consecutive *columns* of one
//!       row. Then a warp's 32 loads of B are 32 consecutive floats (one 128-byte line),
//!       its stores to C likewise, and all lanes read the same element of A (a broadcast).
//! Changes from g01: `col` comes from `threadIdx.x`, `row` from `threadIdx.y`; the grid's x
//!       runs over columns.
//! Bottleneck left: every operand still comes from global memory (through L1/L2): each
//!       output reads 2K floats for 2K flops, so the kernel is bound by cache bandwidth.
//! Cost: 32 registers, no shared memory. (ptxas -v, sm_90)
//! Result: 2.85 TFLOP/s at 4096³ (5.7× g01), 5.6 % of cuBLAS; 4.41 at 1024³.

use crate::device::index::{block_idx, block_idx_y, thread_idx, thread_idx_y};
use common::gemm::TILE;
use kernel_macros::kernel;

/// `C[row][col] = Σ_k A[row][k] · B[k][col]` with `col` from x, `row` from y.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with 32 × 32 blocks covering N × M.
#[kernel]
pub unsafe fn g02_coalesced(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let col = block_idx() * TILE + thread_idx();
    let row = block_idx_y() * TILE + thread_idx_y();
    if row < m && col < n {
        let (row, col, n, k) = (row as usize, col as usize, n as usize, k as usize);
        let mut sum = 0.0f32;
        for i in 0..k {
            // SAFETY: row < m, col < n, i < k.
            sum =
                core::f32::math::mul_add(unsafe { *a.add(row * k + i) }, unsafe { *b.add(i * n + col) }, sum);
        }
        // SAFETY: row < m, col < n.
        unsafe { *c.add(row * n + col) = sum };
    }
}
