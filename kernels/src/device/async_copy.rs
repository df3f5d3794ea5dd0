//! Asynchronous copies from global to shared memory (`cp.async`, sm_80+): the copy engine
//! writes shared memory directly, without passing through registers, while the thread
//! goes on. A thread groups its copies with `commit`, and `wait` blocks until its groups
//! have landed; a block barrier then makes them visible to the other threads.

use core::arch::asm;

/// `cp.async.cg.shared.global [dst], [src], 16, src_bytes;`: copies `src_bytes` (0–16)
/// bytes and fills the rest of the 16 with zeros. `.cg`: through L2 only.
///
/// # Safety
/// `dst` is a 16-byte aligned shared address of 16 writable bytes; `src` is a 16-byte
/// aligned global address of `src_bytes` readable bytes (any valid address when 0).
#[inline(always)]
pub unsafe fn cp_async_16<T>(dst: u32, src: *const T, src_bytes: u32) {
    // SAFETY: the caller guarantees both ranges.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.cg.shared.global [{d}], [g], 16, {n}; }}",
             d = in(reg32) dst, s = in(reg64) src, n = in(reg32) src_bytes, options(nostack))
    }
}

/// `cp.async.cg.shared.global [dst], [src], 16;`: 16 bytes, all read ([`cp_async_16`] with
/// `src_bytes` = 16, for copies known to lie inside their source: no operand to select).
///
/// # Safety
/// `dst` is a 16-byte aligned shared address of 16 writable bytes; `src` a 16-byte aligned
/// global address of 16 readable bytes.
#[inline(always)]
pub unsafe fn cp_async_16_whole<T>(dst: u32, src: *const T) {
    // SAFETY: the caller guarantees both ranges.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.cg.shared.global [{d}], [g], 16; }}",
             d = in(reg32) dst, s = in(reg64) src, options(nostack))
    }
}

/// `cp.async.ca.shared.global [dst], [src], 4, src_bytes;`: one 4-byte element (0 or 4
/// bytes copied, zeros otherwise), for rows that are not 16-byte aligned.
///
/// # Safety
/// `dst` is a 4-byte aligned shared address; `src` a 4-byte aligned global address of
/// `src_bytes` readable bytes (any valid address when 0).
#[inline(always)]
pub unsafe fn cp_async_4(dst: u32, src: *const f32, src_bytes: u32) {
    // SAFETY: the caller guarantees both ranges.
    unsafe {
        asm!("{{ .reg .b64 g; cvta.to.global.u64 g, {s}; cp.async.ca.shared.global [{d}], [g], 4, {n}; }}",
             d = in(reg32) dst, s = in(reg64) src, n = in(reg32) src_bytes, options(nostack))
    }
}

/// `@p cp.async.ca.shared.global [dst], [src], 4;`: one 4-byte element, copied only where
/// `copy` holds; a predicated instruction, not a branch, so that a warp's lanes can copy
/// different counts in code that must stay one basic block.
///
/// # Safety
/// Where `copy` holds, `dst` is a 4-byte aligned shared address and `src` a 4-byte aligned
/// global address of 4 readable bytes; elsewhere neither is touched.
#[inline(always)]
pub unsafe fn cp_async_4_if(copy: bool, dst: u32, src: *const f32) {
    // SAFETY: the caller guarantees both addresses where `copy` holds.
    unsafe {
        asm!("{{ .reg .pred p; .reg .b64 g; setp.ne.u32 p, {c}, 0; cvta.to.global.u64 g, {s}; @p cp.async.ca.shared.global [{d}], [g], 4; }}",
             c = in(reg32) copy as u32, d = in(reg32) dst, s = in(reg64) src, options(nostack))
    }
}

/// `cp.async.commit_group;`: closes the group of this thread's copies issued so far.
#[inline(always)]
pub fn cp_async_commit() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.commit_group;", options(nostack)) }
}

/// `cp.async.wait_group N;`: waits until at most `N` of this thread's most recent copy
/// groups are still in flight (so all older groups have landed): the heart of a
/// multi-stage pipeline.
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    // SAFETY: no memory operands; N is an immediate.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) }
}

/// `cp.async.wait_all;`: waits until all of this thread's copies have landed.
#[inline(always)]
pub fn cp_async_wait_all() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.wait_all;", options(nostack)) }
}
