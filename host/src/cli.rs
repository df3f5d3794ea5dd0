//! Command-line options of the runner.

use crate::base::ptx::Arch;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Runs the reduction ladder, the scan ladder, the probes and the GEMM ladder on an NVIDIA GPU: every
/// kernel is verified against the CPU, then timed (CUDA events, warm-up, L2 flushed,
/// median) and reported next to the device's limits and the vendor library.
///
/// With no command, `host [OPTIONS]` runs the suite; `host compare OLD.json NEW.json`
/// compares two runs' results (no GPU needed).
#[derive(Parser, Debug, Clone)]
#[command(name = "host", version, args_conflicts_with_subcommands = true)]
pub struct Options {
    /// Another job than running the suite.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,

    /// Input sizes, comma separated: decimal, `2^K`, or `2^K+C` / `2^K-C` (e.g. 2^20+3).
    #[arg(short, long, value_delimiter = ',', value_parser = parse_size, default_value = "2^30")]
    pub n: Vec<usize>,

    /// Run only the steps these pick (comma separated, case-insensitive; a step runs if any
    /// pattern picks it):
    ///
    /// - a family: `gemm`, `reduce`, `scan`, `attention`, `probe` (or `probes`): every step of it;
    /// - a ladder: `g` (FP32 GEMM), `t` (tensor-core GEMM on any GPU since Ampere), `w` (Hopper
    ///   GEMM), `h`, `v`, `x` (reductions), `s` (scans), `a` (attention), `p` (probes on one
    ///   GPU), `m` (node probes): every step of it;
    /// - a step: `w1` or `w01` (both input types of Hopper GEMM step 1), `x4`, `p6`;
    /// - a range of steps: `w06-w13`;
    /// - a step's id, or its start past the number: `w01_wgmma_f16`, `w08_latency_trims_b`.
    ///
    /// A pattern that picks nothing is an error that names the closest ids. `--list` prints
    /// every step.
    #[arg(short, long, value_delimiter = ',', value_name = "PATTERNS")]
    pub kernels: Vec<String>,

    /// GEMM shapes, comma separated: `S` for S×S×S or `MxNxK` (e.g. 4096x1x777).
    #[arg(long, value_delimiter = ',', value_parser = parse_shape, default_value = "1024,4096")]
    pub gemm: Vec<(u32, u32, u32)>,

    /// Element types of the scan ladder, comma separated: `i32` (wrapping sums, exact) and
    /// `f32` (checked within a bound that grows with n). Compaction runs on i32 alone.
    #[arg(long, value_delimiter = ',', value_parser = ["i32", "f32"], default_value = "i32")]
    pub scan_type: Vec<String>,

    /// Run the scan ladder's exclusive scans (each output the sum of the elements before
    /// it) instead of the inclusive ones.
    #[arg(long)]
    pub exclusive: bool,

    /// Attention: sequence lengths (queries and keys alike), comma separated: a number, `2^K`,
    /// or `Nk` (N × 1024).
    #[arg(long, value_delimiter = ',', value_parser = parse_length, default_value = "1k,4k,16k")]
    pub seq: Vec<usize>,

    /// Attention: the keys' length when it differs from the queries' (`--seq`).
    #[arg(long, value_parser = parse_length)]
    pub seq_k: Option<usize>,

    /// Attention: head dims, comma separated (the tensor-core steps take 64 and 128, a03 256 too).
    #[arg(long, value_delimiter = ',', default_value = "64,128")]
    pub head_dim: Vec<u32>,

    /// Attention: masks, comma separated: `none`, `causal` (aligned at the bottom right:
    /// query i sees keys j ≤ i + seq_k − seq_q).
    #[arg(long, value_delimiter = ',', value_parser = ["none", "causal"], default_value = "none,causal")]
    pub mask: Vec<String>,

