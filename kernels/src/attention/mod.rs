//! The attention ladder (work in progress): the forward pass of softmax(Q·Kᵀ·scale + mask)·V
//! over `f16` or `bf16` inputs with `f32` softmax statistics, from three kernels with the
//! scores in memory towards one fused Hopper kernel.
//!
//! | step | idea |
//! | --- | --- |
//! | [`a01_three_kernels`] | S = Q·Kᵀ written to memory, a softmax per row, then P·V: what fusion removes |
//! | [`a02_fused`] | one kernel, no scores in memory: the online softmax, tile by tile over the keys, f32 on CUDA cores |
//! | [`a03_mma_sync`] | FlashAttention-2 on tensor cores: warps split the query rows, S and P in registers, `mma.sync` for both products, K and V through a `cp.async` pipeline |
//! | `a04_wgmma` (sm_90a) | Hopper: `wgmma` for both products, Q and K read by the tensor cores from shared memory, P from registers |
//! | `a05_tma_producer` (sm_90a) | the tiles by TMA from a producer warpgroup through `mbarrier` stages; `setmaxnreg` |
//! | `a06_pingpong` (sm_90a) | the consumers take turns; each tile's softmax under the previous tile's P·V |
//! | `a07_persistent` (sm_90a) | one block per SM walks the tiles: the next tile's loads under this one's last products and epilogue |
//! | `a08_tma_store` (sm_90a) | O leaves through shared memory and the copy engine: the consumers go on to the next tile |
//! | `a09_softmax_chains` (sm_90a) | each row's maximum and sum in independent chains: a shorter softmax |
//! | `a10_wide_pv` (sm_90a) | P·V as one `wgmma` across the head dim: P read from registers once |
//!
//! Conventions: tensors are `u16` bits of the step's type ([`Half`]); every kernel reads the
//! problem from one [`Dims`](common::attention::Dims) in device memory; each step has an `_f16`
//! and a `_bf16` entry point per kernel that reads or writes the tensors.

pub mod a01_three_kernels;
pub mod a02_fused;
pub mod a03_mma_sync;
#[cfg(target_feature = "sm_90a")]
pub mod a04_wgmma;
#[cfg(target_feature = "sm_90a")]
pub mod a05_tma_producer;
#[cfg(target_feature = "sm_90a")]
pub mod a06_pingpong;
#[cfg(target_feature = "sm_90a")]
pub mod a07_persistent;
#[cfg(target_feature = "sm_90a")]
pub mod a08_tma_store;
#[cfg(target_feature = "sm_90a")]
pub mod a09_softmax_chains;
#[cfg(target_feature = "sm_90a")]
pub mod a10_wide_pv;
pub mod fragments;
#[cfg(target_feature = "sm_90a")]
pub mod hopper;

use crate::device::convert::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16, pack_bf16x2, pack_f16x2};
use crate::device::mma::{mma_m16n8k16_bf16, mma_m16n8k16_f16};
use common::attention::Dims;
use core::num::NonZeroU32;

/// A 16-bit floating-point type of the tensors, carried as its bits.
pub trait Half {
    fn to_f32(bits: u16) -> f32;
    /// Rounded to the nearest (ties to even).
    fn from_f32(x: f32) -> u16;
    /// `lo` and `hi` rounded to the nearest and packed into one register, `lo` in the low
    /// half: the two adjacent elements of an `mma` fragment register.
    fn pack_x2(lo: f32, hi: f32) -> u32;
    /// The tensor cores' `A·B + C` on this type (`mma.sync.aligned.m16n8k16`, f32
    /// accumulators; fragments as in [`crate::device::mma`]).
    fn mma_m16n8k16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4];
}

/// IEEE half precision.
pub struct F16;

/// bfloat16.
pub struct Bf16;

