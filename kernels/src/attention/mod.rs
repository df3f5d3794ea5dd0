//! The attention ladder (work in progress): the forward pass of softmax(Q·Kᵀ·scale + mask)·V
//! over `f16` or `bf16` inputs with `f32` softmax statistics, from three kernels with the
//! scores in memory towards one fused Hopper kernel.
//!
//! | step | idea |
//! | --- | --- |
//! | [`a01_three_kernels`] | S = Q·Kᵀ written to memory, a softmax per row, then P·V: what fusion removes |
//! | [`a02_fused`] | one kernel, no scores in memory: the online softmax, tile by tile over the keys, f32 on CUDA cores |
//! | [`a03_mma_sync`] | FlashAttention-2 on tensor cores: warps split the query rows, S and P in registers, `mma.sync` for both products, K and V through a `cp.async` pipeline |
//!
//! Conventions: tensors are `u16` bits of the step's type ([`Half`]); every kernel reads the
//! problem from one [`Dims`](common::attention::Dims) in device memory; each step has an `_f16`
//! and a `_bf16` entry point per kernel that reads or writes the tensors.

pub mod a01_three_kernels;
pub mod a02_fused;
pub mod a03_mma_sync;

use crate::device::convert::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16, pack_bf16x2, pack_f16x2};
use crate::device::mma::{mma_m16n8k16_bf16, mma_m16n8k16_f16};

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
