//! p8: the tensor-core ceiling (kernels in `kernels/src/probes/p8_tensor_ceiling.rs`): the
//! peak FLOP/s of `mma.sync` m16n8k16 and `wgmma` m64n256k16, f16 and bf16 in, and of
//! `wgmma` m64n256k32 with e4m3 in, f32 accumulate, on the running GPU. Each kernel is checked exactly, then timed at several
//! numbers of warps (or warpgroups) per SM; the best of each instruction and input type is
//! its ceiling, which the GEMM tables divide each tensor-core step by ([`cached`],
//! [`measure`]).

use crate::base::error::{Error, Result};
use crate::base::gpu::{Arg, Gpu, launch_config};
use crate::base::memory::DeviceBuffer;
use crate::base::precision::Precision;
use crate::base::ptx::Arch;
use crate::measure::timing::Timer;
use crate::report::table::{Cell, Table};
use common::probes::tensor_ceiling::{
    FP8_VALUES, MAX_WARPGROUPS, MMA_CHAINS, MMA_THREADS, WARPGROUP_THREADS, WGMMA_M, WGMMA_N,
    WGMMA_SHARED_BYTES, fp8_a, fp8_b, mma_a, mma_b, wgmma_a, wgmma_b,
};
use cudarc::driver::{CudaFunction, LaunchConfig};
use std::sync::Mutex;
use std::time::Duration;

/// A tensor-core instruction whose peak rate the ceiling probe (p8) measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorInstruction {
    /// `mma.sync.aligned.m16n8k16`: one warp, operands in registers (sm_80 and newer).
    MmaSync,
    /// `wgmma.mma_async.m64n256k16` (and the narrower `n` the later steps use): one
    /// warpgroup, operands in shared memory (sm_90a only).
    Wgmma,
}

impl TensorInstruction {
    /// The instruction and the shape the probe measures it at.
    pub fn name(self) -> &'static str {
        match self {
            TensorInstruction::MmaSync => "mma.sync m16n8k16",
            TensorInstruction::Wgmma => "wgmma m64n256k16",
        }
    }
}

/// Warps per scheduler (an SM has four) of the `mma.sync` sweep: 4 to 32 warps per SM.
pub const MMA_WARPS_PER_SCHEDULER: &[u32] = &[1, 2, 4, 8];

/// Warpgroups per SM of the `wgmma` sweep (one block per SM).
pub const WGMMA_WARPGROUPS: &[u32] = &[1, 2, 3];

/// The 16-bit input types both instructions are measured with.
pub const INPUTS: [Precision; 2] = [Precision::F16, Precision::Bf16];

/// The input types `wgmma` is measured with: the 16-bit ones, and e4m3 (`wgmma`
/// m64n256k32; `mma.sync` takes 8-bit floats only from sm_89 on, and the ladder's `mma.sync`
/// steps are 16-bit).
pub const WGMMA_INPUTS: [Precision; 3] = [Precision::F16, Precision::Bf16, Precision::E4m3];

/// FLOPs of one timed launch: about half a millisecond at the rates these instructions
/// reach, long enough that the launch and the ramp of the last blocks are noise, short
/// enough that the whole sweep takes well under a second.
pub const LAUNCH_FLOP: f64 = 4e11;

/// Written over the results before each checked launch, so that a thread that wrote
/// nothing fails.
const POISON: u32 = 0xDEAD_BEEF;

/// The arch whose PTX holds the `wgmma` kernels.
const SM_90A: Arch = Arch::new(90, true);

/// The k of one instruction with `precision` inputs: 32 bytes of each row, 16 values of 16
/// bits or 32 of 8.
fn instruction_k(precision: Precision) -> f64 {
    if precision == Precision::E4m3 { 32.0 } else { 16.0 }
}

/// The instruction and the shape the probe measures it at with `precision` inputs:
/// "wgmma m64n256k16", but "wgmma m64n256k32" for e4m3.
pub fn instruction_name(instruction: TensorInstruction, precision: Precision) -> &'static str {
    match (instruction, precision) {
        (TensorInstruction::Wgmma, Precision::E4m3) => "wgmma m64n256k32",
        (instruction, _) => instruction.name(),
    }
}

