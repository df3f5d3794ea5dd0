//! Atomic read-modify-write on global memory, and the fence that orders plain accesses
//! around them.
//!
//! Addresses are converted with `cvta.to.global.u64` first, as in [`crate::device::load`].

use core::arch::asm;

/// `red.global.add.u32 [p], v;` adds `v` to `*p` atomically and returns nothing. Integer
/// addition modulo 2^32 is the same for signed and unsigned values, so this is also the
/// wrapping `i32` add. Without a result to wait for, the thread moves on at once: the
/// reduction happens in the L2 cache. (CUDA's `atomicAdd` whose result is unused becomes
/// this instruction.)
///
/// # Safety
/// `p` points to a 4-byte aligned `i32` in global memory.
#[inline(always)]
pub unsafe fn red_add_i32(p: *mut i32, v: i32) {
    // SAFETY: the caller guarantees `p` is a valid global address.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; red.global.add.u32 [g], {v}; }}",
             p = in(reg64) p, v = in(reg32) v, options(nostack))
    }
}

/// `atom.acq_rel.gpu.global.add.u32 old, [p], v;` adds `v` to `*p` and returns the old
/// value, with acquire-release ordering at GPU scope: this thread's writes before it are
/// visible to whoever later acquires `*p`, and the writes released by earlier adds to `*p`
/// are visible to this thread after it. The "last block finishes the job" pattern needs
/// exactly that.
///
/// # Safety
/// `p` points to a 4-byte aligned `u32` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_acq_rel_u32(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller guarantees `p` is a valid global address.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; atom.acq_rel.gpu.global.add.u32 {o}, [g], {v}; }}",
             o = out(reg32) old, p = in(reg64) p, v = in(reg32) v, options(nostack))
    };
    old
}

/// `atom.relaxed.gpu.global.add.u32 old, [p], v;` adds `v` to `*p` and returns the old
/// value, ordering nothing else: enough when the word itself carries all the data (a
/// counter that hands out work).
///
/// # Safety
/// `p` points to a 4-byte aligned `u32` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_relaxed_u32(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller guarantees `p` is a valid global address.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; atom.relaxed.gpu.global.add.u32 {o}, [g], {v}; }}",
             o = out(reg32) old, p = in(reg64) p, v = in(reg32) v, options(nostack))
    };
    old
}

/// `fence.acq_rel.gpu;` (CUDA's `__threadfence()`): this thread's memory accesses before
/// the fence are ordered, for every thread on the GPU, before its accesses after it.
#[inline(always)]
pub fn fence_acq_rel_gpu() {
    // SAFETY: a fence has no operands.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) }
}

/// `atom.relaxed.gpu.global.add.u64 old, [p], v;` adds `v` to `*p` and returns the old
/// value. Relaxed: it orders nothing else, only this word's own updates; enough when the
/// word itself carries all the data.
///
/// # Safety
/// `p` points to an 8-byte aligned `u64` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_relaxed_u64(p: *mut u64, v: u64) -> u64 {
    let old: u64;
    // SAFETY: the caller guarantees `p` is a valid global address.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; atom.relaxed.gpu.global.add.u64 {o}, [g], {v}; }}",
             o = out(reg64) old, p = in(reg64) p, v = in(reg64) v, options(nostack))
    };
    old
}

/// `st.relaxed.gpu.global.u64 [p], v;`: a store that takes part in the memory model like
/// an atomic, so it does not race with other threads' atomics on the same word.
///
/// # Safety
/// `p` points to an 8-byte aligned `u64` in global memory.
#[inline(always)]
pub unsafe fn store_relaxed_u64(p: *mut u64, v: u64) {
    // SAFETY: the caller guarantees `p` is a valid global address.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; st.relaxed.gpu.global.u64 [g], {v}; }}",
             p = in(reg64) p, v = in(reg64) v, options(nostack))
    }
}

/// `ld.relaxed.gpu.global.u64 v, [p];`: a load that takes part in the memory model like an
/// atomic: it sees another block's [`store_relaxed_u64`] whole (never half of it) and is never
/// served a stale copy from this SM's L1. For a word that carries all its data itself (a
/// scan's tile status: flag and value in one word), no fence is needed around it.
///
/// # Safety
/// `p` points to an 8-byte aligned `u64` in global memory.
#[inline(always)]
pub unsafe fn load_relaxed_u64(p: *const u64) -> u64 {
    let v: u64;
    // SAFETY: the caller guarantees `p` is a valid global address.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.relaxed.gpu.global.u64 {v}, [g]; }}",
             v = out(reg64) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// `st.release.gpu.global.u32 [p], v;`: stores `v` so that a thread of any block that reads
/// it with [`load_acquire_u32`] also sees every write this thread made (or saw, through a
/// barrier) before the store: the way one block hands data to another within a launch.
///
/// # Safety
/// `p` is a 4-byte aligned global address of a `u32`.
#[inline(always)]
pub unsafe fn store_release_u32(p: *mut u32, v: u32) {
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; st.release.gpu.global.u32 [g], {v}; }}",
             p = in(reg64) p, v = in(reg32) v, options(nostack))
    }
}

/// `ld.acquire.gpu.global.u32 v, [p];`: the other half of [`store_release_u32`]: after
/// reading the released value, this thread sees what the releasing thread had written.
///
/// # Safety
/// `p` is a 4-byte aligned global address of a `u32`.
#[inline(always)]
pub unsafe fn load_acquire_u32(p: *const u32) -> u32 {
    let v: u32;
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; ld.acquire.gpu.global.u32 {v}, [g]; }}",
             v = out(reg32) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// `st.relaxed.gpu.global.u32 [p], v;`: a plain store that other blocks see whole.
///
/// # Safety
/// `p` is a 4-byte aligned global address of a `u32`.
#[inline(always)]
pub unsafe fn store_relaxed_u32(p: *mut u32, v: u32) {
    // SAFETY: the caller guarantees alignment and bounds.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {p}; st.relaxed.gpu.global.u32 [g], {v}; }}",
             p = in(reg64) p, v = in(reg32) v, options(nostack))
    }
}
