//! The runner: loads the project's PTX, launches every kernel of a ladder, verifies each
//! against a CPU reference, times it and reports it next to the hardware's limit.
//!
//! The binary (`cargo run -p host --release`) is [`run`] over the command-line
//! [`cli::Options`]; the GPU tests drive the same pieces directly.

pub mod cli;
pub mod compare;
pub mod conditions;
pub mod error;
pub mod gemm;
pub mod gpu;
pub mod inputs;
pub mod interrupt;
pub mod memory;
pub mod multi;
pub mod output;
pub mod plot;
pub mod probes;
pub mod progress;
pub mod ptx;
pub mod records;
pub mod reduce;
pub mod report;
pub mod sanitize;
pub mod sass;
pub mod table;
pub mod timing;
pub mod twins;

use cli::Options;
use error::{Error, Result};
use gpu::Gpu;
use output::Output;
use reduce::registry::{REDUCE_KERNELS, ReduceKernel};
use reduce::runner::ReduceBench;
use report::Row;
use std::time::Duration;
use timing::{Timer, TimingOptions};

/// How many units of work the note of an unfinished run names before "and N more".
const NOT_RUN_SHOWN: usize = 8;

/// Runs the suite; returns whether every kernel's and probe's result was right.
///
/// Every record is on disk as soon as its kernel finishes ([`output`]). A run that stops
/// early (Ctrl-C, a kernel fault, any error) says what it did not run and returns the
/// error, whose [`error::Kind`] gives the exit status.
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
    // Reject a bad --block, and an output path that cannot be written, before touching the
    // GPU: nothing measured is ever lost to a typo.
    for k in &kernels {
        k.block_size(options.block)?;
    }
    if let Some(target) = &options.inject_fault
        && !kernels.iter().any(|k| k.id.starts_with(target.as_str()))
    {
        return Err(Error::new(format!(
            "--inject-fault {target}: no selected reduction kernel starts with it"
        )));
    }
    let mut output =
        Output::prepare(options.json.as_deref(), options.csv.as_deref(), options.plots.as_deref())?;
    interrupt::install();

    let ptx_dir = options.ptx_dir.clone().unwrap_or_else(ptx::default_dir);
    let mut gpu = Gpu::open(options.device, &ptx_dir)?;
    gpu.hang_after = Duration::from_secs_f64(options.hang_after);
    let seed = options.seed.unwrap_or_else(clock_seed);
    println!("{}", gpu.info.describe());
    // Clocks, temperature, power and throttling now and at the end: a slow run, told apart
    // from a slow kernel. Without NVML the header says why, and the run goes on.
    let monitor = conditions::Monitor::open(&gpu);
    let start_conditions = monitor.sample();
    println!("{}", monitor.line("run conditions", &start_conditions));
    let timing = TimingOptions {
        min_samples: options.min_samples as usize,
        min_time: Duration::from_secs_f64(options.min_time),
        max_noise_percent: options.max_noise,
        budget: Duration::from_secs_f64(options.timeout),
        warmup: options.warmup as usize,
        flush_l2: !options.no_flush,
    };
    if options.verify_only {
        println!("seed {seed}; verification only, no timing");
    } else {
        println!(
            "seed {seed}; CUDA-event timing after {} warm-up, L2 {}: each figure the median of at least {} \
             repetitions and {} of GPU time, more until its noise is under {} %, within {} per kernel",
            timing.warmup,
            if timing.flush_l2 { "flushed before each repetition" } else { "not flushed" },
            timing.min_samples,
            progress::duration(timing.min_time),
            timing.max_noise_percent,
            progress::duration(timing.budget),
        );
    }
    let timer = Timer::new(&gpu, timing)?;
    // The C++ twins: without NVRTC the run goes on, and the twin columns say why.
    let twins = (options.twins == cli::Twins::On).then(|| twins::Twins::open(&gpu));
    let twin_mode = match &twins {
        None => twins::TwinMode::Off,
        Some(Ok(twins)) => twins::TwinMode::On(twins),
        Some(Err(reason)) => twins::TwinMode::Unavailable(reason.clone()),
    };
    println!(
        "C++ twins: {}",
        match &twin_mode {
            twins::TwinMode::On(twins) =>
                format!("each step's twin beside it, built by {}", twins.describe()),
            twins::TwinMode::Off => "not run (--twins off)".into(),
            twins::TwinMode::Unavailable(reason) => format!("not run: {reason}"),
        }
    );
    let date = utc_now();
    let header = serde_json::json!({
        "date_utc": date,
        "device": gpu.info.json(),
        "seed": seed,
        "timing": {
            "min_samples": timing.min_samples,
            "min_time_s": timing.min_time.as_secs_f64(),
            "max_noise_percent": timing.max_noise_percent,
            "budget_s": timing.budget.as_secs_f64(),
            "warmup": timing.warmup,
            "l2_flushed": timing.flush_l2,
        },
        "twins": match &twin_mode {
            twins::TwinMode::On(twins) => serde_json::json!({
                "compiler": format!("NVRTC {}.{}", twins.nvrtc_version.0, twins.nvrtc_version.1),
                "target": twins.target,
                "options": twins::OPTIONS,
            }),
            twins::TwinMode::Off => serde_json::json!({ "not_run": "--twins off" }),
            twins::TwinMode::Unavailable(reason) => serde_json::json!({ "not_run": reason }),
        },
    });
    let mut work: Vec<String> =
        options.n.iter().flat_map(|&n| kernels.iter().map(move |k| report::item(k.id, n))).collect();
    work.extend(probes.iter().map(|p| p.id.to_string()));
    work.extend(gemm::suite::work(&gemms, &options.gemm));
    output.start(work, header)?;
    // A hung kernel ends the process from the watchdog's thread: the note comes from there.
    let (pending, kept) = (output.not_run_later(), kept_files(options));
    gpu::watchdog::last_words(move || report_not_run(&pending(), &kept));

    let selection = Selection { kernels: &kernels, probes: &probes, gemms: &gemms, twins: &twin_mode };
    let outcome = run_selection(&gpu, &timer, options, &selection, seed, &date, &mut output);
    progress::finish();

    let end_conditions = monitor.sample();
    if monitor.available() {
        println!("{}", monitor.line("conditions at the end", &end_conditions));
    }
    output.set("conditions", monitor.json(&start_conditions, &end_conditions));
    let closed = output.close(outcome.is_ok());
    if outcome.is_err() {
        report_not_run(&output.not_run(), &kept_files(options));
    }
    let passed = outcome?;
    closed?;
    Ok(passed)
}

