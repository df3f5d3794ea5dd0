//! The scan family: inclusive and exclusive prefix sums of `i32` and `f32`, from Hillis and
//! Steele's tile scan to a single pass with decoupled look-back, and stream compaction on
//! it; against a device-to-device copy (the bandwidth a scan can reach: it reads and writes
//! every element once) and CUB's `DeviceScan` and `DeviceSelect::If` in the same run.

pub mod chart;
pub mod cub;
mod gpu_tests;
pub mod reference;
pub mod registry;
pub mod report;
pub mod runner;
#[cfg(test)]
mod tests;

use crate::base::error::{Error, Result};
use crate::cli::Options;
use crate::families::family::{Family, GpuTest, Ladder, RunContext, Step};
use crate::measure::timing::Timing;
use crate::twins::{self, Code, TwinResult};
use cub::Cub;
use reference::Check;
use registry::{ElementType, SCAN_STEPS, ScanStep, Scheme};
use report::{Baselines, Row, Setting, Subject};
use runner::{COMPACTION_MAX_N, Launch, Placement, ScanBench};

/// The family's name on the command line and in the records.
pub const NAME: &str = "scan";

/// The scan family.
pub struct Scan;

impl Family for Scan {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "prefix sums of n i32 or f32 (-n, --scan-type, --exclusive) and stream compaction, against a copy and CUB"
    }

    fn ladders(&self) -> &'static [Ladder] {
        &[Ladder { prefix: "s", title: "prefix scan, from Hillis and Steele to decoupled look-back" }]
    }

    fn steps(&self) -> Vec<Step> {
        SCAN_STEPS.iter().map(|s| Step::new(s.id, s.summary, s.arch, &s.symbols(), true)).collect()
    }

    fn check_options(&self, selected: &[Step], options: &Options) -> Result<()> {
        element_types(options)?;
        for s in selected {
            step(s).block_size(options.block).map_err(Error::new)?;
        }
        let compaction: Vec<&str> =
            selected.iter().filter(|s| step(s).scheme == Scheme::Compaction).map(|s| s.id).collect();
        if let Some(&n) = options.n.iter().find(|&&n| !compaction.is_empty() && n > COMPACTION_MAX_N) {
            return Err(Error::new(format!(
                "-n {n}: compaction ({}) counts in 32 bits and takes n ≤ {COMPACTION_MAX_N}; leave it out \
                 or pass a smaller -n",
                compaction.join(", ")
            )));
        }
        Ok(())
    }

    fn work(&self, selected: &[Step], options: &Options) -> Vec<String> {
        let types = element_types(options).unwrap_or_default();
        let mut work = Vec::new();
        for &n in &options.n {
            for setting in settings(selected, &types, options.exclusive, n) {
                work.extend(steps_of(selected, &setting).map(|s| report::item(s.id, &setting)));
            }
        }
        work
    }

    fn run(&self, selected: &[Step], ctx: &mut RunContext) -> Result<bool> {
        let types = element_types(ctx.options)?;
        let cub = Cub::open();
        match &cub {
            Ok(cub) => eprintln!("scan: CUB baseline: {}", cub.describe()),
            Err(reason) => eprintln!("scan: no CUB baseline: {reason}"),
        }
        let mut empty: Option<Timing> = None;
        let mut all_passed = true;
        for &n in &ctx.options.n {
            for setting in settings(selected, &types, ctx.options.exclusive, n) {
                crate::base::interrupt::check()?;
                let preparing =
                    format!("preparing {} {} n = {n}", setting.operation(), setting.element.name());
                crate::base::progress::begin(preparing.clone());
                let bench = ScanBench::new(ctx.gpu, n, ctx.seed, setting.element)
                    .map_err(|e| e.during(&preparing))?;
                let setting = Setting { bytes: bytes_moved(&bench, &setting), ..setting };
                let timed = !ctx.options.verify_only;
                if empty.is_none() && timed {
                    crate::base::progress::begin("timing an empty launch".to_string());
                    empty = Some(bench.time_empty_launch(ctx.timer)?);
                }
                let mut rows = Vec::new();
                let mut unavailable = Vec::new();
                let copy = if timed {
                    crate::base::progress::begin(format!("timing a copy of n = {n}"));
                    Some(bench.time_copy(ctx.timer)?)
                } else {
                    None
                };
                let mut baselines = Baselines {
                    copy_gbs: copy.map(|t| t.gigabytes_per_second(bench.bytes_moved() as f64)),
                    cub_gbs: None,
                    empty_us: empty.map(|t| t.median_ms * 1e3),
                };
                if let Ok(cub) = &cub {
                    let what = format!("{} on {}", setting.cub_name(), report::item("", &setting));
                    crate::base::progress::begin(format!("checking {what}"));
                    let (check, timing) = bench
                        .cub(cub, setting.exclusive, setting.compaction, timed.then_some(ctx.timer))
                        .map_err(|e| e.during(&what))?;
                    all_passed &= check.passed();
                    baselines.cub_gbs = timing.map(|t| t.gigabytes_per_second(setting.bytes as f64));
                    rows.push(Row {
                        subject: Subject::Cub,
                        block: None,
                        launches: None,
                        check: Some(check),
                        timing,
                        registers: None,
                        twin: TwinResult::NotRun(String::new()),
                    });
                }
                if let Some(copy) = copy {
                    rows.push(baseline_row(Subject::Copy, copy));
                }
                if let Some(empty) = empty {
                    rows.push(baseline_row(Subject::EmptyLaunch, empty));
                }
                for step in steps_of(selected, &setting) {
                    crate::base::interrupt::check()?;
                    let item = report::item(step.id, &setting);
                    if let Some(reason) =
                        step.unavailable(ctx.gpu.info.compute_capability, ctx.gpu.info.ptx_arch)
                    {
                        unavailable.push(format!("{reason}: skipped"));
                        ctx.output.finished(&item, Vec::new())?;
                        continue;
                    }
                    let row = run_step(&bench, step, &setting, ctx, &item).map_err(|e| e.during(&item))?;
                    all_passed &= row.check.as_ref().is_none_or(Check::passed) && !row.twin.failed();
                    ctx.output
                        .finished(&item, vec![report::record(&ctx.gpu.info, &setting, &baselines, &row)])?;
                    rows.push(row);
                }
                let baseline_records: Vec<_> = rows
                    .iter()
                    .filter(|r| !matches!(r.subject, Subject::Step(_)))
                    .map(|r| report::record(&ctx.gpu.info, &setting, &baselines, r))
                    .collect();
                ctx.output.add(baseline_records)?;
                let mut table = report::table(&ctx.gpu.info, &setting, &baselines, &rows);
                let records: Vec<_> =
                    rows.iter().map(|r| report::record(&ctx.gpu.info, &setting, &baselines, r)).collect();
                table.notes.extend(twins::notes(ctx.twins, &records.iter().collect::<Vec<_>>()));
                table.notes.extend(unavailable);
                if let Err(reason) = &cub {
                    table.notes.push(format!("no CUB column: {reason}"));
                }
                ctx.output.table(&table);
                ctx.output.chart(&chart::ladder(&ctx.gpu.info, ctx.date, &setting, &baselines, &rows))?;
            }
        }
        Ok(all_passed)
    }

    fn gpu_tests(&self, gpu_present: bool) -> Vec<GpuTest> {
        gpu_tests::all(gpu_present)
    }
}

