//! Step g08 — double buffering with `cp.async`: load the next tile while computing this one.
//!
//! Idea: two copies of each shared tile. While the block computes on tile `t`, the next tile's
//!       B streams into the other copy with `cp.async` (global to shared, no registers, the
//!       thread does not wait) and its A is loaded into registers; after the math, A is stored
//!       (transposed, as in g07) and the thread waits for its copies. One barrier per k step
//!       instead of two, and the latency of tile `t + 1` hides behind the FMAs of tile `t`.
//! Changes from g07: ping-pong tiles (`buf = t % 2`), `cp_async_16` for B (zero-filled past the
//!       edges, 4-byte copies when N is not a multiple of 4), A prefetched a step ahead.
//! Bottleneck: a warp's threads cover a 16 × 128 strip of the block tile, so the same values are
//!       read from shared memory by many warps (g09 gives each warp a compact piece).
//! Cost: 108 registers (as the driver reports them); twice the shared memory, 16.5 KB per block.
//! Result: 41.0 TFLOP/s at 4096³, 79.7 % of cuBLAS SGEMM, H200, 2026-11-22.
//!
//! More: docs/lessons.md#g08

use crate::device::async_copy::{cp_async_4, cp_async_16, cp_async_commit, cp_async_wait_all};
use crate::device::index::{block_idx, block_idx_y, thread_idx};
use crate::device::load::{load_readonly_f32x4, store_f32x4};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_threads;
use crate::{static_shared, unroll};
use common::gemm::g08::{A_PAD, BK, BM, BN, TM, TN};
use kernel_macros::kernel;

/// Floats in one copy of the A tile (transposed and padded) and of the B tile.
const A_TILE: u32 = BK * (BM + A_PAD);
const B_TILE: u32 = BK * BN;

static_shared! {
    fn g08_a_tiles() -> [f32; (2 * A_TILE) as usize];
}
static_shared! {
    fn g08_b_tiles() -> [f32; (2 * B_TILE) as usize];
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

/// `C = A · B`, one 128 × 128 tile of C per block, an 8 × 8 sub-tile per thread (two
/// 8 × 4 halves, 64 columns apart).
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N and M·N `f32`; launched with `g08::THREADS` threads per
/// block and a grid of ⌈N / BN⌉ × ⌈M / BM⌉ blocks.
#[kernel]
pub unsafe fn g08_double_buffer(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (a_tile, b_tile) = (g08_a_tiles(), g08_b_tiles());
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let (thread_col, thread_row) = (tid % (BN / TN), tid / (BN / TN));
    let (a_row, a_col4) = (tid / (BK / 4), tid % (BK / 4));
    let (b_row, b_col4) = (tid / (BN / 4), tid % (BN / 4));
    let mut results = [0.0f32; (TM * TN) as usize];
    let tiles = k.div_ceil(BK);
    // SAFETY (all the closures below): bounds handled by `load4` and by the copies' byte
    // counts; tile indices below one copy's size, offset by `buf · size` into two copies.
    let store_a = |buf: u32, v: [f32; 4]| {
        for e in 0..4 {
            unsafe { a_tile.store(buf * A_TILE + (a_col4 * 4 + e) * (BM + A_PAD) + a_row, v[e as usize]) };
        }
    };
    let copy_b = |buf: u32, t: u32| unsafe {
        copy_b_piece(
            b_tile,
            buf * B_TILE + b_row * BN + b_col4 * 4,
            b,
            k,
            n,
            t * BK + b_row,
            col0 + b_col4 * 4,
        )
    };
    store_a(0, unsafe { load4(a, m, k, row0 + a_row, a_col4 * 4) });
    copy_b(0, 0);
    cp_async_commit();
    cp_async_wait_all();
    sync_threads();
    for t in 0..tiles {
        let (buf, next) = (t % 2, (t + 1) % 2);
        let prefetched = if t + 1 < tiles {
            copy_b(next, t + 1);
            cp_async_commit();
            Some(unsafe { load4(a, m, k, row0 + a_row, (t + 1) * BK + a_col4 * 4) })
        } else {
            None
        };
        for dot in 0..BK {
            // SAFETY: 16-byte aligned indices inside this step's copy of the tiles.
            let (a_lo, a_hi, b_lo, b_hi) = unsafe {
                (
                    a_tile.load_v4(buf * A_TILE + dot * (BM + A_PAD) + thread_row * TM),
                    a_tile.load_v4(buf * A_TILE + dot * (BM + A_PAD) + thread_row * TM + 4),
                    b_tile.load_v4(buf * B_TILE + dot * BN + thread_col * 4),
                    b_tile.load_v4(buf * B_TILE + dot * BN + BN / 2 + thread_col * 4),
                )
            };
            let reg_a = [a_lo[0], a_lo[1], a_lo[2], a_lo[3], a_hi[0], a_hi[1], a_hi[2], a_hi[3]];
            let reg_b = [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]];
            for i in 0..TM as usize {
                for j in 0..TN as usize {
                    results[i * TN as usize + j] =
                        core::f32::math::mul_add(reg_a[i], reg_b[j], results[i * TN as usize + j]);
                }
            }
        }
        if let Some(v) = prefetched {
            store_a(next, v);
            cp_async_wait_all();
        }
        // Everyone is done reading `buf` and has written `next`: swap.
        sync_threads();
    }
    let (first_row, first_col) = (row0 + thread_row * TM, col0 + thread_col * 4);
    const { assert!(TM == 8 && TN == 8) };
    unroll!(8, i => {
        let r = first_row + i as u32;
        if r < m {
            for half in 0..2usize {
                let cc = first_col + (BN / 2) * half as u32;
                let at = r as usize * n as usize + cc as usize;
                let v = [results[i * 8 + 4 * half], results[i * 8 + 4 * half + 1], results[i * 8 + 4 * half + 2], results[i * 8 + 4 * half + 3]];
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
}