/// FLOPs of one instruction: 2·M·N·K.
pub fn instruction_flop(instruction: TensorInstruction, precision: Precision) -> f64 {
    let k = instruction_k(precision);
    match instruction {
        TensorInstruction::MmaSync => 2.0 * 16.0 * 8.0 * k,
        TensorInstruction::Wgmma => 2.0 * f64::from(WGMMA_M) * f64::from(WGMMA_N) * k,
    }
}

/// One configuration of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub instruction: TensorInstruction,
    /// F16 or Bf16.
    pub precision: Precision,
    /// `mma.sync`: warps per scheduler (blocks of four warps, this many per SM);
    /// `wgmma`: warpgroups per SM (one block per SM).
    pub per_sm: u32,
}

impl Config {
    /// The PTX entry point.
    pub fn kernel(&self) -> Result<&'static str> {
        match (self.instruction, self.precision) {
            (TensorInstruction::MmaSync, Precision::F16) => Ok("ceiling_mma_sync_f16"),
            (TensorInstruction::MmaSync, Precision::Bf16) => Ok("ceiling_mma_sync_bf16"),
            (TensorInstruction::Wgmma, Precision::F16) => Ok("ceiling_wgmma_f16"),
            (TensorInstruction::Wgmma, Precision::Bf16) => Ok("ceiling_wgmma_bf16"),
            (TensorInstruction::Wgmma, Precision::E4m3) => Ok("ceiling_wgmma_e4m3"),
            (TensorInstruction::Wgmma, Precision::E4m3Blocks | Precision::E4m3E5m2) => {
                Err(Error::new("this FP8 product's ceiling is e4m3's (the same rate): measure e4m3"))
            }
            (TensorInstruction::MmaSync, Precision::E4m3 | Precision::E4m3Blocks | Precision::E4m3E5m2) => {
                Err(Error::new("the tensor-core ceiling has no 8-bit mma.sync kernel"))
            }
            (_, Precision::F32) => Err(Error::new("the tensor-core ceiling has no FP32 kernel")),
        }
    }

    /// The instruction and its shape for this input type ([`instruction_name`]).
    pub fn instruction_name(&self) -> &'static str {
        instruction_name(self.instruction, self.precision)
    }

    /// Threads per block and blocks per SM.
    fn block_and_blocks_per_sm(&self) -> (u32, u32) {
        match self.instruction {
            TensorInstruction::MmaSync => (MMA_THREADS, self.per_sm),
            TensorInstruction::Wgmma => (self.per_sm * WARPGROUP_THREADS, 1),
        }
    }

    /// The launch shape on a GPU of `sms` SMs.
    pub fn launch(&self, sms: u32) -> LaunchConfig {
        let (block, per_sm) = self.block_and_blocks_per_sm();
        let shared = if self.instruction == TensorInstruction::Wgmma { WGMMA_SHARED_BYTES } else { 0 };
        launch_config(sms * per_sm, block, shared)
    }

    /// Threads of the grid: one result word each.
    pub fn threads(&self, sms: u32) -> usize {
        let (block, per_sm) = self.block_and_blocks_per_sm();
        (sms * per_sm * block) as usize
    }

    /// Instructions one launch of `iters` loop trips issues: per warp `MMA_CHAINS ·
    /// (2·iters + 1)` `mma.sync`; per warpgroup `4·iters + 1` `wgmma`.
    pub fn instructions(&self, sms: u32, iters: u32) -> f64 {
        let threads = self.threads(sms) as f64;
        let iters = f64::from(iters);
        match self.instruction {
            TensorInstruction::MmaSync => threads / 32.0 * f64::from(MMA_CHAINS) * (2.0 * iters + 1.0),
            TensorInstruction::Wgmma => threads / f64::from(WARPGROUP_THREADS) * (4.0 * iters + 1.0),
        }
    }

    pub fn flop(&self, sms: u32, iters: u32) -> f64 {
        self.instructions(sms, iters) * instruction_flop(self.instruction, self.precision)
    }

    /// Loop trips that make one launch about `flop` FLOPs.
    pub fn iterations_for(&self, sms: u32, flop: f64) -> u32 {
        let per_trip = self.flop(sms, 1) - self.flop(sms, 0);
        (flop / per_trip).ceil().clamp(1.0, f64::from(u32::MAX)) as u32
    }

    /// Who issues, in words: "8 warps (2 per scheduler)", "2 warpgroups".
    pub fn issuers(&self) -> String {
        match self.instruction {
            TensorInstruction::MmaSync => {
                format!("{} warps ({} per scheduler)", 4 * self.per_sm, self.per_sm)
            }
            TensorInstruction::Wgmma if self.per_sm == 1 => "1 warpgroup".into(),
            TensorInstruction::Wgmma => format!("{} warpgroups", self.per_sm),
        }
    }
}

