//! Step w01 — Hopper's warpgroup MMA (`wgmma`): tensor cores read both tiles from shared memory.
//!
//! Idea: with `mma.sync` every warp copies its fragments into registers with `ldmatrix` and
//!       issues a 16 × 8 × 16 product per instruction. `wgmma` lets a warpgroup (4 warps) hand
//!       the tensor cores two shared-memory *descriptors* and 128 accumulator registers per
//!       thread: one asynchronous 64 × 256 × 16 product, 256 times an `mma.sync`, no `ldmatrix`;
//!       the threads issue the next copies while it runs and wait only for the group before last.
//! Changes from t04: a 128 × 256 block tile of two warpgroups, k tiles of 64 (one 128-byte
//!       swizzle row, the hardware's own mode), four stages in 193 KB of dynamic shared memory,
//!       two barriers per k tile.
//! Bottleneck: the loads: timed apart (ncu, 8192³), the `wgmma`s alone take 1.38 ms, the
//!       `cp.async` loads alone 1.80 ms, both together 2.07 ms (w02 hands them to the copy engine).
//! Cost: 193 registers (128 accumulators) × 256 threads; 193 KB of dynamic shared memory (4
//!       stages of 48 KB and 1 KB to align the base): one block (8 warps) per SM.
//! Requires: an sm_90a device (H100, H200) and the sm_90a PTX (ISA 8.0); K and N multiples of 8.
//! Result: 500 TFLOP/s f16 at 4096³ (bf16 507), 66.2 % of cuBLAS, H200, 2026-11-22.
//!
//! The two barriers per k tile: one before the `wgmma` (the tile has landed), one after the
//! previous tile's `wgmma` finished (its stage may be refilled). The host raises the kernel's
//! dynamic shared-memory limit; on a device without sm_90a the runner skips the step and says
//! why.
//!
//! More: docs/lessons.md#w01

use crate::device::async_copy::{cp_async_16, cp_async_commit, cp_async_wait_group};
use crate::device::index::{WARP_SIZE, block_idx, block_idx_y, thread_idx};
use crate::device::shared::dynamic_shared_aligned;
use crate::device::sync::sync_threads;
use crate::device::wgmma::{self, M64N256_ACC, descriptor, mma_m64n256k16_bf16, mma_m64n256k16_f16};
use crate::unroll;
use common::gemm::w01::{ALIGN_SLACK, BK, BM, BN, STAGE_BYTES, STAGES, THREADS};
use kernel_macros::kernel;

/// Threads of a warpgroup, and the rows of the block tile each warpgroup computes.
const WARPGROUP: u32 = 4 * WARP_SIZE;
const WARPGROUP_ROWS: u32 = 64;
const _: () = assert!(THREADS == 2 * WARPGROUP && BM == 2 * WARPGROUP_ROWS);

/// The 128-byte swizzle atom: 8 rows of 128 bytes (64 16-bit values), 1024-byte aligned.
const ROW_BYTES: u32 = 128;
const ATOM_BYTES: u32 = 8 * ROW_BYTES;
/// 16-byte chunks per 128-byte row.
const ROW_CHUNKS: u32 = ROW_BYTES / 16;
/// Values per 128-byte row; a k tile is one row of A wide.
const ROW_VALUES: u32 = ROW_BYTES / 2;
const _: () = assert!(BK == ROW_VALUES);

/// Bytes of the A tile of one stage; the B tile follows it. B is stored as BN / 64 panels,
/// each BK rows of 64 columns (one atom column), one after the other.
const A_BYTES: u32 = BM * BK * 2;
const B_PANEL_BYTES: u32 = BK * ROW_BYTES;
/// k values per `wgmma`.
const MMA_K: u32 = 16;

/// Byte offset of 16-byte chunk `c` of 128-byte row `r` in a 128-byte-swizzled tile.
#[inline(always)]
fn swizzled(r: u32, c: u32) -> u32 {
    r * ROW_BYTES + ((c ^ (r % 8)) * 16)
}

/// Starts the copy of eight 16-bit values of a row-major matrix with `cols` columns at
/// (`r`, `c`) to shared address `dst`; zeros when the row is past `rows` or the chunk past
/// `cols` (nothing is read then).
///
/// # Safety
/// `p` holds `rows × cols` values, `cols` and `c` multiples of 8 (16-byte aligned chunks);
/// `dst` is a 16-byte aligned shared address of 16 writable bytes.
#[inline(always)]
unsafe fn copy_chunk(dst: u32, p: *const u16, rows: u32, cols: u32, r: u32, c: u32) {
    let inside = r < rows && c < cols;
    let src = if inside { p.wrapping_add(r as usize * cols as usize + c as usize) } else { p };
    // SAFETY: 16 readable, aligned bytes when inside; none read otherwise.
    unsafe { cp_async_16(dst, src, if inside { 16 } else { 0 }) };
}

