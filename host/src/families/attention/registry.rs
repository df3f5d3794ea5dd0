//! The attention ladder as data: one entry per step, saying how its kernels make the forward
//! pass and which shapes they take. The runner, the tests and the report iterate over
//! [`ATTENTION_STEPS`]; adding a step is adding an entry here (and its kernel file and twin).

use crate::base::precision::Precision;
use crate::base::ptx::Arch;
use common::attention::{a01, a02, a03, a04, a05, a06, a07, a08, a09, a10};

/// How a step's kernels make the forward pass.
#[derive(Clone, Copy, Debug)]
pub enum Scheme {
    /// a01: the scores to memory, `(q, k, s, dims)` on a grid of `a01::TILE_X × TILE_Y`
    /// threads per block over (keys, query rows, batch · heads); a softmax per row in place,
    /// `(s, lse, seq_k)`, a block of `a01::SOFTMAX_THREADS` per row; then P·V,
    /// `(p, v, o, dims)`, over (head-dim columns, query rows, batch · heads).
    ThreeKernels,
    /// One kernel `(q, k, v, o, lse, dims)`: a block of `threads` per `block_q(head dim)` query
    /// rows of one (batch, head), grid (⌈seq_q / block_q⌉, batch · heads).
    Fused { block_q: fn(u32) -> u32, threads: u32 },
    /// As `Fused`, but the kernel reads Q, K and V through TMA tensor maps: `(maps, o, lse,
    /// dims)` (and a counter: [`Grid::Persistent`]), `maps` four maps of 16-bit [column, row,
    /// head, batch] with the 128-byte swizzle, 128 bytes apart: Q's, K's and V's with boxes of
    /// 64 columns × `box_rows` rows, and O's with boxes of 64 columns × 64 rows (for the steps
    /// that store O through the copy engine).
    FusedTma { block_q: u32, threads: u32, box_rows: u32, grid: Grid },
}

/// How a fused TMA kernel's blocks cover the work tiles (`block_q` query rows of one (batch,
/// query head) each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// A block per tile: (⌈seq_q / block_q⌉, batch · heads_q).
    PerTile,
    /// As many blocks as fit on the GPU at once (never more than tiles), along x, drawing
    /// tiles from a counter: a fifth argument, [`a07::COUNTER_WORDS`] zeroed `u32` that each
    /// launch leaves zero.
    Persistent,
}

/// The head dims a step takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadDims {
    /// Any from 1 to this.
    UpTo(u32),
    /// These alone (a kernel compiled for each).
    Only(&'static [u32]),
}

/// The entry points of a step for one input type and head dim (`None`: every head dim it
/// takes), in the order of its scheme's launches.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub precision: Precision,
    pub head_dim: Option<u32>,
    pub symbols: &'static [&'static str],
}

/// One step of the ladder.
#[derive(Clone, Copy, Debug)]
pub struct AttentionStep {
    /// Stable name on the command line and in the records; the kernel file's name.
    pub id: &'static str,
    /// The step's idea in a few words.
    pub summary: &'static str,
    pub scheme: Scheme,
    pub head_dims: HeadDims,
    /// Dynamic shared memory of its (fused) kernel at a head dim, in bytes.
    pub shared_bytes: fn(u32) -> u32,
    pub entries: &'static [Entry],
    /// The oldest PTX target that holds its entry points.
    pub arch: Arch,
}

/// The PTX target of the portable steps.
pub const SM80: Arch = Arch::new(80, false);

/// The PTX target of the steps on Hopper's own instructions (`wgmma`).
pub const SM90A: Arch = Arch::new(90, true);

/// The input types every step takes, in the order the tables take them.
pub const PRECISIONS: [Precision; 2] = [Precision::Bf16, Precision::F16];

fn no_dynamic_shared(_head_dim: u32) -> u32 {
    0
}

