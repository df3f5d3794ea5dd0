//! The GEMM ladder over each shape, beside cuBLAS: a record per kernel and shape, written
//! as each kernel finishes, and one table (and chart) per shape printed from the same
//! figures as soon as the shape is done; the tensor-core ceilings the tensor-core steps
//! are read against are measured first, unless the ceiling probe already ran (its table
//! then leads the GEMM tables).

use super::cublas::{Baseline, Cublas};
use super::registry::GemmKernel;
use super::runner::{GemmBench, GemmCheck};
use crate::base::error::Result;
use crate::base::precision::Precision;
use crate::ceilings::{self, Ceilings};
use crate::families::family::RunContext;
use crate::measure::timing::{Timer, Timing};
use crate::report::records::{Record, finite, from_table};
use crate::report::table::{Cell, Table};
use crate::twins::{Code, TwinResult};

/// What the ladder gives besides what it wrote to the output: whether every check passed,
/// and the ceilings (when a tensor-core step ran).
pub struct GemmRun {
    pub passed: bool,
    pub ceilings: Option<Ceilings>,
}

/// The unit of work "`kernel` at this precision and shape", as progress and the list of
/// what was not run name it.
pub fn item(kernel: &str, precision: Precision, (m, n, k): (u32, u32, u32)) -> String {
    format!("{kernel}, {} {m}×{n}×{k}", precision.short_name())
}

