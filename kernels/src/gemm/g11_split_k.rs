//! Step g11 — split-K: a tile's k tiles shared by several blocks, so small products fill every SM.
//!
//! Idea: at 1024³ g10 has 64 tiles of 128 × 128 for 132 SMs: half the SMs idle, the others run
//!       one block, which nothing hides. Keep g10's block and cut each tile's K into contiguous
//!       slices, one block per slice (the grid's z), as many as still fit in one wave, each at
//!       least 64 deep (`common::gemm::g11::slices`): at 1024³ 4 slices, 256 blocks for 264
//!       slots. Where the tiles alone fill the GPU (2048³ and up), 1 slice: g10 plus one branch.
//! Changes from g10: a K range per block (`k_tile_range`, grid z); with more than one slice,
//!       the partial store, ticket and ordered sum (`combine_slices`) before g10's store of C;
//!       a seventh argument, the workspace (a partial tile per block, then a counter per tile).
//! Bottleneck: with several slices, each tile's partials go through L2 and back (`slices`
//!       stores and loads of 64 KB); with one slice, g10's.
//! Cost: 251 registers, no spills, 33 296 B of shared memory (ptxas -v, sm_90a); a workspace of
//!       64 KB per block (16 MB at 1024³ with 4 slices; allocated but untouched at 1 slice).
//! Requires: nothing about residency: a block never waits for another, so any number of waves.
//! Result: 35.0 TFLOP/s at 1024³, 101.6 % of cuBLAS SGEMM, H200, 2026-11-23.
//!
//! Combining the slices: each block stores its partial 128 × 128 tile in the workspace
//! (`[piece][thread]`, so a warp's 16-byte stores cover 512 contiguous bytes), then takes a
//! ticket from the tile's arrival counter (`atom.acq_rel.gpu.add`, as x3). The block that draws
//! the last ticket reads every slice's partial back from L2 (`ld.global.cg`), adds them in slice
//! order, stores C with g10's bounds-checked stores and resets the counter for the next launch.
//! The sum is ((p0 + p1) + p2) + … whoever arrives last, so the result is deterministic, and
//! every entry of C is written once, by a plain store: the host's poisoned-C check still catches
//! an entry no block wrote, and C needs no zeroing before a launch.
//!
//! Accuracy: a slice sums its k values in order, as g10 does; the slices' sums are then added,
//! a shorter chain per term (pairwise-like), not a worse one: the error stays at g10's (the
//! host's bound is 1e-5 relative Frobenius).
//!
//! More: docs/lessons.md#g11

use crate::device::async_copy::{cp_async_4, cp_async_16, cp_async_commit, cp_async_wait_all};
use crate::device::atomic::{atomic_add_acq_rel_u32, fence_acq_rel_gpu};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, block_idx_z, grid_dim_z, thread_idx};
use crate::device::load::{load_l2_f32x4, load_readonly_f32x4, store_f32x4};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::g11::{A_PAD, BK, BM, BN, PARTIAL_FLOATS, THREADS, TM, TN, k_tile_range};
use kernel_macros::kernel;

/// The warp grid of a block (2 × 2 warps) and each warp's piece of the 128 × 128 tile.
const WARP_COLS: u32 = 2;
const WARP_TILE_M: u32 = BM / 2;
const WARP_TILE_N: u32 = BN / WARP_COLS;
/// Lanes across one warp's piece: 4 rows of 8 threads, each 16 rows tall and 4 + 4 columns
/// wide (the second 4 half a warp tile to the right, as in g09).
const LANE_COLS: u32 = 8;
const LANE_ROWS: u32 = WARP_SIZE / LANE_COLS;
const _: () = assert!(
    THREADS / WARP_SIZE == 2 * WARP_COLS
        && WARP_TILE_M == LANE_ROWS * TM
        && WARP_TILE_N == LANE_COLS * TN
        && TM == 16
        && TN == 8
        && BK == 16
);

/// 16-byte pieces each thread loads per tile, of A and of B.
const A_PIECES: u32 = BM * BK / 4 / THREADS;
const B_PIECES: u32 = BK * BN / 4 / THREADS;

/// Floats in one copy of the A tile (transposed and padded) and of the B tile.
const A_TILE: u32 = BK * (BM + A_PAD);
const B_TILE: u32 = BK * BN;

