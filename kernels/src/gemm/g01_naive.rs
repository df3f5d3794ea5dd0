//! Step g01 — one thread per output element.
//!
//! Idea: thread `(x, y)` of the grid computes `C[x][y]` as a dot product of row `x` of A and
//!       column `y` of B, reading both straight from global memory.
//! Bottleneck: the mapping. Consecutive threads of a warp (consecutive `threadIdx.x`) take
//!       consecutive *rows*: their loads of A are K elements apart (32 different lines per warp
//!       load) and their stores to C are N apart; only B is shared (all lanes read one element).
//! Cost: 32 registers, no shared memory; 32 × 32 blocks (ptxas -v, sm_90).
//! Result: 0.50 TFLOP/s at 4096³, 1.0 % of cuBLAS SGEMM, H200, 2026-11-22.

use crate::device::index::{block_idx, block_idx_y, thread_idx, thread_idx_y};
use common::gemm::TILE;
use kernel_macros::kernel;

/// `C[row][col] = Σ_k A[row][k] · B[k][col]` with `row` from x, `col` from y.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with 32 × 32 blocks covering M × N.
#[kernel]
pub unsafe fn g01_naive(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let row = block_idx() * TILE + thread_idx();
    let col = block_idx_y() * TILE + thread_idx_y();
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
