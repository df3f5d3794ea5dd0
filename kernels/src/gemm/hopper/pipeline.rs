//! The stage ring between the producer and the consumers, and the dynamic shared memory it
//! lives in.
//!
//! `STAGES` stages each hold one k tile (A's tile, then B's panels). Stage `s` has two
//! `mbarrier`s (`device::tma`): *full*, on which the producer arrives once with the bytes
//! to expect and the TMA copies complete those bytes, and *empty*, on which every consumer
//! warp of every block of the cluster arrives once it has finished reading the stage (the
//! copies into a stage are multicast, so all blocks must be done with it). Each side walks
//! the ring in the same order, the n-th k tile (or partial chunk, w12) in stage
//! `n % STAGES`, and waits for the barrier's phase of its lap: lap `n / STAGES` completes
//! phase `n / STAGES` of both barriers, and a wait names a phase by its parity.

use super::{Shape, WARPGROUP};
use crate::device::cluster::map_shared_to_rank;
use crate::device::shared::dynamic_shared_aligned;
use crate::device::tma::{
    fence_barrier_init, mbarrier_arrive_expect_tx, mbarrier_arrive_remote, mbarrier_init, mbarrier_test_wait,
    mbarrier_wait,
};
use core::marker::PhantomData;

/// Bytes of one `mbarrier`.
const MBARRIER_BYTES: u32 = 8;

/// Where one role is in the stage ring (CUTLASS's `PipelineState`): how many stages it has
/// passed, from which the stage ([`index`](Self::index)) and the barrier phase
/// ([`phase`](Self::phase)) follow.
///
/// CUTLASS keeps the index and the phase as two fields and wraps the index by hand; this
/// keeps the count and divides, which is what w02–w05 write out (`it % STAGES`,
/// `(it / STAGES) % 2`; STAGES is a constant, so a mask or a multiply).
pub struct PipelineState<S> {
    count: u32,
    shape: PhantomData<S>,
}

impl<S> Clone for PipelineState<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for PipelineState<S> {}

impl<S: Shape> PipelineState<S> {
    /// Before the first stage: stage 0, phase 0.
    #[inline(always)]
    pub fn start() -> Self {
        Self { count: 0, shape: PhantomData }
    }

    /// The stage this role is at: `count % STAGES`.
    #[inline(always)]
    pub fn index(self) -> u32 {
        self.count % S::STAGES
    }

    /// The parity of this lap's phase of the stage's barriers: `(count / STAGES) % 2`.
    #[inline(always)]
    pub fn phase(self) -> u32 {
        (self.count / S::STAGES) % 2
    }

    /// The parity of the previous lap's phase of the stage's "empty" barrier, for which the
    /// producer waits before refilling the stage; `None` in the first lap, when every stage
    /// is free.
    #[inline(always)]
    pub fn empty_phase(self) -> Option<u32> {
        if self.count >= S::STAGES { Some((self.count / S::STAGES - 1) % 2) } else { None }
    }

    /// On to the next stage.
    #[inline(always)]
    pub fn advance(&mut self) {
        self.count += 1;
    }

    /// The state one stage back (after at least one [`advance`](Self::advance)): the stage
    /// a consumer releases once the next one's `wgmma` are issued.
    #[inline(always)]
    pub fn previous(self) -> Self {
        Self { count: self.count - 1, shape: PhantomData }
    }

    /// The state one stage on: the stage the next k tile lands in, and that lap's phase.
    #[inline(always)]
    pub fn next(self) -> Self {
        Self { count: self.count + 1, shape: PhantomData }
    }
}

/// How a consumer warpgroup learns that its k tiles' stages are full. Without `PROBE` (w08–w22)
/// it waits on each k tile's "full" barrier before that k tile's `wgmma`. With `PROBE` (w23) it
/// asks for the next k tile's stage as soon as this one's `wgmma` are committed
/// (`mbarrier.test_wait`, answered at once) and, at the next k tile, waits only where the answer
/// was no: the barrier's answer leaves the path between two batches of `wgmma`.
pub struct FullWaits<S, const PROBE: bool> {
    /// The probe under the last k tile saw the next one's stage full.
    landed: bool,
    shape: PhantomData<S>,
}

