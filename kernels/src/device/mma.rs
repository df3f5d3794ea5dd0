//! Tensor-core matrix multiply-accumulate, warp-wide (`mma.sync`, sm_80+), and the
//! `ldmatrix` loads that fill its fragments from shared memory.
//!
//! `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32` multiplies a 16 × 16
//! tile of A by a 16 × 8 tile of B and adds a 16 × 8 f32 tile, all 32 lanes together. Each
//! lane holds a fixed part of each tile in registers ("fragments"). With `g = lane / 4`
//! and `t = lane % 4`:
//! - A (row-major, two 16-bit values per register): `a[0]` = row g, columns 2t and 2t+1;
//!   `a[1]` = row g+8, same columns; `a[2]` = row g, columns 2t+8, 2t+9; `a[3]` = row g+8,
//!   columns 2t+8, 2t+9;
//! - B ("col": k runs inside a register): `b[0]` = rows (k) 2t, 2t+1 of column g; `b[1]` =
//!   rows 2t+8, 2t+9 of column g;
//! - C and D (f32): `c[0]`, `c[1]` = row g, columns 2t, 2t+1; `c[2]`, `c[3]` = row g+8,
//!   same columns.
//!
//! Every lane of the warp must execute the same call.

use core::arch::asm;

macro_rules! mma_m16n8k16 {
    ($name:ident, $ty:literal) => {
        #[doc = concat!("`mma.sync.aligned.m16n8k16.row.col.f32.", $ty, ".", $ty, ".f32`: returns `A·B + C` for")]
        /// the warp's fragments (layout in the module comment).
        #[inline(always)]
        pub fn $name(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
            let d: [f32; 4];
            let (d0, d1, d2, d3): (f32, f32, f32, f32);
            // SAFETY: register-only; every lane of the warp executes it (caller's duty).
            unsafe {
                asm!(concat!("mma.sync.aligned.m16n8k16.row.col.f32.", $ty, ".", $ty, ".f32 ",
                             "{{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, ",
                             "{{{c0}, {c1}, {c2}, {c3}}};"),
                     d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                     a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                     b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                     c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                     options(pure, nomem, nostack))
            };
            d = [d0, d1, d2, d3];
            d
        }
    };
}

mma_m16n8k16!(mma_m16n8k16_f16, "f16");
mma_m16n8k16!(mma_m16n8k16_bf16, "bf16");

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0,r1,r2,r3}, [addr];`: the warp loads four
/// 8 × 8 matrices of 16-bit values from shared memory straight into fragment registers.
/// Lane `l` gives the address of row `l % 8` of matrix `l / 8` (16 contiguous bytes); each
/// lane receives, for matrix `i`, register `r[i]` holding row `lane / 4`, columns
/// `2·(lane % 4)` and `2·(lane % 4) + 1`: the A-fragment layout of `mma.m16n8k16` when the
/// four matrices are (rows 0–7, k 0–7), (rows 8–15, k 0–7), (rows 0–7, k 8–15),
/// (rows 8–15, k 8–15).
///
/// # Safety
/// Every lane of the warp calls it; `address` is a 16-byte aligned shared address of 16
/// readable bytes.
#[inline(always)]
pub unsafe fn ldmatrix_x4(address: u32) -> [u32; 4] {
    let (r0, r1, r2, r3): (u32, u32, u32, u32);
    // SAFETY: the caller guarantees the warp and the address.
    unsafe {
        asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];",
             r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3, a = in(reg32) address,
             options(nostack, readonly))
    };
    [r0, r1, r2, r3]
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: as [`ldmatrix_x4`], each matrix
/// transposed on the way. From a row-major `B[k][n]` tile, matrices (k 0–7, n), (k 8–15, n),
/// (k 0–7, n + 8), (k 8–15, n + 8) give the B fragments (`b[0]`, `b[1]`) of two adjacent
/// n8 tiles.
///
/// # Safety
/// As [`ldmatrix_x4`].
#[inline(always)]
pub unsafe fn ldmatrix_x4_trans(address: u32) -> [u32; 4] {
    let (r0, r1, r2, r3): (u32, u32, u32, u32);
    // SAFETY: the caller guarantees the warp and the address.
    unsafe {
        asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];",
             r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3, a = in(reg32) address,
             options(nostack, readonly))
    };
    [r0, r1, r2, r3]
}

/// [`ldmatrix_x4`] from `address + OFFSET` bytes, the offset written into the instruction
/// (`ldmatrix… [reg+imm]`): fragments at fixed distances from one another share one
/// address register, where computing each address in Rust would cost a register (and its
/// arithmetic) per fragment — LLVM does not fold an addition into an `asm!` operand.
///
/// # Safety
/// As [`ldmatrix_x4`], for the rows at `address + OFFSET`.
#[inline(always)]
pub unsafe fn ldmatrix_x4_at<const OFFSET: u32>(address: u32) -> [u32; 4] {
    let (r0, r1, r2, r3): (u32, u32, u32, u32);
    // SAFETY: the caller's: the whole warp, aligned shared rows.
    unsafe {
        asm!(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}+{o}];",
            r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
            a = in(reg32) address, o = const OFFSET, options(nostack, readonly)
        )
    };
    [r0, r1, r2, r3]
}

/// [`ldmatrix_x4_trans`] from `address + OFFSET` bytes (`ldmatrix….trans [reg+imm]`).
///
/// # Safety
/// As [`ldmatrix_x4_trans`], for the rows at `address + OFFSET`.
#[inline(always)]
pub unsafe fn ldmatrix_x4_trans_at<const OFFSET: u32>(address: u32) -> [u32; 4] {
    let (r0, r1, r2, r3): (u32, u32, u32, u32);
    // SAFETY: the caller's: the whole warp, aligned shared rows.
    unsafe {
        asm!(
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}+{o}];",
            r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
            a = in(reg32) address, o = const OFFSET, options(nostack, readonly)
        )
    };
    [r0, r1, r2, r3]
}
