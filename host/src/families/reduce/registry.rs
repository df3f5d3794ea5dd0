//! The reduction ladder as data: one entry per kernel, saying how to launch it. The
//! runner, the CLI, the tests and the report all iterate over [`REDUCE_KERNELS`]; adding a
//! kernel to the ladder is adding an entry here.

use crate::base::error::{Error, Result};
use common::reduce::{BATCH, STREAM_BLOCK, STREAM_UNROLL, VECTOR_SUM_BLOCK};

/// Which article a step comes from; each ladder's speedups are relative to its own first
/// step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ladder {
    /// Mark Harris, "Optimizing Parallel Reduction in CUDA".
    Harris,
    /// Simon Veit, "Making vector sum really fast", continued by this project.
    VectorSum,
}

impl Ladder {
    pub fn title(self) -> &'static str {
        match self {
            Ladder::Harris => "Harris, “Optimizing Parallel Reduction in CUDA”",
            Ladder::VectorSum => "“Making vector sum really fast”, then the project's own steps",
        }
    }
}

/// How a kernel gets its block size.
#[derive(Clone, Copy, Debug)]
pub enum BlockShape {
    /// Read from `blockDim` at run time: any power of two from 64 to 1024.
    Runtime { default: u32 },
    /// A compile-time constant, one PTX entry point per size: `(block, symbol)`.
    Instances { default: u32, instances: &'static [(u32, &'static str)] },
    /// A compile-time constant with a single entry point (the kernel's id).
    Fixed(u32),
}

/// How many blocks a launch over `count` elements gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridShape {
    /// One block per `block × inputs_per_thread` elements.
    Cover,
    /// As `Cover`, but at most one full wave: as many blocks as fit on the GPU at once.
    OneWave,
}

/// How the per-block results become one sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// Each launch writes one partial per block; launch the same kernel on the partials
    /// until one block is left (Harris's kernel decomposition).
    Relaunch,
    /// The first launch writes partials; a second launch of a single block sums them.
    SecondPassOneBlock,
    /// The result is zeroed (`cuMemsetD32Async`, timed with the kernel), then one launch
    /// adds every block's sum into it atomically.
    AtomicAdd,
    /// One launch; the last block to finish sums the others' partials. Needs a workspace of
    /// one `i32` per block and an arrival counter, zeroed once at allocation.
    LastBlock,
    /// One launch; each block adds its sum and an arrival into one 64-bit tally, and the
    /// last to arrive writes the result. Needs the tally, zeroed once at allocation.
    PackedTally,
}

/// One kernel of the ladder.
#[derive(Clone, Copy, Debug)]
pub struct ReduceKernel {
    /// Stable name on the command line and in reports; the PTX symbol unless
    /// `BlockShape::Instances` names others.
    pub id: &'static str,
    pub ladder: Ladder,
    /// The step's idea in a few words.
    pub summary: &'static str,
    pub block: BlockShape,
    /// Elements one thread covers in one sweep of the grid (for `Cover` grids).
    pub inputs_per_thread: u32,
    pub grid: GridShape,
    pub finish: Finish,
    /// Whether the kernel uses `block` `i32` of dynamic shared memory.
    pub dynamic_shared: bool,
}

const H5_INSTANCES: &[(u32, &str)] =
    &[(128, "h5_complete_unroll_128"), (256, "h5_complete_unroll_256"), (512, "h5_complete_unroll_512")];
const H6_INSTANCES: &[(u32, &str)] =
    &[(128, "h6_grid_stride_128"), (256, "h6_grid_stride_256"), (512, "h6_grid_stride_512")];

/// Harris's steps run 256-thread blocks by default, as in his talk.
const HARRIS_BLOCK: u32 = 256;

const fn harris(id: &'static str, summary: &'static str, inputs_per_thread: u32) -> ReduceKernel {
    ReduceKernel {
        id,
        ladder: Ladder::Harris,
        summary,
        block: BlockShape::Runtime { default: HARRIS_BLOCK },
        inputs_per_thread,
        grid: GridShape::Cover,
        finish: Finish::Relaunch,
        dynamic_shared: true,
    }
}

const fn vector_sum(
    id: &'static str,
    summary: &'static str,
    block: u32,
    inputs_per_thread: u32,
    grid: GridShape,
    finish: Finish,
) -> ReduceKernel {
    ReduceKernel {
        id,
        ladder: Ladder::VectorSum,
        summary,
        block: BlockShape::Fixed(block),
        inputs_per_thread,
        grid,
        finish,
        dynamic_shared: false,
    }
}

