//! The runner: loads the project's PTX, launches every kernel of a ladder, verifies each
//! against a CPU reference, times it and reports it next to the hardware's limit.
//!
//! The binary (`cargo run -p host --release`) is [`run`] over the command-line
//! [`cli::Options`]; the GPU tests drive the same pieces directly.

pub mod cli;
pub mod error;
pub mod gpu;
pub mod memory;
pub mod probes;
pub mod ptx;
pub mod reduce;
pub mod report;
pub mod timing;

use cli::Options;
use error::Result;
use gpu::Gpu;
use reduce::registry::{REDUCE_KERNELS, select};
use reduce::runner::ReduceBench;
use report::Row;
use timing::{Timer, TimingOptions};

/// Runs the suite; returns whether every kernel's result was right.
pub fn run(options: &Options) -> Result<bool> {
    if options.list {
        for k in REDUCE_KERNELS {
            println!("{:<26} {}", k.id, k.summary);
        }
        return Ok(true);
    }
    let kernels = select(&options.kernels)?;
    // Reject a bad --block before touching the GPU.
    for k in &kernels {
        k.block_size(options.block)?;
    }
    let ptx_dir = options.ptx_dir.clone().unwrap_or_else(ptx::default_dir);
    let gpu = Gpu::open(options.device, &ptx_dir)?;
    let seed = options.seed.unwrap_or_else(clock_seed);
    println!("{}", gpu.info.describe());
    if options.verify_only {
        println!("seed {seed}; verification only, no timing");
    } else {
        println!(
            "seed {seed}; CUDA-event timing: median of {} after {} warm-up, L2 {}",
            options.reps,
            options.warmup,
            if options.no_flush { "not flushed" } else { "flushed before each repetition" }
        );
    }
    let timer = Timer::new(
        &gpu,
        TimingOptions {
            repetitions: options.reps as usize,
            warmup: options.warmup as usize,
            flush_l2: !options.no_flush,
        },
    )?;

    let mut all_passed = true;
    for &n in &options.n {
        eprintln!("preparing n = {n} ...");
        let bench = ReduceBench::new(&gpu, n, seed)?;
        let mut rows = Vec::new();
        for kernel in &kernels {
            let block = kernel.block_size(options.block)?;
            let plan = bench.plan(kernel, block)?;
            let check = bench.check(&plan)?;
            // A wrong kernel is reported, never timed: its speed would mean nothing.
            let timing = if check.passed() && !options.verify_only {
                eprintln!("timing {} ...", kernel.id);
                Some(bench.time(&plan, &timer)?)
            } else {
                None
            };
            all_passed &= check.passed();
            rows.push(Row { kernel, block, launches: plan.launches, check, timing });
        }
        report::print_table(&gpu.info, n, bench.bytes_read(), &rows);
    }
    Ok(all_passed)
}

/// A seed from the clock, so that every run checks a fresh input.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}
