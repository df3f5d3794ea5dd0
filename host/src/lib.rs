//! The runner: loads the project's PTX, launches every kernel of a ladder, verifies each
//! against a CPU reference, times it and reports it next to the hardware's limit.
//!
//! The binary (`cargo run -p host --release`) is [`run`] over the command-line
//! [`cli::Options`]; the GPU tests drive the same pieces directly.

pub mod cli;
pub mod conditions;
pub mod compare;
pub mod error;
pub mod gemm;
pub mod gpu;
pub mod inputs;
pub mod memory;
pub mod plot;
pub mod probes;
pub mod ptx;
pub mod records;
pub mod reduce;
pub mod report;
pub mod table;
pub mod timing;

use cli::Options;
use error::{Error, Result};
use gpu::Gpu;
use reduce::registry::REDUCE_KERNELS;
use reduce::runner::ReduceBench;
use report::Row;
use timing::{Timer, TimingOptions};

/// Runs the suite; returns whether every kernel's and probe's result was right.
pub fn run(options: &Options) -> Result<bool> {
    if options.list {
        for k in REDUCE_KERNELS {
            println!("{:<26} {}", k.id, k.summary);
        }
        for p in probes::PROBES {
            println!("{:<26} {}", p.id, p.summary);
        }
        for g in gemm::registry::GEMM_KERNELS {
            let needs = if g.arch.specific { format!(" (needs {})", g.arch) } else { String::new() };
            println!("{:<26} {}{needs}", g.id, g.summary);
        }
        return Ok(true);
    }
    let kernels = reduce::registry::select(&options.kernels);
    let probes = probes::select(&options.kernels);
    let gemms = gemm::registry::select(&options.kernels);
    let all_ids = || {
        REDUCE_KERNELS
            .iter()
            .map(|k| k.id)
            .chain(probes::PROBES.iter().map(|p| p.id))
            .chain(gemm::registry::GEMM_KERNELS.iter().map(|g| g.id))
    };
    for pattern in &options.kernels {
        if !all_ids().any(|id| id.starts_with(pattern.as_str())) {
            let ids: Vec<&str> = all_ids().collect();
            return Err(Error::new(format!(
                "nothing matches `{pattern}`; the kernels and probes are: {}",
                ids.join(", ")
            )));
        }
    }
    // Reject a bad --block before touching the GPU.
    for k in &kernels {
        k.block_size(options.block)?;
    }
    let ptx_dir = options.ptx_dir.clone().unwrap_or_else(ptx::default_dir);
    let gpu = Gpu::open(options.device, &ptx_dir)?;
    let seed = options.seed.unwrap_or_else(clock_seed);
    println!("{}", gpu.info.describe());
    // Clocks, temperature, power and throttling now and at the end: a slow run, told apart
    // from a slow kernel. Without NVML the header says why, and the run goes on.
    let monitor = conditions::Monitor::open(&gpu);
    let start_conditions = monitor.sample();
    println!("{}", monitor.line("run conditions", &start_conditions));
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
    let timing = TimingOptions {
        repetitions: options.reps as usize,
        warmup: options.warmup as usize,
        flush_l2: !options.no_flush,
    };
    let timer = Timer::new(&gpu, timing)?;
    let date = utc_now();
    let mut results = serde_json::json!({
        "date_utc": date,
        "device": gpu.info.json(),
        "seed": seed,
        "timing": { "repetitions": timing.repetitions, "warmup": timing.warmup, "l2_flushed": timing.flush_l2 },
    });
    // Every kernel and size as a record, and every failed probe check as printed.
    let (mut records, mut failures) = (Vec::new(), Vec::<String>::new());

    let mut all_passed = true;
    if !kernels.is_empty() {
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
            print!("{}", report::table(&gpu.info, n, bench.bytes_read(), &rows).render());
            records.extend(report::records(&gpu.info, n, bench.bytes_read(), &rows));
            if let Some(dir) = &options.plots {
                // No CUB figure: the host does not measure CUB (bench/cub does, beside it).
                reduce::chart::ladder(&gpu.info, &date, n, bench.bytes_read(), &rows, None).write(dir)?;
            }
        }
    }

    let context = probes::ProbeContext { gpu: &gpu, timer: &timer, seed };
    for probe in probes {
        eprintln!("running {} ...", probe.id);
        let output = (probe.run)(&context)?;
        for table in &output.tables {
            print!("{}", table.render());
            records.extend(records::from_probe_table(probe.id, table));
        }
        for failure in &output.failures {
            println!("WRONG: {failure}");
            failures.push(format!("{}: {failure}", probe.id));
        }
        all_passed &= output.failures.is_empty();
        if let Some(dir) = &options.plots {
            for plot in &output.plots {
                plot.write(dir)?;
            }
        }
    }

    if !gemms.is_empty() {
        let run = gemm::suite::run(&gpu, &timer, &gemms, &options.gemm, seed, options.verify_only, &date)?;
        all_passed &= run.passed;
        if let Some(dir) = &options.plots {
            plot::ladder::write_all(dir, &run.charts)?;
        }
        for table in &run.tables {
            print!("{}", table.render());
        }
        records.extend(run.records);
        failures.extend(run.failures);
        if let Some(ceilings) = run.ceilings {
            results["tensor_ceilings"] = ceilings.json();
        }
    }

    let end_conditions = monitor.sample();
    if monitor.available() {
        println!("{}", monitor.line("conditions at the end", &end_conditions));
    }
    results["conditions"] = monitor.json(&start_conditions, &end_conditions);

    if let Some(path) = &options.csv {
        let date = results["date_utc"].as_str().unwrap_or_default();
        records::write_file(path, &records::csv(&gpu.info.name, date, &records))?;
    }
    if let Some(path) = &options.json {
        results["failures"] = failures.into();
        records::write_file(path, &records::results_json(results, &records))?;
    }
    Ok(all_passed)
}

/// A seed from the clock, so that every run checks a fresh input.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (days to civil date: Howard Hinnant's
/// algorithm), for the results file.
pub fn utc_now() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}
