//! Step t16 — the partial tile's round trip off the consumers' path: the owner receives
//! its contributors' partials through the operand pipeline, and a spare warp raises the
//! contributor's flag.
//!
//! Idea: in t15 each stream-K share costs its consumers two waits beside the arithmetic.
//!       A contributor stores its 128 KB partial tile and then, all 256 consumer threads
//!       met at a barrier, one of them issues `fence.acq_rel.gpu` and raises the flag: the
//!       fence waits until every store of the block has reached L2 (a few microseconds
//!       while 132 SMs store), and the warpgroup that thread belongs to waits with it before
//!       its next `wgmma`. An owner, after its last k tile, reads the partial back with 32
//!       `ld.global.cg` of 16 bytes per thread, which the 100 registers left beside the
//!       accumulators let through a few at a time: several L2 round trips in a row
//!       (together some 8 µs per share at 4096³ on the H100, t11's timeline). Here the
//!       owner's producer, which runs a few k tiles ahead, waits for the flag itself, and
//!       sends each partial down the pipeline behind the last k tile as if it were three
//!       more: a whole 48 KB stage each (the third 32 KB), one `cp.async.bulk` (a plain
//!       contiguous copy, no tensor map) completing on the stage's `full` barrier. The
//!       consumers add each chunk from shared memory (12 `ld.shared.v4` per thread and
//!       stage, no bank conflicts) and release the stage as after a k tile; the copies ran
//!       while they finished the unit. On the contributor's side the consumers store and
//!       only *arrive* at a named barrier (`bar.arrive`); a warp of the producer
//!       warpgroup, idle until now, waits there, then fences and raises the flag.
//! Changes from t15: the flag wait and the partial's reads move to the producer (a
//!       `fence.proxy.async.global` after the acquire, so that the copy engine reads what the
//!       contributor wrote), the owner's fix-up reads stages (each thread fences its
//!       ordinary reads of a stage, `fence.proxy.async.shared::cta`, before the stage goes
//!       back to the copy engine); the contributor's barrier becomes an arrival, and a
//!       second producer warp raises the flags.
//! Cost: 168 registers at entry, no spills, 225 KB of shared memory, the 17 MB workspace
//!       (as t15). The flag warp asks the schedule only whether its cluster contributes
//!       (`StreamK::contributes`, one division): walking the whole schedule, as the other
//!       warps do, made ptxas keep a value of it on the stack. (At the 168-register cap
//!       such spills come and go with small changes to the schedule's code: t15's twin
//!       keeps 4 bytes there, reloaded per piece outside the k loop.) Each partial takes
//!       three passes through the pipeline.
//! Requires: as t15.
//! Result (final run, 2026-11-23, % of cuBLAS f16 / bf16): the best of the stream-K
//!       steps. 4097 × 4096 × 4096 H100 90.4 / 92.0, H200 91.9 / 91.9 (the ladder's best
//!       there; t12 83–84); 8192³ H100 102.3 / 102.6, H200 102.4 / 102.7 (the ladder's
//!       best); 4096³ H100 97.3 / 96.7 (187.9 µs f16 against t15's 191.5), H200 97.7 / 97.6,
//!       still behind t12's 99.4–100.2; 2048³ 82–86 (every unit cut, so the round trip is
//!       all there is). The timing rounds of `device-run.sh stream-k` on each GPU agree with
//!       these to ±0.5 %. Verified on the
//!       awkward shapes (Rust and twin, f16 and bf16) on both GPUs; memcheck, synccheck,
//!       initcheck clean; racecheck clean when this step's test runs in a process of its
//!       own (its fix-up reads fill racecheck's raw-hazard buffer: `RACECHECK_ALONE`).

