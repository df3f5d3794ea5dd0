//! Step w04 — clusters of two blocks share B's tile: each fetches half, multicast into both.
//!
//! Idea: two blocks stacked along M (rows `256p …` and `256p + 128 …` of C, the same 256
//!       columns) need the same B tile. Launched as a cluster of two on neighbouring SMs, block
//!       r copies B's panels 2r and 2r + 1 with `.multicast::cluster`, read from L2 once and
//!       written into both blocks: L2 serves 32 KB per block and k tile instead of 48 (A 16 KB
//!       and half of B), a third less.
//! Changes from w03: a cluster launch of pairs walking pairs of tile rows; B's copies split and
//!       multicast; "empty" arrivals on both blocks of the pair; cluster barriers after the
//!       barriers' setup and before exit.
//! Bottleneck: the epilogue: two scalar stores per thread half-fill each 32-byte sector of C
//!       twice (4.2 M sectors written for C's 2.1 M, all through L1); w05 stores through TMA.
//! Cost: 155 registers × 288 threads, 193 KB of shared memory; 66 clusters of two (H100, H200).
//! Requires: as w02.
//! Result: 91.5 % of cuBLAS f16 at 8192³ (bf16 90.9; w03 90.6 / 90.0), H200, 2026-11-23.
//!
//! The coupling: a block may refill a stage only when the consumers of *both* blocks are done
//! with it, since its copy lands in both. So a stage's "empty" barrier counts the pair's 16
//! consumer warps, and each consumer warp arrives on the barrier of its own block and of its
//! partner (`mapa` gives the partner's address, `mbarrier.arrive…shared::cluster` arrives
//! there). The "full" barrier still counts its own block's bytes: A from its own copy, B from
//! both halves. The host launches with `cuLaunchKernelEx` and a cluster dimension of 2, a grid
//! of as many pairs as `cuOccupancyMaxActiveClusters` says fit. The cluster barrier after the
//! barriers' initialization is there because the partner's copies may complete on them, the one
//! before exit because the partner may still arrive on them.
//!
//! More: docs/lessons.md#w04

use crate::device::cluster::{cluster_count, cluster_idx, cluster_rank, cluster_sync, map_shared_to_rank};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::shared::dynamic_shared_aligned;
use crate::device::tma::{
    copy_tensor_2d, copy_tensor_2d_multicast, fence_barrier_init, mbarrier_arrive_expect_tx,
    mbarrier_arrive_remote, mbarrier_init, mbarrier_wait,
};
use crate::device::wgmma::{self, M64N256_ACC, descriptor, mma_m64n256k16_bf16, mma_m64n256k16_f16};
use crate::unroll;
use common::gemm::grouped_tile;
use common::gemm::w04::{
    A_BOX, ALIGN_SLACK, B_BOX, BK, BM, BN, CLUSTER_M, CONSUMER_WARPGROUPS, GROUP_ROWS, STAGE_BYTES, STAGES,
    THREADS,
};
use kernel_macros::kernel;

/// Threads of a warpgroup, and the rows of the block tile each consumer warpgroup computes.
const WARPGROUP: u32 = 4 * WARP_SIZE;
const WARPGROUP_ROWS: u32 = 64;
const _: () = assert!(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == BM * 2 + WARP_SIZE);
/// The consumer warps of the whole pair arrive on each block's "empty" barriers.
const CONSUMER_WARPS: u32 = CONSUMER_WARPGROUPS * 4;

/// The 128-byte swizzle atom: 8 rows of 128 bytes, 1024-byte aligned (as w01).
const ROW_BYTES: u32 = 128;
const ATOM_BYTES: u32 = 8 * ROW_BYTES;
/// The A tile (one box) and each of B's BN / 64 panels (one box each), in bytes.
const A_BYTES: u32 = A_BOX.0 * A_BOX.1 * 2;
const B_PANEL_BYTES: u32 = B_BOX.0 * B_BOX.1 * 2;
const _: () = assert!(A_BOX.0 * 2 == ROW_BYTES && A_BYTES + BN / B_BOX.0 * B_PANEL_BYTES == STAGE_BYTES);
/// B's panels each block of the pair copies (and multicasts to both).
const PANELS_PER_BLOCK: u32 = BN / B_BOX.0 / CLUSTER_M;
/// Both blocks of the pair: ranks 0 and 1.
const PAIR_MASK: u16 = (1 << CLUSTER_M) - 1;
/// k values per `wgmma`.
const MMA_K: u32 = 16;

