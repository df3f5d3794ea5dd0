//! The GEMM ladder as data: one entry per kernel, saying how to launch it.

use crate::base::precision::Precision;
use crate::base::ptx::Arch;
use crate::ceilings::TensorInstruction;
use common::gemm::{
    TILE, g04, g05, g06, g07, g08, g09, g10, g11, t01, t02, t03, t04, t05, w01, w02, w03, w04, w05, w06, w07,
    w08, w09, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w23_f32, w23_wide,
    w23_wide_f32, w24, w24_f32, w25, w25_wide,
};

/// K and N of an 8-bit product: multiples of 16 (16-byte rows of Bᵀ and A).
const FP8_KN_MULTIPLE: u32 = 16;

/// The largest relative Frobenius error a GEMM of `precision` inputs may show. FP32 lands near 1e-6 for K up to 8192
/// (far under 1e-4). The 16-bit inputs here are exact in their type,
/// so only the f32 accumulation rounds: measured up to 8e-6 for f16 at K = 8192 (bf16's
/// coarser values add up exactly), so 1e-4 leaves room, far inside the 1e-2 such
/// inputs are usually allowed.
pub fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F32 => 1e-5,
        Precision::F16 | Precision::Bf16 => 1e-4,
        // FP8 `wgmma` adds its products with fewer bits than f32 (the DeepSeek-V3 Technical
        // Report: about 14). Measured on random e4m3 inputs: up to 3.0e-3 at K = 16384 where
        // the sums stay in the tensor cores (w14), 1.05e-4 at every K where they are promoted
        // into f32 (w15 on); the bound is three times w14's largest. Block scales (w19)
        // change nothing in the sums.
        Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2 => 1e-2,
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
    /// (contiguous extent, rows) the kernel copies; and of C (f32, or bf16 where `c_bf16`;
    /// 128-byte swizzle) in place of its pointer when `c_box` names the box the kernel stores.
    TensorMaps { a_box: (u32, u32), b_box: (u32, u32), c_box: Option<(u32, u32)>, c_bf16: bool },
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
    /// FP8 steps: whether the partial sums are added into f32 registers as the k tiles go
    /// (promoted), or left in the tensor cores' accumulators throughout.
    pub promotes: bool,
}

impl GemmKernel {
    /// Whether the kernel stores C as bf16 (w21) rather than f32.
    pub fn c_bf16(&self) -> bool {
        matches!(self.operands, Operands::TensorMaps { c_bf16: true, .. })
    }

    /// The vendor product this kernel's % of the vendor compares with: for FP8, cuBLASLt in
    /// the same mode of accumulation and with the same output type.
    pub fn baseline(&self) -> super::cublas::Baseline {
        use super::cublas::Baseline;
        match self.precision {
            Precision::E4m3 if self.c_bf16() => Baseline::Fp8Bf16Out,
            Precision::E4m3 | Precision::E4m3E5m2 => Baseline::Fp8 { fast_accumulation: !self.promotes },
            Precision::E4m3Blocks => Baseline::Fp8Blocks,
            other => Baseline::of(other)[0],
        }
    }

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
    /// (probe p8) bounds it: `mma.sync` for the steps any GPU since Ampere runs (the t
    /// ladder, sm_80 PTX), `wgmma` for Hopper's (the w ladder, sm_90a PTX); `None` for the FP32 steps,
    /// which use no tensor core.
    pub fn tensor_instruction(&self) -> Option<TensorInstruction> {
        match self.precision {
            Precision::F32 => None,
            Precision::F16 | Precision::Bf16 if self.arch == Arch::new(90, true) => {
                Some(TensorInstruction::Wgmma)
            }
            Precision::F16 | Precision::Bf16 => Some(TensorInstruction::MmaSync),
            Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2 => Some(TensorInstruction::Wgmma),
        }
    }
}

/// How a step is launched, whatever its input type: everything of a [`GemmKernel`] but its
/// id, summary and input type. Built by chaining what each step adds to the one before.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    block: (u32, u32),
    tile: (u32, u32),
    grid_map: GridMap,
    arch: Arch,
    dynamic_shared: u32,
    operands: Operands,
    kn_multiple: u32,
    workspace: Option<fn(u32) -> u64>,
    split_k: bool,
    promotes: bool,
}

