//! The GEMM ladder as data: one entry per kernel, saying how to launch it.

use crate::base::precision::Precision;
use crate::base::ptx::Arch;
use crate::ceilings::TensorInstruction;
use common::gemm::{
    TILE, g04, g05, g06, g10, g11, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t13, t14,
};

/// The largest relative Frobenius error a GEMM of `precision` inputs may show. FP32 lands near 1e-6 for K up to 8192
/// (the issue asks "far under 1e-4"). The 16-bit inputs here are exact in their type,
/// so only the f32 accumulation rounds: measured up to 8e-6 for f16 at K = 8192 (bf16's
/// coarser values add up exactly), so 1e-4 leaves room, far inside the 1e-2 such
/// inputs are usually allowed.
pub fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F32 => 1e-5,
        Precision::F16 | Precision::Bf16 => 1e-4,
    }
}

/// How a kernel maps its grid onto C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridMap {
    /// x over rows of C (g01's uncoalesced mapping), tiles of `tile_m × tile_n`.
    RowsOnX,
    /// x over columns of C, y over rows.
    ColumnsOnX,
    /// A persistent grid on x: as many blocks as run on the GPU at once (never more than
    /// the work needs), each looping over work units. A unit is `cluster` tiles stacked
    /// along M, computed by one cluster of that many blocks (1: no clusters); up to
    /// `split` clusters may share one unit's k tiles (stream-K; 1: units are never split).
    Persistent { cluster: u32, split: u32 },
}

/// How a kernel receives A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// Device pointers to the row-major matrices.
    Pointers,
    /// Addresses of TMA tensor maps of A and B (16-bit, 128-byte swizzle), with the boxes
    /// (contiguous extent, rows) the kernel copies; and of C (f32, 128-byte swizzle) in
    /// place of its pointer when `c_box` names the box the kernel stores.
    TensorMaps { a_box: (u32, u32), b_box: (u32, u32), c_box: Option<(u32, u32)> },
}

/// One kernel of the ladder.
#[derive(Clone, Copy, Debug)]
pub struct GemmKernel {
    /// Stable name on the command line and in reports; the PTX symbol.
    pub id: &'static str,
    /// The step's idea in a few words.
    pub summary: &'static str,
    /// Threads per block, (x, y).
    pub block: (u32, u32),
    /// The C tile one block computes, (rows, columns).
    pub tile: (u32, u32),
    pub grid_map: GridMap,
    pub precision: Precision,
    /// The PTX target that holds the kernel: sm_80 for most (`cp.async`, `mma.sync`; the
    /// driver compiles it forward), sm_90a for `wgmma` (compute capability 9.0 only).
    pub arch: Arch,
    /// Bytes of dynamic shared memory per block (0: static shared memory only).
    pub dynamic_shared: u32,
    pub operands: Operands,
    /// K and N must be multiples of this (8 for kernels that move 16-byte rows of 16-bit
    /// values); 1 when any shape works.
    pub kn_multiple: u32,
    /// Bytes of global workspace a launch of that many blocks (the whole grid) needs (the
    /// seventh argument), laid out as partial tiles, then one 4-byte word per block (flags
    /// or counters): zeroed once before the first launch, the words left zero by each, the
    /// partial tiles written before they are read (the check poisons them); `None` for
    /// none.
    pub workspace: Option<fn(u32) -> u64>,
    /// Whether the grid's z cuts each tile's K into slices, one block per slice
    /// (split-K), as many as [`common::gemm::g11::slices`] picks for the shape and the
    /// blocks the GPU holds at once; `false` for one block per tile.
    pub split_k: bool,
}

impl GemmKernel {
    /// Why this kernel cannot run on a device of compute capability `major.minor` with
    /// PTX built for `loaded`, or `None` when it can.
    pub fn unavailable(&self, device: (u32, u32), loaded: Arch) -> Option<String> {
        crate::base::ptx::unavailable(self.id, self.arch, device, loaded)
    }

    /// Why this kernel refuses an `m × n × k` product, or `None` when it takes it.
    pub fn refusal(&self, _m: u32, n: u32, k: u32) -> Option<String> {
        let q = self.kn_multiple;
        (!n.is_multiple_of(q) || !k.is_multiple_of(q)).then(|| {
            format!("{} needs K and N multiples of {q} (16-byte rows), got N = {n}, K = {k}", self.id)
        })
    }