/// Every reduction kernel, in ladder order.
pub const REDUCE_KERNELS: &[ReduceKernel] = &[
    harris("h0_interleaved_modulo", "interleaved addressing, tid % 2s", 1),
    harris("h1_strided_index", "strided index: no divergence", 1),
    harris("h2_sequential_addressing", "sequential addressing: no bank conflicts", 1),
    harris("h3_first_add_during_load", "first add during load", 2),
    harris("h4_unrolled_last_warp", "last warp unrolled (warp barriers)", 2),
    ReduceKernel {
        block: BlockShape::Instances { default: HARRIS_BLOCK, instances: H5_INSTANCES },
        ..harris("h5_complete_unroll", "completely unrolled (const generic block)", 2)
    },
    ReduceKernel {
        block: BlockShape::Instances { default: HARRIS_BLOCK, instances: H6_INSTANCES },
        grid: GridShape::OneWave,
        ..harris("h6_grid_stride", "one wave, grid-stride loop", 2)
    },
    vector_sum(
        "v0_two_pass_tree",
        "two-pass tree",
        VECTOR_SUM_BLOCK,
        1,
        GridShape::Cover,
        Finish::SecondPassOneBlock,
    ),
    vector_sum(
        "v1_last_warp_synced",
        "last warp with __syncwarp",
        VECTOR_SUM_BLOCK,
        1,
        GridShape::Cover,
        Finish::SecondPassOneBlock,
    ),
    vector_sum(
        "v2_one_pass_atomic",
        "one pass, atomic add",
        VECTOR_SUM_BLOCK,
        1,
        GridShape::Cover,
        Finish::AtomicAdd,
    ),
    vector_sum(
        "v3_batch_per_thread",
        "32 inputs per thread",
        VECTOR_SUM_BLOCK,
        BATCH,
        GridShape::Cover,
        Finish::AtomicAdd,
    ),
    vector_sum(
        "v4_vector_loads",
        "16-byte loads",
        VECTOR_SUM_BLOCK,
        BATCH,
        GridShape::Cover,
        Finish::AtomicAdd,
    ),
    vector_sum(
        "x1_warp_shuffles",
        "block sum by warp shuffles",
        VECTOR_SUM_BLOCK,
        BATCH,
        GridShape::Cover,
        Finish::AtomicAdd,
    ),
    vector_sum(
        "x2_grid_stride_unrolled",
        "one wave, coalesced, 4 loads in flight",
        STREAM_BLOCK,
        4 * STREAM_UNROLL,
        GridShape::OneWave,
        Finish::AtomicAdd,
    ),
    vector_sum(
        "x3_single_launch",
        "last block finishes: one launch",
        STREAM_BLOCK,
        4 * STREAM_UNROLL,
        GridShape::OneWave,
        Finish::LastBlock,
    ),
    vector_sum(
        "x4_packed_tally",
        "count and sum in one 64-bit atomic",
        STREAM_BLOCK,
        4 * STREAM_UNROLL,
        GridShape::OneWave,
        Finish::PackedTally,
    ),
];

impl ReduceKernel {
    /// The block size to launch with: `requested` if the kernel supports it, else its
    /// default; kernels with a fixed block size ignore `requested`.
    pub fn block_size(&self, requested: Option<u32>) -> Result<u32> {
        match (self.block, requested) {
            (BlockShape::Fixed(block), _) => Ok(block),
            (BlockShape::Runtime { default }, None) | (BlockShape::Instances { default, .. }, None) => {
                Ok(default)
            }
            (BlockShape::Runtime { .. }, Some(b)) => {
                if b.is_power_of_two() && (64..=1024).contains(&b) {
                    Ok(b)
                } else {
                    Err(Error::new(format!("--block {b}: {} needs a power of two from 64 to 1024", self.id)))
                }
            }
            (BlockShape::Instances { instances, .. }, Some(b)) => {
                if instances.iter().any(|&(size, _)| size == b) {
                    Ok(b)
                } else {
                    let sizes: Vec<String> = instances.iter().map(|(s, _)| s.to_string()).collect();
                    Err(Error::new(format!(
                        "--block {b}: {} is instantiated for {} only",
                        self.id,
                        sizes.join(", ")
                    )))
                }
            }
        }
    }

    /// The PTX entry point for a launch with `block` threads.
    pub fn symbol(&self, block: u32) -> &'static str {
        match self.block {
            BlockShape::Instances { instances, .. } => {
                instances.iter().find(|&&(size, _)| size == block).map(|&(_, s)| s).unwrap_or(self.id)
            }
            _ => self.id,
        }
    }

    /// Every PTX entry point of this kernel.
    pub fn symbols(&self) -> Vec<&'static str> {
        match self.block {
            BlockShape::Instances { instances, .. } => instances.iter().map(|&(_, s)| s).collect(),
            _ => vec![self.id],
        }
    }

    /// Every block size this kernel can be launched with (for the tests).
    pub fn block_sizes(&self) -> Vec<u32> {
        match self.block {
            BlockShape::Fixed(block) => vec![block],
            BlockShape::Runtime { .. } => vec![64, 128, 256, 512, 1024],
            BlockShape::Instances { instances, .. } => instances.iter().map(|&(s, _)| s).collect(),
        }
    }

    /// Dynamic shared memory for a launch with `block` threads.
    pub fn shared_bytes(&self, block: u32) -> u32 {
        if self.dynamic_shared { block * 4 } else { 0 }
    }

    /// Blocks that cover `count` elements with `block` threads (at least one, so that an
    /// empty input still gets a launch that writes 0).
    pub fn cover_grid(&self, count: usize, block: u32) -> usize {
        count.div_ceil(block as usize * self.inputs_per_thread as usize).max(1)
    }
}

/// The kernels whose id starts with any of `patterns` (all of them for an empty list), in
/// ladder order.
pub fn select(patterns: &[String]) -> Vec<&'static ReduceKernel> {
    REDUCE_KERNELS
        .iter()
        .filter(|k| patterns.is_empty() || patterns.iter().any(|p| k.id.starts_with(p.as_str())))
        .collect()
}
