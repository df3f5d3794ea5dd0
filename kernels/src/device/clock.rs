//! Clocks a thread can read, for probes that time work inside a kernel.
//!
//! - `%clock64`: this SM's cycle counter. Cheap to read and exact in cycles, but each SM
//!   has its own and the SM clock moves with boost, so compare readings on one SM only.
//! - `%globaltimer`: a GPU-wide nanosecond timer. Comparable across SMs, but it ticks
//!   coarsely (about a microsecond on current parts): time many operations between reads.

use core::arch::asm;

/// `mov.u64 %r, %clock64;`: this SM's cycle count.
#[inline(always)]
pub fn clock64() -> u64 {
    let t: u64;
    // SAFETY: reading a special register has no preconditions. Neither `pure` nor `nomem`:
    // two reads must not be merged, and the compiler must not move loads across a read.
    unsafe { asm!("mov.u64 {t}, %clock64;", t = out(reg64) t, options(nostack)) };
    t
}

/// `mov.u64 %r, %globaltimer;`: nanoseconds on the GPU-wide timer.
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    let t: u64;
    // SAFETY: reading a special register has no preconditions (kept in place as above).
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack)) };
    t
}

/// `nanosleep.u32 t;`: suspends the thread for about `t` nanoseconds (up to twice that, the
/// hardware's choice): a back-off while spinning on another block's word, and the scan's
/// test-only jitter that shuffles the order in which blocks claim their tiles. sm_70 and newer.
#[inline(always)]
pub fn nanosleep(t: u32) {
    // SAFETY: no operands in memory; the thread only waits.
    unsafe { core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) t, options(nostack, nomem)) }
}
