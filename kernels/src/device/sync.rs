//! Barriers: where threads wait for each other, and what memory they then see.

use core::arch::{asm, nvptx};

/// Block barrier, `bar.sync 0;` (CUDA's `__syncthreads()`): every thread of the block
/// waits here until all have arrived, and the shared- and global-memory writes each made
/// before it are visible to all after it.
///
/// Uses the compiler intrinsic rather than `asm!`: LLVM knows the intrinsic is convergent
/// and will not duplicate it into divergent branches. Every thread of the block must reach
/// the same call.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: callers reach this barrier with the whole block (see above).
    unsafe { nvptx::_syncthreads() }
}

/// Warp barrier, `bar.warp.sync mask;` (CUDA's `__syncwarp(mask)`): the lanes in `mask`
/// wait for each other, and their memory accesses before it are ordered before their
/// accesses after it.
///
/// Since Volta (sm_70) the lanes of a warp are scheduled independently: a warp is no
/// longer guaranteed to run in lockstep, so lanes that exchange data through shared memory
/// must meet here between the writes and the reads.
///
/// Every lane in `mask` must reach this call.
#[inline(always)]
pub fn sync_warp(mask: u32) {
    // SAFETY: callers pass a mask of lanes that all reach this call.
    unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack)) }
}