/// 16-byte pieces of a thread's 16 × 8 outputs: piece q is `results[4q .. 4q + 4]`, row
/// q / 2 of the thread tile, half q % 2.
const PIECES: u32 = TM * TN / 4;
const _: () = assert!(PIECES * 4 * THREADS == PARTIAL_FLOATS);

static_shared! {
    fn g11_a_tiles() -> [f32; (2 * A_TILE) as usize];
}
static_shared! {
    fn g11_b_tiles() -> [f32; (2 * B_TILE) as usize];
}
static_shared! {
    /// The block's ticket from the tile's arrival counter, for every thread to read.
    fn g11_ticket() -> [u32; 1];
}

/// Four consecutive elements of a row-major matrix with `cols` columns, starting at
/// (`r`, `c`): one 16-byte load when the row is 16-byte aligned and all four are inside,
/// else element by element with zeros outside.
///
/// # Safety
/// `p` holds `rows × cols` `f32`.
#[inline(always)]
unsafe fn load4(p: *const f32, rows: u32, cols: u32, r: u32, c: u32) -> [f32; 4] {
    if r >= rows {
        return [0.0; 4];
    }
    let at = r as usize * cols as usize + c as usize;
    if cols % 4 == 0 && c + 4 <= cols {
        // SAFETY: inside the matrix; cols % 4 == 0 and c % 4 == 0 make it 16-byte aligned
        // (cudaMalloc'd buffers are 256-byte aligned).
        unsafe { load_readonly_f32x4(p.add(at)) }
    } else {
        // SAFETY: each element is checked against the row's end.
        core::array::from_fn(|e| if c + (e as u32) < cols { unsafe { *p.add(at + e) } } else { 0.0 })
    }
}

/// Starts the asynchronous copy of B's elements (`r`, `c … c + 3`) to `index` of `tiles`:
/// one 16-byte copy when rows are 16-byte aligned (zero-filled past the row's end or
/// below the last row), four 4-byte copies otherwise.
///
/// # Safety
/// `b` holds `k × n` `f32`; `index` is a multiple of 4 inside `tiles`.
#[inline(always)]
unsafe fn copy_b_piece(tiles: SharedArray<f32>, index: u32, b: *const f32, k: u32, n: u32, r: u32, c: u32) {
    let at = |cc: u32| r as usize * n as usize + cc as usize;
    if n % 4 == 0 {
        let bytes = if r < k && c < n { (n - c).min(4) * 4 } else { 0 };
        // SAFETY: `bytes` of the row are inside B (none when out of range, with B's start
        // as the unread source); rows are 16-byte aligned as n % 4 == 0.
        unsafe { cp_async_16(tiles.address(index), if bytes > 0 { b.add(at(c)) } else { b }, bytes) };
    } else {
        for e in 0..4 {
            let inside = r < k && c + e < n;
            // SAFETY: the element is read only when inside B.
            unsafe {
                cp_async_4(
                    tiles.address(index + e),
                    if inside { b.add(at(c + e)) } else { b },
                    if inside { 4 } else { 0 },
                )
            };
        }
    }
}

