//! w05's epilogue: a consumer warpgroup writes its `64 × BN` piece of C into swizzled
//! staging boxes in shared memory, and one of its threads hands each box to the copy engine
//! (`cp.async.bulk.tensor … .global.shared::cta`), which writes C in whole lines and clips
//! what lies outside the matrix. w05's header tells the why; this is the same code.

use super::pipeline::SharedLayout;
use super::{F32_BYTES, ROW_BYTES, Shape, WARPGROUP, WARPGROUP_ROWS};
use crate::device::convert::pack_bf16x2;
use crate::device::index::WARP_SIZE;
use crate::device::shared::SharedArray;
use crate::device::sync::sync_named;
use crate::device::tma::{bulk_commit_group, bulk_wait_group, bulk_wait_group_read, store_tensor_2d};
use crate::device::wgmma::fence_proxy_async_shared;
use crate::unroll;

/// Staging boxes per consumer warpgroup: one is written while the copy engine reads the
/// other (`cp.async.bulk.wait_group.read 1` before a box is refilled).
pub const C_BUFFERS: u32 = 2;
/// The most boxes per warpgroup and tile (`BN / 32`): 8, for 256 columns.
pub const MAX_C_BOXES: u32 = 8;
/// The named barrier of consumer warpgroup `w` is `EPILOGUE_BARRIER + w` (0 is the block's).
pub const EPILOGUE_BARRIER: u32 = 1;
/// Rows of a warpgroup's piece each warp holds (`device::wgmma`'s layout), and the distance
/// between a thread's two rows.
const WARP_ROWS: u32 = 16;
const HALF_ROWS: u32 = 8;
/// A swizzled row's 16-byte chunks, and the 8 bytes (two f32) one thread writes at a time.
const CHUNK_BYTES: u32 = 16;
const PAIR_BYTES: u32 = 8;
/// Accumulators per 8-column group of a row pair (two rows, two columns), and the groups
/// of a 32-column box.
const GROUP_ACC: usize = 4;
const BOX_GROUPS: usize = 4;
/// A bf16 C's box: 64 columns, its 8-column groups, and the 4 bytes (two bf16) one thread
/// writes at a time.
const BF16_BOX_COLUMNS: u32 = 64;
const BF16_BOX_GROUPS: usize = 8;
const BF16_PAIR_BYTES: u32 = 4;

/// One consumer thread's part of the epilogue.
pub struct Epilogue<S> {
    smem: SharedLayout<S>,
    c_map: *const u8,
    warpgroup: u32,
    /// This thread's warp in its warpgroup, its row group `g = lane / 4` and column pair
    /// `t4 = lane % 4`.
    warp: u32,
    g: u32,
    t4: u32,
    /// The order in which the row takes its four column groups (see [`Epilogue::store_tile`]).
    row_order: u32,
    /// The warpgroup's first thread, which issues the box stores.
    storer: bool,
}

impl<S> Clone for Epilogue<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Epilogue<S> {}

impl<S: Shape> Epilogue<S> {
    /// Consumer thread `tid`; `c_map` is the global address of a tensor map of C (M × N f32,
    /// row-major, 128-byte swizzle, boxes `C_BOX`).
    #[inline(always)]
    pub fn new(smem: SharedLayout<S>, c_map: *const u8, tid: u32) -> Self {
        let lane = tid % WARP_SIZE;
        let (g, t4) = (lane / 4, lane % 4);
        Self {
            smem,
            c_map,
            warpgroup: tid / WARPGROUP,
            warp: (tid % WARPGROUP) / WARP_SIZE,
            g,
            t4,
            row_order: (g % 4) ^ (g % 4 / 2),
            storer: tid % WARPGROUP == 0,
        }
    }

    /// Stores the warpgroup's piece of the tile at `(row0, col0)`, one 64 × 32 box at a
    /// time. Thread (warp, lane) holds rows warp·16 + lane/4 (+ 8) of the piece and, for box
    /// j, columns 32j + 8q + 2(lane % 4) (+ 1), q = 0…3: accumulators 4(4j + q) + …
    /// (layout: `device::wgmma`). In the box's 128-byte rows, those two values are bytes
    /// 32q + 8(lane % 4) …, in 16-byte chunk 2q + (lane % 4)/2, which the swizzle moves to
    /// that chunk XOR (row % 8), and row % 8 is lane / 4. Per box: the storer waits until
    /// the box's buffer has been read out, the warpgroup meets (named barrier), writes the
    /// box (`st.shared.v2`), fences it for the async proxy, meets again, and the storer
    /// issues the box's TMA store in a bulk group of its own. Returns once the last box is
    /// handed over: the copies drain under the next tile's main loop.
    ///
    /// # Safety
    /// Every thread of the warpgroup calls it (named barriers), with the accumulators of
    /// [`Consumer::mma_k_tiles`](super::mainloop::Consumer::mma_k_tiles) for that tile.
    #[rustc_force_inline]
    pub unsafe fn store_tile<const N: usize>(self, acc: &[f32; N], origin: (u32, u32)) {
        // SAFETY: the caller's.
        unsafe { self.store_scaled_tile(acc, origin, None) }
    }