impl Half for F16 {
    #[inline(always)]
    fn to_f32(bits: u16) -> f32 {
        f16_to_f32(bits)
    }
    #[inline(always)]
    fn from_f32(x: f32) -> u16 {
        f32_to_f16(x)
    }
    #[inline(always)]
    fn pack_x2(lo: f32, hi: f32) -> u32 {
        pack_f16x2(lo, hi)
    }
    #[inline(always)]
    fn mma_m16n8k16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        mma_m16n8k16_f16(a, b, c)
    }
}

impl Half for Bf16 {
    #[inline(always)]
    fn to_f32(bits: u16) -> f32 {
        bf16_to_f32(bits)
    }
    #[inline(always)]
    fn from_f32(x: f32) -> u16 {
        f32_to_bf16(x)
    }
    #[inline(always)]
    fn pack_x2(lo: f32, hi: f32) -> u32 {
        pack_bf16x2(lo, hi)
    }
    #[inline(always)]
    fn mma_m16n8k16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        mma_m16n8k16_bf16(a, b, c)
    }
}

/// One head of Q, K or V in global memory, as a tile copy reads it: its row 0, its row
/// stride (elements) and its rows.
#[derive(Clone, Copy)]
pub struct HeadRows {
    pub start: *const u16,
    pub stride: u64,
    pub rows: u32,
}

impl HeadRows {
    /// The head of `tensor` that starts `offset` elements in, rows `stride` apart.
    #[inline(always)]
    pub fn new(tensor: *const u16, offset: u64, stride: u64, rows: u32) -> Self {
        Self { start: tensor.wrapping_add(offset as usize), stride, rows }
    }

    /// Chunk `chunk` (8 values, 16 bytes) of row `row` and the bytes to copy of it: 16 inside
    /// the head, 0 past its last row (then the address is any valid one, and nothing is read).
    #[inline(always)]
    pub fn chunk(self, row: u32, chunk: u32) -> (*const u16, u32) {
        if row < self.rows {
            let offset = row as u64 * self.stride + u64::from(chunk * CHUNK_VALUES);
            (self.start.wrapping_add(offset as usize), CHUNK_BYTES)
        } else {
            (self.start, 0)
        }
    }
}

/// A tile copy's unit: 16 bytes, eight 16-bit values.
pub const CHUNK_BYTES: u32 = 16;
pub const CHUNK_VALUES: u32 = 8;

/// Where a block of a fused step stands: its (batch, query head) and key/value head, its
/// first query row, and the heads of Q, K and V it reads.
#[derive(Clone, Copy)]
pub struct BlockHeads {
    pub b: u32,
    pub h: u32,
    /// `blockIdx.y`: the (batch, query head) pair, the log-sum-exps' row block.
    pub pair: u32,
    pub q: HeadRows,
    pub k: HeadRows,
    pub v: HeadRows,
}

impl BlockHeads {
    /// The heads of block (·, `pair`) of problem `d`: `pair = b · heads_q + h`, K/V head
    /// `h / group`.
    ///
    /// # Safety
    /// `d.heads_q` and `d.group` are not zero (the host's problems have at least one head and
    /// one query head per key/value head).
    #[inline(always)]
    pub unsafe fn new(d: &Dims, pair: u32, q: *const u16, k: *const u16, v: *const u16) -> Self {
        // SAFETY: the caller's promise. (Divisors known to be non-zero: no division-by-zero
        // panic, whose call would cost registers.)
        let (heads_q, group) =
            unsafe { (NonZeroU32::new_unchecked(d.heads_q), NonZeroU32::new_unchecked(d.group)) };
        let (b, h) = (pair / heads_q, pair % heads_q);
        let kv_head = h / group;
        Self {
            b,
            h,
            pair,
            q: HeadRows::new(q, d.q.row_offset(b, h, 0), d.q.row, d.seq_q),
            k: HeadRows::new(k, d.k.row_offset(b, kv_head, 0), d.k.row, d.seq_k),
            v: HeadRows::new(v, d.v.row_offset(b, kv_head, 0), d.v.row, d.seq_k),
        }
    }
}