/// `C = A · B`, one 128 × 128 tile of C per `slices` blocks (the grid's z), each of which computes the
/// tile over one slice of K as g10 computes it over all of K (a 64 × 64 piece per warp, a
/// 16 × 8 sub-tile per thread), leaves it in the workspace, and the last of them to
/// finish sums the slices into C.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with `g11::THREADS` threads per
/// block and a grid of ⌈N / BN⌉ × ⌈M / BM⌉ × `slices` blocks, `slices` ≤ `MAX_SLICES`; `workspace` holds
/// `g11::workspace_bytes(blocks)` bytes for the launch's blocks, 16-byte aligned, its
/// counters zero (as the previous launch left them), and no other launch uses it meanwhile.
#[kernel]
pub unsafe fn g11_split_k(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
    workspace: *mut f32,
) {
    // A run-time count (the host picks it per shape): one kernel for every shape, and the
    // slice loop of the sum below stays a loop (unrolled over a constant 2 slices, ptxas
    // hoisted both slices' loads and spilled).
    let slices = grid_dim_z();
    let (a_tile, b_tile) = (g11_a_tiles(), g11_b_tiles());
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    // This block's slice of K: k tiles `first..end` (empty when K has fewer k tiles than
    // there are slices; the block then contributes zeros).
    let slice = block_idx_z();
    let (first, end) = k_tile_range(k.div_ceil(BK), slices, slice);
    // 4 warps as 2 × 2 pieces of 64 × 64; 32 lanes as 4 × 8 threads of 16 × (4 + 4).
    let (warp, lane) = (tid / WARP_SIZE, tid % WARP_SIZE);
    let (warp_row, warp_col) = (warp / WARP_COLS, warp % WARP_COLS);
    let (lane_row, lane_col) = (lane / LANE_COLS, lane % LANE_COLS);
    let first_row_in_tile = warp_row * WARP_TILE_M + lane_row * TM;
    let first_col_in_tile = warp_col * WARP_TILE_N + lane_col * 4;
    // Piece i of this thread: (row, 16-byte column) in the A tile and in the B tile.
    let a_piece = |i: u32| ((tid + i * THREADS) / (BK / 4), (tid + i * THREADS) % (BK / 4));
    let b_piece = |i: u32| ((tid + i * THREADS) / (BN / 4), (tid + i * THREADS) % (BN / 4));
    let mut results = [0.0f32; (TM * TN) as usize];
    // The fast path (g10's): the block's whole tile of C is inside, rows are 16-byte
    // aligned, and tile t covers k values t·BK … t·BK + 15, all inside K, for every
    // t < unchecked_tiles.
    let interior = k % 4 == 0 && n % 4 == 0 && row0 + BM <= m && col0 + BN <= n;
    let unchecked_tiles = if interior { k / BK } else { 0 };
    // Where each piece of tile 0 starts; tile t is t·BK columns (A) or t·BK rows (B) on.
    // `wrapping_add`: for edge blocks these may point past the matrices; they are only
    // read on the fast path, where they are inside.
    let a_starts: [*const f32; A_PIECES as usize] = core::array::from_fn(|i| {
        let (a_row, a_col4) = a_piece(i as u32);
        a.wrapping_add((row0 + a_row) as usize * k as usize + (a_col4 * 4) as usize)
    });
    let b_starts: [*const f32; B_PIECES as usize] = core::array::from_fn(|i| {
        let (b_row, b_col4) = b_piece(i as u32);
        b.wrapping_add(b_row as usize * n as usize + (col0 + b_col4 * 4) as usize)
    });
    // SAFETY (all the closures below): on the fast path (t < unchecked_tiles) every piece
    // is inside A or B and 16-byte aligned (see `interior`); otherwise bounds are handled
    // by `load4` and by the copies' byte counts. Tile indices stay below one copy's size,
    // offset by `buf · size` into two copies.
    let load_a = |t: u32| -> [[f32; 4]; A_PIECES as usize] {
        if t < unchecked_tiles {
            core::array::from_fn(|i| unsafe { load_readonly_f32x4(a_starts[i].add((t * BK) as usize)) })
        } else {
            core::array::from_fn(|i| {
                let (a_row, a_col4) = a_piece(i as u32);
                unsafe { load4(a, m, k, row0 + a_row, t * BK + a_col4 * 4) }
            })
        }
    };
    let store_a = |buf: u32, pieces: [[f32; 4]; A_PIECES as usize]| {
        for (i, v) in pieces.iter().enumerate() {
            let (a_row, a_col4) = a_piece(i as u32);
            for e in 0..4 {
                unsafe {
                    a_tile.store(buf * A_TILE + (a_col4 * 4 + e) * (BM + A_PAD) + a_row, v[e as usize])
                };
            }
        }
    };
    let b_index = |buf: u32, i: u32| {
        let (b_row, b_col4) = b_piece(i);
        buf * B_TILE + b_row * BN + b_col4 * 4
    };
    let copy_b = |buf: u32, t: u32| {
        if t < unchecked_tiles {
            for i in 0..B_PIECES {
                let from = unsafe { b_starts[i as usize].add((t * BK) as usize * n as usize) };
                unsafe { cp_async_16(b_tile.address(b_index(buf, i)), from, 16) };
            }
        } else {
            for i in 0..B_PIECES {
                let (b_row, b_col4) = b_piece(i);
                unsafe { copy_b_piece(b_tile, b_index(buf, i), b, k, n, t * BK + b_row, col0 + b_col4 * 4) };
            }
        }
    };
    // One k step: this thread's 16 values of A and 8 of B (6 shared loads), then 128 FFMAs.
    let k_step = |results: &mut [f32; (TM * TN) as usize], buf: u32, dot: u32| {
        let a_at = buf * A_TILE + dot * (BM + A_PAD) + first_row_in_tile;
        let b_at = buf * B_TILE + dot * BN + first_col_in_tile;
        // SAFETY: 16-byte aligned indices inside this step's copy of the tiles.
        let (a0, a1, a2, a3, b_lo, b_hi) = unsafe {
            (
                a_tile.load_v4(a_at),
                a_tile.load_v4(a_at + 4),
                a_tile.load_v4(a_at + 8),
                a_tile.load_v4(a_at + 12),
                b_tile.load_v4(b_at),
                b_tile.load_v4(b_at + WARP_TILE_N / 2),
            )
        };
        let reg_a = [
            a0[0], a0[1], a0[2], a0[3], a1[0], a1[1], a1[2], a1[3], a2[0], a2[1], a2[2], a2[3], a3[0], a3[1],
            a3[2], a3[3],
        ];
        let reg_b = [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]];
        // Written out: LLVM leaves a 128-FMA loop nest rolled, and `results` would then
        // be indexed at run time and move to local memory.
        unroll!(2, half => {
            unroll!(8, row => {
                let i = half * 8 + row;
                unroll!(8, j => {
                    results[i * TN as usize + j] = core::f32::math::mul_add(reg_a[i], reg_b[j], results[i * TN as usize + j]);
                });
            });
        });
    };
    // g10's pipeline over this slice's k tiles: step i computes tile first + i from buffer
    // i % 2 (counted from 0, as in g10, so the loop is g10's loop).
    let steps = end - first;
    if steps > 0 {
        store_a(0, load_a(first));
        copy_b(0, first);
        cp_async_commit();
        cp_async_wait_all();
        sync_threads();
    }
    for i in 0..steps {
        let (buf, next) = (i % 2, (i + 1) % 2);
        let prefetched = if i + 1 < steps {
            copy_b(next, first + i + 1);
            cp_async_commit();
            Some(load_a(first + i + 1))
        } else {
            None
        };
        // The 16 k steps of the tile, written out (BK == 16).
        unroll!(2, half => {
            unroll!(8, step => {
                k_step(&mut results, buf, (half * 8 + step) as u32);
            });
        });
        if let Some(v) = prefetched {
            store_a(next, v);
            cp_async_wait_all();
        }
        // Everyone is done reading `buf` and has written `next`: swap.
        sync_threads();
    }

    if slices > 1 {
        // SAFETY: forwarded (the caller's contract); `results` holds this slice's sums.
        if !unsafe { combine_slices(&mut results, workspace, m, n, slices, slice, tid) } {
            return; // another block of this tile stores it
        }
    }
    let (first_row, first_col) = (row0 + first_row_in_tile, col0 + first_col_in_tile);
    // SAFETY: `c` holds M·N (the caller's contract).
    unsafe { store_c(&results, c, m, n, first_row, first_col) };
}