/// Every configuration of the sweep, `mma.sync` first.
pub fn configs() -> Vec<Config> {
    let mut all = Vec::new();
    for (instruction, counts, inputs) in [
        (TensorInstruction::MmaSync, MMA_WARPS_PER_SCHEDULER, &INPUTS[..]),
        (TensorInstruction::Wgmma, WGMMA_WARPGROUPS, &WGMMA_INPUTS[..]),
    ] {
        for &precision in inputs {
            all.extend(counts.iter().map(|&per_sm| Config { instruction, precision, per_sm }));
        }
    }
    all
}

/// Why the `wgmma` kernels cannot run on a device of compute capability `major.minor`
/// with PTX built for `loaded`, or `None` when they can.
pub fn wgmma_unavailable((major, minor): (u32, u32), loaded: Arch) -> Option<String> {
    if !SM_90A.runs_on(major, minor) {
        return Some(format!(
            "wgmma needs {SM_90A} (compute capability 9.0 exactly: H100, H200); this device is {major}.{minor}"
        ));
    }
    (loaded != SM_90A).then(|| crate::base::ptx::not_in_folder("wgmma", SM_90A, loaded))
}

/// A sum of products of operands, in f64 (exact: each product has at most 16 significant
/// bits), as the f32 the tensor cores must produce (exact too: a multiple of 2^-16 below 16).
fn exact_f32(sum: f64) -> f32 {
    let value = sum as f32;
    debug_assert_eq!(f64::from(value), sum, "the operands keep every sum exact in f32");
    value
}

/// What each lane of every warp of the `mma.sync` kernel writes: the XOR of the bits of its
/// 32 accumulators, which hold `A · B_chain` (16 × 8) in the fragment layout of
/// `device::mma` (lane `l`: rows `l / 4` and `l / 4 + 8`, columns `2·(l % 4)` and the next).
/// The same for f16 and bf16: the operands are exact in both.
pub fn mma_expected(seed: u64) -> [u32; 32] {
    let product: Vec<[[f32; 8]; 16]> = (0..MMA_CHAINS)
        .map(|chain| {
            let mut d = [[0.0f32; 8]; 16];
            for (row, line) in d.iter_mut().enumerate() {
                for (col, entry) in line.iter_mut().enumerate() {
                    let sum = (0..16)
                        .map(|k| {
                            f64::from(mma_a(seed, row as u32, k))
                                * f64::from(mma_b(seed, chain, k, col as u32))
                        })
                        .sum();
                    *entry = exact_f32(sum);
                }
            }
            d
        })
        .collect();
    std::array::from_fn(|lane| {
        let (g, t) = (lane / 4, lane % 4);
        let mut fold = 0;
        for d in &product {
            for (row, col) in [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)] {
                fold ^= d[row][col].to_bits();
            }
        }
        fold
    })
}

/// What each thread of every warpgroup of the `wgmma` kernel writes (by its index in the
/// warpgroup): the XOR of the bits of its 128 accumulators, which hold the 64 × 256 product
/// of A's first k16 step and B's, in the layout of `device::wgmma` (warp `w`, lane `l`:
/// rows `16w + l / 4` and 8 below, columns `8j + 2·(l % 4)` and the next, for j < 32).
pub fn wgmma_expected(seed: u64) -> Vec<u32> {
    let a = |m: u32, k: u32| f64::from(wgmma_a(seed, m, k));
    let b = |k: u32, n: u32| f64::from(wgmma_b(seed, k, n));
    fold_accumulators(&first_step_product(16, a, b))
}

