//! Step t04 — larger warp tiles: 4 warps of 64 × 64 instead of 8 of 64 × 32.
//!
//! Idea: a warp's `ldmatrix` traffic grows with its tile's perimeter and its `mma` count with
//!       the area. At 64 × 32 a warp issues 4 A and 2 B `ldmatrix.x4` for 16 `mma` per k16
//!       step; at 64 × 64, 4 A and 4 B for 32 `mma`: a third fewer loads per multiply, and each
//!       fragment of B is reused by 4 `mma` instead of 2. Each thread holds 128 accumulators.
//! Changes from t03: `THREADS` 128 (4 loads per thread per tile), warps 2 × 2, `acc` of 4 × 8
//!       `mma` tiles, four `ldmatrix_x4_trans` per k16 step; t03's block tile and pipeline.
//! Bottleneck: `mma.sync` itself: 2 warps per scheduler cannot hide each `mma`'s wait on its
//!       `ldmatrix` and the pipeline's barriers (the tensor pipe is busy 55 % of the cycles);
//!       `wgmma` (w01) removes both.
//! Cost: 236 registers (2 blocks of 128 threads per SM), 48 KB of shared memory.
//! Requires: K and N multiples of 8, as t02.
//! Result: 342 TFLOP/s f16 at 4096³ (bf16 344), 45 % of cuBLAS, H200, 2026-11-22.
//!
//! More: docs/lessons.md#t04

use crate::device::async_copy::{cp_async_commit, cp_async_wait_group};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::mma::{ldmatrix_x4, ldmatrix_x4_trans, mma_m16n8k16_bf16, mma_m16n8k16_f16};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::t04::{BK, BM, BN, STAGES, THREADS};
use kernel_macros::kernel;
use super::mma_tiles::{A_CHUNKS, B_CHUNKS, a_chunk, b_chunk, copy_chunk, store_accumulators};

/// 32-bit words in one stage of the A tile and of the B tile.
const A_WORDS: u32 = BM * BK / 2;
const B_WORDS: u32 = BK * BN / 2;

static_shared! {
    fn t04_a_tiles() -> [u32; (STAGES * A_WORDS) as usize];
}
static_shared! {
    fn t04_b_tiles() -> [u32; (STAGES * B_WORDS) as usize];
}

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`), f32 `C`: one 128 × 128 tile
/// of C per block, 64 × 64 per warp, `STAGES` k tiles in flight.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N 16-bit values and M·N `f32`; K and N are multiples of 8;
/// launched with 128 threads per block and a grid of ⌈N / 128⌉ × ⌈M / 128⌉ blocks.
#[inline(always)]
unsafe fn mma_gemm<const BF16: bool>(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile): (SharedArray<u32>, SharedArray<u32>) = (t04_a_tiles(), t04_b_tiles());
    let tid = thread_idx();
    let (warp, lane) = (tid / WARP_SIZE, tid % WARP_SIZE);
    let (warp_m, warp_n) = (warp / 2, warp % 2);
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let mut acc = [[[0.0f32; 4]; 8]; 4];
    let tiles = k.div_ceil(BK);
    // Starts the copies of k tile `t` into stage `t % STAGES` (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    let load_tile = |t: u32| {
        if t < tiles {
            let (k0, stage) = (t * BK, t % STAGES);
            for i in 0..4 {
                let chunk = tid + i * THREADS;
                let (r, cc) = (chunk / A_CHUNKS, chunk % A_CHUNKS);
                // SAFETY: bounds in `copy_chunk`; swizzled indices inside one stage.
                unsafe {
                    copy_chunk(a_tile, stage * A_WORDS + a_chunk(r, cc), a, m, k, row0 + r, k0 + cc * 8)
                };
                let (r, cc) = (chunk / B_CHUNKS, chunk % B_CHUNKS);
                // SAFETY: as above.
                unsafe {
                    copy_chunk(b_tile, stage * B_WORDS + b_chunk(r, cc), b, k, n, k0 + r, col0 + cc * 8)
                };
            }
        }
        cp_async_commit();
    };
    for t in 0..STAGES - 1 {
        load_tile(t);
    }
    for t in 0..tiles {
        // Tile t's group is the oldest but STAGES - 2 of those in flight: wait for it,
        // then make every thread's copies visible (and every warp done with tile t - 1,
        // whose stage the next load reuses).
        cp_async_wait_group::<{ STAGES - 2 }>();
        sync_threads();
        load_tile(t + STAGES - 1);
        let stage = t % STAGES;
        for kk in 0..BK / 16 {
            let mut a_frag = [[0u32; 4]; 4];
            unroll!(4, mi => {
                let r = warp_m * 64 + mi as u32 * 16 + lane % 16;
                // SAFETY: the whole warp; a 16-byte aligned chunk inside this stage.
                a_frag[mi] = unsafe { ldmatrix_x4(a_tile.address(stage * A_WORDS + a_chunk(r, kk * 2 + lane / 16))) };
            });
            unroll!(4, pair => {
                let pair = pair as u32;
                let (r, cc) = (kk * 16 + lane % 16, (warp_n * 64 + pair * 16) / 8 + lane / 16);
                // SAFETY: the whole warp; a 16-byte aligned chunk inside this stage.
                let bf = unsafe { ldmatrix_x4_trans(b_tile.address(stage * B_WORDS + b_chunk(r, cc))) };
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
    }
    // SAFETY: c holds M·N f32.
    unsafe { store_accumulators(c, &acc, (m, n), (row0 + warp_m * 64, col0 + warp_n * 64), lane) };
}

/// [`mma_gemm`] for f16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t04_warp_tile_f16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<false>(a, b, c, m, n, k) }
}

/// [`mma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t04_warp_tile_bf16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<true>(a, b, c, m, n, k) }
}