    /// The grid that covers an `m × n` C with one block per tile. For a persistent
    /// kernel, the most blocks it can use: one per tile, in whole clusters (the runner
    /// launches fewer when fewer fit on the GPU at once).
    pub fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        let (rows, cols) = (m.div_ceil(self.tile.0), n.div_ceil(self.tile.1));
        match self.grid_map {
            GridMap::RowsOnX => (rows, cols),
            GridMap::ColumnsOnX => (cols, rows),
            GridMap::Persistent { cluster, split } => (rows.div_ceil(cluster) * cols * cluster * split, 1),
        }
    }

    /// Blocks per cluster (1 for a kernel launched without clusters).
    pub fn cluster(&self) -> u32 {
        match self.grid_map {
            GridMap::Persistent { cluster, .. } => cluster,
            _ => 1,
        }
    }

    /// The tensor-core instruction this kernel issues, whose peak rate at its precision
    /// (probe p8) bounds it: `mma.sync` for the steps any GPU since Ampere runs (t01–t04,
    /// sm_80 PTX), `wgmma` for Hopper's (t05 on, sm_90a PTX); `None` for the FP32 steps,
    /// which use no tensor core.
    pub fn tensor_instruction(&self) -> Option<TensorInstruction> {
        match self.precision {
            Precision::F32 => None,
            Precision::F16 | Precision::Bf16 if self.arch == Arch::new(90, true) => {
                Some(TensorInstruction::Wgmma)
            }
            Precision::F16 | Precision::Bf16 => Some(TensorInstruction::MmaSync),
        }
    }
}

/// An FP32 step: `threads` in one dimension, or a square `TILE × TILE` block when 0.
const fn fp32(
    id: &'static str,
    summary: &'static str,
    threads: u32,
    tile: (u32, u32),
    grid_map: GridMap,
) -> GemmKernel {
    GemmKernel {
        id,
        summary,
        block: if threads == 0 { (TILE, TILE) } else { (threads, 1) },
        tile,
        grid_map,
        precision: Precision::F32,
        arch: SM_80,
        dynamic_shared: 0,
        operands: Operands::Pointers,
        kn_multiple: 1,
        workspace: None,
        split_k: false,
    }
}

/// g10's block on one slice of K per block (grid z), the slices summed through a workspace
/// by the last block of each tile to finish.
const fn split_k(id: &'static str, summary: &'static str) -> GemmKernel {
    GemmKernel {
        split_k: true,
        workspace: Some(g11::workspace_bytes),
        ..fp32(id, summary, g11::THREADS, (g11::BM, g11::BN), ColumnsOnX)
    }
}

/// A tensor-core step for one 16-bit input type (`mma.sync` needs sm_80).
const fn tensor(
    id: &'static str,
    summary: &'static str,
    threads: u32,
    tile: (u32, u32),
    precision: Precision,
    kn_multiple: u32,
) -> GemmKernel {
    GemmKernel {
        id,
        summary,
        block: (threads, 1),
        tile,
        grid_map: GridMap::ColumnsOnX,
        precision,
        arch: SM_80,
        dynamic_shared: 0,
        operands: Operands::Pointers,
        kn_multiple,
        workspace: None,
        split_k: false,
    }
}

/// A `wgmma` step (sm_90a only) for one 16-bit input type: t05's shape.
const fn wgmma(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        arch: Arch::new(90, true),
        dynamic_shared: t05::SHARED_BYTES,
        ..tensor(id, summary, t05::THREADS, (t05::BM, t05::BN), precision, t05::ALIGN)
    }
}

/// A TMA step (sm_90a only) for one 16-bit input type: t06's shape, its tensor maps.
const fn tma(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        block: (t06::THREADS, 1),
        dynamic_shared: t06::SHARED_BYTES,
        operands: Operands::TensorMaps { a_box: t06::A_BOX, b_box: t06::B_BOX, c_box: None },
        ..wgmma(id, summary, precision)
    }
}

/// A persistent TMA step (sm_90a only): t06's block and tiles on a grid of as many blocks
/// as run at once, in clusters of `cluster` blocks along M.
const fn persistent(
    id: &'static str,
    summary: &'static str,
    precision: Precision,
    cluster: u32,
) -> GemmKernel {
    const _: () = assert!(t07::THREADS == t06::THREADS && t08::SHARED_BYTES == t06::SHARED_BYTES);
    GemmKernel { grid_map: GridMap::Persistent { cluster, split: 1 }, ..tma(id, summary, precision) }
}

/// t08's persistent clusters, storing C through the copy engine from t09's staging boxes.
const fn tma_store(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        dynamic_shared: t09::SHARED_BYTES,
        operands: Operands::TensorMaps { a_box: t09::A_BOX, b_box: t09::B_BOX, c_box: Some(t09::C_BOX) },
        ..persistent(id, summary, precision, t09::CLUSTER_M)
    }
}