    /// Attention: input types, comma separated: `bf16`, `f16` (softmax statistics in f32).
    #[arg(long, value_delimiter = ',', value_parser = ["bf16", "f16"], default_value = "bf16")]
    pub attn_type: Vec<String>,

    /// Attention: tokens per problem; batch = tokens / seq (at least 1) unless --batch.
    /// With --hidden, FlashAttention-3's benchmark setting.
    #[arg(long, default_value_t = 16384)]
    pub tokens: usize,

    /// Attention: the model width; query heads = hidden / head dim.
    #[arg(long, default_value_t = 2048)]
    pub hidden: usize,

    /// Attention: the batch, instead of tokens / seq.
    #[arg(long)]
    pub batch: Option<usize>,

    /// Attention: query heads per key/value head (grouped-query attention; 1: every head its own).
    #[arg(long, default_value_t = 1)]
    pub group: usize,

    /// Attention: the tensors' layout: `bshd` ([batch, seq, heads, head dim], what a QKV
    /// projection writes) or `bhsd` ([batch, heads, seq, head dim]).
    #[arg(long, value_parser = ["bshd", "bhsd"], default_value = "bshd")]
    pub layout: String,

    /// Block size for the kernels that take one at launch (h0–h6); others ignore it.
    #[arg(long)]
    pub block: Option<u32>,

    /// Timed repetitions per kernel, at least (the median is reported). Timing is
    /// adaptive: past this minimum and --min-time, a kernel is timed until its median's
    /// noise is under --max-noise, within --timeout.
    #[arg(short = 'r', long, visible_alias = "reps", default_value_t = crate::measure::timing::DEFAULT_MIN_SAMPLES as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub min_samples: u32,