/// The oldest target of the ladders: `cp.async` and `mma.sync` need sm_80.
const SM_80: Arch = Arch::new(80, false);
/// Hopper's own instructions (`wgmma`, TMA, clusters) are only in the sm_90a PTX.
const SM_90A: Arch = Arch::new(90, true);

impl Launch {
    /// An FP32 step: `threads` in one dimension, or a square `TILE × TILE` block when 0;
    /// any shape works.
    const fn fp32(threads: u32, tile: (u32, u32), grid_map: GridMap) -> Self {
        Self {
            block: if threads == 0 { (TILE, TILE) } else { (threads, 1) },
            tile,
            grid_map,
            arch: SM_80,
            dynamic_shared: 0,
            operands: Operands::Pointers,
            kn_multiple: 1,
            workspace: None,
            split_k: false,
            promotes: false,
        }
    }

    /// The block on a slice of K per block (grid z), the slices summed through `workspace`
    /// by the last block of each tile to finish (g11).
    const fn split_k(self, workspace: fn(u32) -> u64) -> Self {
        Self { split_k: true, workspace: Some(workspace), ..self }
    }

    /// A tensor-core step of `threads` per block, one block per `tile` of C; K and N
    /// multiples of `kn_multiple` (`mma.sync`: sm_80 and newer).
    const fn mma(threads: u32, tile: (u32, u32), kn_multiple: u32) -> Self {
        Self { block: (threads, 1), kn_multiple, ..Self::fp32(threads, tile, GridMap::ColumnsOnX) }
    }

    /// With `bytes` of dynamic shared memory.
    const fn shared(self, bytes: u32) -> Self {
        Self { dynamic_shared: bytes, ..self }
    }

    /// A `wgmma` step (sm_90a only) with `shared` bytes of dynamic shared memory.
    const fn wgmma(threads: u32, tile: (u32, u32), shared: u32, kn_multiple: u32) -> Self {
        Self { arch: SM_90A, dynamic_shared: shared, ..Self::mma(threads, tile, kn_multiple) }
    }

    /// A and B by TMA from tensor maps, in boxes of (contiguous extent, rows).
    const fn tma(self, a_box: (u32, u32), b_box: (u32, u32)) -> Self {
        Self { operands: Operands::TensorMaps { a_box, b_box, c_box: None, c_bf16: false }, ..self }
    }

    /// A persistent grid of clusters of `cluster` blocks along M.
    const fn persistent(self, cluster: u32) -> Self {
        Self { grid_map: GridMap::Persistent { cluster, split: 1 }, ..self }
    }

    /// C stored by TMA, in boxes of `c_box`, from a third tensor map.
    const fn tma_store(self, c_box: (u32, u32)) -> Self {
        match self.operands {
            Operands::TensorMaps { a_box, b_box, c_bf16, .. } => {
                Self { operands: Operands::TensorMaps { a_box, b_box, c_box: Some(c_box), c_bf16 }, ..self }
            }
            Operands::Pointers => panic!("a TMA store needs A and B by TMA too"),
        }
    }

    /// C stored as bf16 (by TMA, in boxes of `c_box`), rather than f32.
    const fn bf16_out(self, c_box: (u32, u32)) -> Self {
        match self.operands {
            Operands::TensorMaps { a_box, b_box, .. } => Self {
                operands: Operands::TensorMaps { a_box, b_box, c_box: Some(c_box), c_bf16: true },
                ..self
            },
            Operands::Pointers => panic!("a bf16 C is stored by TMA, which needs A and B by TMA too"),
        }
    }

    /// Stream-K: up to `split` clusters share a unit's k tiles, through `workspace`.
    const fn stream_k(self, split: u32, workspace: fn(u32) -> u64) -> Self {
        match self.grid_map {
            GridMap::Persistent { cluster, .. } => {
                Self { grid_map: GridMap::Persistent { cluster, split }, workspace: Some(workspace), ..self }
            }
            _ => panic!("stream-K needs a persistent grid"),
        }
    }

    /// An FP8 step that adds its partial sums into f32 registers as it goes (compared with
    /// cuBLASLt's default, which does too, rather than its fast accumulation).
    const fn promoted(self) -> Self {
        Self { promotes: true, ..self }
    }

