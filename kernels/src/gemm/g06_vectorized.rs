//! Step g06 — 16-byte loads and a transposed A tile.
//!
//! Idea: move four floats per instruction everywhere. Each thread loads 16-byte pieces of A and
//!       B from global memory (`ld.global.nc.v4.f32`) and stores A *transposed* into shared
//!       memory (`As[k][m]`), so that the 8 values of A a thread needs for one `k` are
//!       contiguous: the inner loop reads A and B with two 16-byte shared loads each instead of
//!       16 scalar loads, and C is written 16 bytes at a time.
//! Changes from g05: vector global loads (scalar, as g05, unless K and N are multiples of 4),
//!       the transposed A tile, vector shared loads (`ld.shared.v4.f32`), vector C stores.
//! Bottleneck: bank conflicts: the transposed store puts the two threads that load one row of
//!       A into the same bank, and 8 lanes' B reads collide in pairs (g07 removes both).
//! Cost: 93 registers, 8 KB of shared memory (ptxas -v, sm_90).
//! Result: 30.5 TFLOP/s at 4096³, 59.3 % of cuBLAS SGEMM, H200, 2026-11-22.
//!
//! More: docs/lessons.md#g06

use crate::device::index::{block_idx, block_idx_y, thread_idx};
use crate::device::load::{load_readonly_f32x4, store_f32x4};
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::g06::{BK, BM, BN, TM, TN};
use kernel_macros::kernel;

static_shared! {
    fn g06_a_tile() -> [f32; (BK * BM) as usize];
}
static_shared! {
    fn g06_b_tile() -> [f32; (BK * BN) as usize];
}

/// Four consecutive elements of a row-major matrix with `cols` columns, starting at
/// (`r`, `c`): one 16-byte load when the row is 16-byte aligned and all four are inside,
/// else element by element with zeros outside.
///
/// # Safety
/// `p` holds `rows × cols` `f32`.
#[inline(always)]
unsafe fn load4(p: *const f32, rows: u32, cols: u32, r: u32, c: u32) -> [f32; 4] {
    if r >= rows {
        return [0.0; 4];
    }
    let at = r as usize * cols as usize + c as usize;
    if cols % 4 == 0 && c + 4 <= cols {
        // SAFETY: inside the matrix; cols % 4 == 0 and c % 4 == 0 make it 16-byte aligned
        // (cudaMalloc'd buffers are 256-byte aligned).
        unsafe { load_readonly_f32x4(p.add(at)) }
    } else {
        // SAFETY: each element is checked against the row's end.
        core::array::from_fn(|e| if c + (e as u32) < cols { unsafe { *p.add(at + e) } } else { 0.0 })
    }
}

/// `C = A · B`, one 128 × 128 tile of C per block, an 8 × 8 sub-tile per thread.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with `g06::THREADS` threads per
/// block and a grid of ⌈N / BN⌉ × ⌈M / BM⌉ blocks.
#[kernel]
pub unsafe fn g06_vectorized(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile) = (g06_a_tile(), g06_b_tile());
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let (thread_col, thread_row) = (tid % (BN / TN), tid / (BN / TN));
    let (a_row, a_col4) = (tid / (BK / 4), tid % (BK / 4));
    let (b_row, b_col4) = (tid / (BN / 4), tid % (BN / 4));
    let mut results = [0.0f32; (TM * TN) as usize];
    let mut k0 = 0;
    while k0 < k {
        // SAFETY: bounds handled by load4; tile indices below BK·BM and BK·BN.
        unsafe {
            let v = load4(a, m, k, row0 + a_row, k0 + a_col4 * 4);
            for e in 0..4 {
                a_tile.store((a_col4 * 4 + e) * BM + a_row, v[e as usize]);
            }
            let v = load4(b, k, n, k0 + b_row, col0 + b_col4 * 4);
            b_tile.store_v4(b_row * BN + b_col4 * 4, v);
        }
        sync_threads();
        for dot in 0..BK {
            // SAFETY: 16-byte aligned indices inside the tiles.
            let (a_lo, a_hi, b_lo, b_hi) = unsafe {
                (
                    a_tile.load_v4(dot * BM + thread_row * TM),
                    a_tile.load_v4(dot * BM + thread_row * TM + 4),
                    b_tile.load_v4(dot * BN + thread_col * TN),
                    b_tile.load_v4(dot * BN + thread_col * TN + 4),
                )
            };
            let reg_a = [a_lo[0], a_lo[1], a_lo[2], a_lo[3], a_hi[0], a_hi[1], a_hi[2], a_hi[3]];
            let reg_b = [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]];
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
    const { assert!(TM == 8 && TN == 8) };
    unroll!(8, i => {
        let r = first_row + i as u32;
        if r < m {
            let at = r as usize * n as usize + first_col as usize;
            for half in 0..2usize {
                let cc = first_col + 4 * half as u32;
                let v = [results[i * 8 + 4 * half], results[i * 8 + 4 * half + 1], results[i * 8 + 4 * half + 2], results[i * 8 + 4 * half + 3]];
                if n % 4 == 0 && cc + 4 <= n {
                    // SAFETY: inside row r, 16-byte aligned (n % 4 == 0, cc % 4 == 0).
                    unsafe { store_f32x4(c.add(at + 4 * half), v) };
                } else {
                    for e in 0..4usize {
                        if cc + (e as u32) < n {
                            // SAFETY: inside row r.
                            unsafe { *c.add(at + 4 * half + e) = v[e] };
                        }
                    }
                }
            }
        }
    });
}