/// What each thread of the 8-bit `wgmma` kernel writes: as [`wgmma_expected`], for the
/// product of A's first k32 step and B's (the operands as `common::probes::tensor_ceiling`'s
/// `fp8_a`, `fp8_b` give them).
pub fn wgmma_fp8_expected(seed: u64) -> Vec<u32> {
    let a = |m: u32, k: u32| f64::from(FP8_VALUES[fp8_a(seed, m, k)]);
    let b = |k: u32, n: u32| f64::from(FP8_VALUES[fp8_b(seed, k, n)]);
    fold_accumulators(&first_step_product(32, a, b))
}

/// The 64 × 256 product of A's first `k` columns and B's first `k` rows, row-major, each
/// entry exact in f32.
fn first_step_product(k: u32, a: impl Fn(u32, u32) -> f64, b: impl Fn(u32, u32) -> f64) -> Vec<f32> {
    let n_all = WGMMA_N as usize;
    let b: Vec<f64> = (0..k as usize * n_all).map(|e| b((e / n_all) as u32, (e % n_all) as u32)).collect();
    let mut d = vec![0.0f32; WGMMA_M as usize * n_all];
    for m in 0..WGMMA_M {
        let a: Vec<f64> = (0..k).map(|kk| a(m, kk)).collect();
        for n in 0..n_all {
            d[m as usize * n_all + n] = exact_f32((0..k as usize).map(|kk| a[kk] * b[kk * n_all + n]).sum());
        }
    }
    d
}

/// Each warpgroup thread's XOR of the bits of its 128 accumulators holding the 64 × 256 `d`
/// (row-major) in the layout of `device::wgmma` (warp `w`, lane `l`: rows `16w + l / 4` and
/// 8 below, columns `8j + 2·(l % 4)` and the next, for j < 32).
fn fold_accumulators(d: &[f32]) -> Vec<u32> {
    let n_all = WGMMA_N as usize;
    (0..WARPGROUP_THREADS as usize)
        .map(|thread| {
            let (warp, lane) = (thread / 32, thread % 32);
            let (row, t) = (16 * warp + lane / 4, lane % 4);
            let mut fold = 0;
            for j in 0..n_all / 8 {
                for (r, c) in [(row, 8 * j + 2 * t), (row + 8, 8 * j + 2 * t)] {
                    fold ^= d[r * n_all + c].to_bits() ^ d[r * n_all + c + 1].to_bits();
                }
            }
            fold
        })
        .collect()
}

/// A configuration's kernel, ready to launch.
pub struct Prepared {
    pub config: Config,
    function: CudaFunction,
    cfg: LaunchConfig,
}

/// Looks up `config`'s kernel and raises its shared-memory limit; `Ok(Err(why))` when its
/// blocks do not all fit on the GPU at once (the sweep then skips it).
pub fn prepare(gpu: &Gpu, config: Config) -> Result<std::result::Result<Prepared, String>> {
    let unavailable = wgmma_unavailable(gpu.info.compute_capability, gpu.info.ptx_arch);
    if let (TensorInstruction::Wgmma, Some(reason)) = (config.instruction, unavailable) {
        return Err(Error::new(reason));
    }
    let function = gpu.function(config.kernel()?)?;
    let sms = gpu.info.multiprocessors;
    let cfg = config.launch(sms);
    gpu.allow_dynamic_shared(&function, cfg.shared_mem_bytes)?;
    let fit = gpu.full_wave(&function, cfg.block_dim.0, cfg.shared_mem_bytes)?;
    if fit < cfg.grid_dim.0 {
        return Ok(Err(format!(
            "{} {}, {}: only {} blocks of {} threads fit per SM",
            config.instruction_name(),
            config.precision.name(),
            config.issuers(),
            fit / sms,
            cfg.block_dim.0
        )));
    }
    Ok(Ok(Prepared { config, function, cfg }))
}

