//! Step w19 — per-block scales: DeepSeek-V3's fine-grained FP8, applied at the promotion.
//!
//! Idea: DeepSeek-V3's fine-grained scales (A per row and 128 k values, B per 128 × 128
//!       block) vary along k, so they cannot wait for the epilogue; but w15 already promotes
//!       each k tile (one block of k) half a tile (one block of B's columns) at a time, so
//!       each partial value takes its row's `scale_a · scale_b` in the instruction that adds
//!       it (`fma.rn.f32` for `add.f32`).
//! Changes from w15: the main loop loads the k tile's four scales (two rows of A, two blocks
//!       of B) while the first half's `wgmma` run, and promotes with [`promote_scaled`]; the
//!       entry point takes the scales' two arrays in place of the per-tensor pair.
//! Bottleneck: w15's waits, and what the scales add to them: 0.81–0.83 × w15, where
//!       cuBLASLt's block scales cost it 0.91–0.93 × its per-tensor product. ptxas spills
//!       48 bytes of the consumers' registers; where the rest goes is not yet located.
//! Cost: four scalar loads per thread and k tile (L2 hits: a k block's scales are shared by
//!       every block of the grid), two multiplies per half; no extra instruction per output.
//! Requires: as w14; K and N multiples of 16.
//! Result: 83.8 / 84.2 % of cuBLASLt's block-scaled FP8 at 4096³ / 8192³, H100, 2026-11-28.
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
use crate::device::index::{WARP_SIZE, thread_idx};
use crate::device::tma::mbarrier_wait;
use crate::device::wgmma::{self, M64N128_ACC};
use crate::unroll;
use common::gemm::w19::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, SCALE_BLOCK, THREADS};
use kernel_macros::kernel;

hopper::shape!(W19 = w19, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8);

/// Rows of a warp's slice of a warpgroup's 64 (`device::wgmma`'s layout), and the distance
/// between a thread's two rows in it.
const WARP_ROWS: u32 = 16;
const HALF_ROWS: u32 = 8;

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
    /// The scale of row `row` of A in k block `kb`. A row past M reads the last row's: its
    /// outputs are clipped by the store, and a load without a branch keeps the code between
    /// a `wgmma`'s issue and its wait in one basic block (a branch there made ptxas spill).
    ///
    /// # Safety
    /// `a` holds `k_blocks × m` f32 and `kb < k_blocks`.
    #[inline(always)]
    unsafe fn a(self, row: u32, kb: u32) -> f32 {
        // SAFETY: inside the caller's `k_blocks × m`.
        unsafe { *self.a.add(kb as usize * self.m as usize + row.min(self.m - 1) as usize) }
    }

    /// The scale of B's column block `block` in k block `kb`; a block past N reads the last
    /// one's (as [`BlockScales::a`]).
    ///
    /// # Safety
    /// `b` holds `n_blocks × k_blocks` f32 and `kb < k_blocks`.
    #[inline(always)]
    unsafe fn b(self, block: u32, kb: u32) -> f32 {
        // SAFETY: inside the caller's `n_blocks × k_blocks`.
        unsafe { *self.b.add(block.min(self.n_blocks - 1) as usize * self.k_blocks as usize + kb as usize) }
    }
}

/// w15's main loop (the k tiles of the unit at `(row0, col0)`, each summed half a tile at a
/// time into `partial` and promoted into `acc`), with each half's partial multiplied on its
/// way in by its rows' A scales and its column block's B scale.
///
/// # Safety
/// As w15's: every thread of the warpgroup calls it, the barriers are initialized and the
/// producer loads the same k tiles, in order; `scales` as [`BlockScales`]' methods ask.
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
    // This thread's two rows of C and the tile's two column blocks (a half tile each).
    let warp_row = row0 + tid / WARPGROUP * WARPGROUP_ROWS + tid % WARPGROUP / WARP_SIZE * WARP_ROWS;
    let rows = [warp_row + tid % WARP_SIZE / 4, warp_row + tid % WARP_SIZE / 4 + HALF_ROWS];
    let block = col0 / SCALE_BLOCK;
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
                // The k block's scales, loaded while the first half's `wgmma` run: not
                // before, where the `wgmma.fence` of the issue would wait for them.
                // SAFETY: kb < k_tiles = k_blocks (a k tile is one k block).
                unsafe {
                    a_scale = [scales.a(rows[0], kb), scales.a(rows[1], kb)];
                    b_scale = [scales.b(block, kb), scales.b(block + 1, kb)];
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
