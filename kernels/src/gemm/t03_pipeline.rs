//! Step t03 — a multi-stage `cp.async` pipeline: the next tiles load while this one computes.
//!
//! Idea: keep `STAGES` (3) copies of the A and B tiles. Tile `t + 2` streams in with `cp.async`
//!       (global to shared, no registers, the thread does not wait) while the warps compute on
//!       tile `t`; `cp.async.wait_group 1` before each step waits only for the oldest group, so
//!       two tiles of loads are always in flight behind the math.
//! Changes from t02: `cp_async_16` instead of load + store, three stages indexed `t % STAGES`,
//!       a prologue that fills two, one barrier per k step; fragment addresses computed once,
//!       those 16 rows apart reached by an offset inside the `ldmatrix` ([`ldmatrix_x4_at`]).
//! Bottleneck: `ldmatrix` traffic: a 64 × 32 warp tile issues 6 `ldmatrix.x4` for 16 `mma` per
//!       k16 step (t04 grows the warp tile).
//! Cost: 128 registers (as the driver reports them), 48 KB of shared memory (3 × 16 KB, the
//!       static maximum).
//! Requires: K and N multiples of 8, as t02.
//! Result: 346 TFLOP/s f16 at 4096³ (bf16 345), 43–45 % of cuBLAS, H200, 2026-11-23.
//!
//! The copies land straight in the swizzled layout of t02; chunks past an edge are zero-filled
//! by the copy itself (`src_bytes` = 0).
//!
//! More: docs/lessons.md#t03

use crate::device::async_copy::{cp_async_commit, cp_async_wait_group};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::mma::{ldmatrix_x4_at, ldmatrix_x4_trans_at, mma_m16n8k16_bf16, mma_m16n8k16_f16};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::t03::{BK, BM, BN, STAGES, THREADS};
use kernel_macros::kernel;
use super::mma_tiles::{A_CHUNKS, B_CHUNKS, a_chunk, b_chunk, copy_chunk, store_accumulators};

/// 32-bit words in one stage of the A tile and of the B tile.
const A_WORDS: u32 = BM * BK / 2;
const B_WORDS: u32 = BK * BN / 2;

/// Bytes from one 16-row A fragment (`mi`) to the next, and from B's rows of one k16
/// step to the next's.
const A_MI_BYTES: u32 = 16 * A_CHUNKS * 16;
const B_K16_BYTES: u32 = 16 * B_CHUNKS * 16;

static_shared! {
    fn t03_a_tiles() -> [u32; (STAGES * A_WORDS) as usize];
}
static_shared! {
    fn t03_b_tiles() -> [u32; (STAGES * B_WORDS) as usize];
}

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`), f32 `C`: one 128 × 128 tile
/// of C per block, 64 × 32 per warp, `STAGES` k tiles in flight.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N 16-bit values and M·N `f32`; K and N are multiples of 8;
/// launched with 256 threads per block and a grid of ⌈N / 128⌉ × ⌈M / 128⌉ blocks.
#[inline(always)]
unsafe fn mma_gemm<const BF16: bool>(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile): (SharedArray<u32>, SharedArray<u32>) = (t03_a_tiles(), t03_b_tiles());
    let tid = thread_idx();
    let (warp, lane) = (tid / WARP_SIZE, tid % WARP_SIZE);
    let (warp_m, warp_n) = (warp / 4, warp % 4);
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let mut acc = [[[0.0f32; 4]; 4]; 4];
    let tiles = k.div_ceil(BK);
    // Starts the copies of k tile `t` into stage `t % STAGES` (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    let load_tile = |t: u32| {
        if t < tiles {
            let (k0, stage) = (t * BK, t % STAGES);
            for i in 0..2 {
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
    // The word where this thread's `ldmatrix` row starts, for each k16 step of A (at
    // mi = 0) and each column pair of B (at kk = 0). The swizzles depend on (r / 2) % 4
    // and r % 8, which 16 rows more leave unchanged, so the other fragments lie a fixed
    // number of bytes further on: an offset inside the instruction (`[reg+imm]`), where
    // t02 gave each of the 12 fragments an address register rebuilt every tile.
    let a_start: [u32; 2] =
        core::array::from_fn(|kk| a_chunk(warp_m * 64 + lane % 16, kk as u32 * 2 + lane / 16));
    let b_start: [u32; 2] =
        core::array::from_fn(|pair| b_chunk(lane % 16, (warp_n * 32 + pair as u32 * 16) / 8 + lane / 16));
    for t in 0..tiles {
        // Tile t's group is the oldest but STAGES - 2 of those in flight: wait for it,
        // then make every thread's copies visible (and every warp done with tile t - 1,
        // whose stage the next load reuses).
        cp_async_wait_group::<{ STAGES - 2 }>();
        sync_threads();
        load_tile(t + STAGES - 1);
        let stage = t % STAGES;
        unroll!(2, kk => {
            let at = a_tile.address(stage * A_WORDS + a_start[kk]);
            // SAFETY: the whole warp; 16-byte aligned rows inside this stage.
            let a_frag = unsafe {
                [
                    ldmatrix_x4_at::<0>(at),
                    ldmatrix_x4_at::<{ A_MI_BYTES }>(at),
                    ldmatrix_x4_at::<{ 2 * A_MI_BYTES }>(at),
                    ldmatrix_x4_at::<{ 3 * A_MI_BYTES }>(at),
                ]
            };
            unroll!(2, pair => {
                let at = b_tile.address(stage * B_WORDS + b_start[pair]);
                // SAFETY: as above (k16 step 1 is B_K16_BYTES further on).
                let bf = unsafe {
                    if kk == 0 { ldmatrix_x4_trans_at::<0>(at) } else { ldmatrix_x4_trans_at::<B_K16_BYTES>(at) }
                };
                unroll!(2, half => {
                    let (ni, b_frag) = (2 * pair + half, [bf[2 * half], bf[2 * half + 1]]);
                    for mi in 0..4 {
                        acc[mi][ni] = if BF16 {
                            mma_m16n8k16_bf16(a_frag[mi], b_frag, acc[mi][ni])
                        } else {
                            mma_m16n8k16_f16(a_frag[mi], b_frag, acc[mi][ni])
                        };
                    }
                });
            });
        });
    }
    // SAFETY: c holds M·N f32.
    unsafe { store_accumulators(c, &acc, (m, n), (row0 + warp_m * 64, col0 + warp_n * 32), lane) };
}

/// [`mma_gemm`] for f16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t03_pipeline_f16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<false>(a, b, c, m, n, k) }
}

/// [`mma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t03_pipeline_bf16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<true>(a, b, c, m, n, k) }
}
