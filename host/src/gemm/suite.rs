//! The GEMM ladder over each shape, beside cuBLAS: a record per kernel and shape, and one
//! table per shape printed from the same figures; the tensor-core ceilings the tensor-core
//! steps are read against are measured first, unless the ceiling probe already ran (its
//! table then leads the GEMM tables).

use super::cublas::Cublas;
use super::registry::{GemmKernel, Precision};
use super::runner::{GemmBench, GemmCheck};
use crate::error::Result;
use crate::gpu::Gpu;
use crate::plot::ladder::LadderChart;
use crate::probes::tensor_ceiling::{self, Ceilings, short_name};
use crate::records::{Family, Record, finite, from_probe_table};
use crate::table::{Cell, Table};
use crate::timing::{Timer, Timing};

/// What the ladder gives: whether every check passed, the tables to print, the records,
/// a chart per table, the ceilings (when a tensor-core step ran) and the ceiling probe's
/// failed checks, if it ran here (`p8_tensor_ceiling: …`, as a probe's).
pub struct GemmRun {
    pub passed: bool,
    pub tables: Vec<Table>,
    pub records: Vec<Record>,
    pub charts: Vec<LadderChart>,
    pub ceilings: Option<Ceilings>,
    pub failures: Vec<String>,
}

/// Columns of a GEMM table.
const COLUMNS: &[&str] = &[
    "kernel",
    "median µs",
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
    let mut record = Record::new(Family::Gemm, kernel);
    let inputs = &bench.inputs;
    record.precision = Some(short_name(inputs.precision).into());
    (record.m, record.n, record.k) = (Some(inputs.m.into()), Some(inputs.n.into()), Some(inputs.k.into()));
    if let Some(timing) = timing {
        record.set_timing(timing);
        record.figure = finite(bench.flops() / (timing.median_ms * 1e-3) / 1e12);
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

/// A table row printed from `record`.
fn row(label: &str, record: &Record, step: Option<f64>, check: &GemmCheck) -> Vec<Cell> {
    let num = |v: Option<f64>, decimals| Cell::Num(v.unwrap_or(f64::NAN), decimals);
    vec![
        label.into(),
        num(record.median_us, 1),
        Cell::Figure(record.figure.unwrap_or(f64::NAN), 2, "TFLOP/s"),
        num(record.percent_of_vendor, 1),
        Cell::OfLimit(record.percent_of_limit.unwrap_or(f64::NAN), 1),
        num(step, 2),
        Cell::Num(check.error, 9),
        check.method.clone().into(),
        Cell::Check(check.passed()),
    ]
}

/// Runs `kernels` over every shape, one table per shape and input type.
pub fn run(
    gpu: &Gpu,
    timer: &Timer,
    kernels: &[&'static GemmKernel],
    shapes: &[(u32, u32, u32)],
    seed: u64,
    verify_only: bool,
    date: &str,
) -> Result<GemmRun> {
    let cublas = Cublas::open(gpu)?;
    if cublas.is_none() {
        println!("\ncuBLAS could not be loaded: the GEMM tables have no cuBLAS row and no % of cuBLAS");
    }
    let mut out = GemmRun {
        passed: true,
        tables: Vec::new(),
        records: Vec::new(),
        charts: Vec::new(),
        ceilings: None,
        failures: Vec::new(),
    };
    out.ceilings = if verify_only || kernels.iter().all(|k| k.tensor_instruction().is_none()) {
        None
    } else if let Some(ceilings) = tensor_ceiling::cached(gpu) {
        Some(ceilings)
    } else {
        eprintln!("measuring the tensor-core ceilings ...");
        let run = tensor_ceiling::measure(gpu, timer, seed)?;
        for failure in &run.failures {
            println!("WRONG: {failure}");
            out.failures.push(format!("p8_tensor_ceiling: {failure}"));
        }
        out.passed &= run.failures.is_empty();
        out.records.extend(from_probe_table("p8_tensor_ceiling", &run.table));
        out.tables.push(run.table);
        Some(run.ceilings)
    };
    let ceilings = out.ceilings.as_ref();
    let (major, minor) = gpu.info.compute_capability;
    let mut precisions: Vec<Precision> = Vec::new();
    for kernel in kernels {
        if !precisions.contains(&kernel.precision) {
            precisions.push(kernel.precision);
        }
    }
    for (&(m, n, k), &precision) in shapes.iter().flat_map(|s| precisions.iter().map(move |p| (s, p))) {
        eprintln!("preparing {} GEMM {m}×{n}×{k} ...", precision.name());
        let bench = GemmBench::new(gpu, precision, m, n, k, seed)?;
        let mut table = Table::new(
            format!(
                "{} GEMM C = A·B, M×N×K = {m}×{n}×{k}, row-major, on {}",
                precision.name(),
                gpu.info.name
            ),
            COLUMNS,
        );
        let mut chart = super::chart::new(precision, (m, n, k), &gpu.info, date);
        let (label, vendor) = match precision {
            Precision::F32 => ("cuBLAS SGEMM (no TF32)", "cuBLAS SGEMM"),
            _ => ("cuBLAS GemmEx (f32 compute)", "cuBLAS GemmEx"),
        };
        let baseline = match &cublas {
            Some(cublas) => {
                let check = bench.check_cublas(cublas)?;
                let timing = if verify_only { None } else { Some(bench.time_cublas(cublas, timer)?) };
                let mut record = record("cublas", &bench, &check, timing.as_ref());
                record.vendor = Some(vendor.into());
                record.percent_of_vendor = record.figure.map(|_| 100.0);
                // cuBLAS against the fastest instruction of its type.
                if let Some(ceiling) = ceilings.and_then(|c| c.best(precision)) {
                    record.percent_of_limit = record.figure.and_then(|r| finite(100.0 * r / ceiling));
                    record.limit =
                        Some(format!("fastest tensor-core ceiling, {} (p8)", short_name(precision)));
                }
                table.push(row(label, &record, None, &check));
                let rate = record.figure;
                if let Some(rate) = rate {
                    chart.baseline(label, rate);
                }
                out.records.push(record);
                rate
            }
            None => None,
        };
        let mut previous: Option<f64> = None;
        for kernel in kernels.iter().filter(|k| k.precision == precision) {
            if let Some(reason) = kernel.unavailable((major, minor), gpu.info.ptx_arch) {
                table.notes.push(format!("{reason}: skipped"));
                chart.step(kernel.id, super::chart::group(kernel), None, "skipped");
                continue;
            }
            if let Some(refusal) = kernel.refusal(m, n, k) {
                table.notes.push(format!("refused before launch: {refusal}"));
                chart.step(kernel.id, super::chart::group(kernel), None, "refused");
                continue;
            }
            let check = bench.check_kernel(kernel)?;
            out.passed &= check.passed();
            let timing = if check.passed() && !verify_only {
                eprintln!("timing {} ...", kernel.id);
                Some(bench.time_kernel(kernel, timer)?)
            } else {
                None
            };
            let mut record = record(kernel.id, &bench, &check, timing.as_ref());
            let rate = record.figure;
            chart.step(kernel.id, super::chart::group(kernel), rate, if check.passed() { "not timed" } else { "WRONG" });
            if baseline.is_some() {
                record.vendor = Some(vendor.into());
                record.percent_of_vendor = rate.zip(baseline).and_then(|(r, b)| finite(100.0 * r / b));
            }
            if let Some((instruction, ceiling)) = kernel
                .tensor_instruction()
                .and_then(|instruction| Some((instruction, ceilings?.get(instruction, precision)?)))
            {
                record.percent_of_limit = rate.and_then(|r| finite(100.0 * r / ceiling));
                record.limit = Some(format!("{} {} ceiling (p8)", instruction.name(), short_name(precision)));
            }
            let step = rate.zip(previous).map(|(r, p)| r / p);
            table.push(row(kernel.id, &record, step, &check));
            out.records.push(record);
            previous = rate.or(previous);
        }
        if let Some(ceilings) = ceilings {
            table.notes.push(match ceilings.describe(precision) {
                Some(measured) => format!(
                    "% of ceiling: TFLOP/s over the peak of the instruction the step issues, measured by \
                     p8_tensor_ceiling in this run ({measured}); mma.sync for t1–t4, wgmma for t5 on, the \
                     faster of the two for cuBLAS"
                ),
                None if precision == Precision::F32 => {
                    "% of ceiling: none for FP32 steps (no tensor cores)".into()
                }
                None => "% of ceiling: no tensor-core ceiling was measured for these inputs".into(),
            });
        }
        table.notes.push(format!(
            "relative error: Frobenius norm of (C − reference) / reference over the checked entries, f64 CPU reference; bound {:e}",
            precision.tolerance()
        ));
        out.tables.push(table);
        super::chart::add_ceilings(&mut chart, |i| ceilings.and_then(|c| c.get(i, precision)));
        out.charts.push(chart);
    }
    Ok(out)
}
