//! Thread-block clusters (Hopper, sm_90): blocks launched together on neighbouring SMs of
//! one GPC, which can read, write and arrive on each other's shared memory.
//!
//! A cluster is asked for at launch (`cuLaunchKernelEx` with the cluster-dimension
//! attribute); the grid is then cut into clusters of that shape, and the hardware places
//! the blocks of one cluster on SMs of one GPC at the same time. Inside a cluster each
//! block has a *rank* (`%cluster_ctarank`), and every block's shared memory appears in a
//! shared *cluster window*: [`map_shared_to_rank`] turns a local shared address into the
//! address of the same bytes in another block of the cluster. The GEMM steps use this to
//! let one block's TMA copy land in both blocks of a pair (`multicast`, in
//! [`super::tma`]) and to arrive on the other block's `mbarrier`s.
//!
//! PTX ISA 7.8, sm_90: in this project they live in the sm_90a build, beside the other
//! Hopper wrappers.

use core::arch::asm;

/// This block's rank in its cluster, 0 to size − 1: `mov.u32 %r, %cluster_ctarank;`
#[inline(always)]
pub fn cluster_rank() -> u32 {
    let rank: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { asm!("mov.u32 {r}, %cluster_ctarank;", r = out(reg32) rank, options(pure, nomem, nostack)) };
    rank
}

/// This block's cluster's index in the grid (x): `mov.u32 %r, %clusterid.x;`
#[inline(always)]
pub fn cluster_idx() -> u32 {
    let id: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { asm!("mov.u32 {r}, %clusterid.x;", r = out(reg32) id, options(pure, nomem, nostack)) };
    id
}

/// Clusters in the grid (x): `mov.u32 %r, %nclusterid.x;`
#[inline(always)]
pub fn cluster_count() -> u32 {
    let count: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { asm!("mov.u32 {r}, %nclusterid.x;", r = out(reg32) count, options(pure, nomem, nostack)) };
    count
}

/// `barrier.cluster.arrive.release; barrier.cluster.wait.acquire;`: every thread of every
/// block of the cluster meets here, and each one's earlier shared-memory writes and
/// `mbarrier` arrivals (its own block's or another's) are seen by all after it. A block
/// must meet its cluster here before it exits while another block may still write to its
/// shared memory or arrive on its barriers; and after initializing barriers that other
/// blocks will use.
///
/// Not `.aligned`: the threads of a warp may reach it at different times (a producer
/// warp's first lane arrives after its copies, the others at once).
#[inline(always)]
pub fn cluster_sync() {
    // SAFETY: no operands; every thread of the cluster executes it (the caller's duty:
    // otherwise the cluster waits forever).
    unsafe { asm!("barrier.cluster.arrive.release;", "barrier.cluster.wait.acquire;", options(nostack)) }
}

/// `mapa.shared::cluster.u32 %r, addr, rank;`: the cluster-window address of the bytes at
/// local shared address `addr` in the block of rank `rank` (this block's own rank gives
/// its own bytes through the window).
#[inline(always)]
pub fn map_shared_to_rank(addr: u32, rank: u32) -> u32 {
    let mapped: u32;
    // SAFETY: an address computation; nothing is read or written.
    unsafe {
        asm!("mapa.shared::cluster.u32 {m}, {a}, {r};", m = out(reg32) mapped, a = in(reg32) addr,
             r = in(reg32) rank, options(pure, nomem, nostack))
    };
    mapped
}

/// `barrier.cluster.arrive.relaxed; barrier.cluster.wait;`: [`cluster_sync`] without the
/// release on arrival, which compiles to a GPU-wide memory barrier (`MEMBAR.ALL.GPU`).
/// Enough after initializing `mbarrier`s: `fence.mbarrier_init.release.cluster`
/// (`tma::fence_barrier_init`) already releases the initializations to the cluster.
#[inline(always)]
pub fn cluster_sync_relaxed() {
    // SAFETY: no operands; every thread of the cluster executes it (the caller's duty).
    unsafe { asm!("barrier.cluster.arrive.relaxed;", "barrier.cluster.wait;", options(nostack)) }
}
