//! Global-memory loads with an explicit width and cache policy.
//!
//! A plain `*p` in a kernel becomes `ld.global` (LLVM infers the global space for kernel
//! pointer parameters). These wrappers say more:
//! - **16 bytes at once** (`.v4.s32`): one instruction moves four elements, so a warp's
//!   load is 512 contiguous bytes: four full 128-byte lines in one request, and a quarter
//!   of the load instructions (and of their address arithmetic) of scalar code;
//! - **read-only path** (`.nc`, CUDA's `__ldg` / `const __restrict__`): the data will not
//!   change during the kernel, so it may come through the non-coherent texture path;
//! - **streaming** (`.cs`, "cache streaming, likely accessed once"): the line is marked
//!   evict-first in L1 and L2, so a read-once stream does not push out data worth keeping;
//! - **L2 only** (`.cg`, "cache global"): skip L1, which is not coherent between SMs; for
//!   data another block wrote during this kernel.
//!
//! A Rust pointer holds a generic address; each wrapper converts it with
//! `cvta.to.global.u64` as the PTX ISA asks of `ld.global` (ptxas folds the conversion
//! away: the generic and global windows coincide on current GPUs).

use core::arch::asm;

/// Four `i32` in one 16-byte aligned unit: the type of a 16-byte vector load (CUDA's
/// `int4`).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct I32x4(pub [i32; 4]);

impl I32x4 {
    /// The wrapping sum of the four lanes.
    #[inline(always)]
    pub fn wrapping_sum(self) -> i32 {
        let [a, b, c, d] = self.0;
        a.wrapping_add(b).wrapping_add(c.wrapping_add(d))
    }
}

/// `ld.global.nc.v4.s32 {a,b,c,d}, [p];`: a 16-byte load through the read-only path.
///
/// # Safety
/// `p` is a 16-byte aligned global address of four readable `i32` that nothing writes
/// while the kernel runs.
#[inline(always)]
pub unsafe fn load_readonly_v4(p: *const I32x4) -> I32x4 {
    let (a, b, c, d): (i32, i32, i32, i32);
    // SAFETY: the caller guarantees alignment, bounds and that the data is read-only.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.nc.v4.s32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
             a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
             p = in(reg64) p, options(pure, readonly, nostack))
    };
    I32x4([a, b, c, d])
}

/// `ld.global.cs.v4.s32 {a,b,c,d}, [p];`: a 16-byte streaming load (evict-first).
///
/// # Safety
/// `p` is a 16-byte aligned global address of four readable `i32` that nothing writes
/// while the kernel runs.
#[inline(always)]
pub unsafe fn load_streaming_v4(p: *const I32x4) -> I32x4 {
    let (a, b, c, d): (i32, i32, i32, i32);
    // SAFETY: the caller guarantees alignment, bounds and that the data is read-only.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.cs.v4.s32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
             a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
             p = in(reg64) p, options(pure, readonly, nostack))
    };
    I32x4([a, b, c, d])
}

/// `ld.global.cs.s32 %r, [p];`: a 4-byte streaming load, for the elements after the last
/// whole 16-byte unit.
///
/// # Safety
/// `p` is a 4-byte aligned global address of a readable `i32` that nothing writes while
/// the kernel runs.
#[inline(always)]
pub unsafe fn load_streaming(p: *const i32) -> i32 {
    let v: i32;
    // SAFETY: the caller guarantees alignment, bounds and that the data is read-only.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.cs.s32 {v}, [g]; }}", v = out(reg32) v, p = in(reg64) p,
             options(pure, readonly, nostack))
    };
    v
}

/// `ld.global.cg.s32 %r, [p];`: a 4-byte load from L2, bypassing L1. For values other
/// blocks wrote during this kernel (after the acquire that makes them visible).
///
/// # Safety
/// `p` is a 4-byte aligned global address of a readable `i32`.
#[inline(always)]
pub unsafe fn load_l2_only(p: *const i32) -> i32 {
    let v: i32;
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.cg.s32 {v}, [g]; }}", v = out(reg32) v, p = in(reg64) p,
             options(readonly, nostack))
    };
    v
}