/// Split-K's extra work, after a block's slice: leave the partial tile in the workspace,
/// take a ticket, and if this block is the tile's last, sum every slice's partial into
/// `results` (in slice order). Returns whether this block must store the tile.
///
/// # Safety
/// As `g11_split_k`; `slice < slices`, the grid's z.
#[inline(always)]
unsafe fn combine_slices(
    results: &mut [f32; (TM * TN) as usize],
    workspace: *mut f32,
    m: u32,
    n: u32,
    slices: u32,
    slice: u32,
    tid: u32,
) -> bool {
    // Leave this slice's partial tile in its slot of the workspace. Slot (tile, slice) is
    // the block's linear index in the grid; inside it, piece q of thread `tid` is at
    // (q · THREADS + tid) · 4, so each warp's 16-byte stores (and the loads below) cover
    // 512 contiguous bytes.
    let (tile_cols, tiles) = (n.div_ceil(BN), n.div_ceil(BN) * m.div_ceil(BM));
    let tile = block_idx_y() * tile_cols + block_idx();
    // `wrapping_add` and usize: slots past 2^32 floats exist at large sizes; all inside
    // the workspace (one slot per block).
    let slot = |s: u32| {
        workspace.wrapping_add((s as usize * tiles as usize + tile as usize) * PARTIAL_FLOATS as usize)
    };
    let piece_at = |q: u32| ((q * THREADS + tid) * 4) as usize;
    let counter =
        workspace.wrapping_add(slices as usize * tiles as usize * PARTIAL_FLOATS as usize) as *mut u32;
    let counter = counter.wrapping_add(tile as usize);
    let mine = slot(slice);
    unroll!(4, row_group => {
        unroll!(8, within => {
            let q = row_group * 8 + within;
            let v = [results[4 * q], results[4 * q + 1], results[4 * q + 2], results[4 * q + 3]];
            // SAFETY: inside this block's slot, 16-byte aligned (the workspace is, and
            // every offset is a multiple of 4 floats).
            unsafe { store_f32x4(mine.add(piece_at(q as u32)), v) };
        });
    });
    // Every thread's stores are ordered before the barrier; thread 0's fence and
    // acquire-release atomic then publish them all with its ticket (as w07's flag).
    sync_threads();
    let ticket = g11_ticket();
    if tid == 0 {
        fence_acq_rel_gpu();
        // SAFETY: the tile's counter, inside the workspace after the slots; the shared
        // ticket is read by the others only after the barrier below.
        unsafe { ticket.store(0, atomic_add_acq_rel_u32(counter, 1)) };
    }
    sync_threads();
    // SAFETY: written by thread 0 before the barrier.
    if unsafe { ticket.load(0) } != slices - 1 {
        // Not the last: another block of this tile will finish it.
        return false;
    }

    // The last slice to arrive: every partial is written and, through thread 0's acquire
    // and the barrier, visible here. Sum them in slice order, whoever came last, so the
    // result's bits do not depend on the arrival order (this block's own partial is read
    // back too, rather than taken from registers at its place in the order: a per-slice
    // branch around the loads would stop ptxas from keeping many in flight).
    fence_acq_rel_gpu();
    // Half of the thread's pieces at a time, slice after slice: 64 floats in flight on top
    // of the 128 of `results`. (All 32 pieces of every slice at once spilled: ptxas
    // hoisted 32 · slices 16-byte loads.) `0 + p0` is `p0`, so the sum is the same
    // ((p0 + p1) + p2) + … as above.
    *results = [0.0; (TM * TN) as usize];
    unroll!(2, half => {
        for s in 0..slices {
            unroll!(2, row_group => {
                unroll!(8, within => {
                    let q = half * 16 + row_group * 8 + within;
                    // SAFETY: piece q of this thread in slot s, as its block stored it.
                    let p = unsafe { load_l2_f32x4(slot(s).add(piece_at(q as u32))) };
                    unroll!(4, e => { results[4 * q + e] += p[e]; });
                });
            });
        }
    });
    if tid == 0 {
        // SAFETY: the tile's counter; every other slice of this tile has taken its ticket,
        // so nothing else touches it in this launch, and the launch boundary orders this
        // store before the next launch's atomics.
        unsafe { *counter = 0 };
    }
    true
}

