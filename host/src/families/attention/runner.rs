//! Launching, verifying and timing any step of the attention ladder on one problem: the
//! inputs are written once on the device, every plan reads them and writes the same output.

use super::problem::Problem;
use super::reference::{self, Check, Inputs, POISON_BITS, Tensor};
use super::registry::{AttentionStep, Grid, Scheme};
use crate::base::error::{Error, Result};
use crate::base::gpu::{Arg, Gpu};
use crate::base::inputs::fill_random;
use crate::base::memory::{DeviceBuffer, Plain};
use crate::base::precision::Precision;
use crate::base::tensor_map::{TensorMaps, encode_4d};
use crate::measure::timing::{Timer, Timing};
use crate::twins::Code;
use common::attention::a08::O_BOX_ROWS;
use common::attention::{Dims, a01, a07};
use cudarc::driver::{CudaFunction, LaunchConfig};

/// The most blocks along a grid's y and z.
const MAX_GRID_YZ: u64 = 65_535;

/// The most blocks along a grid's x.
const MAX_GRID_X: u64 = i32::MAX as u64;

/// The most work tiles a persistent kernel walks: its tile index, plus a grid, stays in 32 bits.
const MAX_PERSISTENT_TILES: u64 = (u32::MAX / 2) as u64;

/// Bytes of an f32 score or log-sum-exp.
const F32_BYTES: usize = 4;

/// The offsets of the three input streams from the run's seed.
const Q_STREAM: u64 = 0;
const K_STREAM: u64 = 1;
const V_STREAM: u64 = 2;

// SAFETY: `Dims` is `#[repr(C)]` of 8 four-byte fields then 12 eight-byte ones: no padding,
// and any bit pattern is a valid value.
unsafe impl Plain for Dims {}

/// One queued launch.
struct Op {
    function: CudaFunction,
    cfg: LaunchConfig,
    args: Vec<Arg>,
}

/// A step's whole forward pass over the bench's problem, ready to replay.
pub struct Plan {
    ops: Vec<Op>,
    pub launches: usize,
    /// Registers per thread of its main kernel (the fused one, or a01's scores).
    pub registers: Option<u32>,
    /// Threads per block of its main kernel.
    pub block: u32,
    /// a01's scores.
    _workspaces: Vec<DeviceBuffer>,
    /// The TMA steps' tensor maps of Q, K, V and O.
    _maps: Option<TensorMaps>,
}

/// One problem's inputs on the device, and the output and log-sum-exps every plan writes.
pub struct AttentionBench<'g> {
    gpu: &'g Gpu,
    pub problem: Problem,
    pub precision: Precision,
    pub seed: u64,
    q: DeviceBuffer,
    k: DeviceBuffer,
    v: DeviceBuffer,
    o: DeviceBuffer,
    lse: DeviceBuffer,
    /// The problem as the kernels read it.
    dims: DeviceBuffer,
}

/// A grid's size along one axis, refused past what the axis holds.
fn grid_axis(blocks: u64, max: u64, what: &str) -> Result<u32> {
    if blocks > max {
        return Err(Error::new(format!("{blocks} blocks along {what}: more than a grid holds ({max})")));
    }
    Ok(blocks as u32)
}

impl<'g> AttentionBench<'g> {
    /// Writes the random Q, K and V of `problem` (streams `seed`, `seed + 1`, `seed + 2` of
    /// `precision`) on the device.
    pub fn new(gpu: &'g Gpu, problem: Problem, precision: Precision, seed: u64) -> Result<Self> {
        if let Some(why) = problem.invalid().or_else(|| problem.too_large()) {
            return Err(Error::new(why));
        }
        let half = precision.bytes();
        let alloc = |elements: usize, what: &str| DeviceBuffer::alloc(gpu, elements * half, what);
        let q = alloc(problem.q_elements(), "Q")?;
        let k = alloc(problem.kv_elements(), "K")?;
        let v = alloc(problem.kv_elements(), "V")?;
        // Whole 4-byte words, which the poisoning fills.
        let o = DeviceBuffer::alloc(gpu, problem.q_elements().div_ceil(2) * 4, "O")?;
        let lse = DeviceBuffer::alloc(gpu, problem.rows() * F32_BYTES, "the log-sum-exps")?;
        let mut dims = DeviceBuffer::alloc(gpu, std::mem::size_of::<Dims>(), "the problem's dims")?;
        dims.upload(gpu, &[problem.dims()])?;
        fill_random(gpu, precision, &q, problem.q_elements(), seed + Q_STREAM)?;
        fill_random(gpu, precision, &k, problem.kv_elements(), seed + K_STREAM)?;
        fill_random(gpu, precision, &v, problem.kv_elements(), seed + V_STREAM)?;
        gpu.sync("filling Q, K and V")?;
        Ok(Self { gpu, problem, precision, seed, q, k, v, o, lse, dims })
    }