/// What `run` was asked to run.
struct Selection<'a> {
    kernels: &'a [&'static ReduceKernel],
    probes: &'a [&'static probes::ProbeInfo],
    gemms: &'a [&'static gemm::registry::GemmKernel],
    twins: &'a twins::TwinMode<'a>,
}

/// The files that keep a run's records as they are measured (`--json`, `--csv`).
fn kept_files(options: &Options) -> Vec<String> {
    [&options.json, &options.csv].into_iter().flatten().map(|p| p.display().to_string()).collect()
}

/// Says on stderr what an unfinished run did not run, and where the rest is (`kept`).
fn report_not_run(not_run: &[String], kept: &[String]) {
    if not_run.is_empty() {
        return;
    }
    let names: Vec<&str> = not_run.iter().take(NOT_RUN_SHOWN).map(String::as_str).collect();
    let more = not_run.len().saturating_sub(NOT_RUN_SHOWN);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    let kept = if kept.is_empty() {
        String::new()
    } else {
        format!("; the records of what finished are in {}", kept.join(" and "))
    };
    eprintln!("not run ({} of the selection): {}{more}{kept}", not_run.len(), names.join("; "));
}

/// The reductions, the probes and the GEMM ladder, in that order, each record written as
/// it is measured.
fn run_selection(
    gpu: &Gpu,
    timer: &Timer,
    options: &Options,
    selection: &Selection,
    seed: u64,
    date: &str,
    output: &mut Output,
) -> Result<bool> {
    let mut all_passed = true;
    for &n in options.n.iter().filter(|_| !selection.kernels.is_empty()) {
        interrupt::check()?;
        let preparing = format!("preparing n = {n}");
        progress::begin(preparing.clone());
        let bench = ReduceBench::new(gpu, n, seed).map_err(|e| e.during(&preparing))?;
        let mut rows = Vec::new();
        for &kernel in selection.kernels {
            interrupt::check()?;
            let item = report::item(kernel.id, n);
            let row =
                reduce_one(&bench, kernel, timer, options, selection.twins).map_err(|e| e.during(&item))?;
            all_passed &= row.check.passed() && !row.twin.failed();
            output.finished(&item, vec![report::record(&gpu.info, n, bench.bytes_read(), &row)])?;
            rows.push(row);
        }
        let mut table = report::table(&gpu.info, n, bench.bytes_read(), &rows);
        let records = report::records(&gpu.info, n, bench.bytes_read(), &rows);
        table.notes.extend(twins::notes(selection.twins, &records.iter().collect::<Vec<_>>()));
        output.table(&table);
        // No CUB figure: the host does not measure CUB (bench/cub does, beside it).
        output.chart(&reduce::chart::ladder(&gpu.info, date, n, bench.bytes_read(), &rows, None))?;
    }

    if options.inject_hang {
        progress::begin("an endless pointer chase (--inject-hang)");
        probes::latency::queue_endless_chase(gpu, seed)?;
        gpu.sync("waiting for the chase")?;
    }
    let ptx_dir = options.ptx_dir.clone().unwrap_or_else(ptx::default_dir);
    let context = probes::ProbeContext { gpu, timer, seed, ptx_dir: &ptx_dir };
    for &probe in selection.probes {
        interrupt::check()?;
        progress::begin(format!("running {}", probe.id));
        let probe_output = (probe.run)(&context).map_err(|e| e.during(probe.id))?;
        if let Some(reason) = &probe_output.skipped {
            output.skipped(probe.id, reason);
        }
        let mut probe_records = Vec::new();
        for table in &probe_output.tables {
            output.table(table);
            probe_records.extend(records::from_probe_table(probe.id, table));
        }
        for failure in &probe_output.failures {
            println!("WRONG: {failure}");
            output.failure(format!("{}: {failure}", probe.id));
        }
        all_passed &= probe_output.failures.is_empty();
        for plot in &probe_output.plots {
            output.plot(plot)?;
        }
        output.finished(probe.id, probe_records)?;
    }

    if !selection.gemms.is_empty() {
        let run = gemm::suite::run(
            gpu,
            timer,
            selection.gemms,
            &options.gemm,
            seed,
            options.verify_only,
            selection.twins,
            date,
            output,
        )?;
        all_passed &= run.passed;
        if let Some(ceilings) = run.ceilings {
            output.set("tensor_ceilings", ceilings.json());
        }
    }
    Ok(all_passed)
}