impl Prepared {
    /// One launch of `iters` loop trips writing one word per thread to `out`.
    pub fn launch(&self, gpu: &Gpu, iters: u32, seed: u64, out: &DeviceBuffer) -> Result<()> {
        let threads = self.config.threads(gpu.info.multiprocessors);
        if out.bytes() < threads * 4 {
            return Err(Error::new(format!("the ceiling probe needs {} bytes of results", threads * 4)));
        }
        let args = [Arg::U64(out.ptr()), Arg::U32(iters), Arg::U64(seed)];
        // SAFETY: ceiling_*(out: *mut u32, iters: u32, seed: u64) with one word per thread
        // (checked above), whole warps (mma.sync) or whole warpgroups, at most
        // MAX_WARPGROUPS, with WGMMA_SHARED_BYTES of dynamic shared memory (wgmma, whose
        // kernels `prepare` only looks up on an sm_90a device with the sm_90a PTX).
        unsafe { gpu.launch(&self.function, self.cfg, &args) }
    }

    /// Runs `iters` trips once on a poisoned `out` and compares every thread's word with
    /// the CPU's; the first mismatch, or `None`.
    pub fn check(&self, gpu: &Gpu, iters: u32, seed: u64, out: &DeviceBuffer) -> Result<Option<String>> {
        let threads = self.config.threads(gpu.info.multiprocessors);
        out.fill_words(gpu, POISON, threads)?;
        self.launch(gpu, iters, seed, out)?;
        let got = out.read::<u32>(gpu, threads)?;
        let want: Vec<u32> = match (self.config.instruction, self.config.precision) {
            (TensorInstruction::MmaSync, _) => mma_expected(seed).to_vec(),
            (TensorInstruction::Wgmma, Precision::E4m3) => wgmma_fp8_expected(seed),
            (TensorInstruction::Wgmma, _) => wgmma_expected(seed),
        };
        let wrong = got.iter().enumerate().find(|&(i, &word)| word != want[i % want.len()]);
        Ok(wrong.map(|(i, &word)| {
            format!(
                "{} ({}, {} trips, seed {seed}): thread {i} wrote {word:#010x}, the CPU's product gives {:#010x}",
                self.config.kernel().unwrap_or("?"),
                self.config.issuers(),
                iters,
                want[i % want.len()]
            )
        }))
    }
}

/// The largest result buffer any configuration needs, in bytes.
pub fn result_bytes(sms: u32) -> usize {
    configs().iter().map(|c| c.threads(sms)).max().unwrap_or(0) * 4
}

/// The ceilings of one run: the best verified rate of each instruction and input type.
#[derive(Clone, Debug, Default)]
pub struct Ceilings {
    /// (instruction, input type, TFLOP/s).
    pub measured: Vec<(TensorInstruction, Precision, f64)>,
    /// Why an instruction was not measured (`wgmma` off Hopper), one line each.
    pub missing: Vec<String>,
}

impl Ceilings {
    /// The ceiling of `instruction` with `precision` inputs, in TFLOP/s.
    /// (A product with block scales reads the ceiling of its element type.)
    pub fn get(&self, instruction: TensorInstruction, precision: Precision) -> Option<f64> {
        let precision = precision.element();
        self.measured.iter().find(|&&(i, p, _)| i == instruction && p == precision).map(|&(.., t)| t)
    }

    /// The highest ceiling of any instruction for `precision` inputs.
    pub fn best(&self, precision: Precision) -> Option<f64> {
        let precision = precision.element();
        self.measured.iter().filter(|&&(_, p, _)| p == precision).map(|&(.., t)| t).reduce(f64::max)
    }

    /// The ceiling a vendor library is read against on a GPU of `compute_capability`: the
    /// fastest instruction it has, or none where that one was not measured (a Hopper run from
    /// a PTX folder without sm_90a has `mma.sync`'s alone, and cuBLAS issues `wgmma`).
    pub fn for_vendor(&self, precision: Precision, compute_capability: (u32, u32)) -> Option<f64> {
        let has_wgmma = compute_capability.0 == 9;
        if has_wgmma && self.get(TensorInstruction::Wgmma, precision).is_none() {
            return None;
        }
        self.best(precision)
    }

    /// Keeps `tflops` if it beats what `instruction` and `precision` have.
    fn record(&mut self, instruction: TensorInstruction, precision: Precision, tflops: f64) {
        match self.measured.iter_mut().find(|(i, p, _)| *i == instruction && *p == precision) {
            Some(entry) => entry.2 = entry.2.max(tflops),
            None => self.measured.push((instruction, precision, tflops)),
        }
    }