/// `ld.global.ca.s32 %r, [p];`: a 4-byte load that may be cached in L1 ("cache at all
/// levels", the default for ordinary loads), written out so that a latency probe says
/// which cache path it measures.
///
/// # Safety
/// `p` is a 4-byte aligned global address of a readable `i32`.
#[inline(always)]
pub unsafe fn load_cached(p: *const i32) -> i32 {
    let v: i32;
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.ca.s32 {v}, [g]; }}", v = out(reg32) v,
             p = in(reg64) p, options(readonly, nostack))
    };
    v
}

/// `ld.global.nc.v4.f32 {a,b,c,d}, [p];`: four `f32` in one 16-byte read-only load.
///
/// # Safety
/// `p` is a 16-byte aligned global address of four readable `f32` that nothing writes
/// while the kernel runs.
#[inline(always)]
pub unsafe fn load_readonly_f32x4(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: the caller guarantees alignment, bounds and that the data is read-only.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.nc.v4.f32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
             a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
             p = in(reg64) p, options(pure, readonly, nostack))
    };
    [a, b, c, d]
}

/// `st.global.v4.f32 [p], {a,b,c,d};`: four `f32` in one 16-byte store.
///
/// # Safety
/// `p` is a 16-byte aligned global address of four writable `f32`.
#[inline(always)]
pub unsafe fn store_f32x4(p: *mut f32, v: [f32; 4]) {
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; st.global.v4.f32 [g], {{{a}, {b}, {c}, {d}}}; }}",
             p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
             options(nostack))
    }
}

/// `st.global.v2.f32 [p], {a,b};`: two `f32` in one 8-byte store (half the store
/// instructions of two scalar stores, for a pair of neighbouring outputs).
///
/// # Safety
/// `p` is an 8-byte aligned global address of two writable `f32`.
#[inline(always)]
pub unsafe fn store_f32x2(p: *mut f32, v: [f32; 2]) {
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; st.global.v2.f32 [g], {{{a}, {b}}}; }}",
             p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], options(nostack))
    }
}

/// `ld.global.cg.v4.f32 {a,b,c,d}, [p];`: four `f32` in one 16-byte load cached in L2
/// only, never in this SM's L1: for data another block wrote during this launch (L1 is
/// not kept coherent with other SMs' writes).
///
/// # Safety
/// `p` is a 16-byte aligned global address of four readable `f32`, whose writer's writes
/// are ordered before this load (a flag read with acquire semantics, then a barrier).
#[inline(always)]
pub unsafe fn load_l2_f32x4(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: the caller guarantees alignment, bounds and ordering.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.global.cg.v4.f32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
             a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
             p = in(reg64) p, options(readonly, nostack))
    };
    [a, b, c, d]
}

/// `st.global.cs.v4.s32 [p], {a,b,c,d};`: a 16-byte streaming store (evict-first): output
/// that nothing in this kernel reads again.
///
/// # Safety
/// `p` is a 16-byte aligned global address of four writable `i32`.
#[inline(always)]
pub unsafe fn store_streaming_v4(p: *mut I32x4, v: I32x4) {
    let [a, b, c, d] = v.0;
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; st.global.cs.v4.s32 [g], {{{a}, {b}, {c}, {d}}}; }}",
             p = in(reg64) p, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, d = in(reg32) d,
             options(nostack))
    }
}

/// `prefetch.global.L2 [p];`: asks for the 128-byte line holding `p` to be brought into L2,
/// and returns at once (nothing is loaded into a register, nothing waits for it): a later
/// load of the line then finds it in L2 instead of HBM.
///
/// # Safety
/// `p` is a global address (a prefetch of a bad address is ignored by the hardware, but the
/// project keeps every address it forms in bounds).
#[inline(always)]
pub unsafe fn prefetch_l2(p: *const u32) {
    // SAFETY: a hint: it reads nothing into the program and writes nothing.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; prefetch.global.L2 [g]; }}", p = in(reg64) p,
             options(nostack, readonly))
    }
}