use crate::device::atomic::{fence_acq_rel_gpu, load_acquire_u32, store_relaxed_u32, store_release_u32};
use crate::device::cluster::{
    cluster_count, cluster_idx, cluster_rank, cluster_sync, cluster_sync_relaxed, map_shared_to_rank,
};
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::load::store_f32x4;
use crate::device::shared::{SharedArray, dynamic_shared};
use crate::device::sync::{arrive_named, sync_named, sync_warp};
use crate::device::tma::{
    bulk_commit_group, bulk_wait_group_read, copy_bulk, copy_tensor_2d, copy_tensor_2d_multicast,
    fence_barrier_init, fence_proxy_async_global, mbarrier_arrive_expect_tx, mbarrier_arrive_remote,
    mbarrier_init, mbarrier_wait, prefetch_tensor_map, store_tensor_2d,
};
use crate::device::wgmma::{
    self, M64N256_ACC, claim_registers, descriptor, fence_proxy_async_shared, mma_m64n256k16_bf16,
    mma_m64n256k16_f16, release_registers,
};
use crate::unroll;
use common::gemm::grouped_tile;
use common::gemm::stream_k::{Role, ShareOrder, StreamK};
use common::gemm::t16::{
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

/// Consumer threads of a block.
const CONSUMER_THREADS: u32 = CONSUMER_WARPGROUPS * WARPGROUP;
/// 16-byte pieces of a consumer thread's accumulators: the partial tile is stored as
/// `[piece][consumer thread]`, so that each warp's 16-byte stores and loads are contiguous.
const ACC_PIECES: u32 = M64N256_ACC as u32 / 4;
const _: () = assert!(ACC_PIECES * 4 * CONSUMER_THREADS == PARTIAL_FLOATS);
/// A partial tile (128 KB) reaches its owner in whole stages: chunks of 12 pieces per
/// consumer thread (48 KB, contiguous in the workspace), the third one 8 pieces. Three
/// stages, not four 32 KB ones: the three stages that the owner's consumers release
/// before their last k tile can hold the whole partial, so no chunk waits for the stage of
/// the last k tile to be released.
const CHUNK_PIECES: u32 = STAGE_BYTES / (CONSUMER_THREADS * 16);
const CHUNKS: u32 = ACC_PIECES.div_ceil(CHUNK_PIECES);
const _: () = assert!(CHUNK_PIECES == 12 && CHUNKS == 3 && CHUNKS < STAGES);

/// 16-byte pieces per consumer thread in chunk `chunk` of a partial tile.
const fn chunk_pieces(chunk: u32) -> u32 {
    let left = ACC_PIECES - chunk * CHUNK_PIECES;
    if left < CHUNK_PIECES { left } else { CHUNK_PIECES }
}
/// The producer warpgroup's warp that raises contributors' flags (warp 0's first thread
/// issues the copies), and the named barrier at which the consumers hand it a stored
/// partial (ids 1 and 2 are the consumer warpgroups' own, in the epilogue).
const FLAG_WARP: u32 = 1;
const PARTIAL_BARRIER: u32 = 3;
const PARTIAL_BARRIER_THREADS: u32 = CONSUMER_THREADS + WARP_SIZE;

/// `C = A · B` as t15 computes it, with the partial tiles' round trips off the consumers'
/// path.
///
/// # Safety
/// As t15 (`workspace` holding `t16::workspace_bytes(blocks)` bytes).
#[inline(always)]
unsafe fn pipelined_fixup_gemm<const BF16: bool>(
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
        StreamK::new(pair_rows * tile_cols, k_tiles, cluster_count(), MAX_SPLIT, ShareOrder::KAligned);
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

    if tid == CONSUMER_WARPGROUPS * WARPGROUP {
        // SAFETY: the maps' global addresses, as the launch passes them.
        unsafe {
            prefetch_tensor_map(a_map);
            prefetch_tensor_map(b_map);
            prefetch_tensor_map(c_map);
        }
    }
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
    // Relaxed: the fence above released the initialization.
    cluster_sync_relaxed();

    let warpgroup = tid / WARPGROUP;
    if warpgroup == CONSUMER_WARPGROUPS {
        release_registers::<PRODUCER_REGISTERS>();
        let producer_thread = tid - CONSUMER_WARPGROUPS * WARPGROUP;
        if producer_thread == 0 {
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
                // An owner's contributors' partials follow its last k tile down the
                // pipeline, a chunk per stage (both blocks of the pair own the unit, so
                // both send the same number of chunks and their stages stay in step).
                if let Role::Owner { first, contributors } = piece.role {
                    for j in first..first + contributors {
                        // SAFETY: the contributor's flag; it is raised once, after its
                        // partial, and reset here for the next launch.
                        unsafe {
                            while load_acquire_u32(flag(j)) == 0 {}
                            store_relaxed_u32(flag(j), 0);
                        }
                        fence_proxy_async_global();
                        for chunk in 0..CHUNKS {
                            let s = it % STAGES;
                            // SAFETY: stage s as for a k tile; the chunk lies inside the
                            // contributor's partial, written and flagged before the acquire
                            // above, and fits in the stage.
                            unsafe {
                                if it >= STAGES {
                                    mbarrier_wait(empty(s), (it / STAGES - 1) % 2);
                                }
                                let bytes = chunk_pieces(chunk) * CONSUMER_THREADS * 16;
                                mbarrier_arrive_expect_tx(full(s), bytes);
                                let src =
                                    partial(j).add((chunk * CHUNK_PIECES * CONSUMER_THREADS * 4) as usize);
                                copy_bulk(a_stage(s), src as *const u8, bytes, full(s));
                            }
                            it += 1;
                        }
                    }
                }
            }
        } else if producer_thread / WARP_SIZE == FLAG_WARP {
            // A contributor's consumers arrive here after storing the partial (once at
            // most): raise the flag for them, fenced so that the owner who sees it sees
            // the partial.
            if schedule.contributes(cluster) {
                sync_named(PARTIAL_BARRIER, PARTIAL_BARRIER_THREADS);
                if producer_thread % WARP_SIZE == 0 {
                    fence_acq_rel_gpu();
                    // SAFETY: this block's flag.
                    unsafe { store_release_u32(flag(cluster), 1) };
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
                    // Leave the partial tile for the owner and hand it to the flag warp.
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
                    arrive_named(PARTIAL_BARRIER, PARTIAL_BARRIER_THREADS);
                    continue;
                }
                Role::Owner { first, contributors } => {
                    // Each contributor's partial arrives in the next CHUNKS stages. (The
                    // loops are written out, their bounds constant, so that `acc` is only
                    // ever indexed by constants.)
                    for _ in first..first + contributors {
                        unroll!(4, chunk => {
                            let chunk = chunk as u32;
                            if chunk < CHUNKS {
                                let s = it % STAGES;
                                // SAFETY: an initialized barrier; this phase completes when
                                // the producer's copy of the chunk has landed.
                                unsafe { mbarrier_wait(full(s), (it / STAGES) % 2) };
                                // SAFETY: the chunk, laid out as the contributor stored it.
                                let stage: SharedArray<f32> = unsafe { SharedArray::from_address(a_stage(s)) };
                                unroll!(4, a => {
                                    unroll!(4, b => {
                                        let p = (a * 4 + b) as u32;
                                        if p < chunk_pieces(chunk) {
                                            let i = (chunk * CHUNK_PIECES + p) as usize;
                                            // SAFETY: piece p of this thread's slot, inside
                                            // the chunk.
                                            let v = unsafe { stage.load_v4((p * CONSUMER_THREADS + tid) * 4) };
                                            for e in 0..4 {
                                                acc[4 * i + e] += v[e];
                                            }
                                        }
                                    });
                                });
                                // The copy engine (the async proxy) will write this stage
                                // next: order this thread's ordinary reads of it before
                                // that, then every lane's before lane 0 frees the stage.
                                fence_proxy_async_shared();
                                sync_warp(u32::MAX);
                                release(s);
                                it += 1;
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
            // C's last boxes are read out of shared memory before the block exits.
            bulk_wait_group_read::<0>();
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

/// [`pipelined_fixup_gemm`] for f16 inputs.
///
/// # Safety
/// As `pipelined_fixup_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn t16_pipelined_fixup_f16(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    // SAFETY: forwarded.
    unsafe { pipelined_fixup_gemm::<false>(a_map, b_map, c_map, m, n, k, workspace) }
}

/// [`pipelined_fixup_gemm`] for bf16 inputs.
///
/// # Safety
/// As `pipelined_fixup_gemm`.
#[kernel(max_threads = THREADS)]
pub unsafe fn t16_pipelined_fixup_bf16(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    // SAFETY: forwarded.
    unsafe { pipelined_fixup_gemm::<true>(a_map, b_map, c_map, m, n, k, workspace) }
}