    /// [`Epilogue::store_tile`] with each value multiplied by `factor` on its way out (an FP8
    /// product's `scale_a · scale_b`); `None` multiplies by nothing, and compiles to
    /// `store_tile`.
    ///
    /// # Safety
    /// As [`Epilogue::store_tile`].
    #[rustc_force_inline]
    pub unsafe fn store_scaled_tile<const N: usize>(
        self,
        acc: &[f32; N],
        (row0, col0): (u32, u32),
        factor: Option<f32>,
    ) {
        if S::C_BF16 {
            // SAFETY: the caller's.
            return unsafe { self.store_bf16_tile(acc, (row0, col0), factor) };
        }
        let scaled = |x: f32| match factor {
            Some(f) => x * f,
            None => x,
        };
        // `acc` holds this warpgroup's 64 × BN piece: BN / 2 registers.
        const { assert!(N as u32 * 2 == S::BN) };
        let (warp, g, t4) = (self.warp, self.g, self.t4);
        // MAX_C_BOXES boxes written out; those past C_BOXES (a 128-wide tile) compile away.
        unroll!(8, j => {
            if (j as u32) < S::C_BOXES {
                let buffer = self.smem.c_box(self.warpgroup, j as u32 % C_BUFFERS);
                self.wait_buffer_read(j as u32);
                sync_named(EPILOGUE_BARRIER + self.warpgroup, WARPGROUP);
                // SAFETY: inside this warpgroup's buffer, which no copy reads any more.
                let staging: SharedArray<f32> = unsafe { SharedArray::from_address(buffer) };
                unroll!(4, step => {
                    // An 8-byte store is served in two half-warp phases: rows g and g ^ 1
                    // of a half would XOR the same column group onto the same two chunks
                    // (a 2-way conflict per phase), so each row takes the groups in its
                    // own order, q = step ^ gray(g % 4), which keeps the four rows of a
                    // half on four different pairs of chunks. That order is a run-time
                    // index into the accumulators (`pick`'s selects); a shape without
                    // `C_ROW_ORDER` (w25) takes the groups in one order and the conflict.
                    let q = if S::C_ROW_ORDER { step as u32 ^ self.row_order } else { step as u32 };
                    unroll!(2, half => {
                        let row = warp * WARP_ROWS + g + HALF_ROWS * half as u32;
                        let chunk = (2 * q + t4 / 2) ^ g;
                        let at = (row * ROW_BYTES + chunk * CHUNK_BYTES + (t4 % 2) * PAIR_BYTES) / F32_BYTES;
                        let first = GROUP_ACC * BOX_GROUPS * j + 2 * half;
                        let pair = [scaled(pick(acc, first, q)), scaled(pick(acc, first + 1, q))];
                        // SAFETY: `at` is even and inside the 8 KB box.
                        unsafe { staging.store_v2(at, pair) };
                    });
                });
                fence_proxy_async_shared();
                sync_named(EPILOGUE_BARRIER + self.warpgroup, WARPGROUP);
                if self.storer {
                    // SAFETY: the box is written and fenced by the whole warpgroup; the map
                    // is C's, and the engine clips what lies outside M × N.
                    unsafe {
                        store_tensor_2d(
                            self.c_map,
                            col0 + j as u32 * S::C_BOX.0,
                            row0 + self.warpgroup * WARPGROUP_ROWS,
                            buffer,
                        )
                    };
                    bulk_commit_group();
                }
            }
        });
    }
}

impl<S: Shape> Epilogue<S> {
    /// Before box `j` of a tile is written into buffer `j % C_BUFFERS`: the storer waits until
    /// the copy engine has read that buffer. Boxes alternate between the buffers, so of the
    /// stores still reading (at most `C_BUFFERS − 1` are let run) none reads this one: the copy
    /// of the box stored from it two boxes ago is done. Across tiles that holds when a tile
    /// has an even number of boxes; with an odd number (w22's three) the previous tile's last
    /// box took this tile's first buffer, so there the storer waits for every read. A constant
    /// condition: it compiles away for even counts.
    #[inline(always)]
    fn wait_buffer_read(self, j: u32) {
        if self.storer {
            if j == 0 && !S::C_BOXES.is_multiple_of(C_BUFFERS) {
                bulk_wait_group_read::<0>();
            } else {
                bulk_wait_group_read::<{ C_BUFFERS - 1 }>();
            }
        }
    }
}