/// The registry entry of a step of this family.
fn step(step: &Step) -> &'static ScanStep {
    registry::step(step.id).expect("a step of the scan family is registered")
}

/// The element types `--scan-type` asks for.
fn element_types(options: &Options) -> Result<Vec<ElementType>> {
    options
        .scan_type
        .iter()
        .map(|t| ElementType::parse(t).ok_or_else(|| Error::new(format!("--scan-type {t}: i32 or f32"))))
        .collect()
}

/// The tables a run of `selected` makes at size `n`: the scans of each element type, then
/// compaction (on i32) when a compaction step is selected.
fn settings(selected: &[Step], types: &[ElementType], exclusive: bool, n: usize) -> Vec<Setting> {
    let scans = selected.iter().any(|s| step(s).scheme != Scheme::Compaction);
    let compaction = selected.iter().any(|s| step(s).scheme == Scheme::Compaction);
    let mut settings: Vec<Setting> = if scans {
        types.iter().map(|&element| Setting { element, exclusive, compaction: false, n, bytes: 0 }).collect()
    } else {
        Vec::new()
    };
    if compaction {
        settings.push(Setting { element: ElementType::I32, exclusive: false, compaction: true, n, bytes: 0 });
    }
    settings
}

/// The selected steps that belong in `setting`'s table.
fn steps_of<'a>(selected: &'a [Step], setting: &'a Setting) -> impl Iterator<Item = &'static ScanStep> + 'a {
    selected.iter().map(step).filter(move |s| (s.scheme == Scheme::Compaction) == setting.compaction)
}

