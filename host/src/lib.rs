//! The runner: loads the project's PTX, launches every kernel of a ladder, verifies each
//! against a CPU reference, times it and reports it next to the hardware's limit.
//!
//! The binary (`cargo run -p host --release`) is [`run`] over the command-line
//! [`cli::Options`]; the GPU tests drive the same pieces directly.

pub mod cli;
pub mod error;
pub mod gemm;
pub mod gpu;
pub mod inputs;
pub mod memory;
pub mod plot;
pub mod probes;
pub mod ptx;
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
        "reductions": [],
        "probes": {},
        "gemm": [],
    });

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
            report::print_table(&gpu.info, n, bench.bytes_read(), &rows);
            if let Some(dir) = &options.plots {
                // No CUB figure: the host does not measure CUB (bench/cub does, beside it).
                reduce::chart::ladder(&gpu.info, &date, n, bench.bytes_read(), &rows, None).write(dir)?;
            }
            results["reductions"]
                .as_array_mut()
                .expect("reductions is an array")
                .push(report::reduction_json(n, bench.bytes_read(), &gpu.info, &rows));
        }
    }

    let context = probes::ProbeContext { gpu: &gpu, timer: &timer, seed };
    for probe in probes {
        eprintln!("running {} ...", probe.id);
        let output = (probe.run)(&context)?;
        for table in &output.tables {
            print!("{}", table.render());
        }
        for failure in &output.failures {
            println!("WRONG: {failure}");
        }
        all_passed &= output.failures.is_empty();
        if let Some(dir) = &options.plots {
            for plot in &output.plots {
                plot.write(dir)?;
            }
        }
        results["probes"][probe.id] = serde_json::json!({
            "summary": probe.summary,
            "tables": output.tables.iter().map(table::Table::json).collect::<Vec<_>>(),
            "failures": output.failures,
        });
    }

    if !gemms.is_empty() {
        let (passed, tables, ceilings, charts) =
            run_gemm(&gpu, &timer, &gemms, &options.gemm, seed, options.verify_only, &date)?;
        all_passed &= passed;
        if let Some(dir) = &options.plots {
            plot::ladder::write_all(dir, &charts)?;
        }
        for table in &tables {
            print!("{}", table.render());
            results["gemm"].as_array_mut().expect("gemm is an array").push(table.json());
        }
        if let Some(ceilings) = ceilings {
            results["tensor_ceilings"] = ceilings.json();
        }
    }

    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&results).expect("results serialize");
        std::fs::write(path, text + "\n").map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    }
    Ok(all_passed)
}

/// Whether every GEMM result was right; the tables, the ceilings and the charts.
type GemmOutcome =
    (bool, Vec<table::Table>, Option<probes::tensor_ceiling::Ceilings>, Vec<plot::ladder::LadderChart>);

