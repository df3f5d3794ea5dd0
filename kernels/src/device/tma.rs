//! Hopper's tensor memory accelerator (TMA: `cp.async.bulk.tensor`) and the shared-memory
//! barriers (`mbarrier`) whose transaction counts tell a waiting thread that its copy landed.
//!
//! A TMA copy moves a whole box of a 2-D tensor (here up to 64 × 256 16-bit values) from
//! global to shared memory on one thread's single instruction: the copy engine generates
//! the addresses, applies the 128-byte swizzle, and fills with zeros whatever lies outside
//! the tensor. The tensor's shape, strides, box and swizzle are in a 128-byte *tensor map*
//! the host encodes (`cuTensorMapEncodeTiled`) and the kernel receives by address.
//!
//! An `mbarrier` is a 64-bit object in shared memory with an expected arrival count and a
//! *phase* bit that flips each time the phase completes: when all expected threads have
//! arrived and all expected bytes (`expect_tx`) have been written by the copies that name
//! it. A thread waits for a phase by its parity (0 for the first phase, 1 for the next, …).
//!
//! sm_90 instructions of PTX ISA 8.0: in this project they live in the sm_90a build only
//! (`cfg(target_feature = "sm_90a")`), beside `wgmma`.

use core::arch::asm;

/// `mbarrier.init.shared::cta.b64 [bar], count;`: a barrier expecting `count` arrivals per
/// phase, in phase 0.
///
/// # Safety
/// `bar` is an 8-byte aligned shared address no other thread uses before a block barrier
/// that follows the initialization (and [`fence_barrier_init`]).
#[inline(always)]
pub unsafe fn mbarrier_init(bar: u32, count: u32) {
    // SAFETY: the caller's contract.
    unsafe { asm!("mbarrier.init.shared::cta.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count, options(nostack)) }
}

/// `fence.mbarrier_init.release.cluster;`: makes this thread's `mbarrier_init`s visible to
/// the copy engine (and the other threads, with the block barrier that follows).
#[inline(always)]
pub fn fence_barrier_init() {
    // SAFETY: no operands.
    unsafe { asm!("fence.mbarrier_init.release.cluster;", options(nostack)) }
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes;`: arrives on `bar` and tells
/// it to wait, in this phase, for `bytes` more bytes of copies that complete on it.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx(bar: u32, bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{b}], {n};", b = in(reg32) bar, n = in(reg32) bytes,
             options(nostack))
    }
}

/// `mbarrier.arrive.shared::cta.b64 _, [bar];`: one arrival on `bar`.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive(bar: u32) {
    // SAFETY: the caller's contract.
    unsafe { asm!("mbarrier.arrive.shared::cta.b64 _, [{b}];", b = in(reg32) bar, options(nostack)) }
}

/// `mbarrier.try_wait.parity.shared::cta.b64`: whether the phase of parity `parity` of
/// `bar` has completed. The hardware lets the thread sleep a while before it answers "not
/// yet", so a loop on it does not hammer the barrier.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_try_wait(bar: u32, parity: u32) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{b}], {q}; selp.u32 {d}, 1, 0, p; }}",
            b = in(reg32) bar, q = in(reg32) parity, d = out(reg32) done, options(nostack)
        )
    };
    done != 0
}

/// Waits until the phase of parity `parity` of `bar` has completed.
///
/// # Safety
/// `bar` is an initialized barrier.
#[inline(always)]
pub unsafe fn mbarrier_wait(bar: u32, parity: u32) {
    // SAFETY: the caller's contract.
    while !unsafe { mbarrier_try_wait(bar, parity) } {}
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`: copies the
/// box at coordinates (`x`, `y`) (`x` the contiguous dimension) of the tensor that `map`
/// describes to shared address `dst`; the copy completes its bytes on `bar`.
///
/// # Safety
/// `map` is the global address of a valid tensor map (64-byte aligned) whose box fits at
/// `dst` (aligned as its swizzle requires: 1024 bytes for 128-byte swizzle); `bar` is an
/// initialized barrier expecting these bytes.
#[inline(always)]
pub unsafe fn copy_tensor_2d(dst: u32, map: *const u8, x: u32, y: u32, bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
            d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, b = in(reg32) bar,
            options(nostack)
        )
    }
}
