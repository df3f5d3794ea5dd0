//! Command-line options of the runner.

use clap::Parser;
use std::path::PathBuf;

/// Runs the reduction ladder on an NVIDIA GPU: every kernel is verified against the CPU,
/// then timed (CUDA events, warm-up, L2 flushed, median) and reported next to the
/// device's theoretical bandwidth.
#[derive(Parser, Debug, Clone)]
#[command(name = "host", version)]
pub struct Options {
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,

    /// Input sizes, comma separated: decimal, `2^K`, or `2^K+C` / `2^K-C` (e.g. 2^20+3).
    #[arg(short, long, value_delimiter = ',', value_parser = parse_size, default_value = "2^30")]
    pub n: Vec<usize>,

    /// Run only the kernels and probes whose id starts with one of these (comma separated):
    /// `h` (Harris's ladder), `v4,x4`, `p` (all probes), `p6`, `g` (the GEMM ladder).
    #[arg(short, long, value_delimiter = ',')]
    pub kernels: Vec<String>,

    /// GEMM shapes, comma separated: `S` for S×S×S or `MxNxK` (e.g. 4096x1x777).
    #[arg(long, value_delimiter = ',', value_parser = crate::gemm::runner::parse_shape, default_value = "1024,4096")]
    pub gemm: Vec<(u32, u32, u32)>,

    /// Block size for the kernels that take one at launch (h0–h6); others ignore it.
    #[arg(long)]
    pub block: Option<u32>,

    /// Timed repetitions per kernel (the median is reported).
    #[arg(short, long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,

    /// Untimed runs before the timed ones.
    #[arg(long, default_value_t = 3)]
    pub warmup: u32,

    /// Do not flush the L2 before each repetition (then small inputs are served from cache).
    #[arg(long)]
    pub no_flush: bool,

    /// Verify only; do not time.
    #[arg(long)]
    pub verify_only: bool,

    /// Seed of the pseudo-random input (default: from the clock, printed in the header).
    #[arg(long)]
    pub seed: Option<u64>,

    /// Folder with `sm_XX/kernels.ptx` (default: $GPU_KERNELS_PTX_DIR, `ptx/` beside the
    /// executable, or the workspace's target/ptx).
    #[arg(long)]
    pub ptx_dir: Option<PathBuf>,

    /// Write every figure of the run, with the device description, to this JSON file.
    #[arg(long)]
    pub json: Option<PathBuf>,

    /// Write the sweeps' plots (SVG) into this folder.
    #[arg(long)]
    pub plots: Option<PathBuf>,

    /// List the kernels and probes and exit.
    #[arg(long)]
    pub list: bool,
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
