//! The main loops: which units a cluster computes, the producer thread's TMA copies of a
//! unit's k tiles, and the consumer warpgroups' `wgmma` on them.

use super::pipeline::{PipelineState, SharedLayout};
use super::{ATOM_BYTES, Accumulator, ROW_BYTES, Shape, WARPGROUP, WARPGROUP_ROWS};
use crate::device::cluster::cluster_rank;
use crate::device::tma::{copy_tensor_2d, copy_tensor_2d_multicast, mbarrier_wait};
use crate::device::wgmma::{self, descriptor};
use crate::unroll;
use common::gemm::grouped_tile;
use core::marker::PhantomData;

/// The units of an `m × n` C: `CLUSTER_M` tiles stacked along M, one per block of a
/// cluster, numbered in w03's grouped order (bands of `GROUP_ROWS` unit rows, walked
/// column by column, so that the clusters running at one time share rows of A and columns
/// of B in L2).
pub struct Units<S> {
    /// Rows of units (of `CLUSTER_M` tile rows each), columns of tiles, and units.
    pair_rows: u32,
    tile_cols: u32,
    count: u32,
    rank: u32,
    shape: PhantomData<S>,
}

impl<S> Clone for Units<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Units<S> {}

impl<S: Shape> Units<S> {
    #[inline(always)]
    pub fn new(m: u32, n: u32) -> Self {
        let rank = cluster_rank();
        let (tile_rows, tile_cols) = (m.div_ceil(S::BM), n.div_ceil(S::BN));
        let pair_rows = tile_rows.div_ceil(S::CLUSTER_M);
        Self { pair_rows, tile_cols, count: pair_rows * tile_cols, rank, shape: PhantomData }
    }

    /// How many units C has.
    #[inline(always)]
    pub fn count(self) -> u32 {
        self.count
    }

    /// The first row and column of this block's tile of `unit`: the block's cluster rank
    /// picks the tile within the unit (past M for the second block of a last, odd row: its
    /// A box reads zeros, it stores nothing).
    #[inline(always)]
    pub fn origin(self, unit: u32) -> (u32, u32) {
        let (pair_row, col) = grouped_tile(unit, self.pair_rows, self.tile_cols, S::GROUP_ROWS);
        ((pair_row * S::CLUSTER_M + self.rank) * S::BM, col * S::BN)
    }
}

/// The producer thread: the one thread of the block that issues the TMA copies of A and B.
pub struct Producer<S> {
    smem: SharedLayout<S>,
    a_map: *const u8,
    b_map: *const u8,
}

impl<S> Clone for Producer<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Producer<S> {}

impl<S: Shape> Producer<S> {
    /// `a_map` and `b_map` are the global addresses of the tensor maps of A and B (16-bit,
    /// row-major, 128-byte swizzle, boxes `A_BOX` and `B_BOX`), as the launch passes them.
    #[inline(always)]
    pub fn new(smem: SharedLayout<S>, a_map: *const u8, b_map: *const u8) -> Self {
        Self { smem, a_map, b_map }
    }

    /// Copies k tiles `k_begin..k_end` of the tile at `(row0, col0)` into the next stages:
    /// for each, takes the stage ([`SharedLayout::producer_acquire`], `STAGE_BYTES`
    /// expected), copies A's box (`cp.async.bulk.tensor`) and this block's
    /// `PANELS_PER_BLOCK` of B's panels, multicast to every block of the cluster
    /// (`.multicast::cluster`), all completing on the stage's "full" barrier.
    ///
    /// # Safety
    /// The barriers are initialized; every block of the cluster walks the same k tiles of
    /// the same units, so their stages stay in step (each block's "full" barrier expects the
    /// bytes that all of them copy into it).
    #[inline(always)]
    pub unsafe fn load_k_tiles(
        self,
        state: &mut PipelineState<S>,
        (row0, col0): (u32, u32),
        k_begin: u32,
        k_end: u32,
    ) {
        let rank = cluster_rank();
        for t in k_begin..k_end {
            // SAFETY (the cluster): stage s is free in every block (its "empty" barrier
            // counts the consumers of all of them), and the boxes land inside it.
            unsafe {
                let s = self.smem.producer_acquire(*state, S::STAGE_BYTES);
                let full = self.smem.full(s);
                copy_tensor_2d(self.smem.a_stage(s), self.a_map, t * S::BK, row0, full);
                for p in 0..S::PANELS_PER_BLOCK {
                    let panel = rank * S::PANELS_PER_BLOCK + p;
                    let dst = self.smem.b_stage(s) + panel * S::B_PANEL_BYTES;
                    // N-major B: the box's x is columns, its y k; K-major Bᵀ: x is k, y columns.
                    let (x, y) = if S::B_K_MAJOR {
                        (t * S::BK, col0 + panel * S::B_PANEL_COLUMNS)
                    } else {
                        (col0 + panel * S::B_PANEL_COLUMNS, t * S::BK)
                    };
                    copy_tensor_2d_multicast(dst, self.b_map, x, y, full, S::CLUSTER_MASK);
                }
            }
            state.advance();
        }
    }
}