/// g10's store of a thread's 16 × 8 results, at rows `first_row …` and columns
/// `first_col …` and `first_col + 32 …`, 16-byte stores where the row allows them.
///
/// # Safety
/// `c` holds `m × n` `f32`.
#[inline(always)]
unsafe fn store_c(
    results: &[f32; (TM * TN) as usize],
    c: *mut f32,
    m: u32,
    n: u32,
    first_row: u32,
    first_col: u32,
) {
    unroll!(2, half_rows => {
        unroll!(8, row => {
            let i = half_rows * 8 + row;
            let r = first_row + i as u32;
            if r < m {
                for half in 0..2usize {
                    let cc = first_col + (WARP_TILE_N / 2) * half as u32;
                    let at = r as usize * n as usize + cc as usize;
                    let o = i * TN as usize + 4 * half;
                    let v = [results[o], results[o + 1], results[o + 2], results[o + 3]];
                    if n % 4 == 0 && cc + 4 <= n {
                        // SAFETY: inside row r, 16-byte aligned (n % 4 == 0, cc % 4 == 0).
                        unsafe { store_f32x4(c.add(at), v) };
                    } else {
                        for e in 0..4usize {
                            if cc + (e as u32) < n {
                                // SAFETY: inside row r.
                                unsafe { *c.add(at + e) = v[e] };
                            }
                        }
                    }
                }
            }
        });
    });
}
