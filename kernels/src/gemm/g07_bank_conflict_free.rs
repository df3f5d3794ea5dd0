//! Step g07 — bank-conflict avoidance: a padded A tile and split B columns.
//!
//! Idea: remove g06's two bank conflicts. Each k-row of the transposed A tile is padded by 4
//!       floats, so the two threads that store one row of A land 16 banks apart; and a thread
//!       computes two groups of 4 columns, 64 apart, so the 8 lanes served together by a
//!       16-byte load read 32 consecutive floats of B, one per bank.
//! Changes from g06: the A tile's stride (`BM + A_PAD`), and which 8 columns of the block tile
//!       a thread computes (two groups of 4, 64 apart).
//! Bottleneck: every k step loads its tiles, waits at a barrier, computes and waits again: the
//!       loads of the next tile do not overlap the math of this one (g08).
//! Cost: 93 registers, as g06; 16 more bytes of shared memory per k-row of A (512 in all).
//! Result: 32.6 TFLOP/s at 4096³, 63.3 % of cuBLAS SGEMM, H200, 2026-11-22.
//!
//! The conflicts, in detail:
//! - the transposed store of A: the two threads that load one row of A write `As[k][m]` for
//!   k 0–3 and 4–7, 4·128 floats apart, which is 0 mod 32: the same bank. A stride of 132
//!   moves the second thread 16 banks away;
//! - the 16-byte reads of B: a 16-byte shared load is served 8 lanes at a time, and g06's lanes
//!   read 8 floats apart, so lanes 0 and 4 of each group collide. Here a thread owns columns
//!   `4t … 4t+3` and `64 + 4t … 64 + 4t+3`: the 8 lanes of a group read 32 consecutive floats.

use crate::device::index::{block_idx, block_idx_y, thread_idx};
use crate::device::load::{load_readonly_f32x4, store_f32x4};
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::g07::{A_PAD, BK, BM, BN, TM, TN};
use kernel_macros::kernel;

static_shared! {
    fn g07_a_tile() -> [f32; (BK * (BM + A_PAD)) as usize];
}
static_shared! {
    fn g07_b_tile() -> [f32; (BK * BN) as usize];
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

/// `C = A · B`, one 128 × 128 tile of C per block, an 8 × 8 sub-tile per thread (two
/// 8 × 4 halves, 64 columns apart).
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with `g07::THREADS` threads per
/// block and a grid of ⌈N / BN⌉ × ⌈M / BM⌉ blocks.
#[kernel]
pub unsafe fn g07_bank_conflict_free(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile) = (g07_a_tile(), g07_b_tile());
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
                a_tile.store((a_col4 * 4 + e) * (BM + A_PAD) + a_row, v[e as usize]);
            }
            let v = load4(b, k, n, k0 + b_row, col0 + b_col4 * 4);
            b_tile.store_v4(b_row * BN + b_col4 * 4, v);
        }
        sync_threads();
        for dot in 0..BK {
            // SAFETY: 16-byte aligned indices inside the tiles.
            let (a_lo, a_hi, b_lo, b_hi) = unsafe {
                (
                    a_tile.load_v4(dot * (BM + A_PAD) + thread_row * TM),
                    a_tile.load_v4(dot * (BM + A_PAD) + thread_row * TM + 4),
                    b_tile.load_v4(dot * BN + thread_col * 4),
                    b_tile.load_v4(dot * BN + BN / 2 + thread_col * 4),
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
    let (first_row, first_col) = (row0 + thread_row * TM, col0 + thread_col * 4);
    const { assert!(TM == 8 && TN == 8) };
    unroll!(8, i => {
        let r = first_row + i as u32;
        if r < m {
            for half in 0..2usize {
                let cc = first_col + (BN / 2) * half as u32;
                let at = r as usize * n as usize + cc as usize;
                let v = [results[i * 8 + 4 * half], results[i * 8 + 4 * half + 1], results[i * 8 + 4 * half + 2], results[i * 8 + 4 * half + 3]];
                if n % 4 == 0 && cc + 4 <= n {
                    // SAFETY: inside row r, 16-byte aligned (n % 4 == 0, cc % 4 == 0).
                    unsafe { store_f32x4(c.add(at), v) };
                } else {
                    for e in 0..4usize {
                        if cc + (e as u32) < n {
                            // SAFETY: inside row r.
                            unsafe { *c.add(at + e) = v[e] };
                        }
                    }
                }
            }
        }
    });
}
