//! Stream-K's pieces in global memory (w07, w11–w13): the workspace where a *contributor*
//! leaves its partial tile and raises a flag, and the *owner* that waits for the flag and
//! adds the partial. Which cluster does what is `common::gemm::stream_k`'s schedule.
//!
//! The workspace holds, per block of the grid, a partial tile (`PARTIAL_FLOATS` f32), and
//! after all of them a 4-byte flag per block: zero between launches (the owner resets each
//! flag it has seen raised), 1 while a partial waits for its owner. A partial is stored as
//! `[piece][consumer thread]`, 16 bytes a piece, so that each warp's 16-byte stores and
//! loads are contiguous; every consumer thread writes and reads its own slots only.

use super::{M64n256, Shape};
use crate::device::atomic::{fence_acq_rel_gpu, load_acquire_u32, store_relaxed_u32, store_release_u32};
use crate::device::cluster::cluster_rank;
use crate::device::load::{load_l2_f32x4, store_f32x4};
use crate::device::sync::sync_named;
use crate::device::wgmma::M64N256_ACC;
use crate::unroll;
use common::gemm::stream_k::Role;
use core::marker::PhantomData;

/// f32 in one 16-byte piece of a partial tile, and its bytes.
pub const PIECE_FLOATS: u32 = 4;
pub const PIECE_BYTES: u32 = 16;

/// A stream-K step's shapes beyond [`Shape`]: from the same module of `common::gemm`
/// ([`shape!`](super::shape)'s `stream_k`).
pub trait StreamKShape: Shape<Acc = M64n256> {
    /// At most this many clusters share one unit's k tiles.
    const MAX_SPLIT: u32;
    /// f32 of one block's partial tile: `BM × BN`.
    const PARTIAL_FLOATS: u32;
    /// 16-byte pieces of a consumer thread's accumulators (32: the unroll below).
    const ACC_PIECES: u32 = M64N256_ACC as u32 / PIECE_FLOATS;
    const VALID_STREAM_K: () = assert!(
        Self::ACC_PIECES == 32
            && Self::ACC_PIECES * PIECE_FLOATS * Self::CONSUMER_THREADS == Self::PARTIAL_FLOATS
    );
}

/// The named barrier at which a block's consumer threads meet around the workspace (ids 1
/// and 2 are the consumer warpgroups' own, in the epilogue).
pub const CONSUMERS_BARRIER: u32 = 3;

/// This block's view of the launch's workspace.
pub struct Workspace<S> {
    base: *mut f32,
    /// Blocks in the grid: the flags start after their partial tiles.
    blocks: u32,
    rank: u32,
    shape: PhantomData<S>,
}

impl<S> Clone for Workspace<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Workspace<S> {}

impl<S: StreamKShape> Workspace<S> {
    /// The workspace at `base`, for a grid of `clusters` clusters.
    #[inline(always)]
    pub fn new(base: *mut f32, clusters: u32) -> Self {
        let () = S::VALID_STREAM_K;
        Self { base, blocks: clusters * S::CLUSTER_M, rank: cluster_rank(), shape: PhantomData }
    }

    /// The partial tile of this block's counterpart (same rank) in cluster `cluster`.
    #[inline(always)]
    pub fn partial(self, cluster: u32) -> *mut f32 {
        // SAFETY (of the `add`): inside the workspace, which holds a partial per block.
        unsafe { self.base.add(((cluster * S::CLUSTER_M + self.rank) * S::PARTIAL_FLOATS) as usize) }
    }

    /// The flag of this block's counterpart in cluster `cluster`.
    #[inline(always)]
    pub fn flag(self, cluster: u32) -> *mut u32 {
        // SAFETY: inside the workspace, after the partials.
        unsafe {
            (self.base.add((self.blocks * S::PARTIAL_FLOATS) as usize) as *mut u32)
                .add((cluster * S::CLUSTER_M + self.rank) as usize)
        }
    }

    /// A contributor's consumer thread `tid` stores its accumulators in its slots of this
    /// block's partial (cluster `cluster`'s), 16 bytes at a time (`st.global.v4`).
    ///
    /// # Safety
    /// The workspace holds `workspace_bytes(blocks)` bytes; the owner reads the partial only
    /// after this block's flag is raised, and this block writes it at most once per launch.
    #[rustc_force_inline]
    pub unsafe fn store_partial(self, cluster: u32, tid: u32, acc: &M64n256) {
        let mine = self.partial(cluster);
        unroll_pieces(|i| {
            let at = i * PIECE_FLOATS;
            // SAFETY: piece i of this thread's slot, inside this block's partial.
            unsafe {
                store_f32x4(
                    mine.add(((i * S::CONSUMER_THREADS + tid) * PIECE_FLOATS) as usize),
                    [acc[at as usize], acc[at as usize + 1], acc[at as usize + 2], acc[at as usize + 3]],
                )
            }
        });
    }

