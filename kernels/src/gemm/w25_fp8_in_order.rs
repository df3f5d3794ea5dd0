//! Step w25 — an f32 C's column groups stored in one order: fewer instructions, a conflict.
//!
//! Idea: w05's epilogue gives each row of a half-warp its own order of its four 8-column
//!       groups, so that rows g and g ^ 1 never store into the same banks at once. The order
//!       depends on the lane, so it is a run-time index into the accumulators: three selects
//!       per value stored. Here every row takes the groups in the same order, the selects go,
//!       and each staging store pays a 2-way bank conflict instead.
//! Changes from w24: its shapes (`fp8_in_order`: `Shape::C_ROW_ORDER` false) on w24's f32
//!       kernel and on w23's 128 × 256 f32 kernel, the better tile at 4096³.
//! Bottleneck: ncu on w24 at 8192³: the f32 C took 5.5 % longer than the bf16 C, the difference
//!       in the epilogue (its branches, the selects, the stores).
//! Cost: twice the shared-memory wavefronts per staging store; no register more.
//! Requires: as w14; K and N multiples of 16.
//! Result: f32 C 101.7 / 100.7 % of cuBLASLt at 4096³ (256 wide) / 8192³, H200, 2026-11-29.
//!
//! More: docs/lessons.md#w25

use super::hopper;
use super::w08_latency_trims::trimmed_gemm_for;
use super::w15_fp8_promoted::mma_k_tiles_promoted;
use super::w23_fp8_probe::probed;
use super::w24_fp8_overlap::{overlapped, units_with_overlapped_stores};
use common::gemm::w25::{self, CONSUMER_REGISTERS, PRODUCER_REGISTERS, THREADS};
use common::gemm::w25_wide;
use kernel_macros::kernel;

hopper::shape!(W25 = w25, hopper::M64n192, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_in_order);
hopper::shape!(W25Wide = w25_wide, hopper::M64n256, hopper::Reallocate<PRODUCER_REGISTERS, CONSUMER_REGISTERS>, fp8_in_order);

// w24's kernel on its 128 × 192 tile, and w23's probed w15 loop on the 128 × 256 tile.
overlapped!(on_overlap: W25 => w25_fp8_in_order_f32_e4m3);
probed!(on_wide_tile: W25Wide, mma_k_tiles_promoted => w25_fp8_in_order_256f32_e4m3);
