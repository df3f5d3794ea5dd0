//! Step w19 — per-block scales: DeepSeek-V3's fine-grained FP8, applied at the promotion.
//!
//! Idea: DeepSeek-V3's fine-grained scales (A per row and 128 k values, B per 128 × 128
//!       block) vary along k, so they cannot wait for the epilogue; but w15 already promotes
//!       each k tile (one block of k) half a tile (one block of B's columns) at a time, so
//!       each partial value takes its row's `scale_a · scale_b` in the instruction that adds
//!       it (`fma.rn.f32` for `add.f32`).
//! Changes from w15: each warp stages the next k tile's scales in shared memory (`cp.async`,
//!       [`StagedScales`]), reads this one's under the first half's `wgmma` and promotes with
//!       [`promote_scaled`]; the entry point takes the two scale arrays, not the per-tensor pair.
//! Bottleneck: w15's waits: 0.97–0.98 × w15, where cuBLASLt's block scales cost it 0.91–0.93 ×
//!       its per-tensor product. Loaded from global memory under the `wgmma`, the scales' latency
//!       held 17 % of the consumers' samples (1.17–1.18 × slower).
//! Cost: one 4-byte `cp.async` per lane (18 of 32) and four shared loads per thread and k tile,
//!       a warp barrier, 1152 bytes of shared memory; two multiplies per half.
//! Requires: as w14; K and N multiples of 16.
//! Result: 100.9 % of cuBLASLt's block-scaled FP8 at 4096³ and 8192³, H200, 2026-11-29.
//!
//! Why block scales: one scale per tensor lets a single outlier squeeze every other value of
//! the tensor into e4m3's few bits; a scale per small block lets each block use the whole
//! e4m3 range.
//!
//! The scales' layouts (`common::gemm::w19`): A's `ceil(K / 128) × M` row-major, so that a
//! k block's scales of consecutive rows are consecutive; B's `ceil(N / 128) × ceil(K / 128)`
//! row-major. C = Σ over k blocks kb of `a_scales[kb][i] · b_scales[j / 128][kb] · (A·B over
//! kb)[i][j]`.
//!
//! More: docs/lessons.md#w19

use super::hopper;
use super::hopper::epilogue::TensorScales;
use super::hopper::mainloop::Consumer;
use super::hopper::pipeline::PipelineState;
use super::hopper::{M64n128, M64n256, Shape, WARPGROUP, WARPGROUP_ROWS, promote_scaled};
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::issue_half;
use crate::device::async_copy::{cp_async_4_if, cp_async_commit, cp_async_wait_group};
use crate::device::index::{ALL_LANES, WARP_SIZE, thread_idx};
use crate::device::shared::SharedArray;
use crate::device::sync::sync_warp;
use crate::device::tma::mbarrier_wait;
use crate::device::wgmma::{self, M64N128_ACC};
use crate::unroll;
use common::gemm::w19::{
    self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, SCALE_BLOCK, SCALE_SLOTS, THREADS, WARP_SCALES,
};
use kernel_macros::kernel;