/// The precisions of `kernels`, in the order they first appear: the order of the tables.
pub fn precisions(kernels: &[&'static GemmKernel]) -> Vec<Precision> {
    let mut precisions: Vec<Precision> = Vec::new();
    for kernel in kernels {
        if !precisions.contains(&kernel.precision) {
            precisions.push(kernel.precision);
        }
    }
    precisions
}

/// The units of work of a run over `shapes`, in the order [`run`] does them.
pub fn work(kernels: &[&'static GemmKernel], shapes: &[(u32, u32, u32)]) -> Vec<String> {
    let mut items = Vec::new();
    for &shape in shapes {
        for precision in precisions(kernels) {
            items.extend(
                kernels.iter().filter(|k| k.precision == precision).map(|k| item(k.id, precision, shape)),
            );
        }
    }
    items
}

/// Columns of a GEMM table.
const COLUMNS: &[&str] = &[
    "kernel",
    "median µs",
    "reps",
    crate::twins::COLUMNS[0],
    crate::twins::COLUMNS[1],
    crate::twins::COLUMNS[2],
    "TFLOP/s",
    "% of cuBLAS",
    "% of ceiling",
    "step ×",
    "relative error",
    "checked",
    "check",
];

/// The record of one checked (and, when it passed, timed) product: everything but the
/// comparisons with cuBLAS and the ceiling, which the caller knows.
fn record(kernel: &str, bench: &GemmBench, check: &GemmCheck, timing: Option<&Timing>) -> Record {
    let mut record = Record::new(super::NAME, kernel);
    let inputs = &bench.inputs;
    record.precision = Some(inputs.precision.short_name().into());
    (record.m, record.n, record.k) = (Some(inputs.m.into()), Some(inputs.n.into()), Some(inputs.k.into()));
    if let Some(timing) = timing {
        record.set_timing(timing);
        record.figure = finite(timing.teraflops(bench.flops()));
        record.unit = Some("TFLOP/s".into());
    }
    record.passed = Some(check.passed());
    record.error = finite(check.error);
    record.error_measure = Some(format!("relative Frobenius error over {}", check.method));
    let serde_json::Value::Object(details) = serde_json::json!({ "tolerance": check.tolerance }) else {
        unreachable!("an object literal")
    };
    record.details = Some(details);
    record
}

/// A table row printed from `record` (and its timing, for the repetitions and the mark
/// of a figure cut short).
fn row(
    label: &str,
    record: &Record,
    timing: Option<&Timing>,
    step: Option<f64>,
    check: &GemmCheck,
) -> Vec<Cell> {
    let num = |v: Option<f64>, decimals| Cell::Num(v.unwrap_or(f64::NAN), decimals);
    let mut cells = vec![
        label.into(),
        timing.map_or(Cell::Num(f64::NAN, 1), |t| Cell::Time(*t)),
        timing.map_or("-".into(), |t| Cell::Int(t.repetitions as i64)),
    ];
    cells.extend(crate::twins::cells(record));
    cells.extend([
        Cell::Figure(record.figure.unwrap_or(f64::NAN), 2, "TFLOP/s"),
        num(record.percent_of_vendor, 1),
        Cell::OfLimit(record.percent_of_limit.unwrap_or(f64::NAN), 1),
        num(step, 2),
        Cell::Num(check.error, 9),
        check.method.clone().into(),
        Cell::Check(check.passed()),
    ]);
    cells
}

/// Checks `kernel` (the Rust step or its twin: `code`) on `bench` and, when it is right and
/// timing was asked, times it (`what` names it in the progress lines). A wrong kernel is
/// never timed.
fn check_then_time(
    bench: &GemmBench,
    kernel: &GemmKernel,
    code: Code,
    timer: &Timer,
    verify_only: bool,
    what: &str,
) -> Result<(GemmCheck, Option<Timing>)> {
    crate::base::progress::begin(format!("checking {what}"));
    let check = bench.check_kernel(kernel, code)?;
    let timing = if check.passed() && !verify_only {
        crate::base::progress::begin(format!("timing {what}"));
        Some(bench.time_kernel(kernel, code, &check, timer)?)
    } else {
        None
    };
    Ok((check, timing))
}

/// Runs `kernels` over every shape of `--gemm`, one table per shape and input type, each
/// record written to the output as its kernel finishes. An error names the kernel and
/// shape it happened in.
pub fn run(kernels: &[&'static GemmKernel], ctx: &mut RunContext) -> Result<GemmRun> {
    let (gpu, timer, seed, twins, date) = (ctx.gpu, ctx.timer, ctx.seed, ctx.twins, ctx.date);
    let (shapes, verify_only) = (&ctx.options.gemm, ctx.options.verify_only);
    let output = &mut *ctx.output;
    let cublas = Cublas::open(gpu)?;
    if cublas.is_none() {
        println!("\ncuBLAS could not be loaded: the GEMM tables have no cuBLAS row and no % of cuBLAS");
    }
    let mut out = GemmRun { passed: true, ceilings: None };
    out.ceilings = if verify_only || kernels.iter().all(|k| k.tensor_instruction().is_none()) {
        None
    } else if let Some(ceilings) = ceilings::cached(gpu) {
        Some(ceilings)
    } else {
        crate::base::progress::begin("measuring the tensor-core ceilings");
        let run = ceilings::measure(gpu, timer, seed).map_err(|e| e.during("p8_tensor_ceiling"))?;
        for failure in &run.failures {
            println!("WRONG: {failure}");
            output.failure(format!("p8_tensor_ceiling: {failure}"));
        }
        out.passed &= run.failures.is_empty();
        output.table(&run.table);
        // p8's records, as the probe family would have written them had it run first.
        output.add(from_table("probe", "p8_tensor_ceiling", &run.table))?;
        Some(run.ceilings)
    };
    let ceilings = out.ceilings.as_ref();
    let (major, minor) = gpu.info.compute_capability;
    // Each kernel's rate on the current shape, with its input type, for the `step ×` of the
    // steps built on it: kept across the shape's tables, since an FP8 variant (w19's block
    // scales, w20's e5m2) builds on a step of the plain e4m3 table.
    let mut rates: Vec<((u32, u32, u32), Precision, &str, f64)> = Vec::new();
    for (&(m, n, k), precision) in
        shapes.iter().flat_map(|s| precisions(kernels).into_iter().map(move |p| (s, p)))
    {
        crate::base::interrupt::check()?;
        let shape_text = format!("{} GEMM {m}×{n}×{k}", precision.name());
        crate::base::progress::begin(format!("preparing {shape_text}"));
        let bench = GemmBench::new(gpu, precision, m, n, k, seed).map_err(|e| e.during(&shape_text))?;
        let mut table = Table::new(
            format!(
                "{} GEMM C = A·B, M×N×K = {m}×{n}×{k}, row-major, on {}",
                precision.name(),
                gpu.info.name
            ),
            COLUMNS,
        );
        table.detail(&["reps", crate::twins::COLUMNS[2], "relative error", "checked"]);
        let mut chart = super::chart::new(precision, (m, n, k), &gpu.info, date);
        // cuBLASLt's FP8 product takes only multiples of 16: say so and go on without it.
        let fp8_refusal = precision
            .is_fp8()
            .then(|| super::cublaslt::fp8_refusal(m, n, k, precision == Precision::E4m3Blocks))
            .flatten();
        if let Some(refusal) = &fp8_refusal {
            table.notes.push(format!("no baseline: {refusal}"));
        }
        // Each baseline that ran and was timed, with its rate.
        let mut baselines: Vec<(Baseline, f64)> = Vec::new();
        for &baseline in Baseline::of(precision) {
            let Some(cublas) = cublas.as_ref().filter(|_| fp8_refusal.is_none()) else { break };
            let (label, what) = (baseline.label(), format!("{}, {shape_text}", baseline.label()));
            crate::base::progress::begin(format!("checking {what}"));
            let check = match bench.check_cublas(cublas, baseline) {
                Ok(check) => check,
                // cuBLASLt's FP8 product is an optional baseline: when the library declines
                // the call, the table says why and the steps still run.
                Err(e) if precision.is_fp8() => {
                    table.notes.push(format!("no baseline ({label}): {e}"));
                    continue;
                }
                Err(e) => return Err(e.during(&what)),
            };
            let timing = if verify_only {
                None
            } else {
                crate::base::progress::begin(format!("timing {what}"));
                Some(bench.time_cublas(cublas, baseline, &check, timer).map_err(|e| e.during(&what))?)
            };
            let mut record = record(baseline.record_id(), &bench, &check, timing.as_ref());
            record.vendor = Some(baseline.vendor().into());
            record.percent_of_vendor = record.figure.map(|_| 100.0);
            // cuBLAS against the fastest instruction of its type (none where it went unmeasured).
            if let Some(ceiling) = ceilings.and_then(|c| c.for_vendor(precision, gpu.info.compute_capability))
            {
                record.percent_of_limit = record.figure.and_then(|r| finite(100.0 * r / ceiling));
                record.limit = Some(format!("fastest tensor-core ceiling, {} (p8)", precision.short_name()));
            }
            table.push(row(label, &record, timing.as_ref(), None, &check));
            if let Some(rate) = record.figure {
                chart.baseline(label, rate);
                baselines.push((baseline, rate));
            }
            output.add(vec![record])?;
        }
        let mut records: Vec<Record> = Vec::new();
        for kernel in kernels.iter().filter(|k| k.precision == precision) {
            let item = item(kernel.id, precision, (m, n, k));
            crate::base::interrupt::check()?;
            if let Some(reason) = kernel.unavailable((major, minor), gpu.info.ptx_arch) {
                table.notes.push(format!("{reason}: skipped"));
                chart.step(kernel.id, super::chart::group(kernel), None, "skipped");
                output.finished(&item, Vec::new())?;
                continue;
            }
            if let Some(refusal) = kernel.refusal(m, n, k) {
                table.notes.push(format!("refused before launch: {refusal}"));
                chart.step(kernel.id, super::chart::group(kernel), None, "refused");
                output.finished(&item, Vec::new())?;
                continue;
            }
            let (check, timing) = check_then_time(&bench, kernel, Code::Rust, timer, verify_only, &item)
                .map_err(|e| e.during(&item))?;
            out.passed &= check.passed();
            let twin_item = format!("the C++ twin of {item}");
            let twin = twins
                .run(gpu, &[kernel.id], |code| {
                    let (twin_check, timing) =
                        check_then_time(&bench, kernel, code, timer, verify_only, &twin_item)?;
                    Ok(TwinResult::Ran {
                        passed: twin_check.passed(),
                        wrong: (!twin_check.passed()).then(|| {
                            format!("relative error {:e} ({})", twin_check.error, twin_check.method)
                        }),
                        timing,
                        registers: twin_check.registers,
                    })
                })
                .map_err(|e| e.during(&twin_item))?;
            out.passed &= !twin.failed();
            let mut record = record(kernel.id, &bench, &check, timing.as_ref());
            twin.fill(&mut record, check.registers);
            let rate = record.figure;
            chart.step(
                kernel.id,
                super::chart::group(kernel),
                rate,
                if check.passed() { "not timed" } else { "WRONG" },
            );
            if let Some(&(baseline, base)) = baselines.iter().find(|(b, _)| *b == kernel.baseline()) {
                record.vendor = Some(baseline.vendor().into());
                record.percent_of_vendor = rate.and_then(|r| finite(100.0 * r / base));
            }
            if let Some((instruction, ceiling)) = kernel
                .tensor_instruction()
                .and_then(|instruction| Some((instruction, ceilings?.get(instruction, precision)?)))
            {
                record.percent_of_limit = rate.and_then(|r| finite(100.0 * r / ceiling));
                record.limit =
                    Some(format!("{} {} ceiling (p8)", instruction.name(), precision.short_name()));
            }
            // `step ×`: over the step this one builds on, on this shape, in the same input type
            // (or, for an FP8 variant, in plain e4m3), where it ran.
            let builds_on = super::registry::step_of(kernel).builds_on;
            let base = builds_on.and_then(|name| {
                let of_step = |&&(shape, _, id, _): &&(_, Precision, &str, f64)| {
                    shape == (m, n, k) && super::registry::step_name(id) == Some(name)
                };
                let same = rates.iter().filter(of_step).find(|(_, p, ..)| *p == precision);
                same.or_else(|| {
                    rates.iter().filter(of_step).find(|(_, p, ..)| p.element() == precision.element())
                })
                .map(|&(.., r)| r)
            });
            let step = rate.zip(base).map(|(r, b)| r / b);
            table.push(row(kernel.id, &record, timing.as_ref(), step, &check));
            records.push(record.clone());
            output.finished(&item, vec![record])?;
            if let Some(rate) = rate {
                rates.push(((m, n, k), precision, kernel.id, rate));
            }
        }
        if let Some(ceilings) = ceilings {
            table.notes.push(match ceilings.describe(precision) {
                Some(measured) => format!(
                    "% of ceiling: TFLOP/s over the peak of the instruction the step issues, measured by \
                     p8_tensor_ceiling in this run ({measured}); mma.sync for the t steps (any GPU since \
                     Ampere), wgmma for the w steps (Hopper), the faster of the two for cuBLAS"
                ),
                None if precision == Precision::F32 => {
                    "% of ceiling: none for FP32 steps (no tensor cores)".into()
                }
                None => "% of ceiling: no tensor-core ceiling was measured for these inputs".into(),
            });
        }
        let twinned: Vec<&Record> = records.iter().collect();
        table.notes.extend(crate::twins::notes(twins, &twinned));
        table.notes.push(format!(
            "step ×: TFLOP/s over that of the step it builds on (the one before it, but {}; an FP8 variant's in \
             the e4m3 table), where that step ran",
            super::registry::builds_on_exceptions()
        ));
        table.notes.push(format!(
            "relative error: Frobenius norm of (C − reference) / reference over the checked entries, f64 CPU reference; bound {:e}",
            super::registry::tolerance(precision)
        ));
        output.table(&table);
        super::chart::add_ceilings(&mut chart, |i| ceilings.and_then(|c| c.get(i, precision)));
        output.chart(&chart)?;
    }
    Ok(out)
}
