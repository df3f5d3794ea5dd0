//! Step g05 — 2-D register blocking: an outer product per thread.
//!
//! Idea: each thread computes a `TM × TN` (8 × 8) sub-tile of a 128 × 128 block tile. For each
//!       of the `BK` steps it loads 8 values of A and 8 of B from shared memory into registers
//!       and forms their outer product: 16 shared loads for 64 FMAs, where g04 needed 72.
//! Changes from g04: a second register dimension (`reg_a[8]`, `reg_b[8]`, `results[64]`),
//!       128 × 128 tiles, 256 threads that each load several elements of each tile.
//! Bottleneck: narrow loads: the A tile is read down a column (`(row·TM + i)·BK + dot`, 8 floats
//!       apart) with 4-byte loads, and global loads are 4 bytes wide (g06: 16-byte loads).
//! Cost: 118 registers (2 blocks of 256 per SM), 8 KB of shared memory, no spills (ptxas -v).
//! Result: 25.1 TFLOP/s at 4096³, 48.7 % of cuBLAS SGEMM, H200, 2026-11-22.
//!
//! Each thread loads `BM·BK / 256` elements of the A tile and `BK·BN / 256` of the B tile.
//!
//! More: docs/lessons.md#g05

use crate::device::index::{block_idx, block_idx_y, thread_idx};
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::g05::{BK, BM, BN, THREADS, TM, TN};
use kernel_macros::kernel;

static_shared! {
    fn g05_a_tile() -> [f32; (BM * BK) as usize];
}
static_shared! {
    fn g05_b_tile() -> [f32; (BK * BN) as usize];
}

/// `C = A · B`, one `BM × BN` tile of C per block, a `TM × TN` sub-tile per thread.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with `g05::THREADS` threads per
/// block and a grid of ⌈N / BN⌉ × ⌈M / BM⌉ blocks.
#[kernel]
pub unsafe fn g05_register_2d(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile) = (g05_a_tile(), g05_b_tile());
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let (thread_col, thread_row) = (tid % (BN / TN), tid / (BN / TN));
    let (a_row, a_col, a_stride) = (tid / BK, tid % BK, THREADS / BK);
    let (b_row, b_col, b_stride) = (tid / BN, tid % BN, THREADS / BN);
    let mut results = [0.0f32; (TM * TN) as usize];
    let (mut reg_a, mut reg_b) = ([0.0f32; TM as usize], [0.0f32; TN as usize]);
    let mut k0 = 0;
    while k0 < k {
        // SAFETY: bounds-checked loads; tile indices below BM·BK and BK·BN.
        unsafe {
            let mut off = 0;
            while off < BM {
                let (r, cc) = (row0 + a_row + off, k0 + a_col);
                let v = if r < m && cc < k { *a.add(r as usize * k as usize + cc as usize) } else { 0.0 };
                a_tile.store((a_row + off) * BK + a_col, v);
                off += a_stride;
            }
            let mut off = 0;
            while off < BK {
                let (r, cc) = (k0 + b_row + off, col0 + b_col);
                let v = if r < k && cc < n { *b.add(r as usize * n as usize + cc as usize) } else { 0.0 };
                b_tile.store((b_row + off) * BN + b_col, v);
                off += b_stride;
            }
        }
        sync_threads();
        for dot in 0..BK {
            for i in 0..TM as usize {
                // SAFETY: thread_row·TM + i < BM.
                reg_a[i] = unsafe { a_tile.load((thread_row * TM + i as u32) * BK + dot) };
            }
            for j in 0..TN as usize {
                // SAFETY: thread_col·TN + j < BN.
                reg_b[j] = unsafe { b_tile.load(dot * BN + thread_col * TN + j as u32) };
            }
            for i in 0..TM as usize {
                for j in 0..TN as usize {
                    results[i * TN as usize + j] =
                        core::f32::math::mul_add(reg_a[i], reg_b[j], results[i * TN as usize + j]);
                }
            }
        }
        sync_threads();
        k0 += BK;
    }
    let (first_row, first_col) = (row0 + thread_row * TM, col0 + thread_col * TN);
    // 64 guarded stores are too many for LLVM to unroll by itself: write the rows out.
    const { assert!(TM == 8) };
    unroll!(8, i => {
        for j in 0..TN as usize {
            let (r, cc) = (first_row + i as u32, first_col + j as u32);
            let value = results[i * TN as usize + j];
            if r < m && cc < n {
                // SAFETY: r < m, cc < n.
                unsafe { *c.add(r as usize * n as usize + cc as usize) = value };
            }
        }
    });
}