impl AttentionStep {
    /// Its entry points for `precision` at `head_dim`, or `None` when it has no kernel for them.
    pub fn entries(&self, precision: Precision, head_dim: u32) -> Option<&'static [&'static str]> {
        self.entries
            .iter()
            .find(|e| e.precision == precision && e.head_dim.is_none_or(|d| d == head_dim))
            .map(|e| e.symbols)
            .filter(|_| self.takes(head_dim).is_ok())
    }

    /// Why it does not take head dim `head_dim`, or `Ok`.
    pub fn takes(&self, head_dim: u32) -> Result<(), String> {
        match self.head_dims {
            HeadDims::UpTo(max) if (1..=max).contains(&head_dim) => Ok(()),
            HeadDims::UpTo(max) => Err(format!("{} takes head dims 1 to {max}, not {head_dim}", self.id)),
            HeadDims::Only(dims) if dims.contains(&head_dim) => Ok(()),
            HeadDims::Only(dims) => Err(format!(
                "{} is compiled for head dims {} alone, not {head_dim}",
                self.id,
                dims.iter().map(u32::to_string).collect::<Vec<_>>().join(" and ")
            )),
        }
    }

    /// Every entry point, each once, in the registry's order.
    pub fn symbols(&self) -> Vec<&'static str> {
        let mut symbols: Vec<&'static str> = Vec::new();
        for &symbol in self.entries.iter().flat_map(|e| e.symbols) {
            if !symbols.contains(&symbol) {
                symbols.push(symbol);
            }
        }
        symbols
    }

    /// Why it cannot run on a device of compute capability `device` that loaded the PTX for
    /// `loaded`, or `None` when it can.
    pub fn unavailable(&self, device: (u32, u32), loaded: Arch) -> Option<String> {
        crate::base::ptx::unavailable(self.id, self.arch, device, loaded)
    }
}

