//! Step g02 — coalesced global access.
//!
//! Idea: swap the mapping: consecutive threads of a warp take consecutive *columns* of one row.
//!       Then a warp's 32 loads of B are 32 consecutive floats (one 128-byte line), its stores
//!       to C likewise, and all lanes read the same element of A (a broadcast).
//! Changes from g01: `col` comes from `threadIdx.x`, `row` from `threadIdx.y`; the grid's x runs
//!       over columns; the k loop runs in passes of 8 steps, loads first.
//! Bottleneck: every operand still comes from global memory (through L1/L2): each output reads
//!       2K floats for 2K flops, so the kernel is bound by cache bandwidth (g03 stages tiles).
//! Cost: 32 registers, no shared memory (ptxas -v, sm_90).
//! Result: 6.38 TFLOP/s at 4096³, 12.4 % of cuBLAS SGEMM, H200, 2026-11-23.
//!
//! The k loop: a cache-bound kernel lives on loads in flight. Each pass issues its 16 loads
//! before its 8 multiply-adds, and `ptxas_nounroll()` tells ptxas not to unroll the passes
//! again: written plainly, ptxas unrolls the loop to 32 steps and puts each add right behind
//! its two loads, and a warp keeps about 2 steps of loads in flight instead of 4–6.
//!
//! More: docs/lessons.md#g02

use crate::device::index::{block_idx, block_idx_y, thread_idx, thread_idx_y};
use crate::device::unroll::ptxas_nounroll;
use crate::unroll;
use common::gemm::TILE;
use core::f32::math::mul_add;
use kernel_macros::kernel;

/// k steps in one pass of the loop (the count of the `unroll!` below).
const STEPS_PER_PASS: usize = 8;

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
        // Eight k steps a pass: their 16 loads first, then the 8 multiply-adds, and ptxas
        // told to leave the loop at that (see `ptxas_nounroll`). Written as one loop of
        // load-and-add, ptxas unrolled it to 32 steps and issued each add right behind its
        // loads, so a warp had few loads in flight and the step ran at half the speed of
        // its C++ twin, whose compiler hoists the loads.
        let mut i = 0;
        while i + STEPS_PER_PASS <= k {
            ptxas_nounroll();
            let (mut from_a, mut from_b) = ([0.0f32; STEPS_PER_PASS], [0.0f32; STEPS_PER_PASS]);
            unroll!(8, j => {
                // SAFETY: row < m, col < n, i + j < k.
                (from_a[j], from_b[j]) = unsafe { (*a.add(row * k + i + j), *b.add((i + j) * n + col)) };
            });
            unroll!(8, j => {
                sum = mul_add(from_a[j], from_b[j], sum);
            });
            i += STEPS_PER_PASS;
        }
        while i < k {
            ptxas_nounroll();
            // SAFETY: row < m, col < n, i < k.
            sum = mul_add(unsafe { *a.add(row * k + i) }, unsafe { *b.add(i * n + col) }, sum);
            i += 1;
        }
        // SAFETY: row < m, col < n.
        unsafe { *c.add(row * n + col) = sum };
    }
}
