//! Step t05 — fragments double-buffered: the next k16 step's `ldmatrix` under this one's `mma`.
//!
//! Idea: in t04 a warp loads a k16 step's fragments and then multiplies them, so each `mma`
//!       waits for its `ldmatrix`, and after the tile's barrier every warp of the SM waits at
//!       once. Here a warp holds two sets of fragments: while the `mma` of step `kk` run, the
//!       `ldmatrix` of step `kk + 1` are in flight, and the first step of the next k tile is
//!       loaded before the last step of this one multiplies, so the barrier is crossed too.
//! Changes from t04: `Fragments` loaded one k16 step ahead; the wait and the barrier for the
//!       next k tile move before the tile's last k16 step; a fourth stage (dynamic shared
//!       memory) to give that earlier wait the time t04's had.
//! Bottleneck: still the two warps per scheduler: the tensor pipe is active 60 % of the cycles
//!       (95 % in p8's ceiling); warps wait on the global queue, full of `cp.async`, and on
//!       `ldmatrix` results.
//! Cost: 254 registers (two fragment sets of 32 beside 128 accumulators), 64 KB of dynamic
//!       shared memory: 2 blocks per SM on an A100 or a Hopper, 1 on the GPUs with 99 KB.
//! Requires: K and N multiples of 8, as t02.
//! Result: 373 TFLOP/s f16 at 4096³ (bf16 374), 58 % of the mma.sync ceiling, H100, 2026-11-28.
//!
//! More: docs/lessons.md#t05

use crate::device::async_copy::{cp_async_commit, cp_async_wait_group};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::mma::{ldmatrix_x4, ldmatrix_x4_trans, mma_m16n8k16_bf16, mma_m16n8k16_f16};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::sync_threads;
use crate::unroll;
use common::gemm::t05::{BK, BM, BN, STAGES, THREADS};
use kernel_macros::kernel;
use super::mma_tiles::{A_CHUNKS, B_CHUNKS, a_chunk, b_chunk, copy_chunk, store_accumulators};

/// 32-bit words in one stage of the A tile and of the B tile; the B stages follow the A
/// stages in dynamic shared memory.
const A_WORDS: u32 = BM * BK / 2;
const B_WORDS: u32 = BK * BN / 2;
const B_STAGES_AT: u32 = STAGES * A_WORDS;

/// k16 steps per k tile.
const K_STEPS: u32 = BK / 16;

/// One k16 step's operands of a warp's 64 × 64 tile: A's four 16 × 16 fragments and B's
/// four pairs of 16 × 8 fragments (each `ldmatrix_x4_trans` gives two n8 tiles).
#[derive(Clone, Copy)]
struct Fragments {
    a: [[u32; 4]; 4],
    b: [[u32; 4]; 4],
}

/// `acc += A · B` over one k16 step: 4 × 8 `mma.sync` m16n8k16.
#[inline(always)]
fn multiply<const BF16: bool>(acc: &mut [[[f32; 4]; 8]; 4], f: &Fragments) {
    unroll!(4, pair => {
        unroll!(2, half => {
            let (ni, b_frag) = (2 * pair + half, [f.b[pair][2 * half], f.b[pair][2 * half + 1]]);
            unroll!(4, mi => {
                acc[mi][ni] = if BF16 {
                    mma_m16n8k16_bf16(f.a[mi], b_frag, acc[mi][ni])
                } else {
                    mma_m16n8k16_f16(f.a[mi], b_frag, acc[mi][ni])
                };
            });
        });
    });
}

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`), f32 `C`: one 128 × 128 tile
/// of C per block, 64 × 64 per warp, `STAGES` k tiles in flight, fragments one k16 step ahead.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N 16-bit values and M·N `f32`; K and N are multiples of 8;
/// launched with 128 threads per block, a grid of ⌈N / 128⌉ × ⌈M / 128⌉ blocks and
/// `SHARED_BYTES` of dynamic shared memory.
#[inline(always)]
unsafe fn mma_gemm<const BF16: bool>(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    let tiles_in_shared: SharedArray<u32> = dynamic_shared();
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
                let at = stage * A_WORDS + a_chunk(r, cc);
                // SAFETY: bounds in `copy_chunk`; swizzled indices inside one stage.
                unsafe { copy_chunk(tiles_in_shared, at, a, m, k, row0 + r, k0 + cc * 8) };
                let (r, cc) = (chunk / B_CHUNKS, chunk % B_CHUNKS);
                let at = B_STAGES_AT + stage * B_WORDS + b_chunk(r, cc);
                // SAFETY: as above.
                unsafe { copy_chunk(tiles_in_shared, at, b, k, n, k0 + r, col0 + cc * 8) };
            }
        }
        cp_async_commit();
    };
    // The warp's fragments of k16 step `kk` of the k tile in `stage`.
    let load_fragments = |stage: u32, kk: u32| -> Fragments {
        let mut f = Fragments { a: [[0; 4]; 4], b: [[0; 4]; 4] };
        unroll!(4, mi => {
            let r = warp_m * 64 + mi as u32 * 16 + lane % 16;
            let at = stage * A_WORDS + a_chunk(r, kk * 2 + lane / 16);
            // SAFETY: the whole warp; a 16-byte aligned chunk inside this stage.
            f.a[mi] = unsafe { ldmatrix_x4(tiles_in_shared.address(at)) };
        });
        unroll!(4, pair => {
            let (r, cc) = (kk * 16 + lane % 16, (warp_n * 64 + pair as u32 * 16) / 8 + lane / 16);
            let at = B_STAGES_AT + stage * B_WORDS + b_chunk(r, cc);
            // SAFETY: the whole warp; a 16-byte aligned chunk inside this stage.
            f.b[pair] = unsafe { ldmatrix_x4_trans(tiles_in_shared.address(at)) };
        });
        f
    };
    for t in 0..STAGES - 1 {
        load_tile(t);
    }
    // Tile 0's group is the oldest but STAGES - 2: wait for it, make it visible, load its
    // first fragments.
    cp_async_wait_group::<{ STAGES - 2 }>();
    sync_threads();
    let mut current = load_fragments(0, 0);
    for t in 0..tiles {
        let stage = t % STAGES;
        unroll!(K_STEPS as usize, at most 2, kk => {
            let kk = kk as u32;
            let next = if kk + 1 < K_STEPS {
                load_fragments(stage, kk + 1)
            } else {
                // Tile t + 1's group is the oldest but STAGES - 2: wait for it and for every
                // warp to have loaded its last fragments of tile t, then load its first step.
                // Past the last tile this reads a stage no copy is writing; unused.
                cp_async_wait_group::<{ STAGES - 2 }>();
                sync_threads();
                load_fragments((t + 1) % STAGES, 0)
            };
            if kk == 0 {
                // Every warp is past the barrier after its last read of tile t - 1 (in that
                // tile's last step), so that stage can be refilled.
                load_tile(t + STAGES - 1);
            }
            multiply::<BF16>(&mut acc, &current);
            current = next;
        });
    }
    // SAFETY: c holds M·N f32.
    unsafe { store_accumulators(c, &acc, (m, n), (row0 + warp_m * 64, col0 + warp_n * 64), lane) };
}

/// [`mma_gemm`] for f16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t05_fragment_pipeline_f16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<false>(a, b, c, m, n, k) }
}

/// [`mma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `mma_gemm`.
#[kernel]
pub unsafe fn t05_fragment_pipeline_bf16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { mma_gemm::<true>(a, b, c, m, n, k) }
}
