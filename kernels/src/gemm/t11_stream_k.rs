//! Step t11 — stream-K: the work that does not fill a last wave is split along K, so
//! that every cluster finishes at the same time.
//!
//! Idea: t10 walks 256 × 256 units (a cluster pair's two tiles) in waves of one unit per
//!       cluster. At 4096³ that is 256 units on 66 clusters: three full waves and a fourth
//!       of 58 units, in which 8 clusters idle; at 1024³, 16 units for 66 clusters, one
//!       wave with 50 idle; every size whose units are not a multiple of the clusters
//!       loses part of a wave. Here the first ⌊units / clusters⌋ waves run as in t09, and
//!       the k tiles of the units left over are laid end to end and cut into equal
//!       shares, one per cluster ([`common::gemm::stream_k::StreamK`]; a unit is shared by at most
//!       4 clusters). A unit cut between clusters is finished by its *owner*, the cluster
//!       that computes its k tile 0: each other cluster that computed part of it (its
//!       *contributors*, for whom that part is the first piece of their share) writes its
//!       partial 128 × 256 accumulators to a workspace in global memory and raises a flag
//!       (`st.release.gpu`); the owner, whose part is the *last* piece of its share,
//!       waits for each flag (`ld.acquire.gpu`), adds the partials (`ld.global.cg`, from
//!       L2) and stores the tile through t09's epilogue. The owner resets each flag, so
//!       the workspace is ready for the next launch.
//! Changes from t10: the walk (pieces of units instead of whole units, the same sequence
//!       for producer and consumers), the partial/owner paths after the main loop, a
//!       seventh argument (the workspace: a partial tile and a flag per block), and a
//!       grid of all the clusters that fit even when there are fewer units.
//! Cost: as t10 (168 registers at entry, no spills), plus a 17 MB workspace (a 128 KB
//!       partial tile and a flag per block), zeroed once.
//! Requires: as t10; all blocks of the grid resident at once (the host launches at most
//!       what `cuOccupancyMaxActiveClusters` says fits): an owner waits for contributors.
//! Result (2026-11-23, % of cuBLAS f16 / bf16): the fastest step at 8192³ (H200 101.8 /
//!       102.4, H100 103.5 / 101.9) and with M = 4097 (H200 91.4 / 91.3, H100 89.6 / 92.0,
//!       against t10's 83.7 / 83.4); slower where the last wave is nearly full or the
//!       product small: 4096³ 94.8 / 94.5 (t10 99.4 / 98.9), 1024³ 43.4 (t10 49.5).

use crate::device::atomic::{fence_acq_rel_gpu, load_acquire_u32, store_relaxed_u32, store_release_u32};
use crate::device::cluster::{cluster_count, cluster_idx, cluster_rank, cluster_sync, map_shared_to_rank};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::load::{load_l2_f32x4, store_f32x4};
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::sync_named;
use crate::device::tma::{
    bulk_commit_group, bulk_wait_group, bulk_wait_group_read, copy_tensor_2d, copy_tensor_2d_multicast,
    fence_barrier_init, mbarrier_arrive_expect_tx, mbarrier_arrive_remote, mbarrier_init, mbarrier_wait,
    store_tensor_2d,
};
use crate::device::wgmma::{
    self, M64N256_ACC, claim_registers, descriptor, fence_proxy_async_shared, mma_m64n256k16_bf16,
    mma_m64n256k16_f16, release_registers,
};
use crate::unroll;
use common::gemm::grouped_tile;
use common::gemm::stream_k::{Role, ShareOrder, StreamK};
use common::gemm::t11::{
    A_BOX, ALIGN_SLACK, B_BOX, BK, BM, BN, C_BOX, C_BOX_BYTES, C_BUFFERS, C_STAGING_BYTES, CLUSTER_M,
    CONSUMER_REGISTERS, CONSUMER_WARPGROUPS, GROUP_ROWS, MAX_SPLIT, PARTIAL_FLOATS, PRODUCER_REGISTERS,
    STAGE_BYTES, STAGES, THREADS,
};
use kernel_macros::kernel;

/// Threads of a warpgroup, and the rows of the block tile each consumer warpgroup computes.
const WARPGROUP: u32 = 4 * WARP_SIZE;
const WARPGROUP_ROWS: u32 = 64;
const _: () =
    assert!(BM == CONSUMER_WARPGROUPS * WARPGROUP_ROWS && THREADS == (CONSUMER_WARPGROUPS + 1) * WARPGROUP);