    /// "mma.sync m16n8k16 612.3, wgmma m64n256k16 871.0 TFLOP/s" for `precision` inputs.
    pub fn describe(&self, precision: Precision) -> Option<String> {
        let precision = precision.element();
        let parts: Vec<String> = self
            .measured
            .iter()
            .filter(|&&(_, p, _)| p == precision)
            .map(|&(i, p, t)| format!("{} {t:.1}", instruction_name(i, p)))
            .collect();
        (!parts.is_empty()).then(|| format!("{} TFLOP/s", parts.join(", ")))
    }

    /// `{"mma.sync m16n8k16 f16": 612.3, …, "missing": […]}`, for the results file.
    pub fn json(&self) -> serde_json::Value {
        let mut record = serde_json::Map::new();
        for &(instruction, precision, tflops) in &self.measured {
            let key = format!("{} {}", instruction_name(instruction, precision), precision.short_name());
            record.insert(key, serde_json::json!(tflops));
        }
        record.insert("unit".into(), "TFLOP/s".into());
        record.insert("missing".into(), serde_json::json!(self.missing));
        serde_json::Value::Object(record)
    }
}

/// The ceilings measured in this process, by device ordinal: the probe and the GEMM tables
/// share one measurement per run.
static MEASURED: Mutex<Vec<(usize, Ceilings)>> = Mutex::new(Vec::new());

/// The ceilings already measured on `gpu` in this process, if any.
pub fn cached(gpu: &Gpu) -> Option<Ceilings> {
    let measured = MEASURED.lock().unwrap_or_else(|p| p.into_inner());
    measured.iter().find(|(ordinal, _)| *ordinal == gpu.info.ordinal).map(|(_, c)| c.clone())
}

fn remember(gpu: &Gpu, ceilings: &Ceilings) {
    let mut measured = MEASURED.lock().unwrap_or_else(|p| p.into_inner());
    measured.retain(|(ordinal, _)| *ordinal != gpu.info.ordinal);
    measured.push((gpu.info.ordinal, ceilings.clone()));
}

/// What one measurement gives: the ceilings, the sweep's table, and every failed check.
pub struct CeilingRun {
    pub ceilings: Ceilings,
    pub table: Table,
    pub failures: Vec<String>,
}

/// The most heating a ceiling's timing takes, whatever `--heat` asks: half a second puts a
/// kernel at the clock the power cap holds (a09 at 16k keys on an H200: 642–644 TFLOP/s in
/// every process heated that long), and the 17 products are measured in every process that
/// needs a limit line, where `--heat 3` (the power traces) would spend 51 s on them.
pub const HEAT_AT_MOST: Duration = Duration::from_millis(500);

