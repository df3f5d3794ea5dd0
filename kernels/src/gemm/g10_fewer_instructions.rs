//! Step g10 — fewer instructions per FMA: 16 × 8 per thread, k steps written out, unchecked loads.
//!
//! Idea: an FFMA fills an issue slot for 32 lanes, so at the FP32 peak every other instruction
//!       (a shared load, an address, a bounds check, a loop counter) takes a cycle from an FFMA;
//!       g09 spent about one slot in five on such work. Three changes that only pay together:
//!       16 × 8 outputs per thread (6 shared loads per 128 FFMAs instead of 4 per 64), the 16 k
//!       steps written out (`unroll!`), and interior blocks loading without bounds checks.
//! Changes from g09: `TM` 16 (A fragment 4 × 16 bytes), 128 threads in 2 × 2 warps of 64 × 64,
//!       four pieces of A and of B per thread per tile; the k loop unrolled; the
//!       `unchecked_tiles` fast path.
//! Bottleneck: with 8 warps per SM, the barrier after each tile and the first shared loads after
//!       it are exposed (only the other block runs while a block's warps wait there).
//! Cost: 253 registers (ptxas -v, sm_90; 128 accumulators), 32.5 KB of shared memory; 2 blocks
//!       (8 warps) per SM, half of g09's 16: latency is hidden by independent instructions.
//! Result: 47.3 TFLOP/s at 4096³, 91.9 % of cuBLAS SGEMM, H200, 2026-11-22.
//!
//! Written out, the 16 k steps need no loop counter, and every shared address is a base
//! register plus a constant offset folded into the load: ptxas sees one straight block of 2048
//! FFMAs and 96 loads to schedule (and hoists the fragments of the next k steps). When a
//! block's 128 × 128 tile lies inside C, rows are 16-byte aligned and the k tile is whole, each
//! piece of A and B is one pointer plus the tile's offset, loaded without a compare or a select;
//! edge blocks and the last partial k tile keep g09's checked loads. Tiles, padding, `cp.async`
//! double buffering and the lane layout (so also g09's bank-conflict-free reads) are g09's.
//!
//! More: docs/lessons.md#g10

use crate::device::async_copy::{cp_async_4, cp_async_16, cp_async_commit, cp_async_wait_all};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::load::{load_readonly_f32x4, store_f32x4};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::g10::{A_PAD, BK, BM, BN, THREADS, TM, TN};
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

static_shared! {
    fn g10_a_tiles() -> [f32; (2 * A_TILE) as usize];
}
static_shared! {
    fn g10_b_tiles() -> [f32; (2 * B_TILE) as usize];
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

/// `C = A · B`, one 128 × 128 tile of C per block, a 64 × 64 piece per warp, a 16 × 8
/// sub-tile per thread (two 16 × 4 halves, 32 columns apart).
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with `g10::THREADS` threads per
/// block and a grid of ⌈N / BN⌉ × ⌈M / BM⌉ blocks.
#[kernel]
pub unsafe fn g10_fewer_instructions(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile) = (g10_a_tiles(), g10_b_tiles());
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
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
    let tiles = k.div_ceil(BK);
    // The fast path: the block's whole tile of C is inside, rows are 16-byte aligned, and
    // tile t covers k values t·BK … t·BK + 15, all inside K, for every t < unchecked_tiles.
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
    store_a(0, load_a(0));
    copy_b(0, 0);
    cp_async_commit();
    cp_async_wait_all();
    sync_threads();
    for t in 0..tiles {
        let (buf, next) = (t % 2, (t + 1) % 2);
        let prefetched = if t + 1 < tiles {
            copy_b(next, t + 1);
            cp_async_commit();
            Some(load_a(t + 1))
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
    let (first_row, first_col) = (row0 + first_row_in_tile, col0 + first_col_in_tile);
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