impl<S: Shape> Epilogue<S> {
    /// [`Epilogue::store_scaled_tile`] for a bf16 C (w21): boxes of 64 columns, 128 bytes of
    /// bf16 per row as 32 f32 columns were, so the buffers and their swizzle are the same and
    /// the copy engine writes half the bytes. For box j the thread's values of column group q
    /// (q = 0…7, columns 64j + 8q + 2(lane % 4) (+ 1)) are accumulators 4(8j + q) + …, two
    /// values packed into one bf16 pair (`cvt.rn.bf16x2.f32`, rounded to nearest even) at byte
    /// 16q + 4(lane % 4) of the row, chunk q, which the swizzle moves to q XOR (row % 8) = q
    /// XOR lane / 4: the eight rows a store instruction writes then take eight different
    /// chunks, and its 32 lanes 32 different banks, with no per-row order.
    ///
    /// # Safety
    /// As [`Epilogue::store_tile`].
    #[rustc_force_inline]
    unsafe fn store_bf16_tile<const N: usize>(self, acc: &[f32; N], (row0, col0): (u32, u32), factor: Option<f32>) {
        let scaled = |x: f32| match factor {
            Some(f) => x * f,
            None => x,
        };
        const { assert!(N as u32 * 2 == S::BN && (!S::C_BF16 || S::C_BOX.0 == BF16_BOX_COLUMNS)) };
        let (warp, g, t4) = (self.warp, self.g, self.t4);
        // MAX_C_BOXES / 2 boxes of 64 columns at most; those past C_BOXES compile away.
        unroll!(4, j => {
            if (j as u32) < S::C_BOXES {
                let buffer = self.smem.c_box(self.warpgroup, j as u32 % C_BUFFERS);
                self.wait_buffer_read(j as u32);
                sync_named(EPILOGUE_BARRIER + self.warpgroup, WARPGROUP);
                // SAFETY: inside this warpgroup's buffer, which no copy reads any more.
                let staging: SharedArray<u32> = unsafe { SharedArray::from_address(buffer) };
                unroll!(8, q => {
                    unroll!(2, half => {
                        let row = warp * WARP_ROWS + g + HALF_ROWS * half as u32;
                        let chunk = q as u32 ^ g;
                        let at = (row * ROW_BYTES + chunk * CHUNK_BYTES + t4 * BF16_PAIR_BYTES) / BF16_PAIR_BYTES;
                        let first = GROUP_ACC * (BF16_BOX_GROUPS * j + q) + 2 * half;
                        let pair = pack_bf16x2(scaled(acc[first]), scaled(acc[first + 1]));
                        // SAFETY: `at` is inside the 8 KB box.
                        unsafe { staging.store(at, pair) };
                    });
                });
                fence_proxy_async_shared();
                sync_named(EPILOGUE_BARRIER + self.warpgroup, WARPGROUP);
                if self.storer {
                    // SAFETY: the box is written and fenced by the whole warpgroup; the map
                    // is C's (bf16, boxes of 64 × 64), and the engine clips what lies outside
                    // M × N.
                    unsafe {
                        store_tensor_2d(
                            self.c_map,
                            col0 + j as u32 * S::C_BOX.0,
                            row0 + self.warpgroup * WARPGROUP_ROWS,
                            buffer,
                        )
                    };
                    bulk_commit_group();
                }
            }
        });
    }
}

/// Where a kernel's per-tensor scales come from: an FP8 product multiplies C by
/// `scale_a · scale_b` (cuBLASLt's FP8 product and PyTorch's `_scaled_mm` take them so,
/// one f32 each, on the device); a 16-bit one by nothing.
pub trait TensorScales: Copy {
    /// `scale_a · scale_b`, or `None` for a product without scales.
    ///
    /// # Safety
    /// The scales, where there are any, are readable.
    unsafe fn factor(self) -> Option<f32>;
}

/// No scales: C = A · B.
#[derive(Clone, Copy)]
pub struct NoScales;

impl TensorScales for NoScales {
    #[inline(always)]
    unsafe fn factor(self) -> Option<f32> {
        None
    }
}

/// `scale_a` and `scale_b`, two consecutive f32 in global memory: C = scale_a · scale_b · A · B.
#[derive(Clone, Copy)]
pub struct ScalesAt(pub *const f32);

impl TensorScales for ScalesAt {
    #[inline(always)]
    unsafe fn factor(self) -> Option<f32> {
        // SAFETY: the caller's: two readable f32.
        Some(unsafe { *self.0 * *self.0.add(1) })
    }
}

/// Before the block exits: each consumer warpgroup's storer (thread `tid` % 128 = 0)
/// waits until C's last boxes are written (`cp.async.bulk.wait_group 0`), as w05 does.
#[inline(always)]
pub fn wait_written(tid: u32) {
    if tid % WARPGROUP == 0 {
        bulk_wait_group::<0>();
    }
}

/// Before the block exits: each storer waits only until C's last boxes are read out of
/// shared memory (`cp.async.bulk.wait_group.read 0`); the launch completes after their
/// writes in any case (w08's trim).
#[inline(always)]
pub fn wait_read(tid: u32) {
    if tid % WARPGROUP == 0 {
        bulk_wait_group_read::<0>();
    }
}

/// `acc[first + 4q]` for a run-time `q` in 0..4, by selects: indexing the accumulators at
/// run time would move them to local memory.
#[inline(always)]
pub fn pick<const N: usize>(acc: &[f32; N], first: usize, q: u32) -> f32 {
    let low = if q & 1 == 0 { acc[first] } else { acc[first + GROUP_ACC] };
    let high = if q & 1 == 0 { acc[first + 2 * GROUP_ACC] } else { acc[first + 3 * GROUP_ACC] };
    if q & 2 == 0 { low } else { high }
}
