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

/// Named barrier, `bar.sync id, threads;`: the `threads` threads (a multiple of 32, whole
/// warps) that name barrier `id` (1 to 15; 0 is [`sync_threads`]'s) wait for each other,
/// with the memory ordering of a block barrier among them. Lets one warpgroup of a block
/// meet without stopping the others (a producer warp, a warpgroup in another phase).
///
/// An `asm!` block, which LLVM does not know to be convergent: call it where every one of
/// the `threads` threads reaches the same call, outside lane-dependent branches.
#[inline(always)]
pub fn sync_named(id: u32, threads: u32) {
    // SAFETY: callers bring exactly `threads` threads, whole warps, to this call.
    unsafe { asm!("bar.sync {i}, {n};", i = in(reg32) id, n = in(reg32) threads, options(nostack)) }
}

/// Named barrier arrival, `bar.arrive id, threads;`: counts this thread's arrival at
/// barrier `id` of `threads` threads without waiting for the others; whoever waits there
/// with [`sync_named`] sees this thread's memory accesses before the arrival (a release at
/// block scope). Lets a warpgroup hand a result to another warp and go on.
///
/// As [`sync_named`]: whole warps, outside lane-dependent branches; the `threads` threads of
/// one use of the barrier are the arriving ones and the waiting ones together.
#[inline(always)]
pub fn arrive_named(id: u32, threads: u32) {
    // SAFETY: callers bring whole warps, and the waiters of the same count, to this barrier.
    unsafe { asm!("bar.arrive {i}, {n};", i = in(reg32) id, n = in(reg32) threads, options(nostack)) }
}

/// Threads of one warpgroup, the unit that takes [`Turns`].
const WARPGROUP_THREADS: u32 = 128;

/// Two consumer warpgroups of a block taking turns (attention's a06 and a07, the GEMM's
/// w17): warpgroup `w` waits for its turn at named barrier `FIRST + w` ([`sync_named`]) and
/// hands the turn over by arriving at the other's ([`arrive_named`]), each use of either
/// barrier the 256 threads of both. Whatever a warpgroup does between [`Turns::wait`] and
/// [`Turns::hand_over`] (issue its `wgmma`, typically) alternates strictly with the other's.
#[derive(Clone, Copy)]
pub struct Turns<const FIRST: u32> {
    warpgroup: u32,
}

impl<const FIRST: u32> Turns<FIRST> {
    /// The threads at each use of a turn barrier: both warpgroups.
    const THREADS: u32 = 2 * WARPGROUP_THREADS;

    /// Consumer warpgroup `warpgroup` (0 or 1): the whole warpgroup uses it.
    #[inline(always)]
    pub fn new(warpgroup: u32) -> Self {
        Self { warpgroup }
    }

    /// The warpgroup this side belongs to.
    #[inline(always)]
    pub fn warpgroup(self) -> u32 {
        self.warpgroup
    }

    /// Before the first turn: warpgroup 1 hands warpgroup 0 the first turn.
    #[inline(always)]
    pub fn open(self) {
        if self.warpgroup == 1 {
            arrive_named(FIRST, Self::THREADS);
        }
    }

    /// Waits for this warpgroup's turn.
    #[inline(always)]
    pub fn wait(self) {
        sync_named(FIRST + self.warpgroup, Self::THREADS);
    }

    /// Hands the turn to the other warpgroup.
    #[inline(always)]
    pub fn hand_over(self) {
        arrive_named(FIRST + (1 - self.warpgroup), Self::THREADS);
    }

    /// After the last turn: warpgroup 0 takes warpgroup 1's last arrival, so that every use
    /// of either barrier had its 256 threads.
    #[inline(always)]
    pub fn close(self) {
        if self.warpgroup == 0 {
            self.wait();
        }
    }
}