/// Every step, in ladder order.
pub const ATTENTION_STEPS: &[AttentionStep] = &[
    AttentionStep {
        id: "a01_three_kernels",
        summary: "scores to memory, a softmax per row, then P·V: what fusion removes",
        scheme: Scheme::ThreeKernels,
        head_dims: HeadDims::UpTo(a01::MAX_HEAD_DIM),
        shared_bytes: no_dynamic_shared,
        entries: &[
            Entry {
                precision: Precision::Bf16,
                head_dim: None,
                symbols: &["a01_scores_bf16", "a01_softmax", "a01_output_bf16"],
            },
            Entry {
                precision: Precision::F16,
                head_dim: None,
                symbols: &["a01_scores_f16", "a01_softmax", "a01_output_f16"],
            },
        ],
        arch: SM80,
    },
    AttentionStep {
        id: "a02_fused",
        summary: "one kernel, the online softmax: no scores in memory (f32 on CUDA cores)",
        scheme: Scheme::Fused { block_q: |_| a02::BLOCK_Q, threads: a02::THREADS },
        head_dims: HeadDims::UpTo(a02::MAX_HEAD_DIM),
        shared_bytes: no_dynamic_shared,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: None, symbols: &["a02_fused_bf16"] },
            Entry { precision: Precision::F16, head_dim: None, symbols: &["a02_fused_f16"] },
        ],
        arch: SM80,
    },
    AttentionStep {
        id: "a03_mma_sync",
        summary: "FlashAttention-2 on mma.sync: P in registers, K and V through a cp.async pipeline",
        scheme: Scheme::Fused { block_q: a03::block_q, threads: a03::THREADS },
        head_dims: HeadDims::Only(&[64, 128, 256]),
        shared_bytes: a03::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a03_mma_sync_bf16_d64"] },
            Entry { precision: Precision::Bf16, head_dim: Some(128), symbols: &["a03_mma_sync_bf16_d128"] },
            Entry { precision: Precision::Bf16, head_dim: Some(256), symbols: &["a03_mma_sync_bf16_d256"] },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a03_mma_sync_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a03_mma_sync_f16_d128"] },
            Entry { precision: Precision::F16, head_dim: Some(256), symbols: &["a03_mma_sync_f16_d256"] },
        ],
        arch: SM80,
    },
    AttentionStep {
        id: "a04_wgmma",
        summary: "Hopper's wgmma for both products: Q and K from shared memory, P from registers",
        scheme: Scheme::Fused { block_q: |_| a04::BLOCK_Q, threads: a04::THREADS },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a04::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a04_wgmma_bf16_d64"] },
            Entry { precision: Precision::Bf16, head_dim: Some(128), symbols: &["a04_wgmma_bf16_d128"] },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a04_wgmma_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a04_wgmma_f16_d128"] },
        ],
        arch: SM90A,
    },
    AttentionStep {
        id: "a05_tma_producer",
        summary: "the tiles by TMA from a producer warpgroup through mbarrier stages; setmaxnreg",
        scheme: Scheme::FusedTma {
            block_q: a05::BLOCK_Q,
            threads: a05::THREADS,
            box_rows: a05::BLOCK_K,
            grid: Grid::PerTile,
        },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a05::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a05_tma_producer_bf16_d64"] },
            Entry {
                precision: Precision::Bf16,
                head_dim: Some(128),
                symbols: &["a05_tma_producer_bf16_d128"],
            },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a05_tma_producer_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a05_tma_producer_f16_d128"] },
        ],
        arch: SM90A,
    },
    AttentionStep {
        id: "a06_pingpong",
        summary: "consumers take turns; each tile's softmax runs under the previous tile's P·V",
        scheme: Scheme::FusedTma {
            block_q: a06::BLOCK_Q,
            threads: a06::THREADS,
            box_rows: a06::BLOCK_K,
            grid: Grid::PerTile,
        },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a06::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a06_pingpong_bf16_d64"] },
            Entry { precision: Precision::Bf16, head_dim: Some(128), symbols: &["a06_pingpong_bf16_d128"] },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a06_pingpong_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a06_pingpong_f16_d128"] },
        ],
        arch: SM90A,
    },
    AttentionStep {
        id: "a07_persistent",
        summary: "one block per SM walks the tiles: the next tile loads under this one's end",
        scheme: Scheme::FusedTma {
            block_q: a07::BLOCK_Q,
            threads: a07::THREADS,
            box_rows: a07::BLOCK_K,
            grid: Grid::Persistent,
        },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a07::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a07_persistent_bf16_d64"] },
            Entry { precision: Precision::Bf16, head_dim: Some(128), symbols: &["a07_persistent_bf16_d128"] },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a07_persistent_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a07_persistent_f16_d128"] },
        ],
        arch: SM90A,
    },
    AttentionStep {
        id: "a08_tma_store",
        summary: "O leaves through shared memory and the copy engine: the consumers go on to the next tile",
        scheme: Scheme::FusedTma {
            block_q: a08::BLOCK_Q,
            threads: a08::THREADS,
            box_rows: a08::BLOCK_K,
            grid: Grid::Persistent,
        },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a08::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a08_tma_store_bf16_d64"] },
            Entry { precision: Precision::Bf16, head_dim: Some(128), symbols: &["a08_tma_store_bf16_d128"] },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a08_tma_store_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a08_tma_store_f16_d128"] },
        ],
        arch: SM90A,
    },
    AttentionStep {
        id: "a09_softmax_chains",
        summary: "each row's maximum and sum in independent chains: a shorter softmax",
        scheme: Scheme::FusedTma {
            block_q: a09::BLOCK_Q,
            threads: a09::THREADS,
            box_rows: a09::BLOCK_K,
            grid: Grid::Persistent,
        },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a09::shared_bytes,
        entries: &[
            Entry {
                precision: Precision::Bf16,
                head_dim: Some(64),
                symbols: &["a09_softmax_chains_bf16_d64"],
            },
            Entry {
                precision: Precision::Bf16,
                head_dim: Some(128),
                symbols: &["a09_softmax_chains_bf16_d128"],
            },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a09_softmax_chains_f16_d64"] },
            Entry {
                precision: Precision::F16,
                head_dim: Some(128),
                symbols: &["a09_softmax_chains_f16_d128"],
            },
        ],
        arch: SM90A,
    },
    AttentionStep {
        id: "a10_wide_pv",
        summary: "P·V as one wgmma across the head dim: P read from registers once",
        scheme: Scheme::FusedTma {
            block_q: a10::BLOCK_Q,
            threads: a10::THREADS,
            box_rows: a10::BLOCK_K,
            grid: Grid::Persistent,
        },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: a10::shared_bytes,
        entries: &[
            Entry { precision: Precision::Bf16, head_dim: Some(64), symbols: &["a10_wide_pv_bf16_d64"] },
            Entry { precision: Precision::Bf16, head_dim: Some(128), symbols: &["a10_wide_pv_bf16_d128"] },
            Entry { precision: Precision::F16, head_dim: Some(64), symbols: &["a10_wide_pv_f16_d64"] },
            Entry { precision: Precision::F16, head_dim: Some(128), symbols: &["a10_wide_pv_f16_d128"] },
        ],
        arch: SM90A,
    },
];

/// The step called `id`.
pub fn step(id: &str) -> Option<&'static AttentionStep> {
    ATTENTION_STEPS.iter().find(|s| s.id == id)
}
