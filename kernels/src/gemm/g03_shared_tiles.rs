//! Step g03 — shared-memory tiles.
//!
//! Idea: a 32 × 32 block computes a 32 × 32 tile of C. It walks K 32 at a time: each thread
//!       loads one element of the A tile and one of the B tile into shared memory, the block
//!       meets at a barrier, and each thread then runs 32 multiply-adds from shared memory.
//!       Every element loaded from global memory is used 32 times.
//! Changes from g02: two static shared tiles, the K loop in steps of 32, two barriers per step;
//!       loads past an edge write 0 into the tile.
//! Bottleneck: shared memory: each multiply-add needs two shared loads (one a broadcast), so
//!       the SM's shared-memory bandwidth, not its FMA units, sets the pace.
//! Cost: 32 registers, 8 KB of shared memory (ptxas -v, sm_90).
//! Result: 8.66 TFLOP/s at 4096³, 16.8 % of cuBLAS SGEMM, H200, 2026-11-22.
//!
//! More: docs/lessons.md#g03

use crate::device::index::{block_idx, block_idx_y, thread_idx, thread_idx_y};
use crate::device::sync::sync_threads;
use crate::static_shared;
use common::gemm::TILE;
use kernel_macros::kernel;

static_shared! {
    fn g03_a_tile() -> [f32; (TILE * TILE) as usize];
}
static_shared! {
    fn g03_b_tile() -> [f32; (TILE * TILE) as usize];
}

/// `C = A · B`, one 32 × 32 tile of C per block, K in steps of 32 through shared memory.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with 32 × 32 blocks covering N × M.
#[kernel]
pub unsafe fn g03_shared_tiles(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile) = (g03_a_tile(), g03_b_tile());
    let (tx, ty) = (thread_idx(), thread_idx_y());
    let col = block_idx() * TILE + tx;
    let row = block_idx_y() * TILE + ty;
    let mut sum = 0.0f32;
    let mut k0 = 0;
    while k0 < k {
        let (a_col, b_row) = (k0 + tx, k0 + ty);
        // SAFETY: each load is bounds-checked; ty·32 + tx < 1024, the tiles' length.
        unsafe {
            let a_value =
                if row < m && a_col < k { *a.add(row as usize * k as usize + a_col as usize) } else { 0.0 };
            let b_value =
                if b_row < k && col < n { *b.add(b_row as usize * n as usize + col as usize) } else { 0.0 };
            a_tile.store(ty * TILE + tx, a_value);
            b_tile.store(ty * TILE + tx, b_value);
        }
        sync_threads();
        for i in 0..TILE {
            // SAFETY: indices under 1024.
            sum = core::f32::math::mul_add(
                unsafe { a_tile.load(ty * TILE + i) },
                unsafe { b_tile.load(i * TILE + tx) },
                sum,
            );
        }
        sync_threads();
        k0 += TILE;
    }
    if row < m && col < n {
        // SAFETY: row < m, col < n.
        unsafe { *c.add(row as usize * n as usize + col as usize) = sum };
    }
}