/// The consumer warps of the whole pair arrive on each block's "empty" barriers.
const CONSUMER_WARPS: u32 = CONSUMER_WARPGROUPS * 4;

/// The 128-byte swizzle atom: 8 rows of 128 bytes, 1024-byte aligned (as t05).
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

/// Consumer threads of a block, who meet at named barrier [`CONSUMERS_BARRIER`] around the
/// workspace (ids 1 and 2 are the warpgroups' own, in the epilogue).
const CONSUMER_THREADS: u32 = CONSUMER_WARPGROUPS * WARPGROUP;
const CONSUMERS_BARRIER: u32 = 3;
/// 16-byte pieces of a consumer thread's accumulators: the partial tile is stored as
/// `[piece][consumer thread]`, so that each warp's 16-byte stores and loads are contiguous.
const ACC_PIECES: u32 = M64N256_ACC as u32 / 4;
const _: () = assert!(ACC_PIECES * 4 * CONSUMER_THREADS == PARTIAL_FLOATS);

/// `C = A · B` as t10 computes it, with the last partial wave shared along K.
///
/// # Safety
/// As t10, with `workspace` holding `t11::workspace_bytes(blocks)` bytes for the launch's
/// `blocks`, its flags zero (as the previous launch left them), and every cluster of the
/// grid resident at once.
#[inline(always)]
unsafe fn stream_k_gemm<const BF16: bool>(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    let base = (dynamic_shared::<u8>().address(0) + ALIGN_SLACK - 1) & !(ALIGN_SLACK - 1);
    let a_stage = |s: u32| base + s * STAGE_BYTES;
    let b_stage = |s: u32| base + s * STAGE_BYTES + A_BYTES;
    let c_box = |w: u32, b: u32| base + STAGES * STAGE_BYTES + (w * C_BUFFERS + b) * C_BOX_BYTES;
    let barriers = base + STAGES * STAGE_BYTES + C_STAGING_BYTES;
    let full = |s: u32| barriers + s * 8;
    let empty = |s: u32| barriers + (STAGES + s) * 8;
    let tid = thread_idx();
    let rank = cluster_rank();
    let (tile_rows, tile_cols) = (m.div_ceil(BM), n.div_ceil(BN));
    let pair_rows = tile_rows.div_ceil(CLUSTER_M);
    let k_tiles = k.div_ceil(BK);
    let schedule =
        StreamK::new(pair_rows * tile_cols, k_tiles, cluster_count(), MAX_SPLIT, ShareOrder::Offsets);
    let cluster = cluster_idx();
    let origin = |unit: u32| {
        let (pair_row, col) = grouped_tile(unit, pair_rows, tile_cols, GROUP_ROWS);
        ((pair_row * CLUSTER_M + rank) * BM, col * BN)
    };
    // Block b's partial tile, and its flag after all the partial tiles.
    let blocks = schedule.clusters * CLUSTER_M;
    let partial = |cluster: u32| {
        // SAFETY (of the `add`s): inside the workspace, which holds a partial per block.
        unsafe { workspace.add(((cluster * CLUSTER_M + rank) * PARTIAL_FLOATS) as usize) }
    };
    let flag = |cluster: u32| {
        // SAFETY: inside the workspace, after the partials.
        unsafe {
            (workspace.add((blocks * PARTIAL_FLOATS) as usize) as *mut u32)
                .add((cluster * CLUSTER_M + rank) as usize)
        }
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
    cluster_sync();

    let warpgroup = tid / WARPGROUP;
    if warpgroup == CONSUMER_WARPGROUPS {
        release_registers::<PRODUCER_REGISTERS>();
        if tid == CONSUMER_WARPGROUPS * WARPGROUP {
            let mut it = 0;
            for piece in schedule.pieces(cluster) {
                let (row0, col0) = origin(piece.unit);
                for t in piece.k_begin..piece.k_end {
                    let s = it % STAGES;
                    // SAFETY (the pair): as t08; both blocks of the pair walk the same
                    // pieces, so their stages stay in step.
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
            }
        }
    } else {
        claim_registers::<CONSUMER_REGISTERS>();
        let lane = tid % WARP_SIZE;
        let release = |s: u32| {
            if lane == 0 {
                for r in 0..CLUSTER_M {
                    // SAFETY: an initialized barrier of a block of the pair, which waits
                    // at the final cluster barrier before it exits.
                    unsafe { mbarrier_arrive_remote(map_shared_to_rank(empty(s), r)) };
                }
            }
        };
        let warp = (tid % WARPGROUP) / WARP_SIZE;
        let (g, t4) = (lane / 4, lane % 4);
        let row_order = (g % 4) ^ (g % 4 / 2);
        let storer = tid % WARPGROUP == 0;
        let mut it = 0;
        for piece in schedule.pieces(cluster) {
            let (row0, col0) = origin(piece.unit);
            let mut acc = [0.0f32; M64N256_ACC];
            for t in piece.k_begin..piece.k_end {
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
                if t > piece.k_begin {
                    release((it - 1) % STAGES);
                }
                it += 1;
            }
            wgmma::wait_group::<0>();
            release((it - 1) % STAGES);

            match piece.role {
                Role::Contributor => {
                    // Leave the partial tile for the owner, then raise this block's flag.
                    let mine = partial(cluster);
                    unroll_pieces(|i| {
                        // SAFETY: piece i of this thread's slot, inside this block's partial.
                        unsafe {
                            store_f32x4(
                                mine.add(((i * CONSUMER_THREADS + tid) * 4) as usize),
                                [
                                    acc[4 * i as usize],
                                    acc[4 * i as usize + 1],
                                    acc[4 * i as usize + 2],
                                    acc[4 * i as usize + 3],
                                ],
                            )
                        }
                    });
                    sync_named(CONSUMERS_BARRIER, CONSUMER_THREADS);
                    if tid == 0 {
                        fence_acq_rel_gpu();
                        // SAFETY: this block's flag.
                        unsafe { store_release_u32(flag(cluster), 1) };
                    }
                    continue;
                }
                Role::Owner { first, contributors } => {
                    for j in first..first + contributors {
                        if tid == 0 {
                            // SAFETY: the contributor's flag; it is raised once, after its
                            // partial, and reset here for the next launch.
                            unsafe {
                                while load_acquire_u32(flag(j)) == 0 {}
                                store_relaxed_u32(flag(j), 0);
                            }
                        }
                        sync_named(CONSUMERS_BARRIER, CONSUMER_THREADS);
                        let theirs = partial(j);
                        unroll_pieces(|i| {
                            // SAFETY: as the contributor stored it; its flag was seen raised.
                            let p = unsafe {
                                load_l2_f32x4(theirs.add(((i * CONSUMER_THREADS + tid) * 4) as usize))
                            };
                            for e in 0..4 {
                                acc[4 * i as usize + e] += p[e];
                            }
                        });
                    }
                }
                Role::Whole => {}
            }

            // The epilogue: t09's.
            unroll!(8, j => {
                let buffer = c_box(warpgroup, j as u32 % C_BUFFERS);
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
                    // SAFETY: the box is written and fenced by the whole warpgroup.
                    unsafe {
                        store_tensor_2d(c_map, col0 + j as u32 * C_BOX.0, row0 + warpgroup * WARPGROUP_ROWS, buffer)
                    };
                    bulk_commit_group();
                }
            });
        }
        if storer {
            bulk_wait_group::<0>();
        }
    }
    cluster_sync();
}

/// Calls `f` for each 16-byte piece index of a consumer thread's accumulators, written
/// out (a loop would index `acc` at run time and move it to local memory).
#[inline(always)]
fn unroll_pieces(mut f: impl FnMut(u32)) {
    unroll!(8, a => {
        unroll!(4, b => {
            f((a * 4 + b) as u32);
        });
    });
}

/// `acc[first + 4q]` for a run-time `q` in 0..4, by selects: indexing the accumulators at
/// run time would move them to local memory.
#[inline(always)]
fn pick(acc: &[f32; M64N256_ACC], first: usize, q: u32) -> f32 {
    let low = if q & 1 == 0 { acc[first] } else { acc[first + 4] };
    let high = if q & 1 == 0 { acc[first + 8] } else { acc[first + 12] };
    if q & 2 == 0 { low } else { high }
}

/// [`stream_k_gemm`] for f16 inputs.
///
/// # Safety
/// As `stream_k_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn t11_stream_k_f16(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    // SAFETY: forwarded.
    unsafe { stream_k_gemm::<false>(a_map, b_map, c_map, m, n, k, workspace) }
}

/// [`stream_k_gemm`] for bf16 inputs.
///
/// # Safety
/// As `stream_k_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn t11_stream_k_bf16(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    // SAFETY: forwarded.
    unsafe { stream_k_gemm::<true>(a_map, b_map, c_map, m, n, k, workspace) }
}