/// The GEMM ladder over each shape, beside cuBLAS: one table and one chart per shape and
/// precision, and the tensor-core ceilings the tensor-core steps are read against
/// (measured first, unless the ceiling probe already ran; its table then leads the GEMM
/// tables).
fn run_gemm(
    gpu: &Gpu,
    timer: &Timer,
    kernels: &[&'static gemm::registry::GemmKernel],
    shapes: &[(u32, u32, u32)],
    seed: u64,
    verify_only: bool,
    date: &str,
) -> Result<GemmOutcome> {
    use probes::tensor_ceiling;
    use table::{Cell, Table};
    let cublas = gemm::cublas::Cublas::open(gpu)?;
    if cublas.is_none() {
        println!("\ncuBLAS could not be loaded: the GEMM tables have no cuBLAS row and no % of cuBLAS");
    }
    let mut all_passed = true;
    let mut tables = Vec::new();
    let mut charts = Vec::new();
    let ceilings = if verify_only || kernels.iter().all(|k| k.tensor_instruction().is_none()) {
        None
    } else if let Some(ceilings) = tensor_ceiling::cached(gpu) {
        Some(ceilings)
    } else {
        eprintln!("measuring the tensor-core ceilings ...");
        let run = tensor_ceiling::measure(gpu, timer, seed)?;
        for failure in &run.failures {
            println!("WRONG: {failure}");
        }
        all_passed &= run.failures.is_empty();
        tables.push(run.table);
        Some(run.ceilings)
    };
    let (major, minor) = gpu.info.compute_capability;
    let mut precisions: Vec<gemm::registry::Precision> = Vec::new();
    for kernel in kernels {
        if !precisions.contains(&kernel.precision) {
            precisions.push(kernel.precision);
        }
    }
    for (&(m, n, k), &precision) in shapes.iter().flat_map(|s| precisions.iter().map(move |p| (s, p))) {
        eprintln!("preparing {} GEMM {m}×{n}×{k} ...", precision.name());
        let bench = gemm::runner::GemmBench::new(gpu, precision, m, n, k, seed)?;
        let tflops = |t: &timing::Timing| bench.flops() / (t.median_ms * 1e-3) / 1e12;
        let mut chart = gemm::chart::new(precision, (m, n, k), &gpu.info, date);
        let mut table = Table::new(
            format!(
                "{} GEMM C = A·B, M×N×K = {m}×{n}×{k}, row-major, on {}",
                precision.name(),
                gpu.info.name
            ),
            &[
                "kernel",
                "median µs",
                "TFLOP/s",
                "% of cuBLAS",
                "% of ceiling",
                "step ×",
                "relative error",
                "checked",
                "check",
            ],
        );
        let baseline = match &cublas {
            Some(cublas) => {
                let check = bench.check_cublas(cublas)?;
                let timing = if verify_only { None } else { Some(bench.time_cublas(cublas, timer)?) };
                let label = match precision {
                    gemm::registry::Precision::F32 => "cuBLAS SGEMM (no TF32)",
                    _ => "cuBLAS GemmEx (f32 compute)",
                };
                table.push(vec![
                    label.into(),
                    timing.map_or(Cell::Num(f64::NAN, 1), |t| Cell::Num(t.median_ms * 1e3, 1)),
                    timing.as_ref().map_or(Cell::Num(f64::NAN, 2), |t| Cell::Num(tflops(t), 2)),
                    Cell::Num(100.0, 1),
                    // cuBLAS against the fastest instruction of its type.
                    Cell::Num(
                        match (&timing, ceilings.as_ref().and_then(|c| c.best(precision))) {
                            (Some(t), Some(ceiling)) => 100.0 * tflops(t) / ceiling,
                            _ => f64::NAN,
                        },
                        1,
                    ),
                    Cell::Num(f64::NAN, 2),
                    Cell::Num(check.error, 9),
                    check.method.clone().into(),
                    if check.passed() { "ok" } else { "WRONG" }.into(),
                ]);
                if let Some(t) = &timing {
                    chart.baseline(label, tflops(t));
                }
                timing.map(|t| tflops(&t))
            }
            None => None,
        };
        let mut previous: Option<f64> = None;
        for kernel in kernels.iter().filter(|k| k.precision == precision) {
            if let Some(reason) = kernel.unavailable((major, minor), gpu.info.ptx_arch) {
                table.notes.push(format!("{reason}: skipped"));
                chart.step(kernel.id, gemm::chart::group(kernel), None, "skipped");
                continue;
            }
            if let Some(refusal) = kernel.refusal(m, n, k) {
                table.notes.push(format!("refused before launch: {refusal}"));
                chart.step(kernel.id, gemm::chart::group(kernel), None, "refused");
                continue;
            }
            let check = bench.check_kernel(kernel)?;
            all_passed &= check.passed();
            let timing = if check.passed() && !verify_only {
                eprintln!("timing {} ...", kernel.id);
                Some(bench.time_kernel(kernel, timer)?)
            } else {
                None
            };
            let rate = timing.as_ref().map(tflops);
            let note = if check.passed() { "not timed" } else { "WRONG" };
            chart.step(kernel.id, gemm::chart::group(kernel), rate, note);
            let ceiling = ceilings
                .as_ref()
                .zip(kernel.tensor_instruction())
                .and_then(|(c, instruction)| c.get(instruction, precision));
            table.push(vec![
                kernel.id.into(),
                timing.map_or(Cell::Num(f64::NAN, 1), |t| Cell::Num(t.median_ms * 1e3, 1)),
                Cell::Num(rate.unwrap_or(f64::NAN), 2),
                Cell::Num(
                    match (rate, baseline) {
                        (Some(r), Some(b)) => 100.0 * r / b,
                        _ => f64::NAN,
                    },
                    1,
                ),
                Cell::Num(
                    match (rate, ceiling) {
                        (Some(r), Some(c)) => 100.0 * r / c,
                        _ => f64::NAN,
                    },
                    1,
                ),
                Cell::Num(
                    match (rate, previous) {
                        (Some(r), Some(p)) => r / p,
                        _ => f64::NAN,
                    },
                    2,
                ),
                Cell::Num(check.error, 9),
                check.method.clone().into(),
                if check.passed() { "ok" } else { "WRONG" }.into(),
            ]);
            previous = rate.or(previous);
        }
        if let Some(ceilings) = &ceilings {
            table.notes.push(match ceilings.describe(precision) {
                Some(measured) => format!(
                    "% of ceiling: TFLOP/s over the peak of the instruction the step issues, measured by \
                     p8_tensor_ceiling in this run ({measured}); mma.sync for t1–t4, wgmma for t5 on, the \
                     faster of the two for cuBLAS"
                ),
                None if precision == gemm::registry::Precision::F32 => {
                    "% of ceiling: none for FP32 steps (no tensor cores)".into()
                }
                None => "% of ceiling: no tensor-core ceiling was measured for these inputs".into(),
            });
        }
        table.notes.push(format!(
            "relative error: Frobenius norm of (C − reference) / reference over the checked entries, f64 CPU reference; bound {:e}",
            precision.tolerance()
        ));
        tables.push(table);
        gemm::chart::add_ceilings(&mut chart, |i| ceilings.as_ref().and_then(|c| c.get(i, precision)));
        charts.push(chart);
    }
    Ok((all_passed, tables, ceilings, charts))
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