impl<S: Shape, const PROBE: bool> FullWaits<S, PROBE> {
    /// Before a unit's first k tile: nothing seen yet.
    #[inline(always)]
    pub fn new() -> Self {
        Self { landed: false, shape: PhantomData }
    }

    /// Before the `wgmma` of the k tile in stage `s` (`state`'s): waits until the stage is
    /// full, unless the probe under the k tile before saw it so.
    ///
    /// # Safety
    /// The barriers are initialized; `state` is this consumer's and `s` its stage.
    #[inline(always)]
    pub unsafe fn wait(&self, smem: &SharedLayout<S>, s: u32, state: PipelineState<S>) {
        if !(PROBE && self.landed) {
            // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
            unsafe { mbarrier_wait(smem.full(s), state.phase()) };
        }
    }

    /// Once k tile `state`'s `wgmma` are committed (with `PROBE`; else nothing): asks whether
    /// the next k tile's stage is full. Past a unit's last k tile it asks a barrier that
    /// exists, and the answer goes unused (a unit starts with [`FullWaits::new`]).
    ///
    /// # Safety
    /// The barriers are initialized; `state` is this consumer's.
    #[inline(always)]
    pub unsafe fn probe_next(&mut self, smem: &SharedLayout<S>, state: PipelineState<S>) {
        if PROBE {
            let next = state.next();
            // SAFETY: an initialized barrier.
            self.landed = unsafe { mbarrier_test_wait(smem.full(next.index()), next.phase()) };
        }
    }
}

/// The dynamic shared memory of a Hopper step, from its base rounded up to 1024 bytes (the
/// 128-byte swizzle's alignment):
///
/// | bytes | what |
/// | --- | --- |
/// | `STAGES × STAGE_BYTES` | the stages: A's tile (`A_BYTES`), then B's `BN / 64` panels |
/// | `C_STAGING_BYTES` | C's staging boxes, `C_BUFFERS` per consumer warpgroup (1024-byte aligned) |
/// | `2 × STAGES × 8` | the `mbarrier`s: `STAGES` "full", then `STAGES` "empty" |
///
/// `common::gemm`'s `SHARED_BYTES` is their sum plus `ALIGN_SLACK`. All addresses are
/// 32-bit shared-window addresses.
pub struct SharedLayout<S> {
    base: u32,
    /// The first barrier, after the stages and the staging boxes.
    barriers: u32,
    shape: PhantomData<S>,
}

impl<S> Clone for SharedLayout<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for SharedLayout<S> {}

impl<S: Shape> SharedLayout<S> {
    /// The layout at this block's dynamic shared memory (launched with the step's
    /// `SHARED_BYTES`).
    #[inline(always)]
    pub fn new() -> Self {
        let () = S::VALID;
        let base = dynamic_shared_aligned(S::ALIGN_SLACK);
        Self { base, barriers: base + S::STAGES * S::STAGE_BYTES + S::C_STAGING_BYTES, shape: PhantomData }
    }

    /// A's tile in stage `s`.
    #[inline(always)]
    pub fn a_stage(&self, s: u32) -> u32 {
        self.base + s * S::STAGE_BYTES
    }

    /// B's tile (its first panel) in stage `s`.
    #[inline(always)]
    pub fn b_stage(&self, s: u32) -> u32 {
        self.base + s * S::STAGE_BYTES + S::A_BYTES
    }

    /// Consumer warpgroup `w`'s staging box `b` of C.
    #[inline(always)]
    pub fn c_box(&self, w: u32, b: u32) -> u32 {
        self.base + S::STAGES * S::STAGE_BYTES + (w * S::C_BUFFERS + b) * S::C_BOX_BYTES
    }