/// `C = A · B` for 16-bit `A`, `B` (f16, or bf16 when `BF16`), f32 `C`: one 128 × 256 tile
/// of C per block, 64 × 256 per warpgroup, `STAGES` k tiles of 64 in flight.
///
/// # Safety
/// `a`, `b`, `c` hold M·K, K·N 16-bit values and M·N `f32`; K and N are multiples of 8;
/// launched with 256 threads per block, `w01::SHARED_BYTES` of dynamic shared memory and a
/// grid of ⌈N / 256⌉ × ⌈M / 128⌉ blocks, on an sm_90a device.
#[inline(always)]
unsafe fn wgmma_gemm<const BF16: bool>(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // The swizzle atoms must sit on 1024-byte boundaries: round the dynamic base up (the
    // launch gives ALIGN_SLACK bytes more than the stages need).
    let base = dynamic_shared_aligned(ALIGN_SLACK);
    let a_stage = |s: u32| base + s * STAGE_BYTES;
    let b_stage = |s: u32| base + s * STAGE_BYTES + A_BYTES;
    let tid = thread_idx();
    let (row0, col0) = (block_idx_y() * BM, block_idx() * BN);
    let tiles = k.div_ceil(BK);

    // Starts the copies of k tile `t` into stage `t % STAGES` (none past the last tile; the
    // group is committed either way, so that group counts stay uniform).
    let load_tile = |t: u32| {
        if t < tiles {
            let (k0, stage) = (t * BK, t % STAGES);
            // A: BM rows of 8 chunks; 8 consecutive threads copy one 128-byte row.
            unroll!(4, i => {
                let chunk = tid + i as u32 * THREADS;
                let (r, cc) = (chunk / ROW_CHUNKS, chunk % ROW_CHUNKS);
                // SAFETY: bounds in `copy_chunk`; the offset is inside this stage's A tile.
                unsafe { copy_chunk(a_stage(stage) + swizzled(r, cc), a, m, k, row0 + r, k0 + cc * 8) };
            });
            // B: BK rows of BN / 8 chunks; chunk `cc` of a row goes to panel cc / 8.
            unroll!(8, i => {
                let chunk = tid + i as u32 * THREADS;
                let (r, cc) = (chunk / (BN / 8), chunk % (BN / 8));
                let dst = b_stage(stage) + (cc / ROW_CHUNKS) * B_PANEL_BYTES + swizzled(r, cc % ROW_CHUNKS);
                // SAFETY: as above, inside this stage's B tile.
                unsafe { copy_chunk(dst, b, k, n, k0 + r, col0 + cc * 8) };
            });
        }
        cp_async_commit();
    };
    const { assert!(BM * ROW_CHUNKS == 4 * THREADS && BK * BN / 8 == 8 * THREADS) };

    let warpgroup = tid / WARPGROUP;
    let mut acc = [0.0f32; M64N256_ACC];
    for t in 0..STAGES - 1 {
        load_tile(t);
    }
    for t in 0..tiles {
        let stage = t % STAGES;
        // Tile t's group is the oldest but STAGES - 2 of those in flight: wait for it, make
        // the copies visible to the tensor cores' (async) proxy, then to the whole block.
        cp_async_wait_group::<{ STAGES - 2 }>();
        wgmma::fence_proxy_async_shared();
        sync_threads();
        wgmma::fence();
        unroll!(4, kk => {
            // A: this warpgroup's 64 rows, k16 step kk = 32 bytes into the swizzled rows.
            let a_desc = descriptor(
                a_stage(stage) + warpgroup * WARPGROUP_ROWS * ROW_BYTES + kk as u32 * MMA_K * 2,
                0,
                ATOM_BYTES,
            );
            // B: 16 k rows from row 16·kk, all BN / 64 panels.
            let b_desc = descriptor(b_stage(stage) + kk as u32 * MMA_K * ROW_BYTES, B_PANEL_BYTES, ATOM_BYTES);
            // SAFETY: the whole warpgroup, after the fence; the stage is not refilled before
            // the wait below has seen this group finish (in every thread) and a barrier.
            unsafe {
                if BF16 {
                    mma_m64n256k16_bf16(&mut acc, a_desc, b_desc)
                } else {
                    mma_m64n256k16_f16(&mut acc, a_desc, b_desc)
                }
            };
        });
        wgmma::commit_group();
        // Tile t - 1's products are done in this warpgroup; after the barrier, in both:
        // its stage may take tile t + STAGES - 1.
        wgmma::wait_group::<1>();
        sync_threads();
        load_tile(t + STAGES - 1);
    }
    wgmma::wait_group::<0>();

    // Accumulator j of a thread: see the layout in `device::wgmma`.
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

/// [`wgmma_gemm`] for f16 inputs.
///
/// # Safety
/// As `wgmma_gemm`.
#[kernel]
pub unsafe fn w01_wgmma_f16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wgmma_gemm::<false>(a, b, c, m, n, k) }
}

/// [`wgmma_gemm`] for bf16 inputs.
///
/// # Safety
/// As `wgmma_gemm`.
#[kernel]
pub unsafe fn w01_wgmma_bf16(a: *const u16, b: *const u16, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wgmma_gemm::<true>(a, b, c, m, n, k) }
}
