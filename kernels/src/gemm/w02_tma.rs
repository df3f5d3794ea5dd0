//! Step w02 — the copy engine feeds the tensor cores: TMA copies from a producer warp, `mbarrier`s.
//!
//! Idea: each of w01's 256 threads computes 12 addresses and bounds per k tile for as many
//!       `cp.async`, and all of them meet at two block barriers. Here one thread of a *producer*
//!       warp asks the TMA copy engine for each tile (one instruction per box: the engine makes
//!       the addresses, swizzles, zero-fills past the edges); the copies count their bytes on a
//!       stage's "full" `mbarrier`, and the consumers release the stage on its "empty" one.
//! Changes from w01: `load_tile` becomes five `copy_tensor_2d` on one thread; the two `bar.sync`
//!       per tile become a wait on "full" and an arrival on "empty"; a 9th warp, the producer.
//! Bottleneck: one block per tile: its pipeline fills with no `wgmma` to hide it and its
//!       epilogue stores 128 KB of C with none in flight (w03 makes the grid persistent).
//! Cost: 154 registers × 288 threads (`#[kernel(max_threads = 288)]`, as `__launch_bounds__`);
//!       w01's shared memory plus 64 bytes of barriers (193 KB); one block per SM.
//! Requires: as w01; the tensor maps' row strides must be multiples of 16 bytes.
//! Result: 608 TFLOP/s f16 at 4096³ (bf16 623), 80.5 % of cuBLAS, H200, 2026-11-22.
//!
//! Each consumer warpgroup waits only for a stage's "full" barrier and, when its `wgmma`s on the
//! stage have finished, arrives on its "empty" barrier, which the producer waits for before
//! refilling it: no block barrier is left in the loop. The tiles, their swizzled layout, the
//! `wgmma`s and the epilogue are w01's. The host encodes the tensor maps
//! (`cuTensorMapEncodeTiled`) and passes their addresses in place of A and B.
//!
//! More: docs/lessons.md#w02

use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::shared::dynamic_shared_aligned;
use crate::device::sync::sync_threads;
use crate::device::tma::{
    copy_tensor_2d, fence_barrier_init, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init,
    mbarrier_wait,
};
use crate::device::wgmma::{self, M64N256_ACC, descriptor, mma_m64n256k16_bf16, mma_m64n256k16_f16};
use crate::unroll;
use common::gemm::w02::{
    A_BOX, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, STAGE_BYTES, STAGES, THREADS,
};
use kernel_macros::kernel;

/// Threads of a warpgroup, and the rows of the block tile each consumer warpgroup computes.
const WARPGROUP: u32 = 4 * WARP_SIZE;
const WARPGROUP_ROWS: u32 = 64;
const _: () = assert!(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == BM * 2 + WARP_SIZE);
/// Every consumer warp arrives on a stage's "empty" barrier when done with it.
const CONSUMER_WARPS: u32 = CONSUMER_WARPGROUPS * 4;