    /// Seconds of measured GPU time per kernel, at least (summed over its repetitions).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::measure::timing::DEFAULT_MIN_TIME.as_secs_f64(),
          value_parser = parse_seconds)]
    pub min_time: f64,

    /// Stop timing a kernel once its median is known to within this many per cent (the
    /// median's standard error, estimated from the repetitions' interquartile range).
    #[arg(long, value_name = "PERCENT", default_value_t = crate::measure::timing::DEFAULT_MAX_NOISE_PERCENT,
          value_parser = parse_percent)]
    pub max_noise: f64,

    /// Seconds one kernel's timing may take at most. A kernel whose first launch shows
    /// that --min-samples repetitions would not fit is reported with that launch alone.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::measure::timing::DEFAULT_BUDGET.as_secs_f64(),
          value_parser = parse_positive_seconds)]
    pub timeout: f64,

    /// Seconds one wait for the GPU may last before the kernel is reported hung and the
    /// run stops (exit status 3).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::base::gpu::DEFAULT_HANG_AFTER.as_secs_f64(),
          value_parser = parse_positive_seconds)]
    pub hang_after: f64,

    /// Untimed runs before the timed ones (fewer when they would take over a tenth of
    /// --timeout).
    #[arg(long, default_value_t = crate::measure::timing::DEFAULT_WARMUP as u32)]
    pub warmup: u32,

    /// Seconds each kernel runs untimed after its warm-up, before its repetitions (0: none).
    /// A kernel of milliseconds that drives the GPU to its power cap lowers the clock within
    /// its first repetitions on a cool GPU, and its median then lands at either clock from one
    /// process to the next; heated for half a second or more, it is timed at the clock it holds
    /// under steady load. Compare figures measured the same way.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0, value_parser = parse_seconds)]
    pub heat: f64,

    /// Do not flush the L2 before each repetition (then small inputs are served from cache).
    #[arg(long)]
    pub no_flush: bool,

    /// Launches each repetition queues back to back between its two events (the figure is
    /// their time over their count; the L2 flushed once before them), and heating likewise: N,
    /// or as many as fill 20 ms where one launch is longer than 20 ms / N. With 1, the
    /// GPU idles between repetitions while the host waits and flushes; a kernel at the power
    /// cap is then timed at a clock those gaps lend it. Above 1 it is timed at the clock its
    /// own power buys, as in a model's layers run one after another. Compare figures measured
    /// the same way (bench/attention-sdpa.py --back-to-back times PyTorch's so).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub back_to_back: u32,

    /// Verify only; do not time.
    #[arg(long)]
    pub verify_only: bool,

    /// Run each ladder step's CUDA C++ twin (twins/, compiled by NVRTC) beside it, on the
    /// same buffers: the tables' `C++ µs` and `Rust ÷ C++` columns.
    #[arg(long, value_enum, default_value_t = Twins::On)]
    pub twins: Twins,

    /// Seed of the pseudo-random input (default: from the clock, printed in the header).
    #[arg(long)]
    pub seed: Option<u64>,

    /// Folder with `sm_XX/kernels.ptx` (default: $GPU_KERNELS_PTX_DIR, `ptx/` beside the
    /// executable, or the workspace's target/ptx).
    #[arg(long)]
    pub ptx_dir: Option<PathBuf>,

    /// Write every figure of the run as records (kernel, size, median and spread, figure,
    /// % of the limit and of the vendor library, check), with the device, date, seed and
    /// timing, to this JSON file: the input of `host compare`.
    #[arg(long)]
    pub json: Option<PathBuf>,

    /// Write the same records as CSV (one row per kernel and size) to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,

    /// Write SVG charts into this folder: the probes' sweeps and each ladder's steps against its
    /// limits (one chart per reduction size, per GEMM precision and shape).
    #[arg(long)]
    pub plots: Option<PathBuf>,

    /// Print every column of the tables. By default a table leaves out the detail that would
    /// make it wider than a terminal (repetitions, spread, registers, launches, the check's
    /// error and method; a note under it names them): the records (`--json`, `--csv`) hold
    /// every figure either way.
    #[arg(long)]
    pub wide: bool,

    /// List the kernels and probes and exit.
    #[arg(long)]
    pub list: bool,

    /// For the tests of fault handling only: launch this reduction kernel (e.g. `x4`) with
    /// an output pointer into unmapped memory, so that it faults.
    #[arg(long, hide = true, value_name = "KERNEL")]
    pub inject_fault: Option<String>,

    /// For the tests of hang handling only: before the probes, queue a kernel that does
    /// not end (p6's pointer chase, 2^64 − 1 steps), so that the next wait finds it hung.
    #[arg(long, hide = true)]
    pub inject_hang: bool,
}

/// `--twins`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Twins {
    On,
    Off,
}

/// The commands besides running the suite.
#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Compare two results files written by `--json`: the time of every kernel and size
    /// in NEW over OLD, and whether the difference is beyond both runs' noise.
    Compare(CompareOptions),
    /// The SASS instruction mix of a ladder step and of its CUDA C++ twin, side by side,
    /// with their registers (needs ptxas, cuobjdump and NVRTC; no GPU).
    Sass(SassOptions),
    /// The GPU tests under compute-sanitizer's memcheck, racecheck, synccheck and initcheck:
    /// one line per tool, exit status 1 when one finds something (no Rust needed).
    Sanitize(crate::sanitize::SanitizeOptions),
}

/// Options of `host compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct CompareOptions {
    /// Results of the earlier run (`host --json OLD.json`).
    pub old: PathBuf,

    /// Results of the later run.
    pub new: PathBuf,

    /// Smallest difference, in percent, that counts even where both runs' spread is
    /// smaller: two GPUs of one kind differ by a few per cent.
    #[arg(long, default_value_t = 2.0, value_parser = parse_percent)]
    pub threshold: f64,

    /// Exit with status 1 when a record is slower beyond the noise, or wrong in NEW.
    #[arg(long)]
    pub fail_on_slowdown: bool,

    /// Also list the records with no time in one of the runs (`untimed`: probes that count
    /// cycles, runs with --verify-only); the summary counts them either way.
    #[arg(long)]
    pub all: bool,

    /// Print variants (a probe row's labels) in full instead of cut to fit a terminal.
    #[arg(long)]
    pub wide: bool,
}