/// Checks and times every configuration, keeps the best of each instruction and input
/// type as its ceiling, and remembers them for [`cached`].
pub fn measure(gpu: &Gpu, timer: &Timer, seed: u64) -> Result<CeilingRun> {
    let sms = gpu.info.multiprocessors;
    let out = DeviceBuffer::alloc(gpu, result_bytes(sms), "the ceiling probe's results")?;
    let unavailable = wgmma_unavailable(gpu.info.compute_capability, gpu.info.ptx_arch);
    let mut ceilings = Ceilings::default();
    let mut failures = Vec::new();
    let mut table = Table::new(
        format!("p8 tensor-core ceiling: f32 accumulate, operands already on chip, on {}", gpu.info.name),
        &[
            "instruction",
            "inputs",
            "issuing per SM",
            "instructions",
            "median µs",
            "TFLOP/s",
            "% of ceiling",
            "check",
        ],
    );
    // (row, instruction, input type, TFLOP/s) of each timed row, for its % of the best.
    let mut rates = Vec::new();
    for config in configs() {
        if config.instruction == TensorInstruction::Wgmma && unavailable.is_some() {
            continue;
        }
        let prepared = match prepare(gpu, config)? {
            Ok(prepared) => prepared,
            Err(why) => {
                table.notes.push(format!("skipped: {why}"));
                continue;
            }
        };
        let iters = config.iterations_for(sms, LAUNCH_FLOP);
        crate::base::progress::begin(format!("timing {} with {}", config.kernel()?, config.issuers()));
        let failure = prepared.check(gpu, iters, seed, &out)?;
        let timing = match &failure {
            None => Some(
                timer
                    .measure_heated_at_most(gpu, HEAT_AT_MOST, || prepared.launch(gpu, iters, seed, &out))?,
            ),
            Some(_) => None,
        };
        let tflops = timing.map(|t| t.teraflops(config.flop(sms, iters)));
        if let Some(tflops) = tflops {
            ceilings.record(config.instruction, config.precision, tflops);
            rates.push((table.rows.len(), config.instruction, config.precision, tflops));
        }
        table.push(vec![
            config.instruction_name().into(),
            config.precision.short_name().into(),
            config.issuers().into(),
            Cell::Num(config.instructions(sms, iters), 0),
            timing.map_or(Cell::Num(f64::NAN, 1), Cell::Time),
            Cell::Figure(tflops.unwrap_or(f64::NAN), 1, "TFLOP/s"),
            Cell::OfLimit(f64::NAN, 1),
            Cell::Check(failure.is_none()),
        ]);
        failures.extend(failure);
    }
    for (row, instruction, precision, tflops) in rates {
        if let Some(best) = ceilings.get(instruction, precision) {
            table.rows[row][6] = Cell::OfLimit(100.0 * tflops / best, 1);
        }
    }
    for precision in WGMMA_INPUTS {
        if let Some(line) = ceilings.describe(precision) {
            table.notes.push(format!("ceiling, {} inputs: {line}", precision.short_name()));
        }
    }
    table.notes.push(
        "the ceiling is the best row of each instruction and input type: the most FLOP/s it delivers on this GPU \
         at this run's clock, with its operands already on chip (registers for mma.sync, shared memory for wgmma) \
         and no loads to wait for. No GEMM step built on it can go faster; the GEMM tables show each step's \
         % of its instruction's ceiling"
            .into(),
    );
    table.notes.push(format!(
        "FLOPs: 2·M·N·K per instruction ({:.0} per mma.sync, {:.0} per 16-bit wgmma, {:.0} per 8-bit); \
         operands are random non-zero values (tensor cores run faster on zeros), and every thread's accumulators \
         are checked exactly against the CPU",
        instruction_flop(TensorInstruction::MmaSync, Precision::F16),
        instruction_flop(TensorInstruction::Wgmma, Precision::F16),
        instruction_flop(TensorInstruction::Wgmma, Precision::E4m3)
    ));
    if let Some(reason) = unavailable {
        table.notes.push(format!("{reason}: skipped"));
        ceilings.missing.push(reason);
    }
    remember(gpu, &ceilings);
    Ok(CeilingRun { ceilings, table, failures })
}

const _: () = assert!(
    WGMMA_WARPGROUPS[WGMMA_WARPGROUPS.len() - 1] <= MAX_WARPGROUPS,
    "the wgmma kernels take at most MAX_WARPGROUPS warpgroups per block"
);

#[cfg(test)]
mod tests {
    use crate::base::precision::Precision;
    use crate::ceilings::{Ceilings, TensorInstruction};

    #[test]
    fn a_vendor_is_read_against_the_fastest_instruction_only_where_it_was_measured() {
        let mut ceilings = Ceilings::default();
        ceilings.record(TensorInstruction::MmaSync, Precision::F16, 650.0);
        // An A100 has no wgmma: mma.sync is its fastest instruction.
        assert_eq!(ceilings.for_vendor(Precision::F16, (8, 0)), Some(650.0));
        // A Hopper run from an sm_80-only PTX folder: cuBLAS uses wgmma, which went unmeasured.
        assert_eq!(ceilings.for_vendor(Precision::F16, (9, 0)), None);
        ceilings.record(TensorInstruction::Wgmma, Precision::F16, 960.0);
        assert_eq!(ceilings.for_vendor(Precision::F16, (9, 0)), Some(960.0));
        assert_eq!(ceilings.for_vendor(Precision::Bf16, (9, 0)), None, "nothing measured for bf16");
    }
}
