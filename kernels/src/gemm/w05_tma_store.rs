//! Step w05 — the epilogue through shared memory: C staged in swizzled boxes, stored by TMA.
//!
//! Idea: a consumer warpgroup writes its 64 × 256 f32 piece of C into shared memory one 64 × 32
//!       box (8 KB) at a time, in the layout of a 128-byte-swizzled TMA box, and one thread
//!       hands each box to the copy engine (`cp.async.bulk.tensor`), which writes C in whole
//!       lines, each sector once, and clips what lies outside the matrix. Two boxes per
//!       warpgroup alternate, so the global writes drain under the next main loop.
//! Changes from w04: the epilogue (8 boxes per warpgroup and tile, two named barriers per box,
//!       `fence.proxy.async.shared::cta` before each store), a third tensor map (C) in place of
//!       C's pointer, 32 KB more shared memory. No bounds checks are left in the kernel.
//! Bottleneck: registers: ptxas sizes a block of 288 threads as three warpgroups, 168 registers
//!       each; the consumers need 167, and the next steps' state would spill (w06).
//! Cost: 168 registers × 288 threads; 225 KB of shared memory (4 × 48 KB stages, 32 KB of
//!       staging boxes); one block per SM.
//! Requires: as w02 (N a multiple of 8 also makes C's rows multiples of 16 bytes).
//! Result: 99.3 % of cuBLAS f16 at 4096³ (bf16 98.7; w04 82.0 / 81.1), H200, 2026-11-23.
//!
//! The box: one 8-byte `st.shared.v2` per pair of values, and the XOR of the 16-byte chunk index
//! with the row spreads the 8 rows a warp writes over all 32 banks. Of the two named barriers
//! per box, one says the box is free, the other that it is written;
//! `cp.async.bulk.wait_group.read 1` before a box is refilled waits for the engine to have read
//! it. The fence orders the threads' writes before the store, which the copy engine reads
//! through the async proxy. A warpgroup starts the next tile as soon as its last box is handed
//! over.
//!
//! More: docs/lessons.md#w05

