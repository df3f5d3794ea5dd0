//! A run of the suite: the selected steps of every family, on one GPU, each record on disk as
//! soon as its kernel finishes, the tables on stdout, progress on stderr.

use crate::base::error::Result;
use crate::base::gpu::{self, Gpu};
use crate::base::{clock, interrupt, progress, ptx};
use crate::cli::{self, Options};
use crate::families::{
    self,
    family::{Family, RunContext, Step},
};
use crate::measure::conditions;
use crate::measure::timing::{Timer, TimingOptions};
use crate::report::output::Output;
use crate::twins;
use std::time::Duration;

/// How many units of work the note of an unfinished run names before "and N more".
const NOT_RUN_SHOWN: usize = 8;

/// Runs the suite; returns whether every kernel's and probe's result was right.
///
/// Every record is on disk as soon as its kernel finishes ([`output`]). A run that stops
/// early (Ctrl-C, a kernel fault, any error) says what it did not run and returns the
/// error, whose [`error::Kind`] gives the exit status.
pub fn run(options: &Options) -> Result<bool> {
    if options.list {
        print!("{}", families::list());
        return Ok(true);
    }
    let selection: Vec<(&dyn Family, Vec<Step>)> = families::select(&options.kernels)?;
    // Reject a bad option, and an output path that cannot be written, before touching the
    // GPU: nothing measured is ever lost to a typo.
    for (family, steps) in &selection {
        family.check_options(steps, options)?;
    }
    let selection: Vec<(&dyn Family, Vec<Step>)> =
        selection.into_iter().filter(|(_, steps)| !steps.is_empty()).collect();
    let mut output =
        Output::prepare(options.json.as_deref(), options.csv.as_deref(), options.plots.as_deref())?;
    output.wide = options.wide;
    interrupt::install();

    let ptx_dir = options.ptx_dir.clone().unwrap_or_else(ptx::default_dir);
    let mut gpu = Gpu::open(options.device, &ptx_dir)?;
    gpu.hang_after = Duration::from_secs_f64(options.hang_after);
    let seed = options.seed.unwrap_or_else(clock::clock_seed);
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
        heat: Duration::from_secs_f64(options.heat),
        flush_l2: !options.no_flush,
        back_to_back: options.back_to_back,
    };
    if options.verify_only {
        println!("seed {seed}; verification only, no timing");
    } else {
        let method = format!(
            "seed {seed}; CUDA-event timing after {} warm-up{}, L2 {}{}: each figure the median of at least {} \
             repetitions and {} of GPU time, more until its noise is under {} %, within {} per kernel",
            timing.warmup,
            if timing.heat.is_zero() {
                String::new()
            } else {
                format!(" and {} of heating", progress::duration(timing.heat))
            },
            if timing.flush_l2 { "flushed before each repetition" } else { "not flushed" },
            if timing.back_to_back > 1 {
                format!(
                    ", up to {} launches back to back a repetition (as many as fill 20 ms; its time over their \
                     count)",
                    timing.back_to_back
                )
            } else {
                String::new()
            },
            timing.min_samples,
            progress::duration(timing.min_time),
            timing.max_noise_percent,
            progress::duration(timing.budget),
        );
        print!("{}", crate::report::table::wrap(&method, "", "  ", crate::report::table::TERMINAL_COLUMNS));
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
    let date = clock::utc_now();
    output.stamp = format!("{}, run of {}", gpu.info.name, crate::report::plot::ladder::display_date(&date));
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
            "heat_s": timing.heat.as_secs_f64(),
            "l2_flushed": timing.flush_l2,
            "back_to_back": timing.back_to_back,
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
    let work: Vec<String> =
        selection.iter().flat_map(|(family, steps)| family.work(steps, options)).collect();
    output.start(work, header)?;
    // A hung kernel ends the process from the watchdog's thread: the note comes from there.
    let (pending, kept) = (output.not_run_later(), kept_files(options));
    gpu::watchdog::last_words(move || report_not_run(&pending(), &kept));

    let mut ctx = RunContext {
        gpu: &gpu,
        timer: &timer,
        options,
        seed,
        date: &date,
        twins: &twin_mode,
        ptx_dir: &ptx_dir,
        output: &mut output,
    };
    let outcome = run_families(&selection, &mut ctx);
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

/// Every selected family in turn, each record written as it is measured; whether every
/// check passed.
fn run_families(selection: &[(&dyn Family, Vec<Step>)], ctx: &mut RunContext) -> Result<bool> {
    let mut all_passed = true;
    for (family, steps) in selection {
        all_passed &= family.run(steps, ctx)?;
    }
    Ok(all_passed)
}