    /// The kernel of this launch for one input type.
    const fn kernel(self, id: &'static str, summary: &'static str, precision: Precision) -> GemmKernel {
        GemmKernel {
            id,
            summary,
            block: self.block,
            tile: self.tile,
            grid_map: self.grid_map,
            precision,
            arch: self.arch,
            dynamic_shared: self.dynamic_shared,
            operands: self.operands,
            kn_multiple: self.kn_multiple,
            workspace: self.workspace,
            split_k: self.split_k,
            promotes: self.promotes,
        }
    }
}

/// One step of a GEMM ladder: its name and idea, the step it builds on (its `step ×` in the
/// tables compares with that one), and its kernels, one per input type it is built for.
#[derive(Debug)]
pub struct GemmStep {
    /// `g05_register_2d`, `w06_setmaxnreg`: the file of its kernel and of its twin.
    pub name: &'static str,
    pub summary: &'static str,
    pub builds_on: Option<&'static str>,
    pub kernels: &'static [GemmKernel],
}

/// An FP32 step: one kernel, named as the step.
macro_rules! fp32_step {
    ($name:literal after $builds_on:expr, $summary:literal, $launch:expr) => {
        GemmStep {
            name: $name,
            summary: $summary,
            builds_on: $builds_on,
            kernels: &[$launch.kernel($name, $summary, Precision::F32)],
        }
    };
}

/// A tensor-core step: a kernel for f16 and one for bf16 inputs, `<name>_f16` and
/// `<name>_bf16`.
macro_rules! tensor_step {
    ($name:literal after $builds_on:expr, $summary:literal, $launch:expr) => {
        GemmStep {
            name: $name,
            summary: $summary,
            builds_on: $builds_on,
            kernels: &[
                $launch.kernel(concat!($name, "_f16"), $summary, Precision::F16),
                $launch.kernel(concat!($name, "_bf16"), $summary, Precision::Bf16),
            ],
        }
    };
}

use GridMap::{ColumnsOnX, RowsOnX};