/// `C = A · B` as w03 computes it, by clusters of two blocks that share B's tiles.
///
/// # Safety
/// As w03, launched in clusters of `CLUSTER_M` blocks along x, with at most
/// ⌈⌈M / 128⌉ / 2⌉ · ⌈N / 256⌉ clusters.
#[inline(always)]
unsafe fn multicast_gemm<const BF16: bool>(
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
    let rank = cluster_rank();
    let (tile_rows, tile_cols) = (m.div_ceil(BM), n.div_ceil(BN));
    let pair_rows = tile_rows.div_ceil(CLUSTER_M);
    let units = pair_rows * tile_cols;
    let k_tiles = k.div_ceil(BK);
    // The pair's unit → this block's tile: the rank picks the row within the pair (past M
    // for the second block of a last, odd row: its A box reads zeros, it stores nothing).
    let origin = |unit: u32| {
        let (pair_row, col) = grouped_tile(unit, pair_rows, tile_cols, GROUP_ROWS);
        ((pair_row * CLUSTER_M + rank) * BM, col * BN)
    };

    if tid == 0 {
        for s in 0..STAGES {
            // SAFETY: barriers inside the dynamic shared memory, used after the cluster
            // barrier below.
            unsafe {
                mbarrier_init(full(s), 1);
                mbarrier_init(empty(s), CONSUMER_WARPS * CLUSTER_M);
            }
        }
        fence_barrier_init();
    }
    // The partner's copies complete on this block's "full" barriers and its consumers
    // arrive on the "empty" ones: both blocks' barriers must exist before either starts.
    cluster_sync();

    let warpgroup = tid / WARPGROUP;
    if warpgroup == CONSUMER_WARPGROUPS {
        if tid % WARP_SIZE == 0 {
            let mut it = 0;
            let mut unit = cluster_idx();
            while unit < units {
                let (row0, col0) = origin(unit);
                for t in 0..k_tiles {
                    let s = it % STAGES;
                    // SAFETY (the pair): initialized barriers; stage s is free in both
                    // blocks (its "empty" barrier counts the consumers of both), and the
                    // boxes land inside it.
                    unsafe {
                        if it >= STAGES {
                            mbarrier_wait(empty(s), (it / STAGES - 1) % 2);
                        }
                        mbarrier_arrive_expect_tx(full(s), STAGE_BYTES);
                        copy_tensor_2d(a_stage(s), a_map, t * BK, row0, full(s));
                        for p in 0..PANELS_PER_BLOCK {
                            let panel = rank * PANELS_PER_BLOCK + p;
                            let dst = b_stage(s) + panel * B_PANEL_BYTES;
                            copy_tensor_2d_multicast(
                                dst,
                                b_map,
                                col0 + panel * B_BOX.0,
                                t * BK,
                                full(s),
                                PAIR_MASK,
                            );
                        }
                    }
                    it += 1;
                }
                unit += cluster_count();
            }
        }
    } else {
        let lane = tid % WARP_SIZE;
        // Stage s is free in this block: tell both blocks of the pair.
        let release = |s: u32| {
            if lane == 0 {
                for r in 0..CLUSTER_M {
                    // SAFETY: an initialized barrier of a block of the pair, which waits
                    // at the final cluster barrier before it exits.
                    unsafe { mbarrier_arrive_remote(map_shared_to_rank(empty(s), r)) };
                }
            }
        };
        let mut it = 0;
        let mut unit = cluster_idx();
        while unit < units {
            let (row0, col0) = origin(unit);
            let mut acc = [0.0f32; M64N256_ACC];
            for t in 0..k_tiles {
                let s = it % STAGES;
                // SAFETY: an initialized barrier; phase it / STAGES is this k tile's arrival.
                unsafe { mbarrier_wait(full(s), (it / STAGES) % 2) };
                wgmma::fence();
                unroll!(4, kk => {
                    let a_desc = descriptor(
                        a_stage(s) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk as u32 * MMA_K * 2,
                        0,
                        ATOM_BYTES,
                    );
                    let b_desc = descriptor(b_stage(s) + kk as u32 * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
                    // SAFETY: the whole warpgroup, after the fence; neither block refills
                    // stage s before this warp has released it.
                    unsafe {
                        if BF16 {
                            mma_m64n256k16_bf16(&mut acc, a_desc, b_desc)
                        } else {
                            mma_m64n256k16_f16(&mut acc, a_desc, b_desc)
                        }
                    };
                });
                wgmma::commit_group();
                wgmma::wait_group::<1>();
                if t > 0 {
                    release((it - 1) % STAGES);
                }
                it += 1;
            }
            wgmma::wait_group::<0>();
            release((it - 1) % STAGES);

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
            unit += cluster_count();
        }
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

/// [`multicast_gemm`] for f16 inputs.
///
/// # Safety
/// As `multicast_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w04_multicast_f16(a_map: *const u8, b_map: *const u8, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { multicast_gemm::<false>(a_map, b_map, c, m, n, k) }
}

/// [`multicast_gemm`] for bf16 inputs.
///
/// # Safety
/// As `multicast_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w04_multicast_bf16(a_map: *const u8, b_map: *const u8, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { multicast_gemm::<true>(a_map, b_map, c, m, n, k) }
}
