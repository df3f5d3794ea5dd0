//! Conversions between `f32` and the 16-bit floating-point types, carried as their bits
//! (`u16`): IEEE half precision (`f16`) and bfloat16 (`bf16`).

use core::arch::asm;

/// `cvt.f32.f16 %f, %h;`: the value of the IEEE half `bits` (exact).
#[inline(always)]
pub fn f16_to_f32(bits: u16) -> f32 {
    let out: f32;
    // SAFETY: a register conversion; reads no memory.
    unsafe { asm!("cvt.f32.f16 {o}, {h};", o = out(reg32) out, h = in(reg16) bits, options(pure, nomem, nostack)) };
    out
}

/// The value of the bfloat16 `bits` (exact): the same sign, exponent and top mantissa bits
/// as an `f32`, so its bits above 16 zero bits.
#[inline(always)]
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// `cvt.rn.f16.f32 %h, %f;`: `x` rounded to the nearest IEEE half (ties to even).
#[inline(always)]
pub fn f32_to_f16(x: f32) -> u16 {
    let out: u16;
    // SAFETY: a register conversion; reads no memory.
    unsafe { asm!("cvt.rn.f16.f32 {h}, {f};", h = out(reg16) out, f = in(reg32) x, options(pure, nomem, nostack)) };
    out
}

/// `cvt.rn.bf16.f32 %h, %f;`: `x` rounded to the nearest bfloat16 (ties to even; sm_80).
#[inline(always)]
pub fn f32_to_bf16(x: f32) -> u16 {
    let out: u16;
    // SAFETY: a register conversion; reads no memory.
    unsafe { asm!("cvt.rn.bf16.f32 {h}, {f};", h = out(reg16) out, f = in(reg32) x, options(pure, nomem, nostack)) };
    out
}

/// `cvt.rn.f16x2.f32 %d, %hi, %lo;`: `lo` and `hi` rounded to the nearest IEEE halves (ties to
/// even) and packed into one register, `lo` in bits 0–15 (the instruction puts its first
/// source in the upper half): the two adjacent 16-bit elements an `mma` fragment register
/// holds, lower column first. sm_80.
#[inline(always)]
pub fn pack_f16x2(lo: f32, hi: f32) -> u32 {
    let out: u32;
    // SAFETY: a register conversion; reads no memory.
    unsafe {
        asm!("cvt.rn.f16x2.f32 {d}, {hi}, {lo};", d = out(reg32) out, hi = in(reg32) hi, lo = in(reg32) lo,
             options(pure, nomem, nostack))
    };
    out
}

/// `cvt.rn.bf16x2.f32 %d, %hi, %lo;`: as [`pack_f16x2`], to bfloat16 (sm_80).
#[inline(always)]
pub fn pack_bf16x2(lo: f32, hi: f32) -> u32 {
    let out: u32;
    // SAFETY: a register conversion; reads no memory.
    unsafe {
        asm!("cvt.rn.bf16x2.f32 {d}, {hi}, {lo};", d = out(reg32) out, hi = in(reg32) hi, lo = in(reg32) lo,
             options(pure, nomem, nostack))
    };
    out
}

/// `ex2.approx.ftz.f32 %o, %x;`: 2^x (at most 2 ulp off; subnormal results flushed to 0;
/// 2^−∞ = 0).
#[inline(always)]
pub fn exp2_approx(x: f32) -> f32 {
    let out: f32;
    // SAFETY: a register operation; reads no memory.
    unsafe { asm!("ex2.approx.ftz.f32 {o}, {x};", o = out(reg32) out, x = in(reg32) x, options(pure, nomem, nostack)) };
    out
}

/// `lg2.approx.ftz.f32 %o, %x;`: log2 x (at most 2 ulp off away from 1).
#[inline(always)]
pub fn log2_approx(x: f32) -> f32 {
    let out: f32;
    // SAFETY: a register operation; reads no memory.
    unsafe { asm!("lg2.approx.ftz.f32 {o}, {x};", o = out(reg32) out, x = in(reg32) x, options(pure, nomem, nostack)) };
    out
}

/// `rcp.approx.ftz.f32 %o, %x;`: 1/x (at most 1 ulp off; subnormal inputs and results
/// flushed to 0). One instruction where `1.0 / x` compiles to the IEEE-rounded `rcp.rn`,
/// a subroutine with a slow path that ptxas calls.
#[inline(always)]
pub fn reciprocal_approx(x: f32) -> f32 {
    let out: f32;
    // SAFETY: a register operation; reads no memory.
    unsafe { asm!("rcp.approx.ftz.f32 {o}, {x};", o = out(reg32) out, x = in(reg32) x, options(pure, nomem, nostack)) };
    out
}