/// A consumer warpgroup: multiplies the stages' tiles into its accumulators.
pub struct Consumer<'a, S> {
    smem: &'a SharedLayout<S>,
    warpgroup: u32,
}

impl<'a, S: Shape> Consumer<'a, S> {
    /// Consumer thread `tid` (below `CONSUMER_THREADS`).
    #[inline(always)]
    pub fn new(smem: &'a SharedLayout<S>, tid: u32) -> Self {
        Self { smem, warpgroup: tid / WARPGROUP }
    }

    /// The shared layout its stages live in.
    #[inline(always)]
    pub fn smem(&self) -> &'a SharedLayout<S> {
        self.smem
    }

    /// The descriptor of this warpgroup's 64 rows of stage `s`'s A tile, at the k step `kk`
    /// of the tile (K-major: a step moves the start by its bytes within the swizzle row).
    #[inline(always)]
    pub fn a_descriptor(&self, s: u32, kk: u32) -> u64 {
        let step_bytes = kk * S::MMA_K * S::INPUT_BYTES;
        descriptor(self.smem.a_stage(s) + self.warpgroup * WARPGROUP_ROWS * ROW_BYTES + step_bytes, 0, ATOM_BYTES)
    }

    /// The main loop over k tiles `k_begin..k_end` of one tile, into `acc` (zero before a
    /// unit's first k tile): for each, waits until its stage is full (its "full" barrier's
    /// phase for this lap), issues 4 `wgmma` (k 16 each; A is this warpgroup's 64 rows of
    /// the stage's A tile, K-major; B the stage's B tile, N-major), commits them, waits
    /// until the previous k tile's group has finished (one group in flight) and releases
    /// that k tile's stage ([`consumer_release`](super::pipeline::consumer_release)). The
    /// last stage is released after a wait for every group: `acc` may be read after it
    /// (`device::wgmma`'s layout).
    ///
    /// # Safety
    /// Every thread of the warpgroup calls it (`wgmma` is warpgroup-collective); the
    /// barriers are initialized and the producer loads the same k tiles, in order.
    #[inline(always)]
    pub unsafe fn mma_k_tiles<const BF16: bool>(
        &self,
        state: &mut PipelineState<S>,
        k_begin: u32,
        k_end: u32,
        acc: &mut S::Acc,
        release: &impl Fn(u32),
    ) {
        // e5m2 B has only the promoting loop (w20's, w15's on its shape).
        const { assert!(!S::B_E5M2) };
        for t in k_begin..k_end {
            let s = state.index();
            // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
            unsafe { mbarrier_wait(self.smem.full(s), state.phase()) };
            wgmma::fence();
            // MMAS_PER_K_TILE `wgmma`, k 16 each, or 32 of 8-bit inputs: 32 bytes of each
            // K-major row (`Shape::VALID` checks the count).
            unroll!(4, kk => {
                let step_bytes = kk as u32 * S::MMA_K * S::INPUT_BYTES;
                let a_desc = self.a_descriptor(s, kk as u32);
                let b_desc = if S::B_K_MAJOR {
                    descriptor(self.smem.b_stage(s) + step_bytes, 0, ATOM_BYTES)
                } else {
                    descriptor(self.smem.b_stage(s) + kk as u32 * S::MMA_K * ROW_BYTES, S::B_PANEL_BYTES, ATOM_BYTES)
                };
                // SAFETY: the whole warpgroup, after the fence; no block refills stage s
                // before this warp has released it.
                unsafe {
                    if S::INPUT_BYTES == 1 { acc.mma_e4m3(a_desc, b_desc) } else { acc.mma::<BF16>(a_desc, b_desc) }
                };
            });
            wgmma::commit_group();
            wgmma::wait_group::<1>();
            if t > k_begin {
                release(state.previous().index());
            }
            state.advance();
        }
        wgmma::wait_group::<0>();
        release(state.previous().index());
    }
}