    /// Stage `s`'s "full" barrier: the producer's arrival and the copies' bytes.
    #[inline(always)]
    pub fn full(&self, s: u32) -> u32 {
        self.barriers + s * MBARRIER_BYTES
    }

    /// Stage `s`'s "empty" barrier: the consumer warps of every block of the cluster.
    #[inline(always)]
    pub fn empty(&self, s: u32) -> u32 {
        self.barriers + (S::STAGES + s) * MBARRIER_BYTES
    }

    /// The first byte past the barriers: where a step keeps shared data of its own (its
    /// `SHARED_BYTES` reserves the room).
    #[inline(always)]
    pub fn past_barriers(&self) -> u32 {
        self.barriers + 2 * S::STAGES * MBARRIER_BYTES
    }

    /// Initializes every stage's two barriers (`mbarrier.init`; "full" expects the
    /// producer's one arrival, "empty" one per consumer warp of the cluster) and publishes
    /// them to the cluster (`fence.mbarrier_init.release.cluster`). One thread calls it;
    /// a cluster barrier follows before any block uses them, since the other blocks' copies
    /// and arrivals land on this block's barriers.
    #[inline(always)]
    pub fn init_barriers(&self) {
        for s in 0..S::STAGES {
            // SAFETY: barriers inside the dynamic shared memory (the launch sizes it from
            // `SHARED_BYTES`), used only after the cluster barrier that follows this call.
            unsafe {
                mbarrier_init(self.full(s), 1);
                mbarrier_init(self.empty(s), S::CONSUMER_WARPS * S::CLUSTER_M);
            }
        }
        fence_barrier_init();
    }

    /// The producer thread takes the stage of `state`: waits until the consumers of every
    /// block of the cluster have released it (its "empty" barrier's previous phase; not in
    /// the first lap), then arrives on its "full" barrier expecting `bytes` of copies.
    /// Returns the stage.
    ///
    /// # Safety
    /// The barriers are initialized, and the producer issues exactly `bytes` of copies
    /// completing on `full(stage)` before it takes the stage again.
    #[inline(always)]
    pub unsafe fn producer_acquire(&self, state: PipelineState<S>, bytes: u32) -> u32 {
        let s = state.index();
        // SAFETY: initialized barriers (the caller's contract).
        unsafe {
            if let Some(phase) = state.empty_phase() {
                mbarrier_wait(self.empty(s), phase);
            }
            mbarrier_arrive_expect_tx(self.full(s), bytes);
        }
        s
    }
}

/// The consumers' release of a stage, as the closure the main loop and w12's fix-up call
/// with the stage `s` this warp has finished reading: lane 0 arrives on the stage's "empty"
/// barrier (`empty(s)`) in every block of the cluster (`mbarrier.arrive.shared::cluster`
/// through `mapa`), since each block's copies into the stage land in all of them. Every
/// lane of the warp calls it, after the warp's reads of the stage are done (a `wgmma` wait,
/// or a proxy fence and a warp barrier).
///
/// A closure over the caller's `lane` and `empty` (`|s| smem.empty(s)`), as w02–w05 write
/// it: built this way, the steps compile to the instructions their written-out versions
/// did.
#[inline(always)]
pub fn consumer_release<'a, S: Shape>(lane: &'a u32, empty: &'a impl Fn(u32) -> u32) -> impl Fn(u32) + 'a {
    move |s: u32| {
        if *lane == 0 {
            for r in 0..S::CLUSTER_M {
                // SAFETY: an initialized barrier of a block of the cluster, which waits at the
                // final cluster barrier before it exits.
                unsafe { mbarrier_arrive_remote(map_shared_to_rank(empty(s), r)) };
            }
        }
    }
}

/// Whether thread `tid` is in the producer warpgroup, which follows the consumers'.
#[inline(always)]
pub fn is_producer<S: Shape>(tid: u32) -> bool {
    tid / WARPGROUP == S::CONSUMER_WARPGROUPS
}