/// A non-negative, finite percentage.
fn parse_percent(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a percentage: write a number ≥ 0, e.g. 2 or 0.5")),
    }
}

/// A non-negative, finite number of seconds.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('s').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a number of seconds: write a number ≥ 0, e.g. 10 or 0.5")),
    }
}

/// A positive, finite number of seconds.
fn parse_positive_seconds(text: &str) -> Result<f64, String> {
    match parse_seconds(text) {
        Ok(v) if v > 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a positive number of seconds: write e.g. 10 or 0.5")),
    }
}

/// Parses `1000`, `2^30`, `2^20+3`, `2^16-1`.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let bad = || format!("`{text}` is not a size: write a number, 2^K, or 2^K+C / 2^K-C");
    let Some(power) = text.strip_prefix("2^") else {
        return text.replace('_', "").parse().map_err(|_| bad());
    };
    let (exponent, offset): (&str, i128) = match power.find(['+', '-']) {
        Some(at) => {
            let offset: i128 = power[at + 1..].parse().map_err(|_| bad())?;
            (&power[..at], if &power[at..at + 1] == "-" { -offset } else { offset })
        }
        None => (power, 0),
    };
    let exponent: u32 = exponent.parse().map_err(|_| bad())?;
    if exponent >= 63 {
        return Err(format!("`{text}`: 2^{exponent} elements will not fit in any GPU"));
    }
    let value = (1i128 << exponent) + offset;
    usize::try_from(value).map_err(|_| format!("`{text}` is negative"))
}

/// Parses a sequence length: `1000`, `2^12`, `4k` (4 × 1024).
pub fn parse_length(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    match trimmed.strip_suffix(['k', 'K']) {
        Some(thousands) => thousands
            .parse::<usize>()
            .ok()
            .and_then(|k| k.checked_mul(1024))
            .ok_or_else(|| format!("`{text}` is not a length: write a number, 2^K, or Nk (N × 1024)")),
        None => parse_size(trimmed),
    }
}

/// Parses `4096` (a cube) or `4096x1x777` (M×N×K).
pub fn parse_shape(text: &str) -> std::result::Result<(u32, u32, u32), String> {
    let parts: Vec<&str> = text.trim().split(['x', 'X', '×']).collect();
    let bad = || format!("`{text}` is not a GEMM shape: write S (S×S×S) or MxNxK, each at least 1");
    let dims: Vec<u32> = parts
        .iter()
        .map(|p| p.trim().parse::<u32>().map_err(|_| bad()))
        .collect::<std::result::Result<_, _>>()?;
    match dims[..] {
        [s] if s > 0 => Ok((s, s, s)),
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok((m, n, k)),
        _ => Err(bad()),
    }
}

/// Options of `host sass`.
#[derive(clap::Args, Debug, Clone)]
pub struct SassOptions {
    /// The step: an entry point (`w08_latency_trims_bf16`, `h5_complete_unroll_256`) or the
    /// start of some (`w08`, `x4`): each matching entry point gets its own table.
    pub step: String,

    /// The target to compile both for.
    #[arg(long, default_value = "sm_90a", value_parser = parse_arch)]
    pub arch: Arch,

    /// Rows to show: the instructions whose counts differ most, then the rest summed.
    #[arg(long, default_value_t = 25)]
    pub top: usize,

    /// Folder with `sm_XX/kernels.ptx` (as for a run).
    #[arg(long)]
    pub ptx_dir: Option<PathBuf>,
}

fn parse_arch(text: &str) -> std::result::Result<Arch, String> {
    Arch::parse(text).ok_or_else(|| format!("`{text}` is not a target: write e.g. sm_90a or sm_80"))
}