hopper::shape!(W19 = w19, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// Rows of a warp's slice of a warpgroup's 64 (`device::wgmma`'s layout), and the distance
/// between a thread's two rows in it.
const WARP_ROWS: u32 = 16;
const HALF_ROWS: u32 = 8;
const _: () = assert!(WARP_SCALES == WARP_ROWS + 2, "a warp's rows of A, then two blocks of B");

/// The per-block scales of one product, as the launch passes them (layouts in the module
/// header). No per-tensor factor: the epilogue multiplies by nothing.
#[derive(Clone, Copy)]
pub struct BlockScales {
    a: *const f32,
    b: *const f32,
    m: u32,
    n_blocks: u32,
    k_blocks: u32,
}

impl TensorScales for BlockScales {
    #[inline(always)]
    unsafe fn factor(self) -> Option<f32> {
        None
    }
}

impl BlockScales {
    /// Which scale lane `lane` of a warp copies into the warp's slot, in every k block: lanes
    /// 0–15 those of A's rows `warp_row + lane` (a row past M reads the last row's: its outputs
    /// are clipped by the store), lanes 16 and 17 those of B's column blocks `block` and
    /// `block + 1` (a block past N reads the last one's); the other lanes none.
    ///
    /// Returns (whether the lane copies, its source at k block 0, the step from one k block to
    /// the next, in f32): every address is a select, not a branch, since the copies run between
    /// a `wgmma`'s issue and its wait (a branch there made ptxas spill).
    #[inline(always)]
    fn lane_source(self, lane: u32, warp_row: u32, block: u32) -> (bool, *const f32, u32) {
        let a_row = (warp_row + lane).min(self.m - 1);
        let b_block = (block + (lane & 1)).min(self.n_blocks - 1);
        let of_a = lane < WARP_ROWS;
        let source = if of_a {
            self.a.wrapping_add(a_row as usize)
        } else {
            self.b.wrapping_add(b_block as usize * self.k_blocks as usize)
        };
        (lane < WARP_SCALES, source, if of_a { self.m } else { 1 })
    }
}

/// One consumer warp's scales in shared memory, staged one k tile ahead: each of its
/// `SCALE_SLOTS` slots holds a k block's `WARP_SCALES` (16 rows of A, then 2 blocks of B),
/// copied by the warp's first 18 lanes with `cp.async` and read by every lane after a
/// `cp.async.wait_group 0` and a warp barrier.
struct StagedScales {
    /// This warp's first slot (a shared address).
    slots: u32,
    lane: u32,
    copies: bool,
    source: *const f32,
    stride: u32,
}

impl StagedScales {
    const SLOT_BYTES: u32 = WARP_SCALES * 4;

    /// The staging of this thread's warp, whose rows start at `warp_row`, for the unit whose
    /// first column block is `block`.
    #[inline(always)]
    fn new(region: u32, scales: BlockScales, warp_row: u32, block: u32) -> Self {
        let tid = thread_idx();
        // The consumer warpgroups are the block's first.
        let warp = tid / WARP_SIZE;
        let lane = tid % WARP_SIZE;
        let (copies, source, stride) = scales.lane_source(lane, warp_row, block);
        Self { slots: region + warp * SCALE_SLOTS * Self::SLOT_BYTES, lane, copies, source, stride }
    }

    /// Starts the copies of k block `kb`'s scales into slot `kb % SCALE_SLOTS`.
    ///
    /// # Safety
    /// The whole warp calls it, `kb` is a k block of the scales, and no lane still reads the
    /// slot (a [`StagedScales::read`] since has passed a warp barrier).
    #[inline(always)]
    unsafe fn stage(&self, kb: u32) {
        let slot = self.slots + kb % SCALE_SLOTS * Self::SLOT_BYTES;
        let source = self.source.wrapping_add(kb as usize * self.stride as usize);
        // SAFETY: the copying lanes' sources lie in the scales (`lane_source` clamps them) and
        // their 4-byte destinations in this warp's slot.
        unsafe { cp_async_4_if(self.copies, slot + self.lane * 4, source) };
        cp_async_commit();
    }

    /// Waits for the staged k block `kb` and reads this lane's scales: (its two rows' of A,
    /// the two column blocks' of B).
    ///
    /// # Safety
    /// The whole warp calls it, after [`StagedScales::stage`] of `kb`.
    #[inline(always)]
    unsafe fn read(&self, kb: u32) -> ([f32; 2], [f32; 2]) {
        cp_async_wait_group::<0>();
        // Every lane's copies have landed; the barrier makes them visible to the warp.
        sync_warp(ALL_LANES);
        // SAFETY: the slot lies in the step's region, 4-byte aligned.
        let slot = unsafe { SharedArray::<f32>::from_address(self.slots + kb % SCALE_SLOTS * Self::SLOT_BYTES) };
        let row = self.lane / 4;
        // SAFETY: indices below WARP_SCALES.
        unsafe {
            (
                [slot.load(row), slot.load(row + HALF_ROWS)],
                [slot.load(WARP_ROWS), slot.load(WARP_ROWS + 1)],
            )
        }
    }
}

/// w15's main loop (the k tiles of the unit at `(row0, col0)`, each summed half a tile at a
/// time into `partial` and promoted into `acc`), with each half's partial multiplied on its
/// way in by its rows' A scales and its column block's B scale, which were staged in shared
/// memory while the k tile before ran.
///
/// # Safety
/// As w15's: every thread of the warpgroup calls it, the barriers are initialized and the
/// producer loads the same k tiles, in order; `scales` holds the counts its fields say, and
/// the step's region past the barriers its `SCALE_STAGING_BYTES`.
#[inline(always)]
unsafe fn mma_k_tiles_block_scaled<S: Shape<Acc = M64n256>>(
    consumer: &Consumer<S>,
    state: &mut PipelineState<S>,
    k_tiles: u32,
    acc: &mut M64n256,
    release: &impl Fn(u32),
    (row0, col0): (u32, u32),
    scales: BlockScales,
) {
    let smem = consumer.smem();
    let tid = thread_idx();
    let warp_row = row0 + tid / WARPGROUP * WARPGROUP_ROWS + tid % WARPGROUP / WARP_SIZE * WARP_ROWS;
    let staged = StagedScales::new(smem.past_barriers(), scales, warp_row, col0 / SCALE_BLOCK);
    // The last unit's lanes have all read their slots before any lane stages this one's.
    sync_warp(ALL_LANES);
    // SAFETY: k block 0 exists (k_tiles >= 1); no lane reads the slot (the barrier above).
    unsafe { staged.stage(0) };
    // Written by each half's first `wgmma` (`_fresh`) before it is read.
    let mut partial: M64n128 = [0.0; M64N128_ACC];
    for kb in 0..k_tiles {
        let s = state.index();
        // SAFETY: an initialized barrier; this lap's phase is this k tile's arrival.
        unsafe { mbarrier_wait(smem.full(s), state.phase()) };
        let (mut a_scale, mut b_scale) = ([0.0; 2], [0.0; 2]);
        unroll!(2, half => {
            // SAFETY: the whole warpgroup; the stage stays full until this warpgroup
            // releases it below.
            unsafe { issue_half(consumer, s, half as u32, &mut partial) };
            wgmma::commit_group();
            if half == 0 {
                // While the first half's `wgmma` run: this k block's scales, staged during the
                // last k tile, and the next one's copies (the last k tile copies its own
                // again, a copy nobody reads, so that no branch is taken here).
                // SAFETY: staged above or in the last k tile; the next slot was last read in
                // the last k tile, before `read`'s warp barrier.
                unsafe {
                    (a_scale, b_scale) = staged.read(kb);
                    staged.stage((kb + 1).min(k_tiles - 1));
                }
            }
            wgmma::wait_group::<0>();
            // The promotion, scaled: this half's 64 accumulators take the partial sums
            // times their row's scale of A and the half's scale of B.
            let factors = [a_scale[0] * b_scale[half], a_scale[1] * b_scale[half]];
            promote_scaled(acc, half * M64N128_ACC, &partial, factors);
        });
        release(s);
        state.advance();
    }
    // No copy outlives the unit: the next one (or the block's end) may reuse the slots.
    cp_async_wait_group::<0>();
}

trimmed_gemm_for!(W19, BlockScales, |consumer, state, k_tiles, acc, release, origin, scales| mma_k_tiles_block_scaled(
    consumer, state, k_tiles, acc, release, origin, scales
));

/// [`trimmed_gemm`] for e4m3 A and Bᵀ, f32 C, with DeepSeek-V3's block scales: `a_scales`
/// (`ceil(K / 128) × M` f32) and `b_scales` (`ceil(N / 128) × ceil(K / 128)` f32).
///
/// # Safety
/// As `trimmed_gemm`; the scales hold those counts.
#[kernel(max_threads = THREADS)]
pub unsafe fn w19_fp8_block_scales_e4m3(
    a_map: *const u8,
    b_map: *const u8,
    c_map: *const u8,
    m: u32,
    n: u32,
    k: u32,
    a_scales: *const f32,
    b_scales: *const f32,
) {
    let scales = BlockScales {
        a: a_scales,
        b: b_scales,
        m,
        n_blocks: n.div_ceil(SCALE_BLOCK),
        k_blocks: k.div_ceil(SCALE_BLOCK),
    };
    // SAFETY: forwarded; the input type is the shape's, not the flag's.
    unsafe { trimmed_gemm::<false>(a_map, b_map, c_map, m, n, k, scales) }
}

// A k tile is one k block of the scales, and a half tile's columns one column block of B.
const _: () = assert!(w19::BK == SCALE_BLOCK && w19::PARTIAL_COLUMNS == SCALE_BLOCK);