/// The 128-byte swizzle atom: 8 rows of 128 bytes, 1024-byte aligned (as w01).
const ROW_BYTES: u32 = 128;
const ATOM_BYTES: u32 = 8 * ROW_BYTES;
/// The A tile (one box) and each of B's BN / 64 panels (one box each), in bytes.
const A_BYTES: u32 = A_BOX.0 * A_BOX.1 * 2;
const B_PANEL_BYTES: u32 = B_BOX.0 * B_BOX.1 * 2;
const _: () = assert!(A_BOX.0 * 2 == ROW_BYTES && A_BYTES + BN / B_BOX.0 * B_PANEL_BYTES == STAGE_BYTES);
/// k values per `wgmma`.
const MMA_K: u32 = 16;

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`) described by the tensor maps
/// `a_map` (K × M boxes of 64 × 128) and `b_map` (N × K boxes of 64 × 64), f32 `C`: one
/// 128 × 256 tile of C per block.
///
/// # Safety
/// `a_map` and `b_map` are global addresses of tensor maps of A (M × K) and B (K × N),
/// 16-bit, row-major, 128-byte swizzle, with the boxes above; `c` holds M·N `f32`; launched
/// with 288 threads per block, `w02::SHARED_BYTES` of dynamic shared memory and a grid of
/// ⌈N / 256⌉ × ⌈M / 128⌉ blocks, on an sm_90a device.
#[inline(always)]
unsafe fn tma_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
) {
    let base = dynamic_shared_aligned(ALIGN_SLACK);
    let a_stage = |s: u32| base + s * STAGE_BYTES;
    let b_stage = |s: u32| base + s * STAGE_BYTES + A_BYTES;
    // Stage s's "full" barrier (its tile landed) and "empty" barrier (both warpgroups are
    // done with it), after the stages.
    let full = |s: u32| base + STAGES * STAGE_BYTES + s * 8;
    let empty = |s: u32| base + STAGES * STAGE_BYTES + (STAGES + s) * 8;
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let tiles = k.div_ceil(BK);

    if tid == 0 {
        for s in 0..STAGES {
            // SAFETY: barriers inside the dynamic shared memory, used after the barrier below.
            unsafe {
                mbarrier_init(full(s), 1);
                mbarrier_init(empty(s), CONSUMER_WARPS);
            }
        }
        fence_barrier_init();
    }
    sync_threads();

    let warpgroup = tid / WARPGROUP;
    if warpgroup == CONSUMER_WARPGROUPS {
        // The producer warp: its first thread issues every copy.
        if tid % WARP_SIZE == 0 {
            for t in 0..tiles {
                let s = t % STAGES;
                // SAFETY (the block): initialized barriers; boxes of the maps land inside
                // stage s, whose "empty" phase for tile t - STAGES has completed.
                unsafe {
                    if t >= STAGES {
                        mbarrier_wait(empty(s), (t / STAGES - 1) % 2);
                    }
                    mbarrier_arrive_expect_tx(full(s), STAGE_BYTES);
                    copy_tensor_2d(a_stage(s), a_map, t * BK, row0, full(s));
                    for panel in 0..BN / B_BOX.0 {
                        let dst = b_stage(s) + panel * B_PANEL_BYTES;
                        copy_tensor_2d(dst, b_map, col0 + panel * B_BOX.0, t * BK, full(s));
                    }
                }
            }
        }
        return;
    }

    let mut acc = [0.0f32; M64N256_ACC];
    for t in 0..tiles {
        let s = t % STAGES;
        // SAFETY: an initialized barrier; its phase t / STAGES is this tile's arrival.
        unsafe { mbarrier_wait(full(s), (t / STAGES) % 2) };
        wgmma::fence();
        unroll!(4, kk => {
            let a_desc = descriptor(
                a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk as u32 * MMA_K * 2,
                0,
                ATOM_BYTES,
            );
            let b_desc = descriptor(b_stage(s) + kk as u32 * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
            // SAFETY: the whole warpgroup, after the fence; the producer refills stage s
            // only after every consumer warp has seen these `wgmma`s finish (below).
            unsafe {
                if BF16 {
                    mma_m64n256k16_bf16(&mut acc, a_desc, b_desc)
                } else {
                    mma_m64n256k16_f16(&mut acc, a_desc, b_desc)
                }
            };
        });
        wgmma::commit_group();
        // Tile t - 1's products are done: hand its stage back to the producer.
        wgmma::wait_group::<1>();
        if t > 0 && tid % WARP_SIZE == 0 {
            // SAFETY: an initialized barrier.
            unsafe { mbarrier_arrive(empty((t - 1) % STAGES)) };
        }
    }
    wgmma::wait_group::<0>();

    // Accumulator layout: see `device::wgmma` (as w01).
    let (warp, lane) = ((tid % WARPGROUP) / WARP_SIZE, tid % WARP_SIZE);
    let r = row0 + warpgroup * WARPGROUP_ROWS + warp * 16 + lane / 4;
    unroll!(8, jj => {
        unroll!(4, j4 => {
            let j = jj * 4 + j4;
            let col = col0 + 8 * j as u32 + 2 * (lane % 4);
            unroll!(2, half => {
                let rr = r + 8 * half as u32;
                // N is a multiple of 8 and col even: col < n covers col + 1.
                if rr < m && col < n {
                    let at = rr as usize * n as usize + col as usize;
                    // SAFETY: (rr, col) and (rr, col + 1) are inside C.
                    unsafe {
                        *c.add(at) = acc[4 * j + 2 * half];
                        *c.add(at + 1) = acc[4 * j + 2 * half + 1];
                    }
                }
            });
        });
    });
}

/// [`tma_gemm`] for f16 inputs.
///
/// # Safety
/// As `tma_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w02_tma_f16(a_map: *const u8, b_map: *const u8, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_gemm::<false>(a_map, b_map, c, m, n, k) }
}

/// [`tma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `tma_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w02_tma_bf16(a_map: *const u8, b_map: *const u8, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_gemm::<true>(a_map, b_map, c, m, n, k) }
}
