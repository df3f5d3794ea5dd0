//! Step w03 — a persistent grid: one block per SM walks many tiles, its producer running ahead.
//!
//! Idea: w02's blocks each fill a pipeline and store an epilogue with nothing overlapping them.
//!       Here the grid is as many blocks as fit at once, each looping over tiles `blockIdx.x`,
//!       `+ gridDim.x`, …; the producer's stage counter runs on across tiles, so while the
//!       consumers store one tile it already loads the next. The tiles are walked in bands of
//!       16 tile rows ([`common::gemm::grouped_tile`]), so running blocks share A and B in L2.
//! Changes from w02: the tile loop; a stage counter (and phase) that does not restart per tile;
//!       a tile's last stage released after the final `wait_group`; the grid sized by the
//!       occupancy calculator (`GridMap::Persistent`) instead of one block per tile.
//! Bottleneck: L2 → SM traffic: a block copies 48 KB per k tile for 4.2 MFLOP, about 8.6 TB/s
//!       across the GPU at 750 TFLOP/s, about what L2 can serve (w04 shares B's tile).
//! Cost: 158 registers × 288 threads; w02's 193 KB of shared memory; one block per SM, a grid
//!       of 132 on an H100 or H200.
//! Requires: as w02.
//! Result: 90.6 % of cuBLAS f16 at 8192³ (bf16 90.0; w02 78.1 / 83.9), H200, 2026-11-23.
//!
//! The walk: column by column within a band, so the 132 blocks that run at one time share 16
//! rows of A and about 8 columns of B, where w02's launch order (4 rows by the whole width of B
//! at 8192³) reads B from DRAM again for every wave.
//!
//! More: docs/lessons.md#w03

use crate::device::index::{WARP_SIZE, block_idx, grid_dim, thread_idx};
use crate::device::shared::dynamic_shared_aligned;
use crate::device::sync::sync_threads;
use crate::device::tma::{
    copy_tensor_2d, fence_barrier_init, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init,
    mbarrier_wait,
};
use crate::device::wgmma::{self, M64N256_ACC, descriptor, mma_m64n256k16_bf16, mma_m64n256k16_f16};
use crate::unroll;
use common::gemm::grouped_tile;
use common::gemm::w03::{
    A_BOX, ALIGN_SLACK, B_BOX, BK, BM, BN, CONSUMER_WARPGROUPS, GROUP_ROWS, STAGE_BYTES, STAGES, THREADS,
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

/// `C = A · B` as w02 computes it, on a persistent grid: block `b` computes tiles `b`,
/// `b + gridDim.x`, … of the grouped walk.
///
/// # Safety
/// As w02, with any grid of at most ⌈M / 128⌉ · ⌈N / 256⌉ blocks (the host launches one per
/// SM, or fewer when there are fewer tiles).
#[inline(always)]
unsafe fn persistent_gemm<const BF16: bool>(
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
    let full = |s: u32| base + STAGES * STAGE_BYTES + s * 8;
    let empty = |s: u32| base + STAGES * STAGE_BYTES + (STAGES + s) * 8;
    let tid = thread_idx();
    let (tile_rows, tile_cols) = (m.div_ceil(BM), n.div_ceil(BN));
    let tiles = tile_rows * tile_cols;
    let k_tiles = k.div_ceil(BK);
    let origin = |tile: u32| {
        let (row, col) = grouped_tile(tile, tile_rows, tile_cols, GROUP_ROWS);
        (row * BM, col * BN)
    };

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
        // The producer warp: its first thread issues every copy, for every tile of this
        // block, `it` counting k tiles across tiles.
        if tid % WARP_SIZE == 0 {
            let mut it = 0;
            let mut tile = block_idx();
            while tile < tiles {
                let (row0, col0) = origin(tile);
                for t in 0..k_tiles {
                    let s = it % STAGES;
                    // SAFETY (the block): initialized barriers; boxes of the maps land
                    // inside stage s, whose "empty" phase for k tile it - STAGES completed.
                    unsafe {
                        if it >= STAGES {
                            mbarrier_wait(empty(s), (it / STAGES - 1) % 2);
                        }
                        mbarrier_arrive_expect_tx(full(s), STAGE_BYTES);
                        copy_tensor_2d(a_stage(s), a_map, t * BK, row0, full(s));
                        for panel in 0..BN / B_BOX.0 {
                            let dst = b_stage(s) + panel * B_PANEL_BYTES;
                            copy_tensor_2d(dst, b_map, col0 + panel * B_BOX.0, t * BK, full(s));
                        }
                    }
                    it += 1;
                }
                tile += grid_dim();
            }
        }
        return;
    }

    let lane = tid % WARP_SIZE;
    let mut it = 0;
    let mut tile = block_idx();
    while tile < tiles {
        let (row0, col0) = origin(tile);
        let mut acc = [0.0f32; M64N256_ACC];
        for t in 0..k_tiles {
            let s = it % STAGES;
            // SAFETY: an initialized barrier; its phase it / STAGES is this k tile's arrival.
            unsafe { mbarrier_wait(full(s), (it / STAGES) % 2) };
            wgmma::fence();
            unroll!(4, kk => {
                let a_desc = descriptor(
                    a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk as u32 * MMA_K * 2,
                    0,
                    ATOM_BYTES,
                );
                let b_desc = descriptor(b_stage(s) + kk as u32 * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
                // SAFETY: the whole warpgroup, after the fence; the producer refills stage
                // s only after every consumer warp has seen these `wgmma`s finish.
                unsafe {
                    if BF16 {
                        mma_m64n256k16_bf16(&mut acc, a_desc, b_desc)
                    } else {
                        mma_m64n256k16_f16(&mut acc, a_desc, b_desc)
                    }
                };
            });
            wgmma::commit_group();
            // The previous k tile's products are done: hand its stage back.
            wgmma::wait_group::<1>();
            if t > 0 && lane == 0 {
                // SAFETY: an initialized barrier.
                unsafe { mbarrier_arrive(empty((it - 1) % STAGES)) };
            }
            it += 1;
        }
        wgmma::wait_group::<0>();
        // The tile's last stage is free too; the producer may already be waiting for it
        // to load the next tile.
        if lane == 0 {
            // SAFETY: an initialized barrier.
            unsafe { mbarrier_arrive(empty((it - 1) % STAGES)) };
        }

        // Accumulator layout: see `device::wgmma` (as w02).
        let warp = (tid % WARPGROUP) / WARP_SIZE;
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
        tile += grid_dim();
    }
}

/// [`persistent_gemm`] for f16 inputs.
///
/// # Safety
/// As `persistent_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w03_persistent_f16(a_map: *const u8, b_map: *const u8, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { persistent_gemm::<false>(a_map, b_map, c, m, n, k) }
}

/// [`persistent_gemm`] for bf16 inputs.
///
/// # Safety
/// As `persistent_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w03_persistent_bf16(a_map: *const u8, b_map: *const u8, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { persistent_gemm::<true>(a_map, b_map, c, m, n, k) }
}
