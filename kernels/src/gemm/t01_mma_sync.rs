//! Step t01 — tensor cores: `mma.sync.m16n8k16`, fed from shared memory with plain loads.
//!
//! Idea: a warp-wide instruction multiplies a 16 × 16 tile of A by a 16 × 8 tile of B and
//!       accumulates in f32: 4096 multiply-adds done by the tensor cores instead of the CUDA
//!       cores. A block stages a 64 × 16 slice of A and a 16 × 64 slice of B in shared memory;
//!       each of its 4 warps owns a 32 × 32 piece of C (2 × 4 `mma` tiles) and loads its
//!       fragments with 32-bit shared loads, following the layout in [`crate::device::mma`].
//! Bottleneck: feeding: every fragment element is fetched by a separate 32-bit shared load, the
//!       global loads are 2-byte scalars, one k step of 16 per barrier pair (t02: `ldmatrix`).
//! Cost: 73 registers (as the driver reports them), 4 KB of shared memory, 128 threads per
//!       block: 6 blocks per SM.
//! Result: 25.5 TFLOP/s f16 at 4096³ (bf16 alike), 3.4 % of cuBLAS, H200, 2026-11-22.
//!
//! Inputs f16 (or bf16), accumulation and output f32; one instance per input type. B is staged
//! transposed, so that the two k values a lane needs sit in one 32-bit word.
//!
//! More: docs/lessons.md#t01

use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::mma::{mma_m16n8k16_bf16, mma_m16n8k16_f16};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::t01::{BK, BM, BN};
use kernel_macros::kernel;

/// 32-bit words per row of a 16-wide tile of 16-bit values.
const WORDS: u32 = BK / 2;

static_shared! {
    fn t01_a_tile() -> [u32; (BM * WORDS) as usize];
}
static_shared! {
    fn t01_b_tile() -> [u32; (BN * WORDS) as usize];
}

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`), f32 `C`; one 64 × 64 tile of
/// C per block, 32 × 32 per warp.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N 16-bit values and M·N `f32`; launched with 128 threads per
/// block and a grid of ⌈N / 64⌉ × ⌈M / 64⌉ blocks.
#[inline(always)]
unsafe fn mma_gemm<const BF16: bool>(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_words, b_words) = (t01_a_tile(), t01_b_tile());
    // SAFETY: the same arrays, addressed by 16-bit element.
    let (a_halves, b_halves) = unsafe {
        (
            SharedArray::<u16>::from_address(a_words.address(0)),
            SharedArray::<u16>::from_address(b_words.address(0)),
        )
    };
    let tid = thread_idx();
    let (warp, lane) = (tid / WARP_SIZE, tid % WARP_SIZE);
    let (group, in_group) = (lane / 4, lane % 4);
    let (warp_row, warp_col) = (warp / 2, warp % 2);
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let mut acc = [[[0.0f32; 4]; 4]; 2];
    let mut k0 = 0;
    while k0 < k {
        // Each thread stages 8 values of A (row tid/2) and 8 of B (k row tid/8), zero
        // past the edges; B goes in transposed (column-major).
        let (a_row, a_col) = (tid / 2, (tid % 2) * 8);
        let (b_row, b_col) = (tid / 8, (tid % 8) * 8);
        for e in 0..8 {
            let (r, kk) = (row0 + a_row, k0 + a_col + e);
            // SAFETY: bounds-checked loads; tile indices below BM·BK and BN·BK.
            unsafe {
                let v = if r < m && kk < k { *a.add(r as usize * k as usize + kk as usize) } else { 0 };
                a_halves.store(a_row * BK + a_col + e, v);
                let (kk, cc) = (k0 + b_row, col0 + b_col + e);
                let v = if kk < k && cc < n { *b.add(kk as usize * n as usize + cc as usize) } else { 0 };
                b_halves.store((b_col + e) * BK + b_row, v);
            }
        }
        sync_threads();
        let mut a_frag = [[0u32; 4]; 2];
        for (mi, frag) in a_frag.iter_mut().enumerate() {
            let r = warp_row * 32 + mi as u32 * 16 + group;
            // SAFETY: r + 8 < BM and in_group + 4 < WORDS.
            *frag = unsafe {
                [
                    a_words.load(r * WORDS + in_group),
                    a_words.load((r + 8) * WORDS + in_group),
                    a_words.load(r * WORDS + in_group + 4),
                    a_words.load((r + 8) * WORDS + in_group + 4),
                ]
            };
        }
        for ni in 0..4 {
            let col = warp_col * 32 + ni as u32 * 8 + group;
            // SAFETY: col < BN and in_group + 4 < WORDS.
            let b_frag =
                unsafe { [b_words.load(col * WORDS + in_group), b_words.load(col * WORDS + in_group + 4)] };
            for mi in 0..2 {
                acc[mi][ni] = if BF16 {
                    mma_m16n8k16_bf16(a_frag[mi], b_frag, acc[mi][ni])
                } else {
                    mma_m16n8k16_f16(a_frag[mi], b_frag, acc[mi][ni])
                };
            }
        }
        sync_threads();
        k0 += BK;
    }
    unroll!(2, mi => {
        unroll!(4, ni => {
            let r = row0 + warp_row * 32 + mi as u32 * 16 + group;
            let cc = col0 + warp_col * 32 + ni as u32 * 8 + 2 * in_group;
            for (e, &(dr, dc)) in [(0, 0), (0, 1), (8, 0), (8, 1)].iter().enumerate() {
                let (rr, ccc) = (r + dr, cc + dc);
                if rr < m && ccc < n {
                    // SAFETY: rr < m, ccc < n.
                    unsafe { *c.add(rr as usize * n as usize + ccc as usize) = acc[mi][ni][e] };
                }
            }
        });
    });
}

/// [`mma_gemm`] for f16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t01_mma_sync_f16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<false>(a, b, c, m, n, k) }
}

/// [`mma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t01_mma_sync_bf16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<true>(a, b, c, m, n, k) }
}