/// Checks (and, when right and asked, times) one reduction kernel on one input, then its
/// C++ twin the same way.
fn reduce_one(
    bench: &ReduceBench,
    kernel: &'static ReduceKernel,
    timer: &Timer,
    options: &Options,
    twin_mode: &twins::TwinMode,
) -> Result<Row> {
    let block = kernel.block_size(options.block)?;
    let mut plan = bench.plan(kernel, block, twins::Code::Rust)?;
    if options.inject_fault.as_deref().is_some_and(|target| kernel.id.starts_with(target)) {
        bench.misdirect_output(&mut plan);
    }
    let item = report::item(kernel.id, bench.n);
    let (check, timing) = check_then_time(bench, &plan, timer, options, &item)?;
    let twin = twin_mode.run(bench.gpu(), &kernel.symbols(), |code| {
        let plan = bench.plan(kernel, block, code)?;
        let (twin_check, timing) =
            check_then_time(bench, &plan, timer, options, &format!("the C++ twin of {item}"))?;
        Ok(twins::TwinResult::Ran {
            passed: twin_check.passed(),
            wrong: (!twin_check.passed())
                .then(|| format!("got {}, expected {}", twin_check.got, twin_check.expected)),
            timing,
            registers: plan.registers,
        })
    })?;
    Ok(Row { kernel, block, launches: plan.launches, check, timing, registers: plan.registers, twin })
}

/// Checks `plan` on poisoned outputs and, when it is right and timing was asked, times it
/// (`what` names it in the progress lines). A wrong kernel is reported, never timed: its
/// speed would mean nothing.
fn check_then_time(
    bench: &ReduceBench,
    plan: &reduce::runner::Plan,
    timer: &Timer,
    options: &Options,
    what: &str,
) -> Result<(reduce::runner::Check, Option<timing::Timing>)> {
    progress::begin(format!("checking {what}"));
    let check = bench.check(plan)?;
    let timing = if check.passed() && !options.verify_only {
        progress::begin(format!("timing {what}"));
        Some(bench.time(plan, timer)?)
    } else {
        None
    };
    Ok((check, timing))
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