use crate::device::cluster::{cluster_count, cluster_idx, cluster_rank, cluster_sync, map_shared_to_rank};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::shared::{SharedArray, dynamic_shared_aligned};
use crate::device::sync::sync_named;
use crate::device::tma::{
    bulk_commit_group, bulk_wait_group, bulk_wait_group_read, copy_tensor_2d, copy_tensor_2d_multicast,
    fence_barrier_init, mbarrier_arrive_expect_tx, mbarrier_arrive_remote, mbarrier_init, mbarrier_wait,
    store_tensor_2d,
};
use crate::device::wgmma::{
    self, M64N256_ACC, descriptor, fence_proxy_async_shared, mma_m64n256k16_bf16, mma_m64n256k16_f16,
};
use crate::unroll;
use common::gemm::grouped_tile;
use common::gemm::w05::{
    A_BOX, ALIGN_SLACK, B_BOX, BK, BM, BN, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
    CONSUMER_WARPGROUPS, GROUP_ROWS, STAGE_BYTES, STAGES, THREADS,
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
/// C's boxes: a warpgroup's 64 rows by 32 columns, 8 per tile; their rows are one
/// 128-byte swizzle row of f32.
const C_BOXES: u32 = BN / C_BOX.0;
const _: () = assert!(C_BOX.1 == WARPGROUP_ROWS && C_BOX.0 * 4 == ROW_BYTES && C_BOXES == 8);

/// `C = A · B` as w04 computes it, C stored from shared memory by the copy engine.
///
/// # Safety
/// As w04, with `c_map` the global address of a tensor map of C (M × N f32, row-major,
/// 128-byte swizzle, boxes of 32 × 64) in place of C's pointer, and `w05::SHARED_BYTES` of
/// dynamic shared memory.
#[inline(always)]
unsafe fn tma_store_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
) {
    let base = dynamic_shared_aligned(ALIGN_SLACK);
    let a_stage = |s: u32| base + s * STAGE_BYTES;
    let b_stage = |s: u32| base + s * STAGE_BYTES + A_BYTES;
    // Warpgroup w's staging box b, after the stages (1024-byte aligned, as the swizzle
    // needs), then the barriers.
    let c_box = |w: u32, b: u32| base + STAGES * STAGE_BYTES + (w * C_BUFFERS + b) * C_BOX_BYTES;
    let barriers = base + STAGES * STAGE_BYTES + C_STAGING_BYTES;
    let full = |s: u32| barriers + s * 8;
    let empty = |s: u32| barriers + (STAGES + s) * 8;
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

            // The epilogue, one 64 × 32 box of this warpgroup's piece at a time. Thread
            // (warp, lane) holds rows warp·16 + lane/4 (+ 8) of the piece and, for box j,
            // columns 32j + 8q + 2(lane % 4) (+ 1), q = 0…3: accumulators 4(4j + q) + …
            // (layout: `device::wgmma`). In the box's 128-byte rows, those two values are
            // bytes 32q + 8(lane % 4) …, in 16-byte chunk 2q + (lane % 4)/2, which the
            // swizzle moves to that chunk XOR (row % 8), and row % 8 is lane / 4.
            let warp = (tid % WARPGROUP) / WARP_SIZE;
            let (g, t4) = (lane / 4, lane % 4);
            let row_order = (g % 4) ^ (g % 4 / 2);
            let storer = tid % WARPGROUP == 0;
            unroll!(8, j => {
                let buffer = c_box(warpgroup, j as u32 % C_BUFFERS);
                // The copy of the box stored from this buffer two boxes ago has read it.
                if storer {
                    bulk_wait_group_read::<{ C_BUFFERS - 1 }>();
                }
                sync_named(1 + warpgroup, WARPGROUP);
                // SAFETY: inside this warpgroup's buffer, which no copy reads any more.
                let staging: SharedArray<f32> = unsafe { SharedArray::from_address(buffer) };
                unroll!(4, step => {
                    // An 8-byte store is served in two half-warp phases: rows g and g ^ 1
                    // of a half would XOR the same column group onto the same two chunks
                    // (a 2-way conflict per phase), so each row takes the groups in its
                    // own order, q = step ^ gray(g % 4), which keeps the four rows of a
                    // half on four different pairs of chunks.
                    let q = step as u32 ^ row_order;
                    unroll!(2, half => {
                        let row = warp * 16 + g + 8 * half as u32;
                        let chunk = (2 * q + t4 / 2) ^ g;
                        let at = (row * ROW_BYTES + chunk * 16 + (t4 % 2) * 8) / 4;
                        let first = 4 * 4 * j + 2 * half;
                        let pair = [pick(&acc, first, q), pick(&acc, first + 1, q)];
                        // SAFETY: `at` is even and inside the 8 KB box.
                        unsafe { staging.store_v2(at, pair) };
                    });
                });
                fence_proxy_async_shared();
                sync_named(1 + warpgroup, WARPGROUP);
                if storer {
                    // SAFETY: the box is written and fenced by the whole warpgroup; the map
                    // is C's, and the engine clips what lies outside M × N.
                    unsafe {
                        store_tensor_2d(c_map, col0 + j as u32 * C_BOX.0, row0 + warpgroup * WARPGROUP_ROWS, buffer)
                    };
                    bulk_commit_group();
                }
            });
            unit += cluster_count();
        }
        // C's last boxes are written before the block exits.
        if tid % WARPGROUP == 0 {
            bulk_wait_group::<0>();
        }
    }
    // The partner may still arrive on this block's barriers: neither block leaves first.
    cluster_sync();
}

/// `acc[first + 4q]` for a run-time `q` in 0..4, by selects: indexing the accumulators at
/// run time would move them to local memory.
#[inline(always)]
fn pick(acc: &[f32; M64N256_ACC], first: usize, q: u32) -> f32 {
    let low = if q & 1 == 0 { acc[first] } else { acc[first + 4] };
    let high = if q & 1 == 0 { acc[first + 8] } else { acc[first + 12] };
    if q & 2 == 0 { low } else { high }
}

/// [`tma_store_gemm`] for f16 inputs.
///
/// # Safety
/// As `tma_store_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w05_tma_store_f16(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
) {
    // SAFETY: forwarded.
    unsafe { tma_store_gemm::<false>(a_map, b_map, c_map, m, n, k) }
}

/// [`tma_store_gemm`] for bf16 inputs.
///
/// # Safety
/// As `tma_store_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn w05_tma_store_bf16(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
) {
    // SAFETY: forwarded.
    unsafe { tma_store_gemm::<true>(a_map, b_map, c_map, m, n, k) }
}