    /// The device this problem lives on.
    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// The inputs as the CPU reference reads them (the same streams, computed again).
    pub fn inputs(&self) -> Inputs<'static> {
        let stream = |offset| Tensor::Stream { seed: self.seed + offset, precision: self.precision };
        Inputs { q: stream(Q_STREAM), k: stream(K_STREAM), v: stream(V_STREAM) }
    }

    /// Works out every launch of `step` (the Rust step or its C++ twin: `code`).
    pub fn plan(&self, step: &AttentionStep, code: Code) -> Result<Plan> {
        let p = &self.problem;
        let head_dim = p.head_dim as u32;
        step.takes(head_dim).map_err(Error::new)?;
        let entries = step.entries(self.precision, head_dim).ok_or_else(|| {
            Error::new(format!(
                "{} has no {} kernel at head dim {head_dim}",
                step.id,
                self.precision.short_name()
            ))
        })?;
        let functions = entries.iter().map(|&e| code.function(self.gpu, e)).collect::<Result<Vec<_>>>()?;
        let pairs = (p.batch * p.heads_q) as u64;
        let (q, k, v, o, lse, dims) =
            (self.q.ptr(), self.k.ptr(), self.v.ptr(), self.o.ptr(), self.lse.ptr(), self.dims.ptr());
        let mut ops = Vec::new();
        let mut workspaces = Vec::new();
        let mut tensor_maps = None;
        let (block, main) = match step.scheme {
            Scheme::ThreeKernels => {
                let scores_bytes = p.rows().checked_mul(p.seq_k * F32_BYTES);
                let scores_bytes = scores_bytes.ok_or_else(|| Error::new("the scores' size overflows"))?;
                let scores = DeviceBuffer::alloc(self.gpu, scores_bytes, "a01's scores (rows × keys f32)")?;
                let s = scores.ptr();
                workspaces.push(scores);
                let tiles = |n: usize, tile: u32| n.div_ceil(tile as usize) as u64;
                let z = grid_axis(pairs, MAX_GRID_YZ, "batch × heads")?;
                let rows_y = grid_axis(tiles(p.seq_q, a01::TILE_Y), MAX_GRID_YZ, "query rows")?;
                let cfg = |x: u32| LaunchConfig {
                    grid_dim: (x, rows_y, z),
                    block_dim: (a01::TILE_X, a01::TILE_Y, 1),
                    shared_mem_bytes: 0,
                };
                let keys_x = grid_axis(tiles(p.seq_k, a01::TILE_X), MAX_GRID_X, "keys")?;
                let columns_x = grid_axis(tiles(p.head_dim, a01::TILE_X), MAX_GRID_X, "head-dim columns")?;
                let rows = grid_axis(p.rows() as u64, MAX_GRID_X, "rows")?;
                ops.push(Op {
                    function: functions[0].clone(),
                    cfg: cfg(keys_x),
                    args: vec![Arg::U64(q), Arg::U64(k), Arg::U64(s), Arg::U64(dims)],
                });
                ops.push(Op {
                    function: functions[1].clone(),
                    cfg: LaunchConfig {
                        grid_dim: (rows, 1, 1),
                        block_dim: (a01::SOFTMAX_THREADS, 1, 1),
                        shared_mem_bytes: 0,
                    },
                    args: vec![Arg::U64(s), Arg::U64(lse), Arg::U32(p.seq_k as u32)],
                });
                ops.push(Op {
                    function: functions[2].clone(),
                    cfg: cfg(columns_x),
                    args: vec![Arg::U64(s), Arg::U64(v), Arg::U64(o), Arg::U64(dims)],
                });
                (a01::TILE_X * a01::TILE_Y, &functions[0])
            }
            Scheme::FusedTma { block_q, threads, box_rows, grid } => {
                let shared = (step.shared_bytes)(head_dim);
                self.gpu.allow_dynamic_shared(&functions[0], shared)?;
                let maps = TensorMaps::upload(self.gpu, &self.tensor_maps(box_rows)?)?;
                let query_tiles = p.seq_q.div_ceil(block_q as usize) as u64;
                let mut args = vec![Arg::U64(maps.address(0)), Arg::U64(o), Arg::U64(lse), Arg::U64(dims)];
                let grid_dim = match grid {
                    Grid::PerTile => (
                        grid_axis(query_tiles, MAX_GRID_X, "query tiles")?,
                        grid_axis(pairs, MAX_GRID_YZ, "batch × heads")?,
                        1,
                    ),
                    Grid::Persistent => {
                        // The kernel counts tiles, and steps through them by the grid, in 32 bits.
                        let tiles = query_tiles * pairs;
                        if tiles > MAX_PERSISTENT_TILES {
                            return Err(Error::new(format!(
                                "{tiles} work tiles of {block_q} query rows: more than {} counts in 32 bits \
                                 ({MAX_PERSISTENT_TILES}); split the batch",
                                step.id
                            )));
                        }
                        let tiles = tiles as u32;
                        let wave = self.gpu.full_wave(&functions[0], threads, shared)?;
                        // The tile counter: zero now, and each launch leaves it zero.
                        let counter = DeviceBuffer::alloc(
                            self.gpu,
                            a07::COUNTER_WORDS * 4,
                            "the persistent kernel's tile counter",
                        )?;
                        counter.fill_words(self.gpu, 0, a07::COUNTER_WORDS)?;
                        args.push(Arg::U64(counter.ptr()));
                        workspaces.push(counter);
                        (tiles.min(wave), 1, 1)
                    }
                };
                ops.push(Op {
                    function: functions[0].clone(),
                    cfg: LaunchConfig { grid_dim, block_dim: (threads, 1, 1), shared_mem_bytes: shared },
                    args,
                });
                tensor_maps = Some(maps);
                (threads, &functions[0])
            }
            Scheme::Fused { block_q, threads } => {
                let shared = (step.shared_bytes)(head_dim);
                if shared > 0 {
                    self.gpu.allow_dynamic_shared(&functions[0], shared)?;
                }
                let x = grid_axis(
                    p.seq_q.div_ceil(block_q(head_dim) as usize) as u64,
                    MAX_GRID_X,
                    "query tiles",
                )?;
                let y = grid_axis(pairs, MAX_GRID_YZ, "batch × heads")?;
                ops.push(Op {
                    function: functions[0].clone(),
                    cfg: LaunchConfig {
                        grid_dim: (x, y, 1),
                        block_dim: (threads, 1, 1),
                        shared_mem_bytes: shared,
                    },
                    args: vec![
                        Arg::U64(q),
                        Arg::U64(k),
                        Arg::U64(v),
                        Arg::U64(o),
                        Arg::U64(lse),
                        Arg::U64(dims),
                    ],
                });
                (threads, &functions[0])
            }
        };
        let registers = crate::twins::registers(main);
        // A launch over nothing (no keys to score) is left out: the others still write every
        // output (zeros, and −∞ log-sum-exps).
        ops.retain(|op| {
            let (x, y, z) = op.cfg.grid_dim;
            x > 0 && y > 0 && z > 0
        });
        Ok(Plan { launches: ops.len(), ops, registers, block, _workspaces: workspaces, _maps: tensor_maps })
    }

    /// The tensor maps of Q, K and V as [column, row, head, batch], boxes of 64 columns ×
    /// `box_rows` rows of one head, then O's, boxes of 64 columns × [`O_BOX_ROWS`] rows (a
    /// consumer warpgroup's): the problem's own strides, so either layout. (A length of 0 is
    /// mapped as 1: nothing is then copied through the map.)
    fn tensor_maps(&self, box_rows: u32) -> Result<Vec<[u64; 16]>> {
        let (p, d) = (&self.problem, self.problem.dims());
        const BOX_COLUMNS: u32 = 64;
        let map = |buffer: &DeviceBuffer,
                   seq: usize,
                   heads: usize,
                   strides: common::attention::Strides,
                   rows: u32| {
            encode_4d(
                self.gpu,
                buffer.ptr(),
                [p.head_dim as u64, seq.max(1) as u64, heads as u64, p.batch as u64],
                [strides.row, strides.head, strides.batch],
                [BOX_COLUMNS, rows, 1, 1],
            )
        };
        Ok(vec![
            map(&self.q, p.seq_q, p.heads_q, d.q, box_rows)?,
            map(&self.k, p.seq_k, p.heads_kv, d.k, box_rows)?,
            map(&self.v, p.seq_k, p.heads_kv, d.v, box_rows)?,
            map(&self.o, p.seq_q, p.heads_q, d.o, O_BOX_ROWS)?,
        ])
    }

    /// Queues every launch of `plan`.
    pub fn enqueue(&self, plan: &Plan) -> Result<()> {
        for Op { function, cfg, args } in &plan.ops {
            // SAFETY: the plan passes each kernel the arguments its scheme describes (see
            // `Scheme`), over buffers sized for this problem, and the problem's dims.
            unsafe { self.gpu.launch(function, *cfg, args)? };
        }
        Ok(())
    }

    /// Runs `plan` once on a poisoned output and log-sum-exps and checks them against the CPU.
    pub fn check(&self, plan: &Plan) -> Result<Check> {
        let p = &self.problem;
        let halves = p.q_elements();
        self.o.fill_words(self.gpu, u32::from(POISON_BITS) * 0x1_0001, halves.div_ceil(2))?;
        self.lse.fill_words(self.gpu, f32::NAN.to_bits(), p.rows())?;
        self.enqueue(plan)?;
        let o = self.o.read::<u16>(self.gpu, halves)?;
        let lse = self.lse.read::<f32>(self.gpu, p.rows())?;
        Ok(reference::check(p, &self.inputs(), self.precision, &o, &lse, self.seed))
    }

    /// Times `plan` with `timer` (its warm-up and L2 flush).
    pub fn time(&self, plan: &Plan, timer: &Timer) -> Result<Timing> {
        timer.measure(self.gpu, || self.enqueue(plan))
    }
}