/// t09 with a producer warpgroup that hands its registers to the consumers.
const fn setmaxnreg(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        block: (t10::THREADS, 1),
        dynamic_shared: t10::SHARED_BYTES,
        ..tma_store(id, summary, precision)
    }
}

/// t10 on a grid of every cluster that fits, sharing the last partial wave along K.
const fn stream_k(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        block: (t11::THREADS, 1),
        grid_map: GridMap::Persistent { cluster: t11::CLUSTER_M, split: t11::MAX_SPLIT },
        workspace: Some(t11::workspace_bytes),
        ..setmaxnreg(id, summary, precision)
    }
}

/// t12 in 128 × 128 tiles, for products that leave SMs idle.
const fn small_tile(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        tile: (t13::BM, t13::BN),
        dynamic_shared: t13::SHARED_BYTES,
        ..setmaxnreg(id, summary, precision)
    }
}

/// t13 in 64 × 128 tiles, one consumer warpgroup: the smallest products.
const fn narrow_tile(id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
    GemmKernel {
        block: (t14::THREADS, 1),
        tile: (t14::BM, t14::BN),
        dynamic_shared: t14::SHARED_BYTES,
        operands: Operands::TensorMaps { a_box: t14::A_BOX, b_box: t14::B_BOX, c_box: Some(t14::C_BOX) },
        ..small_tile(id, summary, precision)
    }
}

/// The oldest target of the module: `cp.async` and `mma.sync` need sm_80.
const SM_80: Arch = Arch::new(80, false);

use GridMap::{ColumnsOnX, RowsOnX};
use Precision::{Bf16, F16};