/// Bytes one run of `setting` moves: 8n for a scan; for compaction the input read and the
/// kept elements written.
fn bytes_moved(bench: &ScanBench, setting: &Setting) -> usize {
    if setting.compaction { 4 * bench.n + 4 * bench.kept() } else { bench.bytes_moved() }
}

fn baseline_row(subject: Subject, timing: Timing) -> Row {
    Row {
        subject,
        block: None,
        launches: Some(1),
        check: None,
        timing: Some(timing),
        registers: None,
        twin: TwinResult::NotRun(String::new()),
    }
}

/// Checks (and, when right and asked, times) one step on one setting, then its C++ twin the
/// same way.
fn run_step(
    bench: &ScanBench,
    step: &'static ScanStep,
    setting: &Setting,
    ctx: &RunContext,
    item: &str,
) -> Result<Row> {
    let exclusive = setting.exclusive;
    let launch = Launch { block: step.block_size(ctx.options.block).map_err(Error::new)?, jitter: 0 };
    let plan = bench.plan(step, Code::Rust, Placement::OutOfPlace, exclusive, launch)?;
    let (check, timing) = check_then_time(bench, &plan, exclusive, ctx, item)?;
    let entries = step.entries(setting.element).expect("settings pick steps with this form");
    let twin = ctx.twins.run(bench.gpu(), entries, |code| {
        let twin_plan = bench.plan(step, code, Placement::OutOfPlace, exclusive, launch)?;
        let (twin_check, timing) =
            check_then_time(bench, &twin_plan, exclusive, ctx, &format!("the C++ twin of {item}"))?;
        Ok(TwinResult::Ran {
            passed: twin_check.passed(),
            wrong: (!twin_check.passed()).then(|| twin_check.first.clone()),
            timing,
            registers: twin_plan.registers,
        })
    })?;
    Ok(Row {
        subject: Subject::Step(step),
        block: Some(plan.block),
        launches: Some(plan.launches),
        check: Some(check),
        timing,
        registers: plan.registers,
        twin,
    })
}

/// Checks `plan` on a poisoned output and, when it is right and timing was asked, times it.
/// A wrong kernel is reported, never timed.
fn check_then_time(
    bench: &ScanBench,
    plan: &runner::Plan,
    exclusive: bool,
    ctx: &RunContext,
    what: &str,
) -> Result<(Check, Option<Timing>)> {
    crate::base::progress::begin(format!("checking {what}"));
    let check = bench.check(plan, exclusive)?;
    let timing = if check.passed() && !ctx.options.verify_only {
        crate::base::progress::begin(format!("timing {what}"));
        Some(bench.time(plan, ctx.timer)?)
    } else {
        None
    };
    Ok((check, timing))
}
