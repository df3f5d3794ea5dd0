//! Step t02 — `ldmatrix` fragments from a swizzled shared-memory layout.
//!
//! Idea: feed the tensor cores with few, wide instructions. One `ldmatrix.x4` fills a whole A
//!       fragment (four 8 × 8 matrices), where t01 needed four scalar loads; `ldmatrix.x4.trans`
//!       fills the B fragments of two n8 tiles from a row-major B tile, so B is no longer
//!       transposed on the way in. Global loads move 16 bytes (8 values) per instruction.
//! Changes from t01: `ldmatrix_x4` / `ldmatrix_x4_trans`, the XOR-swizzled tiles, 16-byte global
//!       loads, a 128 × 128 × 32 block tile of 8 warps, each owning a 64 × 32 piece.
//! Bottleneck: loads and math still alternate: each k tile is loaded, then computed (t03
//!       pipelines them).
//! Cost: 124 registers (as the driver reports them), 16 KB of shared memory, 256 threads.
//! Requires: K and N multiples of 8 (16-byte rows); the host refuses other shapes.
//! Result: 202 TFLOP/s f16 at 4096³ (bf16 alike), 27 % of cuBLAS, H200, 2026-11-22.
//!
//! The swizzle: `ldmatrix` reads 8 rows at one 16-byte column. A's rows are 64 bytes long, so
//! rows r and r + 2 share banks; B's are 256 bytes, so all 8 would. Each 16-byte chunk is
//! stored at column `c ^ (r / 2 % 4)` (A) or `c ^ (r % 8)` (B): the 8 rows of any `ldmatrix`
//! then fall in 8 different bank groups, and a row's chunks stay in the row. Each warp holds
//! 4 × 4 `mma` tiles, and k advances 32 per barrier.
//!
//! More: docs/lessons.md#t02

use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::load::{I32x4, load_readonly_v4};
use crate::device::mma::{ldmatrix_x4, ldmatrix_x4_trans, mma_m16n8k16_bf16, mma_m16n8k16_f16};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::t02::{BK, BM, BN, THREADS};
use kernel_macros::kernel;
use super::mma_tiles::{A_CHUNKS, B_CHUNKS, a_chunk, b_chunk, store_accumulators};

static_shared! {
    fn t02_a_tile() -> [u32; (BM * BK / 2) as usize];
}
static_shared! {
    fn t02_b_tile() -> [u32; (BK * BN / 2) as usize];
}

/// Eight 16-bit values of a row-major matrix with `cols` columns at (`r`, `c`), or zeros
/// when the row is past `rows` or the chunk past `cols`.
///
/// # Safety
/// `p` holds `rows × cols` values, `cols` and `c` multiples of 8 (16-byte aligned chunks).
#[inline(always)]
unsafe fn load_chunk(p: *const u16, rows: u32, cols: u32, r: u32, c: u32) -> [u32; 4] {
    if r < rows && c < cols {
        // SAFETY: the chunk lies inside row r and is 16-byte aligned.
        let v = unsafe { load_readonly_v4(p.add(r as usize * cols as usize + c as usize) as *const I32x4) };
        v.0.map(|w| w as u32)
    } else {
        [0; 4]
    }
}

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`), f32 `C`: one 128 × 128 tile
/// of C per block, 64 × 32 per warp.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N 16-bit values and M·N `f32`; K and N are multiples of 8;
/// launched with 256 threads per block and a grid of ⌈N / 128⌉ × ⌈M / 128⌉ blocks.
#[inline(always)]
unsafe fn mma_gemm<const BF16: bool>(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile): (SharedArray<u32>, SharedArray<u32>) = (t02_a_tile(), t02_b_tile());
    let tid = thread_idx();
    let (warp, lane) = (tid / WARP_SIZE, tid % WARP_SIZE);
    let (warp_m, warp_n) = (warp / 4, warp % 4);
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let mut acc = [[[0.0f32; 4]; 4]; 4];
    let mut k0 = 0;
    while k0 < k {
        for i in 0..2 {
            let chunk = tid + i * THREADS;
            let (r, cc) = (chunk / A_CHUNKS, chunk % A_CHUNKS);
            // SAFETY: bounds in `load_chunk`; swizzled indices stay inside the tiles.
            unsafe { a_tile.store_v4(a_chunk(r, cc), load_chunk(a, m, k, row0 + r, k0 + cc * 8)) };
            let (r, cc) = (chunk / B_CHUNKS, chunk % B_CHUNKS);
            // SAFETY: as above.
            unsafe { b_tile.store_v4(b_chunk(r, cc), load_chunk(b, k, n, k0 + r, col0 + cc * 8)) };
        }
        sync_threads();
        for kk in 0..BK / 16 {
            let mut a_frag = [[0u32; 4]; 4];
            unroll!(4, mi => {
                let r = warp_m * 64 + mi as u32 * 16 + lane % 16;
                // SAFETY: the whole warp; a 16-byte aligned chunk inside the A tile.
                a_frag[mi] = unsafe { ldmatrix_x4(a_tile.address(a_chunk(r, kk * 2 + lane / 16))) };
            });
            unroll!(2, pair => {
                let pair = pair as u32;
                let (r, cc) = (kk * 16 + lane % 16, (warp_n * 32 + pair * 16) / 8 + lane / 16);
                // SAFETY: the whole warp; a 16-byte aligned chunk inside the B tile.
                let bf = unsafe { ldmatrix_x4_trans(b_tile.address(b_chunk(r, cc))) };
                unroll!(2, half => {
                    let (ni, b_frag) = (2 * pair as usize + half, [bf[2 * half], bf[2 * half + 1]]);
                    for mi in 0..4 {
                        acc[mi][ni] = if BF16 {
                            mma_m16n8k16_bf16(a_frag[mi], b_frag, acc[mi][ni])
                        } else {
                            mma_m16n8k16_f16(a_frag[mi], b_frag, acc[mi][ni])
                        };
                    }
                });
            });
        }
        sync_threads();
        k0 += BK;
    }
    // SAFETY: c holds M·N f32.
    unsafe { store_accumulators(c, &acc, (m, n), (row0 + warp_m * 64, col0 + warp_n * 32), lane) };
}

/// [`mma_gemm`] for f16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t02_ldmatrix_f16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<false>(a, b, c, m, n, k) }
}

/// [`mma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t02_ldmatrix_bf16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<true>(a, b, c, m, n, k) }
}