/// Every GEMM kernel, in ladder order: the FP32 steps, then the tensor-core steps (one
/// entry per input type).
pub const GEMM_KERNELS: &[GemmKernel] = &[
    fp32("g01_naive", "one thread per output, rows on x", 0, (TILE, TILE), RowsOnX),
    fp32("g02_coalesced", "columns on x: coalesced B and C", 0, (TILE, TILE), ColumnsOnX),
    fp32("g03_shared_tiles", "32 × 32 tiles in shared memory", 0, (TILE, TILE), ColumnsOnX),
    fp32(
        "g04_register_1d",
        "8 outputs per thread (1-D register tile)",
        g04::THREADS,
        (g04::BM, g04::BN),
        ColumnsOnX,
    ),
    fp32(
        "g05_register_2d",
        "8 × 8 outputs per thread (2-D register tile)",
        g05::THREADS,
        (g05::BM, g05::BN),
        ColumnsOnX,
    ),
    fp32(
        "g06_vectorized",
        "16-byte loads, A transposed in shared memory",
        g06::THREADS,
        (g06::BM, g06::BN),
        ColumnsOnX,
    ),
    fp32(
        "g07_bank_conflict_free",
        "padded A tile, split B columns: no bank conflicts",
        g06::THREADS,
        (g06::BM, g06::BN),
        ColumnsOnX,
    ),
    fp32(
        "g08_double_buffer",
        "double-buffered tiles, B by cp.async",
        g06::THREADS,
        (g06::BM, g06::BN),
        ColumnsOnX,
    ),
    fp32(
        "g09_warp_tiling",
        "32 × 64 piece per warp (block → warp → thread)",
        g06::THREADS,
        (g06::BM, g06::BN),
        ColumnsOnX,
    ),
    fp32(
        "g10_fewer_instructions",
        "16 × 8 per thread, unrolled k, unchecked interior loads",
        g10::THREADS,
        (g10::BM, g10::BN),
        ColumnsOnX,
    ),
    split_k("g11_split_k", "g10 on slices of K when tiles are fewer than the GPU holds, summed by the last"),
    tensor(
        "t01_mma_sync_f16",
        "tensor cores: mma.sync m16n8k16 from shared memory",
        t01::THREADS,
        (t01::BM, t01::BN),
        F16,
        1,
    ),
    tensor(
        "t01_mma_sync_bf16",
        "tensor cores: mma.sync m16n8k16 from shared memory",
        t01::THREADS,
        (t01::BM, t01::BN),
        Bf16,
        1,
    ),
    tensor(
        "t02_ldmatrix_f16",
        "ldmatrix from swizzled tiles, 128 × 128 × 32",
        t02::THREADS,
        (t02::BM, t02::BN),
        F16,
        t02::ALIGN,
    ),
    tensor(
        "t02_ldmatrix_bf16",
        "ldmatrix from swizzled tiles, 128 × 128 × 32",
        t02::THREADS,
        (t02::BM, t02::BN),
        Bf16,
        t02::ALIGN,
    ),
    tensor(
        "t03_pipeline_f16",
        "3-stage cp.async pipeline",
        t03::THREADS,
        (t03::BM, t03::BN),
        F16,
        t03::ALIGN,
    ),
    tensor(
        "t03_pipeline_bf16",
        "3-stage cp.async pipeline",
        t03::THREADS,
        (t03::BM, t03::BN),
        Bf16,
        t03::ALIGN,
    ),
    tensor(
        "t04_warp_tile_f16",
        "64 × 64 warp tiles, 4 warps",
        t04::THREADS,
        (t04::BM, t04::BN),
        F16,
        t04::ALIGN,
    ),
    tensor(
        "t04_warp_tile_bf16",
        "64 × 64 warp tiles, 4 warps",
        t04::THREADS,
        (t04::BM, t04::BN),
        Bf16,
        t04::ALIGN,
    ),
    wgmma("t05_wgmma_f16", "Hopper wgmma 64 × 256 × 16 from shared memory, 4 stages", F16),
    wgmma("t05_wgmma_bf16", "Hopper wgmma 64 × 256 × 16 from shared memory, 4 stages", Bf16),
    tma("t06_tma_f16", "TMA copies from a producer warp, mbarrier pipeline", F16),
    tma("t06_tma_bf16", "TMA copies from a producer warp, mbarrier pipeline", Bf16),
    persistent(
        "t07_persistent_f16",
        "persistent grid, grouped tile walk, next tile's loads under the stores",
        F16,
        1,
    ),
    persistent(
        "t07_persistent_bf16",
        "persistent grid, grouped tile walk, next tile's loads under the stores",
        Bf16,
        1,
    ),
    persistent("t08_multicast_f16", "clusters of 2 share B's tiles by TMA multicast", F16, t08::CLUSTER_M),
    persistent("t08_multicast_bf16", "clusters of 2 share B's tiles by TMA multicast", Bf16, t08::CLUSTER_M),
    tma_store("t09_tma_store_f16", "C staged in swizzled shared memory, stored by TMA", F16),
    tma_store("t09_tma_store_bf16", "C staged in swizzled shared memory, stored by TMA", Bf16),
    setmaxnreg("t10_setmaxnreg_f16", "producer warpgroup gives registers to the consumers", F16),
    setmaxnreg("t10_setmaxnreg_bf16", "producer warpgroup gives registers to the consumers", Bf16),
    stream_k("t11_stream_k_f16", "stream-K: the last partial wave split along K", F16),
    stream_k("t11_stream_k_bf16", "stream-K: the last partial wave split along K", Bf16),
    setmaxnreg(
        "t12_latency_trims_f16",
        "tensor maps prefetched, relaxed cluster barrier, stores read out",
        F16,
    ),
    setmaxnreg(
        "t12_latency_trims_bf16",
        "tensor maps prefetched, relaxed cluster barrier, stores read out",
        Bf16,
    ),
    small_tile("t13_small_tile_f16", "128 × 128 tiles: twice the tiles for small products", F16),
    small_tile("t13_small_tile_bf16", "128 × 128 tiles: twice the tiles for small products", Bf16),
    narrow_tile("t14_narrow_tile_f16", "64 × 128 tiles, one consumer warpgroup, 8 stages", F16),
    narrow_tile("t14_narrow_tile_bf16", "64 × 128 tiles, one consumer warpgroup, 8 stages", Bf16),
    stream_k("t15_aligned_stream_k_f16", "stream-K with every cluster at the same k tile, t12's trims", F16),
    stream_k(
        "t15_aligned_stream_k_bf16",
        "stream-K with every cluster at the same k tile, t12's trims",
        Bf16,
    ),
    stream_k(
        "t16_pipelined_fixup_f16",
        "partials to their owner through the pipeline, flags by a spare warp",
        F16,
    ),
    stream_k(
        "t16_pipelined_fixup_bf16",
        "partials to their owner through the pipeline, flags by a spare warp",
        Bf16,
    ),
    stream_k("t17_shares_first_f16", "t16 with each cluster's stream-K share before its whole units", F16),
    stream_k("t17_shares_first_bf16", "t16 with each cluster's stream-K share before its whole units", Bf16),
];

/// The kernels whose id starts with any of `patterns` (all of them for an empty list).
pub fn select(patterns: &[String]) -> Vec<&'static GemmKernel> {
    GEMM_KERNELS
        .iter()
        .filter(|k| patterns.is_empty() || patterns.iter().any(|p| k.id.starts_with(p.as_str())))
        .collect()
}