    /// One thread raises this block's flag once every consumer's partial stores are done
    /// (after a barrier with them): `fence.acq_rel.gpu`, then `st.release.gpu` of 1, so that
    /// an owner who sees the flag sees the partial.
    ///
    /// # Safety
    /// As [`store_partial`](Self::store_partial); the flag is zero (as the last launch left it).
    #[inline(always)]
    pub unsafe fn raise_flag(self, cluster: u32) {
        fence_acq_rel_gpu();
        // SAFETY: this block's flag, inside the workspace.
        unsafe { store_release_u32(self.flag(cluster), 1) };
    }

    /// One thread of the owner waits until cluster `contributor`'s flag is raised
    /// (`ld.acquire.gpu` in a loop) and resets it for the next launch.
    ///
    /// # Safety
    /// That cluster contributes to this block's unit (so it raises the flag once), and is
    /// resident: every cluster of the grid runs at once.
    #[inline(always)]
    pub unsafe fn take_flag(self, contributor: u32) {
        // SAFETY: the contributor's flag; it is raised once, after its partial, and reset
        // here for the next launch.
        unsafe {
            while load_acquire_u32(self.flag(contributor)) == 0 {}
            store_relaxed_u32(self.flag(contributor), 0);
        }
    }

    /// An owner's consumer thread `tid` adds its slots of cluster `contributor`'s partial to
    /// its accumulators, 16 bytes at a time from L2 (`ld.global.cg`).
    ///
    /// # Safety
    /// The contributor's flag was seen raised ([`take_flag`](Self::take_flag)) by a thread
    /// that has since met this one at a barrier.
    #[rustc_force_inline]
    pub unsafe fn add_partial(self, contributor: u32, tid: u32, acc: &mut M64n256) {
        let theirs = self.partial(contributor);
        unroll_pieces(|i| {
            // SAFETY: as the contributor stored it; its flag was seen raised.
            let p = unsafe {
                load_l2_f32x4(theirs.add(((i * S::CONSUMER_THREADS + tid) * PIECE_FLOATS) as usize))
            };
            for e in 0..PIECE_FLOATS as usize {
                acc[(i * PIECE_FLOATS) as usize + e] += p[e];
            }
        });
    }

    /// w07's fix-up of one piece's accumulators, by every consumer thread (`tid`) of the
    /// block of cluster `cluster`. A contributor stores its partial, the consumers meet
    /// ([`CONSUMERS_BARRIER`]) and thread 0 raises the flag: the tile is not stored here
    /// (`false`). An owner, for each contributor, has thread 0 take its flag, meets, and adds
    /// its partial: the tile is complete (`true`), as a whole unit's is.
    ///
    /// # Safety
    /// As [`store_partial`](Self::store_partial), [`take_flag`](Self::take_flag) and
    /// [`add_partial`](Self::add_partial), with `role` the schedule's for this piece.
    #[rustc_force_inline]
    pub unsafe fn fix_up(self, role: Role, cluster: u32, tid: u32, acc: &mut M64n256) -> bool {
        match role {
            Role::Contributor => {
                // Leave the partial tile for the owner, then raise this block's flag.
                // SAFETY: the caller's contract.
                unsafe { self.store_partial(cluster, tid, acc) };
                sync_named(CONSUMERS_BARRIER, S::CONSUMER_THREADS);
                if tid == 0 {
                    // SAFETY: after every consumer's stores (the barrier above).
                    unsafe { self.raise_flag(cluster) };
                }
                false
            }
            Role::Owner { first, contributors } => {
                for j in first..first + contributors {
                    if tid == 0 {
                        // SAFETY: cluster j contributes to this unit (the schedule says so).
                        unsafe { self.take_flag(j) };
                    }
                    sync_named(CONSUMERS_BARRIER, S::CONSUMER_THREADS);
                    // SAFETY: thread 0 saw the flag before the barrier.
                    unsafe { self.add_partial(j, tid, acc) };
                }
                true
            }
            Role::Whole => true,
        }
    }
}

/// Calls `f` for each 16-byte piece index (0 to 31) of a consumer thread's accumulators,
/// written out (a loop would index the accumulators at run time and move them to local
/// memory).
#[inline(always)]
pub fn unroll_pieces(mut f: impl FnMut(u32)) {
    unroll!(8, a => {
        unroll!(4, b => {
            f((a * 4 + b) as u32);
        });
    });
}