/// Every GEMM step, in ladder order: the FP32 steps (g), then the tensor-core steps on any GPU
/// since Ampere (t, `mma.sync`), then those on Hopper (w, `wgmma`). A
/// Hopper step reads its launch from its own module in `common::gemm`, the one its kernel
/// reads too.
pub const GEMM_STEPS: &[GemmStep] = &[
    fp32_step!("g01_naive" after None, "one thread per output, rows on x", Launch::fp32(0, (TILE, TILE), RowsOnX)),
    fp32_step!(
        "g02_coalesced" after Some("g01_naive"),
        "columns on x: coalesced B and C",
        Launch::fp32(0, (TILE, TILE), ColumnsOnX)
    ),
    fp32_step!(
        "g03_shared_tiles" after Some("g02_coalesced"),
        "32 × 32 tiles in shared memory",
        Launch::fp32(0, (TILE, TILE), ColumnsOnX)
    ),
    fp32_step!(
        "g04_register_1d" after Some("g03_shared_tiles"),
        "8 outputs per thread (1-D register tile)",
        Launch::fp32(g04::THREADS, (g04::BM, g04::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g05_register_2d" after Some("g04_register_1d"),
        "8 × 8 outputs per thread (2-D register tile)",
        Launch::fp32(g05::THREADS, (g05::BM, g05::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g06_vectorized" after Some("g05_register_2d"),
        "16-byte loads, A transposed in shared memory",
        Launch::fp32(g06::THREADS, (g06::BM, g06::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g07_bank_conflict_free" after Some("g06_vectorized"),
        "padded A tile, split B columns: no bank conflicts",
        Launch::fp32(g07::THREADS, (g07::BM, g07::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g08_double_buffer" after Some("g07_bank_conflict_free"),
        "double-buffered tiles, B by cp.async",
        Launch::fp32(g08::THREADS, (g08::BM, g08::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g09_warp_tiling" after Some("g08_double_buffer"),
        "32 × 64 piece per warp (block → warp → thread)",
        Launch::fp32(g09::THREADS, (g09::BM, g09::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g10_fewer_instructions" after Some("g09_warp_tiling"),
        "16 × 8 per thread, unrolled k, unchecked interior loads",
        Launch::fp32(g10::THREADS, (g10::BM, g10::BN), ColumnsOnX)
    ),
    fp32_step!(
        "g11_split_k" after Some("g10_fewer_instructions"),
        "g10 on slices of K when tiles are fewer than the GPU holds, summed by the last",
        Launch::fp32(g11::THREADS, (g11::BM, g11::BN), ColumnsOnX).split_k(g11::workspace_bytes)
    ),
    tensor_step!(
        "t01_mma_sync" after None,
        "tensor cores: mma.sync m16n8k16 from shared memory",
        Launch::mma(t01::THREADS, (t01::BM, t01::BN), 1)
    ),
    tensor_step!(
        "t02_ldmatrix" after Some("t01_mma_sync"),
        "ldmatrix from swizzled tiles, 128 × 128 × 32",
        Launch::mma(t02::THREADS, (t02::BM, t02::BN), t02::ALIGN)
    ),
    tensor_step!(
        "t03_pipeline" after Some("t02_ldmatrix"),
        "3-stage cp.async pipeline",
        Launch::mma(t03::THREADS, (t03::BM, t03::BN), t03::ALIGN)
    ),
    tensor_step!(
        "t04_warp_tile" after Some("t03_pipeline"),
        "64 × 64 warp tiles, 4 warps",
        Launch::mma(t04::THREADS, (t04::BM, t04::BN), t04::ALIGN)
    ),
    tensor_step!(
        "t05_fragment_pipeline" after Some("t04_warp_tile"),
        "fragments double-buffered, 4 stages",
        Launch::mma(t05::THREADS, (t05::BM, t05::BN), t05::ALIGN).shared(t05::SHARED_BYTES)
    ),
    tensor_step!(
        "w01_wgmma" after Some("t05_fragment_pipeline"),
        "Hopper wgmma 64 × 256 × 16 from shared memory, 4 stages",
        Launch::wgmma(w01::THREADS, (w01::BM, w01::BN), w01::SHARED_BYTES, w01::ALIGN)
    ),
    tensor_step!(
        "w02_tma" after Some("w01_wgmma"),
        "TMA copies from a producer warp, mbarrier pipeline",
        Launch::wgmma(w02::THREADS, (w02::BM, w02::BN), w02::SHARED_BYTES, w02::ALIGN).tma(w02::A_BOX, w02::B_BOX)
    ),
    tensor_step!(
        "w03_persistent" after Some("w02_tma"),
        "persistent grid, grouped tile walk, next tile's loads under the stores",
        Launch::wgmma(w03::THREADS, (w03::BM, w03::BN), w03::SHARED_BYTES, w03::ALIGN)
            .tma(w03::A_BOX, w03::B_BOX)
            .persistent(1)
    ),
    tensor_step!(
        "w04_multicast" after Some("w03_persistent"),
        "clusters of 2 share B's tiles by TMA multicast",
        Launch::wgmma(w04::THREADS, (w04::BM, w04::BN), w04::SHARED_BYTES, w04::ALIGN)
            .tma(w04::A_BOX, w04::B_BOX)
            .persistent(w04::CLUSTER_M)
    ),
    tensor_step!(
        "w05_tma_store" after Some("w04_multicast"),
        "C staged in swizzled shared memory, stored by TMA",
        Launch::wgmma(w05::THREADS, (w05::BM, w05::BN), w05::SHARED_BYTES, w05::ALIGN)
            .tma(w05::A_BOX, w05::B_BOX)
            .persistent(w05::CLUSTER_M)
            .tma_store(w05::C_BOX)
    ),
    tensor_step!(
        "w06_setmaxnreg" after Some("w05_tma_store"),
        "producer warpgroup gives registers to the consumers",
        Launch::wgmma(w06::THREADS, (w06::BM, w06::BN), w06::SHARED_BYTES, w06::ALIGN)
            .tma(w06::A_BOX, w06::B_BOX)
            .persistent(w06::CLUSTER_M)
            .tma_store(w06::C_BOX)
    ),
    tensor_step!(
        "w07_stream_k" after Some("w06_setmaxnreg"),
        "stream-K: the last partial wave split along K",
        Launch::wgmma(w07::THREADS, (w07::BM, w07::BN), w07::SHARED_BYTES, w07::ALIGN)
            .tma(w07::A_BOX, w07::B_BOX)
            .persistent(w07::CLUSTER_M)
            .tma_store(w07::C_BOX)
            .stream_k(w07::MAX_SPLIT, w07::workspace_bytes)
    ),
    tensor_step!(
        "w08_latency_trims" after Some("w06_setmaxnreg"),
        "tensor maps prefetched, relaxed cluster barrier, stores read out",
        Launch::wgmma(w08::THREADS, (w08::BM, w08::BN), w08::SHARED_BYTES, w08::ALIGN)
            .tma(w08::A_BOX, w08::B_BOX)
            .persistent(w08::CLUSTER_M)
            .tma_store(w08::C_BOX)
    ),
    tensor_step!(
        "w09_small_tile" after Some("w08_latency_trims"),
        "128 × 128 tiles: twice the tiles for small products",
        Launch::wgmma(w09::THREADS, (w09::BM, w09::BN), w09::SHARED_BYTES, w09::ALIGN)
            .tma(w09::A_BOX, w09::B_BOX)
            .persistent(w09::CLUSTER_M)
            .tma_store(w09::C_BOX)
    ),
    tensor_step!(
        "w10_narrow_tile" after Some("w09_small_tile"),
        "64 × 128 tiles, one consumer warpgroup, 8 stages",
        Launch::wgmma(w10::THREADS, (w10::BM, w10::BN), w10::SHARED_BYTES, w10::ALIGN)
            .tma(w10::A_BOX, w10::B_BOX)
            .persistent(w10::CLUSTER_M)
            .tma_store(w10::C_BOX)
    ),
    tensor_step!(
        "w11_aligned_stream_k" after Some("w07_stream_k"),
        "stream-K with every cluster at the same k tile, w08's trims",
        Launch::wgmma(w11::THREADS, (w11::BM, w11::BN), w11::SHARED_BYTES, w11::ALIGN)
            .tma(w11::A_BOX, w11::B_BOX)
            .persistent(w11::CLUSTER_M)
            .tma_store(w11::C_BOX)
            .stream_k(w11::MAX_SPLIT, w11::workspace_bytes)
    ),
    tensor_step!(
        "w12_pipelined_fixup" after Some("w11_aligned_stream_k"),
        "partials to their owner through the pipeline, flags by a spare warp",
        Launch::wgmma(w12::THREADS, (w12::BM, w12::BN), w12::SHARED_BYTES, w12::ALIGN)
            .tma(w12::A_BOX, w12::B_BOX)
            .persistent(w12::CLUSTER_M)
            .tma_store(w12::C_BOX)
            .stream_k(w12::MAX_SPLIT, w12::workspace_bytes)
    ),
    tensor_step!(
        "w13_shares_first" after Some("w12_pipelined_fixup"),
        "w12 with each cluster's stream-K share before its whole units",
        Launch::wgmma(w13::THREADS, (w13::BM, w13::BN), w13::SHARED_BYTES, w13::ALIGN)
            .tma(w13::A_BOX, w13::B_BOX)
            .persistent(w13::CLUSTER_M)
            .tma_store(w13::C_BOX)
            .stream_k(w13::MAX_SPLIT, w13::workspace_bytes)
    ),
    GemmStep {
        name: "w14_fp8",
        summary: "e4m3 A and Bᵀ through wgmma m64n256k32: w08 on 8-bit inputs",
        builds_on: Some("w08_latency_trims"),
        kernels: &[Launch::wgmma(w14::THREADS, (w14::BM, w14::BN), w14::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w14::A_BOX, w14::B_BOX)
            .persistent(w14::CLUSTER_M)
            .tma_store(w14::C_BOX)
            .kernel(
                "w14_fp8_e4m3",
                "e4m3 A and Bᵀ through wgmma m64n256k32: w08 on 8-bit inputs",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w15_fp8_promoted",
        summary: "each k tile's FP8 sums promoted into f32 registers, half a tile at a time",
        builds_on: Some("w14_fp8"),
        kernels: &[Launch::wgmma(w15::THREADS, (w15::BM, w15::BN), w15::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w15::A_BOX, w15::B_BOX)
            .persistent(w15::CLUSTER_M)
            .tma_store(w15::C_BOX)
            .promoted()
            .kernel(
                "w15_fp8_promoted_e4m3",
                "each k tile's FP8 sums promoted into f32 registers, half a tile at a time",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w16_fp8_a_registers",
        summary: "w15 with A's fragments in registers: A read from shared memory once per k tile",
        builds_on: Some("w15_fp8_promoted"),
        kernels: &[Launch::wgmma(w16::THREADS, (w16::BM, w16::BN), w16::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w16::A_BOX, w16::B_BOX)
            .persistent(w16::CLUSTER_M)
            .tma_store(w16::C_BOX)
            .promoted()
            .kernel(
                "w16_fp8_a_registers_e4m3",
                "w15 with A's fragments in registers: A read from shared memory once per k tile",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w17_fp8_turns",
        summary: "w15 with the consumer warpgroups issuing in turns: one adds while the other's wgmma run",
        builds_on: Some("w15_fp8_promoted"),
        kernels: &[Launch::wgmma(w17::THREADS, (w17::BM, w17::BN), w17::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w17::A_BOX, w17::B_BOX)
            .persistent(w17::CLUSTER_M)
            .tma_store(w17::C_BOX)
            .promoted()
            .kernel(
                "w17_fp8_turns_e4m3",
                "w15 with the consumer warpgroups issuing in turns: one adds while the other's wgmma run",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w18_fp8_double_partials",
        summary: "128 × 128 tiles, two partial tiles: each k tile's sums added while the next one's run",
        builds_on: Some("w15_fp8_promoted"),
        kernels: &[Launch::wgmma(w18::THREADS, (w18::BM, w18::BN), w18::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w18::A_BOX, w18::B_BOX)
            .persistent(w18::CLUSTER_M)
            .tma_store(w18::C_BOX)
            .promoted()
            .kernel(
                "w18_fp8_double_partials_e4m3",
                "128 × 128 tiles, two partial tiles: each k tile's sums added while the next one's run",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w19_fp8_block_scales",
        summary: "DeepSeek-V3's per-block scales (1 × 128 of A, 128 × 128 of B), applied as w15 promotes",
        builds_on: Some("w15_fp8_promoted"),
        kernels: &[Launch::wgmma(w19::THREADS, (w19::BM, w19::BN), w19::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w19::A_BOX, w19::B_BOX)
            .persistent(w19::CLUSTER_M)
            .tma_store(w19::C_BOX)
            .promoted()
            .kernel(
                "w19_fp8_block_scales_e4m3",
                "DeepSeek-V3's per-block scales (1 × 128 of A, 128 × 128 of B), applied as w15 promotes",
                Precision::E4m3Blocks,
            )],
    },
    GemmStep {
        name: "w20_fp8_e5m2",
        summary: "e4m3 A × e5m2 B (the gradients' format): w15 on the mixed wgmma",
        builds_on: Some("w15_fp8_promoted"),
        kernels: &[Launch::wgmma(w20::THREADS, (w20::BM, w20::BN), w20::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w20::A_BOX, w20::B_BOX)
            .persistent(w20::CLUSTER_M)
            .tma_store(w20::C_BOX)
            .promoted()
            .kernel(
                "w20_fp8_e5m2_e4m3_e5m2",
                "e4m3 A × e5m2 B (the gradients' format): w15 on the mixed wgmma",
                Precision::E4m3E5m2,
            )],
    },
    GemmStep {
        name: "w21_fp8_bf16_out",
        summary: "a bf16 C: w15's epilogue stages and writes half the bytes",
        builds_on: Some("w15_fp8_promoted"),
        kernels: &[Launch::wgmma(w21::THREADS, (w21::BM, w21::BN), w21::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w21::A_BOX, w21::B_BOX)
            .persistent(w21::CLUSTER_M)
            .bf16_out(w21::C_BOX)
            .promoted()
            .kernel(
                "w21_fp8_bf16_out_e4m3",
                "a bf16 C: w15's epilogue stages and writes half the bytes",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w22_fp8_full_partial",
        summary: "128 × 192 tiles whose partial spans the tile: one wait and promotion per k tile, not two",
        builds_on: Some("w21_fp8_bf16_out"),
        kernels: &[Launch::wgmma(w22::THREADS, (w22::BM, w22::BN), w22::SHARED_BYTES, FP8_KN_MULTIPLE)
            .tma(w22::A_BOX, w22::B_BOX)
            .persistent(w22::CLUSTER_M)
            .bf16_out(w22::C_BOX)
            .promoted()
            .kernel(
                "w22_fp8_full_partial_e4m3",
                "128 × 192 tiles whose partial spans the tile: one wait and promotion per k tile, not two",
                Precision::E4m3,
            )],
    },
    GemmStep {
        name: "w23_fp8_probe",
        summary: "the next k tile's barrier asked while this one's wgmma run, on w22's tile and w21's, bf16 or f32 C",
        builds_on: Some("w22_fp8_full_partial"),
        kernels: &[
            Launch::wgmma(w23::THREADS, (w23::BM, w23::BN), w23::SHARED_BYTES, FP8_KN_MULTIPLE)
                .tma(w23::A_BOX, w23::B_BOX)
                .persistent(w23::CLUSTER_M)
                .bf16_out(w23::C_BOX)
                .promoted()
                .kernel(
                    "w23_fp8_probe_e4m3",
                    "the next k tile's barrier asked while this one's wgmma run (w22's 128 × 192 tile)",
                    Precision::E4m3,
                ),
            Launch::wgmma(
                w23_wide::THREADS,
                (w23_wide::BM, w23_wide::BN),
                w23_wide::SHARED_BYTES,
                FP8_KN_MULTIPLE,
            )
            .tma(w23_wide::A_BOX, w23_wide::B_BOX)
            .persistent(w23_wide::CLUSTER_M)
            .bf16_out(w23_wide::C_BOX)
            .promoted()
            .kernel(
                "w23_fp8_probe_256_e4m3",
                "the same probe on w21's 128 × 256 tile (fewer waves for small products)",
                Precision::E4m3,
            ),
            Launch::wgmma(
                w23_f32::THREADS,
                (w23_f32::BM, w23_f32::BN),
                w23_f32::SHARED_BYTES,
                FP8_KN_MULTIPLE,
            )
            .tma(w23_f32::A_BOX, w23_f32::B_BOX)
            .persistent(w23_f32::CLUSTER_M)
            .tma_store(w23_f32::C_BOX)
            .promoted()
            .kernel(
                "w23_fp8_probe_f32_e4m3",
                "the probe on w22's tile with an f32 C (beside cuBLASLt's f32-out product)",
                Precision::E4m3,
            ),
            Launch::wgmma(
                w23_wide_f32::THREADS,
                (w23_wide_f32::BM, w23_wide_f32::BN),
                w23_wide_f32::SHARED_BYTES,
                FP8_KN_MULTIPLE,
            )
            .tma(w23_wide_f32::A_BOX, w23_wide_f32::B_BOX)
            .persistent(w23_wide_f32::CLUSTER_M)
            .tma_store(w23_wide_f32::C_BOX)
            .promoted()
            .kernel(
                "w23_fp8_probe_256f32_e4m3",
                "the probe on w15's 128 × 256 tile, f32 C",
                Precision::E4m3,
            ),
        ],
    },
    GemmStep {
        name: "w24_fp8_overlap",
        summary: "a tile's store under the next tile's first k tile of products (w23's 128 × 192 tile)",
        builds_on: Some("w23_fp8_probe"),
        kernels: &[
            Launch::wgmma(w24::THREADS, (w24::BM, w24::BN), w24::SHARED_BYTES, FP8_KN_MULTIPLE)
                .tma(w24::A_BOX, w24::B_BOX)
                .persistent(w24::CLUSTER_M)
                .bf16_out(w24::C_BOX)
                .promoted()
                .kernel(
                    "w24_fp8_overlap_e4m3",
                    "a tile's store under the next tile's first products, bf16 C",
                    Precision::E4m3,
                ),
            Launch::wgmma(
                w24_f32::THREADS,
                (w24_f32::BM, w24_f32::BN),
                w24_f32::SHARED_BYTES,
                FP8_KN_MULTIPLE,
            )
            .tma(w24_f32::A_BOX, w24_f32::B_BOX)
            .persistent(w24_f32::CLUSTER_M)
            .tma_store(w24_f32::C_BOX)
            .promoted()
            .kernel("w24_fp8_overlap_f32_e4m3", "the same with an f32 C", Precision::E4m3),
        ],
    },
    GemmStep {
        name: "w25_fp8_in_order",
        summary: "an f32 C's column groups stored in one order: no selects, a 2-way bank conflict",
        builds_on: Some("w24_fp8_overlap"),
        kernels: &[
            Launch::wgmma(w25::THREADS, (w25::BM, w25::BN), w25::SHARED_BYTES, FP8_KN_MULTIPLE)
                .tma(w25::A_BOX, w25::B_BOX)
                .persistent(w25::CLUSTER_M)
                .tma_store(w25::C_BOX)
                .promoted()
                .kernel(
                    "w25_fp8_in_order_f32_e4m3",
                    "w24's f32 kernel with the column groups in one order (128 × 192)",
                    Precision::E4m3,
                ),
            Launch::wgmma(
                w25_wide::THREADS,
                (w25_wide::BM, w25_wide::BN),
                w25_wide::SHARED_BYTES,
                FP8_KN_MULTIPLE,
            )
            .tma(w25_wide::A_BOX, w25_wide::B_BOX)
            .persistent(w25_wide::CLUSTER_M)
            .tma_store(w25_wide::C_BOX)
            .promoted()
            .kernel(
                "w25_fp8_in_order_256f32_e4m3",
                "w23's 128 × 256 f32 kernel with the column groups in one order",
                Precision::E4m3,
            ),
        ],
    },
];

/// Every GEMM kernel (one per step and input type), in ladder order.
pub fn kernels() -> impl Iterator<Item = &'static GemmKernel> {
    GEMM_STEPS.iter().flat_map(|step| step.kernels)
}

/// The name of the step whose kernel is `id` (`w06_setmaxnreg` for `w06_setmaxnreg_bf16`).
pub fn step_name(id: &str) -> Option<&'static str> {
    GEMM_STEPS.iter().find(|step| step.kernels.iter().any(|k| k.id == id)).map(|step| step.name)
}

/// The step a kernel belongs to.
pub fn step_of(kernel: &GemmKernel) -> &'static GemmStep {
    GEMM_STEPS
        .iter()
        .find(|step| step.kernels.iter().any(|k| k.id == kernel.id))
        .expect("every kernel is a step's")
}

/// The steps that build on another step than the one before them, for the `step ×` note:
/// "w08 over w06, w11 over w07, w14 over w08, w17–w21 over w15" (a run of consecutive steps
/// over one base as a range).
pub fn builds_on_exceptions() -> String {
    let short = |name: &str| name.split('_').next().unwrap_or(name).to_string();
    // (first, last, base) of each run of consecutive exceptions over one base.
    let mut runs: Vec<(String, String, String)> = Vec::new();
    let mut previous: Option<&str> = None;
    let mut run_open = false;
    for step in GEMM_STEPS {
        match step.builds_on {
            Some(base) if Some(base) != previous => {
                let (name, base) = (short(step.name), short(base));
                match runs.last_mut() {
                    Some(run) if run_open && run.2 == base => run.1 = name,
                    _ => runs.push((name.clone(), name, base)),
                }
                run_open = true;
            }
            _ => run_open = false,
        }
        previous = Some(step.name);
    }
    let runs: Vec<String> = runs
        .into_iter()
        .map(|(first, last, base)| {
            if first == last {
                format!("{first} over {base}")
            } else {
                format!("{first}–{last} over {base}")
            }
        })
        .collect();
    runs.join(", ")
}

#[cfg(test)]
mod tests {
    use super::builds_on_exceptions;

    #[test]
    fn the_step_note_names_the_steps_that_skip_their_predecessor() {
        let note = builds_on_exceptions();
        for part in ["w08 over w06", "w11 over w07", "w14 over w08", "w17–w21 over w15"] {
            assert!(note.contains(part), "{part:?} missing from {note:?}");
        }
        // Steps over the one before them are not exceptions.
        for step in ["w07", "w16", "w22", "w23"] {
            assert!(!note.contains(&format!("{step} over")), "{step} listed in {note:?}");
        }
    }
}
