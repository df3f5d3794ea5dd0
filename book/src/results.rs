//! The results pages: `docs/results/<gpu>.md`, one per GPU kind, from the records of
//! `docs/results/<gpu>/*.json` alone (`cargo xtask results`). First the files and where
//! they come from, then the best step of each problem, then each ladder's table, the
//! probes' headline rows and the charts. The same input gives the same bytes: every order
//! is the ladder's or the file's, every number is formatted here.
//!
//! The tables the book's chapters show of one step ([`step_tables`]) are made here too.
//! The scan family's parts are in [`scan`], the attention family's in [`attention`], the
//! node probes' over several GPUs in [`node`]. The
//! attention charts are drawn here, from the records ([`attention::charts`]): the figures of
//! cuDNN and FlashAttention-2 reach the records after the host's run, so the host cannot
//! draw them. [`write()`] writes them beside the pages and [`stale`] checks both.

pub mod attention;
pub mod node;
pub mod scan;

use crate::markdown::{Align, Table, micros, one_decimal, ratio};
use crate::records::{self, GpuResults, Run, precision_name, precision_rank, size_rank, size_text};
use crate::{Repo, Result};
use host::report::records::Record;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How a page links to what is outside it.
pub struct Links<'a> {
    /// The path of chart `file` of GPU kind `kind`, from the page.
    pub chart: &'a dyn Fn(&str, &str) -> String,
    /// A Markdown link to step `id`'s chapter, where the page has one (the book's pages).
    pub step: &'a dyn Fn(&str) -> Option<String>,
}

/// The links of the committed pages: charts beside them in `docs/results/<gpu>/charts/`,
/// steps as plain code.
pub fn committed_links() -> Links<'static> {
    Links { chart: &|kind, file| format!("{kind}/charts/{file}"), step: &|_| None }
}

/// Where each step sorts: its place among every family's steps, in run order.
pub struct StepOrder(BTreeMap<&'static str, usize>);

impl StepOrder {
    pub fn new() -> Self {
        Self(host::families::all_steps().iter().enumerate().map(|(i, (_, s))| (s.id, i)).collect())
    }

    /// The sort key of `kernel`: registered steps in run order, then others by name.
    pub fn rank(&self, kernel: &str) -> (usize, String) {
        (self.0.get(kernel).copied().unwrap_or(usize::MAX), kernel.to_string())
    }
}

impl Default for StepOrder {
    fn default() -> Self {
        Self::new()
    }
}

/// Every page: `(file name, text)`, one per GPU kind in `docs/results/`.
pub fn pages(repo: &Repo) -> Result<Vec<(String, String)>> {
    let order = StepOrder::new();
    let links = committed_links();
    Ok(records::load_all(repo)?
        .iter()
        .map(|gpu| (format!("{}.md", gpu.kind), page(gpu, &order, &links)))
        .collect())
}

/// Every file the generator makes, as (path from the results folder, text): each GPU kind's
/// page (`h100.md`) and its attention charts (`h100/charts/attention-….svg`).
pub fn outputs(repo: &Repo) -> Result<Vec<(String, String)>> {
    let order = StepOrder::new();
    let links = committed_links();
    let mut out = vec![];
    for gpu in records::load_all(repo)? {
        out.push((format!("{}.md", gpu.kind), page(&gpu, &order, &links)));
        for (name, svg) in attention::charts(&gpu, &order)? {
            out.push((format!("{}/charts/{name}", gpu.kind), svg));
        }
    }
    Ok(out)
}

/// Writes every page and chart into `dir` (`docs/results/` for the committed ones), and
/// removes the charts drawn here earlier of records no longer there; returns the paths
/// written.
pub fn write(repo: &Repo, dir: &Path) -> Result<Vec<PathBuf>> {
    let outputs = outputs(repo)?;
    let mut written = vec![];
    for (name, text) in &outputs {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    for name in orphans(dir, &outputs)? {
        let path = dir.join(name);
        std::fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    }
    Ok(written)
}

/// What in `dir` is not what [`write()`] would make of the records: each page or chart that
/// is missing or differs (with its first line that differs), and each chart drawn here of
/// records no longer there. Empty where `dir` is up to date.
pub fn stale(repo: &Repo, dir: &Path) -> Result<Vec<String>> {
    let outputs = outputs(repo)?;
    let mut stale = vec![];
    for (name, fresh) in &outputs {
        match std::fs::read_to_string(dir.join(name)) {
            Err(_) => stale.push(format!("{name} is missing")),
            Ok(old) if old != *fresh => {
                let line = old
                    .lines()
                    .zip(fresh.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(old.lines().count().min(fresh.lines().count()));
                stale.push(format!("{name} differs from what the records give, first at line {}", line + 1));
            }
            Ok(_) => {}
        }
    }
    for name in orphans(dir, &outputs)? {
        stale.push(format!("{name} is a chart of records no longer there"));
    }
    Ok(stale)
}

/// The charts drawn here ([`attention::is_chart`]) in the charts folders of `outputs`' GPU
/// kinds in `dir` that `outputs` no longer hold, as paths from `dir`.
fn orphans(dir: &Path, outputs: &[(String, String)]) -> Result<Vec<String>> {
    let mut orphans = vec![];
    for kind in outputs.iter().filter_map(|(path, _)| path.strip_suffix(".md")) {
        let charts = dir.join(kind).join("charts");
        let Ok(entries) = std::fs::read_dir(&charts) else { continue };
        let mut names: Vec<String> = entries
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<std::io::Result<_>>()
            .map_err(|e| format!("cannot read {}: {e}", charts.display()))?;
        names.sort();
        for name in names.into_iter().filter(|n| attention::is_chart(n)) {
            let path = format!("{kind}/charts/{name}");
            if !outputs.iter().any(|(p, _)| *p == path) {
                orphans.push(path);
            }
        }
    }
    Ok(orphans)
}

/// The page of one GPU kind.
pub fn page(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    let mut out = format!("# Results on the {}\n\n", gpu.device());
    out += &format!(
        "Generated by `cargo xtask results` from the records in `{}/`, which `host --json` wrote; \
         nothing here is edited by hand. Every figure below names the file it comes from.\n\n",
        gpu.dir()
    );
    out += &files_section(gpu);
    out += &best_section(gpu, order, links);
    out += &reduction_section(gpu, order, links);
    out += &scan::section(gpu, order, links);
    out += &gemm_section(gpu, order, links);
    out += &attention::section(gpu, order, links);
    out += &node::section(gpu, links);
    out += &probes_section(gpu, order);
    out += &charts_section(gpu, order, links);
    out
}

/// The files: when each ran, on what, what it measured, how its twins ran.
fn files_section(gpu: &GpuResults) -> String {
    let mut out = String::new();
    let mut devices: Vec<(String, String)> = vec![];
    for run in &gpu.runs {
        let driver = run.driver.as_ref().map_or("driver not recorded".into(), |d| format!("driver CUDA {d}"));
        if !devices.contains(&(run.device.clone(), driver.clone())) {
            devices.push((run.device.clone(), driver));
        }
    }
    let devices: Vec<String> = devices.iter().map(|(d, v)| format!("{d} ({v})")).collect();
    out += &format!("Device: {}.\n\n", devices.join("; "));
    let mut table = Table::new(&[
        ("file", Align::Left),
        ("run (UTC)", Align::Left),
        ("what it measured", Align::Left),
        ("C++ twins", Align::Left),
    ]);
    for run in &gpu.runs {
        let twins = if run.twins_ran {
            run.twins.split(',').next().unwrap_or("").to_string()
        } else {
            "not run".into()
        };
        table.row(vec![
            format!("`{}`", run.file),
            run.date().trim_end_matches(" UTC").into(),
            contents(run),
            twins,
        ]);
    }
    // Where a file measured too much to say in a line of the table, it is said below it.
    let listed = !table.fits();
    if listed {
        table = table.without_column(CONTENTS_COLUMN);
    }
    out += &table.render();
    out += "\n";
    if listed {
        for run in &gpu.runs {
            out += &format!("- `{}` measured {}.\n", run.file, contents(run));
        }
    }
    for run in gpu.runs.iter().filter(|r| !r.twins_ran) {
        out += &format!("- `{}`: C++ twins {}.\n", run.file, run.twins);
    }
    out += "\n";
    out
}

/// The files table's column of what each file measured: left out, and said in a list below
/// the table, where it would make the table wider than the page.
const CONTENTS_COLUMN: usize = 2;

/// What a run measured, in a few words: `reduction n = 2^30; scan n = 2^16–2^30 (i32
/// inclusive); compaction n = 2^16–2^30; 9 probes; GEMM 1024³, 4096³`.
fn contents(run: &Run) -> String {
    let mut parts = vec![];
    let mut sizes: Vec<&Record> = run.records.iter().filter(|r| r.family == "reduce").collect();
    sizes.sort_by_key(|r| size_rank(r));
    sizes.dedup_by_key(|r| size_rank(r));
    if !sizes.is_empty() {
        parts
            .push(format!("reduction {}", sizes.iter().map(|r| size_text(r)).collect::<Vec<_>>().join(", ")));
    }
    parts.extend(scan::contents(run));
    let mut probes: Vec<&str> =
        run.records.iter().filter(|r| r.family == "probe").map(|r| r.kernel.as_str()).collect();
    probes.sort();
    probes.dedup();
    match probes.len() {
        0 => {}
        1..=3 => {
            let ids: Vec<&str> = probes.iter().map(|p| p.split('_').next().unwrap_or(p)).collect();
            parts.push(format!("probe {}", ids.join(", ")));
        }
        n => parts.push(format!("{n} probes")),
    }
    let mut shapes: Vec<&Record> = run.records.iter().filter(|r| r.family == "gemm").collect();
    shapes.sort_by_key(|r| size_rank(r));
    shapes.dedup_by_key(|r| size_rank(r));
    if !shapes.is_empty() {
        parts.push(format!("GEMM {}", shapes.iter().map(|r| short_shape(r)).collect::<Vec<_>>().join(", ")));
    }
    parts.extend(attention::contents(run));
    let other: usize = run
        .records
        .iter()
        .filter(|r| {
            !matches!(r.family.as_str(), "reduce" | "probe" | "gemm")
                && !scan::is_scan(r)
                && !attention::is_shown(r)
        })
        .count();
    if other > 0 {
        parts.push(format!("{other} other records"));
    }
    parts.join("; ")
}

/// A GEMM shape, a cube as `1024³`.
fn short_shape(record: &Record) -> String {
    match (record.m, record.n, record.k) {
        (Some(m), Some(n), Some(k)) if m == n && n == k => format!("{m}³"),
        _ => size_text(record),
    }
}

/// A step's name on a page: its chapter's link where the page has one, else code.
fn step_name(kernel: &str, links: &Links) -> String {
    (links.step)(kernel).unwrap_or_else(|| format!("`{kernel}`"))
}

/// A baseline's record: cuBLAS (or cuBLASLt for FP8), cuBLASLt FP8's fast accumulation and
/// its block-scaled product.
fn is_vendor(record: &Record) -> bool {
    ["cublas", "cublaslt_fast_accum", "cublaslt_block_scales", "cublaslt_bf16_out"]
        .contains(&record.kernel.as_str())
}

/// The kernel of a compiler's own `mma.sync` product, timed beside the portable steps
/// (`bench/gemm-triton.py --records`): a second opinion, never a step.
const REFERENCE_KERNEL: &str = "triton_mma_sync";

/// A record of that product.
fn is_reference(record: &Record) -> bool {
    record.kernel == REFERENCE_KERNEL
}

/// A GEMM table's name for a record: the vendor's, the compiler's product with its tile, or
/// the step's (linked to its chapter).
fn gemm_row_name(record: &Record, links: &Links) -> String {
    if is_vendor(record) {
        record.vendor.clone().unwrap_or_else(|| "cuBLAS".into())
    } else if is_reference(record) {
        format!("Triton `mma.sync` {}", record.variant.as_deref().unwrap_or(""))
    } else {
        step_name(&record.kernel, links)
    }
}

/// The type column of a GEMM row: FP8 rows also say which accumulation the step and its
/// baseline share (the tensor cores' own, or partial sums promoted into f32).
fn gemm_type(record: &Record) -> String {
    let precision = record.precision.as_deref().unwrap_or("");
    let name = precision_name(precision);
    match record.vendor.as_deref() {
        Some(v) if v.ends_with("fast accum") => format!("{name} fast"),
        Some(v) if v.ends_with("bf16 out") => format!("{name} bf16 out"),
        // Only e4m3 × e4m3 has both accumulations; the block-scaled and e5m2 steps promote.
        Some(v) if v.starts_with("cuBLASLt FP8") && precision == "e4m3" => format!("{name} promoted"),
        _ => name,
    }
}

/// A record's figure, or `WRONG` where its check failed.
fn figure(record: &Record) -> String {
    if record.passed == Some(false) {
        return "WRONG".into();
    }
    record.figure.map(one_decimal).unwrap_or_default()
}

fn percent(value: Option<f64>) -> String {
    value.map(one_decimal).unwrap_or_default()
}

/// A median, marked as the host marks it: `†` cut short by the budget, `‡` one launch.
fn median(record: &Record) -> String {
    let mark = match record.stop.map(|s| format!("{s:?}")).as_deref() {
        Some("Budget") => " †",
        Some("OneLaunch") => " ‡",
        _ => "",
    };
    record.median_us.map(|us| format!("{}{mark}", micros(us))).unwrap_or_default()
}

/// The best step of each problem: the reductions' sizes, the scans' operations × types ×
/// sizes, GEMM's precisions × shapes and attention's panels × lengths, over every file.
fn best_section(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    let mut out = String::from("## Which step is fastest on this GPU?\n\n");
    out += "The step with the highest figure for each problem, over every file above (a step whose \
            check failed is never chosen). The ladders' tables below show every step.\n\n";
    // Reductions: GB/s, % of the theoretical bandwidth.
    let mut reduce = Table::new(&[
        ("sum of i32", Align::Left),
        ("best step", Align::Left),
        ("GB/s", Align::Right),
        ("% of peak", Align::Right),
        ("file", Align::Left),
    ]);
    let mut best: BTreeMap<(u128, u64, u64, u64), (&Run, &Record)> = BTreeMap::new();
    for run in &gpu.runs {
        for record in run.records.iter().filter(|r| r.family == "reduce" && r.passed != Some(false)) {
            let slot = best.entry(size_rank(record)).or_insert((run, record));
            if record.figure > slot.1.figure {
                *slot = (run, record);
            }
        }
    }
    for (run, record) in best.values() {
        reduce.row(vec![
            size_text(record),
            step_name(&record.kernel, links),
            figure(record),
            percent(record.percent_of_limit),
            format!("`{}`", run.file),
        ]);
    }
    // GEMM: TFLOP/s, % of cuBLAS in the same run.
    let mut gemm = Table::new(&[
        ("type", Align::Left),
        ("M×N×K", Align::Left),
        ("best step", Align::Left),
        ("TFLOP/s", Align::Right),
        ("% cuBLAS", Align::Right),
        ("cuBLAS", Align::Right),
        ("file", Align::Left),
    ]);
    // A problem is a type, a shape and the baseline compared with (FP8: one per accumulation).
    type Problem = ((usize, String), (u128, u64, u64, u64), Option<String>);
    let mut best: BTreeMap<Problem, (&Run, &Record)> = BTreeMap::new();
    for run in &gpu.runs {
        for record in run.records.iter().filter(|r| {
            r.family == "gemm"
                && !is_vendor(r)
                && !is_reference(r)
                && r.passed != Some(false)
                && r.figure.is_some()
        }) {
            let key = (
                precision_rank(record.precision.as_deref().unwrap_or("")),
                size_rank(record),
                record.vendor.clone(),
            );
            let slot = best.entry(key).or_insert((run, record));
            if better((run, record), *slot) {
                *slot = (run, record);
            }
        }
    }
    let gemm_heat = HeatMarks::of(best.values().map(|(run, _)| *run));
    for (run, record) in best.values() {
        let vendor = run.records.iter().find(|v| {
            is_vendor(v)
                && v.key().size == record.key().size
                && v.precision == record.precision
                && v.vendor == record.vendor
        });
        gemm.row(vec![
            gemm_type(record),
            size_text(record),
            step_name(&record.kernel, links),
            figure(record),
            percent(record.percent_of_vendor),
            vendor.map(figure).unwrap_or_default(),
            gemm_heat.file(run),
        ]);
    }
    let (portable, portable_heat) = best_portable_gemm(gpu, links);
    let (reference, reference_heat) = portable_reference(gpu);
    let scan = scan::best_table(gpu, links);
    let attention = attention::best_part(gpu, order, links);
    if !reduce.is_empty() {
        out += "The reduction (GB/s, % of the theoretical bandwidth):\n\n";
        out += &reduce.render();
        out += "\n";
    }
    if !scan.is_empty() {
        out += "The scan (GB/s of the bytes read and written; % of the device-to-device copy and of CUB \
                in the same run):\n\n";
        out += &scan.render();
        out += "\n";
    }
    if !gemm.is_empty() {
        out += &format!(
            "GEMM (TFLOP/s; % of cuBLAS in the same run, and cuBLAS's TFLOP/s; FP8: cuBLASLt in the step's \
             accumulation, fast or promoted into f32{}):\n\n",
            gemm_heat.heading()
        );
        out += &gemm.render();
        out += "\n";
    }
    if !portable.is_empty() {
        out += &format!(
            "GEMM on any GPU since Ampere: the best of the `mma.sync` steps, which are all an A100 or an RTX \
             30xx/40xx runs (TFLOP/s; % of the `mma.sync` ceiling p8 measured in the same run, and of cuBLAS, \
             which on a Hopper uses `wgmma`{}):\n\n",
            portable_heat.heading()
        );
        out += &portable.render();
        out += "\n";
    }
    if !reference.is_empty() {
        out += &format!(
            "Beside them, a compiler's: Triton's own `mma.sync` product (its Hopper path turned off), the best \
             within 99 KB of shared memory of its search over block tiles, k tiles, warps and stages \
             (`bench/gemm-triton.py`; 16-bit C, tiles in bands of block rows; Triton's stage count holds one \
             stage in registers, so s3 is two buffers in shared memory; TFLOP/s, % of the ceiling p8 and of \
             cuBLAS measured in the same run{}):\n\n",
            reference_heat.heading()
        );
        out += &reference.render();
        out += "\n";
    }
    out += &attention;
    if reduce.is_empty() && scan.is_empty() && gemm.is_empty() && attention.is_empty() {
        out += "No ladder step was timed in these files.\n\n";
    }
    out
}

/// The best GEMM step of each 16-bit type and shape among those read against the `mma.sync`
/// ceiling: the steps that run on every GPU since Ampere; and how the table marks heat.
fn best_portable_gemm(gpu: &GpuResults, links: &Links) -> (Table, HeatMarks) {
    portable_table(gpu, "best step", |r| !is_reference(r), |r| step_name(&r.kernel, links))
}

/// The compiler's own `mma.sync` product ([`REFERENCE_KERNEL`]) at each type and shape it was
/// timed at, the best of its runs, beside the portable steps' table: its tile, figure and % of
/// its run's ceiling and cuBLAS.
fn portable_reference(gpu: &GpuResults) -> (Table, HeatMarks) {
    portable_table(gpu, "Triton's tile, warps, stages", is_reference, |r| {
        r.variant.clone().unwrap_or_default()
    })
}

/// A table of [`best_mma_sync`]'s records among those `keep` takes, each named by `name` in
/// the column `named`; and how it marks heat.
fn portable_table(
    gpu: &GpuResults,
    named: &str,
    keep: impl Fn(&Record) -> bool,
    name: impl Fn(&Record) -> String,
) -> (Table, HeatMarks) {
    let mut table = Table::new(&[
        ("type", Align::Left),
        ("M×N×K", Align::Left),
        (named, Align::Left),
        ("TFLOP/s", Align::Right),
        ("% of ceiling", Align::Right),
        ("% of cuBLAS", Align::Right),
        ("file", Align::Left),
    ]);
    let best = best_mma_sync(gpu, keep);
    let heat = HeatMarks::of(best.values().map(|(run, _)| *run));
    for (run, record) in best.values() {
        table.row(vec![
            gemm_type(record),
            size_text(record),
            name(record),
            figure(record),
            percent(record.percent_of_limit),
            percent(record.percent_of_vendor),
            heat.file(run),
        ]);
    }
    (table, heat)
}

/// A GEMM problem of the portable tables: its type's rank and its shape's.
type TypeAndShape = ((usize, String), (u128, u64, u64, u64));

/// Per 16-bit type and shape, the best checked GEMM record read against the `mma.sync` ceiling
/// among those `keep` takes, and its run.
fn best_mma_sync(
    gpu: &GpuResults,
    keep: impl Fn(&Record) -> bool,
) -> BTreeMap<TypeAndShape, (&Run, &Record)> {
    let mut best: BTreeMap<TypeAndShape, (&Run, &Record)> = BTreeMap::new();
    for run in &gpu.runs {
        for record in run.records.iter().filter(|r| {
            r.family == "gemm"
                && r.passed != Some(false)
                && r.figure.is_some()
                && r.limit.as_deref().is_some_and(|l| l.starts_with("mma.sync"))
                && keep(r)
        }) {
            let key = (precision_rank(record.precision.as_deref().unwrap_or("")), size_rank(record));
            let slot = best.entry(key).or_insert((run, record));
            if better((run, record), *slot) {
                *slot = (run, record);
            }
        }
    }
    best
}

/// Whether `candidate` should replace `kept` as the best step of a problem: a figure timed under
/// steady load (`host --heat`) wins over one from a cool start whatever the two figures (the
/// cool start's clock is higher than the one the power cap holds, so the cool figure would win
/// by its clock, not its kernel), and one heated back to back over one heated with gaps between
/// its launches (which lend it clock) ([`Run::steadiness`]); between two of a kind, the higher
/// figure.
pub fn better(candidate: (&Run, &Record), kept: (&Run, &Record)) -> bool {
    match candidate.0.steadiness().cmp(&kept.0.steadiness()) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => candidate.1.figure > kept.1.figure,
    }
}

/// How a best-step table tells which of its figures were timed under steady load (`host
/// --heat`), by the runs of the rows it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeatMarks {
    /// None was: nothing to say.
    None,
    /// Every one was: the heading says so once.
    All,
    /// Some were: the heading states the rule and each heated row's file is marked † (a word
    /// would widen the tables past what a page shows).
    Mixed,
}

impl HeatMarks {
    /// The marks for a table whose rows come from `runs`.
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a Run>) -> Self {
        let (mut heated, mut cool) = (false, false);
        for run in runs {
            if run.heated() {
                heated = true;
            } else {
                cool = true;
            }
        }
        match (heated, cool) {
            (true, true) => HeatMarks::Mixed,
            (true, false) => HeatMarks::All,
            (false, _) => HeatMarks::None,
        }
    }

    /// What the table's heading adds.
    pub fn heading(self) -> &'static str {
        match self {
            HeatMarks::None => "",
            HeatMarks::All => {
                "; every figure here timed under steady load (`host --heat`), which is preferred to a cool \
                 start's"
            }
            HeatMarks::Mixed => {
                "; a figure timed under steady load (`host --heat`) is preferred to a cool start's, and its file \
                 marked †"
            }
        }
    }

    /// The file column of a row from `run`.
    pub fn file(self, run: &Run) -> String {
        match self == HeatMarks::Mixed && run.heated() {
            true => format!("`{}` †", run.file),
            false => format!("`{}`", run.file),
        }
    }
}

/// The reduction ladder of each file and size.
fn reduction_section(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    let mut out = String::new();
    for run in &gpu.runs {
        let mut sizes: Vec<&Record> = run.records.iter().filter(|r| r.family == "reduce").collect();
        sizes.sort_by_key(|r| size_rank(r));
        sizes.dedup_by_key(|r| size_rank(r));
        for size in sizes {
            let records = sorted(
                run.records.iter().filter(|r| r.family == "reduce" && r.key().size == size.key().size),
                order,
            );
            out += &format!("## The reduction ladder: sum of {} i32 (`{}`)\n\n", size_text(size), run.file);
            if let Some(bandwidth) = run.bandwidth_gbs {
                out += &format!(
                    "GB/s is the input's bytes over the median time; % of peak is of the theoretical \
                     {bandwidth:.0} GB/s that the device's memory clock and bus width allow. {REGS}\n\n"
                );
            }
            out += &reduction_table(&records, links).render();
            out += &twins_note(run);
            out += "\n";
            let chart = format!("reduce-ladder-n2p{}.svg", size.n.map_or(0, u64::trailing_zeros));
            if gpu.charts.contains(&chart) && chart_run(gpu, &chart).is_some_and(|r| r.file == run.file) {
                out += &format!(
                    "![The reduction ladder at {} on the {}]({})\n\n",
                    size_text(size),
                    gpu.device(),
                    (links.chart)(&gpu.kind, &chart)
                );
            }
        }
    }
    out
}

/// A reduction table: one row per step of one size.
pub fn reduction_table(records: &[&Record], links: &Links) -> Table {
    let mut table = Table::new(&[
        ("step", Align::Left),
        ("block", Align::Right),
        ("launches", Align::Right),
        ("median µs", Align::Right),
        ("GB/s", Align::Right),
        ("% of peak", Align::Right),
        ("C++ µs", Align::Right),
        ("Rust ÷ C++", Align::Right),
        ("regs", Align::Right),
    ]);
    for record in records {
        let launches = record.details.as_ref().and_then(|d| d.get("launches")).map(|v| v.to_string());
        table.row(vec![
            step_name(&record.kernel, links),
            record.variant.as_deref().unwrap_or("").trim_start_matches("block ").to_string(),
            launches.unwrap_or_default(),
            median(record),
            figure(record),
            percent(record.percent_of_limit),
            record.cpp_median_us.map(micros).unwrap_or_default(),
            record.rust_over_cpp.map(ratio).unwrap_or_default(),
            registers(record),
        ]);
    }
    table.without_empty_columns()
}

fn registers(record: &Record) -> String {
    match (record.registers, record.cpp_registers) {
        (Some(r), Some(c)) => format!("{r}/{c}"),
        (Some(r), None) => r.to_string(),
        _ => String::new(),
    }
}

/// What the tables' last columns mean.
const REGS: &str = "C++ µs and Rust ÷ C++ are the step's CUDA C++ twin, run beside it on the same \
                    buffers (above 1: the Rust is slower); regs are registers per thread, Rust/C++.";

/// A note under a table of a run whose twins did not run.
/// A median over its run's fastest repetition past this ratio was taken while the clock fell:
/// a launch of milliseconds that drives the GPU to its power cap lowers the clock within its
/// first repetitions, runs on, and its median lands at the lower clock (at one clock the two
/// lie within about 1.5 %). Only of launches of [`HEATING_US`] or more: a short one's
/// repetitions scatter that much for other reasons, and it does not heat the GPU alone.
const CLOCK_FELL: f64 = 1.03;
const HEATING_US: f64 = 500.0;

/// Whether a median and a fastest repetition, in µs, show the clock falling during the
/// timing ([`CLOCK_FELL`]).
pub fn timed_while_the_clock_fell(median_us: Option<f64>, min_us: Option<f64>) -> bool {
    match (median_us, min_us) {
        (Some(median), Some(min)) if min > 0.0 => median >= HEATING_US && median / min > CLOCK_FELL,
        _ => false,
    }
}

/// The note under a table that names the figures `fell` ([`timed_while_the_clock_fell`]);
/// empty for none.
pub fn clock_fell_note(fell: &[String]) -> String {
    if fell.is_empty() {
        return String::new();
    }
    format!(
        "- Timed while the clock fell (a launch of {:.1} ms or more whose median lies over {:.0} % above its \
         fastest repetition: the power cap lowered the clock during the timing, so a % that involves it compares \
         two clocks; `docs/records.md` says more): {}.\n",
        HEATING_US / 1000.0,
        100.0 * (CLOCK_FELL - 1.0),
        fell.join(", ")
    )
}

fn twins_note(run: &Run) -> String {
    if run.twins_ran { String::new() } else { format!("\nC++ twins: {}.\n", run.twins) }
}

/// `records` in ladder order (the vendor first), then by size and precision.
fn sorted<'a>(records: impl Iterator<Item = &'a Record>, order: &StepOrder) -> Vec<&'a Record> {
    let mut list: Vec<&Record> = records.collect();
    list.sort_by_key(|r| {
        (
            !is_vendor(r),
            order.rank(&r.kernel),
            size_rank(r),
            precision_rank(r.precision.as_deref().unwrap_or("")),
        )
    });
    list
}

/// The tables `build` makes of `count` columns cut into consecutive ranges: the fewest
/// tables that each fit the page, the columns shared out evenly; one column a table where
/// none fits.
fn fitting(count: usize, build: impl Fn(Range<usize>) -> Table) -> Vec<Table> {
    let mut tables = vec![];
    for parts in 1..=count {
        tables = even_ranges(count, parts).into_iter().map(&build).collect();
        if tables.iter().all(Table::fits) {
            break;
        }
    }
    tables
}

/// `0..count` cut into `parts` consecutive ranges whose lengths differ by one at most, the
/// longer first.
fn even_ranges(count: usize, parts: usize) -> Vec<Range<usize>> {
    let (base, longer) = (count / parts, count % parts);
    let mut start = 0;
    (0..parts)
        .map(|part| {
            let end = start + base + usize::from(part < longer);
            let range = start..end;
            start = end;
            range
        })
        .collect()
}

/// Values in a line of text: each of them where there are `listed` at most (`2^20, 2^30`),
/// else the first and the last as a range (`2^16–2^30`).
fn list_or_range(names: &[String], listed: usize) -> String {
    match names {
        [first, .., last] if names.len() > listed => format!("{first}–{last}"),
        _ => names.join(", "),
    }
}

/// `text` with its first letter a capital.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// GEMM: a table per precision, shape and file.
fn gemm_section(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    // (precision, size, file): one table each.
    type Problem = ((usize, String), (u128, u64, u64, u64), usize);
    let mut problems: Vec<Problem> = vec![];
    for (index, run) in gpu.runs.iter().enumerate() {
        for record in run.records.iter().filter(|r| r.family == "gemm") {
            let key = (precision_rank(record.precision.as_deref().unwrap_or("")), size_rank(record), index);
            if !problems.contains(&key) {
                problems.push(key);
            }
        }
    }
    problems.sort();
    if problems.is_empty() {
        return String::new();
    }
    let mut out = String::from("## The GEMM ladder\n\n");
    out += "TFLOP/s is 2·M·N·K over the median time; % of cuBLAS is of cuBLAS in the same run \
            (SGEMM for FP32, GemmEx for FP16 and BF16, cuBLASLt for FP8 in the step's accumulation: fast for \
            w14, promoted for the steps after it); % of ceiling is of the tensor-core ceiling p8 \
            measured in the same run, for the instruction the step issues. ";
    out += REGS;
    out += "\n\n";
    let mut current_precision = None;
    for (precision, size, index) in problems {
        let run = &gpu.runs[index];
        let records = sorted(
            run.records.iter().filter(|r| {
                r.family == "gemm"
                    && size_rank(r) == size
                    && precision_rank(r.precision.as_deref().unwrap_or("")) == precision
            }),
            order,
        );
        let Some(first) = records.first() else { continue };
        if current_precision.as_ref() != Some(&precision) {
            out += &format!("### {}\n\n", precision_name(&precision.1));
            current_precision = Some(precision.clone());
        }
        out += &format!("#### {} {} (`{}`)\n\n", precision_name(&precision.1), size_text(first), run.file);
        out += &gemm_table(&records, links).render();
        let fell: Vec<String> = records
            .iter()
            .filter(|r| timed_while_the_clock_fell(r.median_us, r.min_us))
            .map(|r| gemm_row_name(r, links))
            .collect();
        if !fell.is_empty() {
            out += "\n";
            out += &clock_fell_note(&fell);
        }
        out += &twins_note(run);
        out += "\n";
        let chart = format!(
            "gemm-{}-{}x{}x{}.svg",
            precision.1,
            first.m.unwrap_or(0),
            first.n.unwrap_or(0),
            first.k.unwrap_or(0)
        );
        if gpu.charts.contains(&chart) && chart_run(gpu, &chart).is_some_and(|r| r.file == run.file) {
            out += &format!(
                "![{} GEMM at {} on the {}]({})\n\n",
                precision_name(&precision.1),
                size_text(first),
                gpu.device(),
                (links.chart)(&gpu.kind, &chart)
            );
        }
    }
    out
}

/// A GEMM table: one row per kernel of one precision and shape, the vendor's first.
pub fn gemm_table(records: &[&Record], links: &Links) -> Table {
    let mut table = Table::new(&[
        ("step", Align::Left),
        ("median µs", Align::Right),
        ("TFLOP/s", Align::Right),
        ("% of cuBLAS", Align::Right),
        ("% of ceiling", Align::Right),
        ("C++ µs", Align::Right),
        ("Rust ÷ C++", Align::Right),
        ("regs", Align::Right),
        ("relative error", Align::Right),
    ]);
    for record in records {
        table.row(vec![
            gemm_row_name(record, links),
            median(record),
            figure(record),
            if is_vendor(record) { String::new() } else { percent(record.percent_of_vendor) },
            percent(record.percent_of_limit),
            record.cpp_median_us.map(micros).unwrap_or_default(),
            record.rust_over_cpp.map(ratio).unwrap_or_default(),
            registers(record),
            // Checked, not timed (`--verify-only`: the FP8 error as K grows): the error is the
            // figure.
            if record.median_us.is_none() {
                record.error.map(|e| format!("{e:.2e}")).unwrap_or_default()
            } else {
                String::new()
            },
        ]);
    }
    table.without_empty_columns()
}

/// The widest a probe row's label is shown.
const MAX_ROW_LABEL: usize = 40;

/// A probe row's label: its variant (`stride=2`), or its values alone where the names do
/// not fit (`8, 1024, 2`), cut to fit; with its size where the variant alone repeats.
fn row_label(record: &Record, repeats: bool) -> String {
    let variant = record.variant.as_deref().unwrap_or("");
    let size = match (repeats, record.n) {
        (true, Some(n)) => format!(" (n = {})", host::report::records::human_size(n)),
        _ => String::new(),
    };
    let mut label = format!("{variant}{size}");
    if label.chars().count() > MAX_ROW_LABEL {
        let values: Vec<&str> =
            variant.split(", ").map(|part| part.split_once('=').map_or(part, |(_, v)| v)).collect();
        label = format!("{}{size}", values.join(", "));
    }
    if label.chars().count() > MAX_ROW_LABEL {
        label = label.chars().take(MAX_ROW_LABEL - 1).collect::<String>() + "…";
    }
    label
}

/// A probe row's headline figure: its figure and unit, or, for a probe whose rows carry
/// none (counts of cycles, ratios), a number of the row that is not one of its labels: a
/// ratio (`time / uniform`) where it has one, else the first by name.
fn probe_figure(record: &Record) -> String {
    if record.passed == Some(false) {
        return "WRONG".into();
    }
    if let (Some(value), Some(unit)) = (record.figure, &record.unit) {
        return format!("{} {unit}", one_decimal(value));
    }
    let labels: Vec<&str> = record
        .variant
        .as_deref()
        .unwrap_or("")
        .split(", ")
        .filter_map(|part| part.split_once('=').map(|(name, _)| name))
        .collect();
    let Some(details) = &record.details else { return String::new() };
    let mut keys: Vec<&String> =
        details.keys().filter(|k| !labels.contains(&k.as_str()) && k.as_str() != "median µs").collect();
    keys.sort_by_key(|k| (!k.contains(" / "), k.to_string()));
    keys.iter()
        .find_map(|k| details[k.as_str()].as_f64().map(|v| format!("{k}: {}", significant(v))))
        .unwrap_or_default()
}

/// A number with about four significant digits.
fn significant(v: f64) -> String {
    if v.abs() >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// The headline rows of one probe's records: the highest and the lowest figure (the ends
/// of its sweep), or, where its rows carry no figure, the first and the last.
pub fn headline_rows<'a>(records: &[&'a Record]) -> Vec<&'a Record> {
    let with_figure: Vec<&Record> = records.iter().copied().filter(|r| r.figure.is_some()).collect();
    let (first, last) = if with_figure.is_empty() {
        (records.first().copied(), records.last().copied())
    } else {
        let by_figure =
            |a: &&&Record, b: &&&Record| a.figure.partial_cmp(&b.figure).unwrap_or(std::cmp::Ordering::Equal);
        (with_figure.iter().max_by(by_figure).copied(), with_figure.iter().min_by(by_figure).copied())
    };
    let mut rows: Vec<&Record> = first.into_iter().collect();
    if let Some(last) = last
        && !rows.iter().any(|r| std::ptr::eq(*r, last))
    {
        rows.push(last);
    }
    rows
}

/// The probes' table: each probe's headline rows.
pub fn probe_table(records: &[&Record], order: &StepOrder) -> Table {
    let mut table = Table::new(&[
        ("probe", Align::Left),
        ("row", Align::Left),
        ("figure", Align::Right),
        ("% of limit", Align::Right),
        ("median µs", Align::Right),
    ]);
    let mut kernels: Vec<&str> = records.iter().map(|r| r.kernel.as_str()).collect();
    kernels.sort_by_key(|k| order.rank(k));
    kernels.dedup();
    for kernel in kernels {
        let rows: Vec<&Record> = records.iter().copied().filter(|r| r.kernel == kernel).collect();
        for record in headline_rows(&rows) {
            let repeats = rows.iter().filter(|r| r.variant == record.variant).count() > 1;
            table.row(vec![
                format!("`{kernel}`"),
                row_label(record, repeats),
                probe_figure(record),
                percent(record.percent_of_limit),
                record.median_us.map(micros).unwrap_or_default(),
            ]);
        }
    }
    table.without_empty_columns()
}

/// The probes of each file: their headline rows, and the tensor-core ceilings.
fn probes_section(gpu: &GpuResults, order: &StepOrder) -> String {
    let mut out = String::new();
    for run in &gpu.runs {
        let records: Vec<&Record> = run.records.iter().filter(|r| r.family == "probe").collect();
        if records.is_empty() {
            continue;
        }
        out += &format!("## The probes (`{}`)\n\n", run.file);
        out += "Each probe's headline rows: the two ends of its sweep (its highest and lowest figure), \
                or its first and last row where its rows carry no figure. The probe's whole table is \
                in the file's records.\n\n";
        out += &probe_table(&records, order).render();
        out += "\n";
    }
    out
}

/// Every chart the host drew for the GPU kind, linked, under the file of the run that drew
/// it ([`chart_run`]); the attention charts, drawn here, are in the attention section.
fn charts_section(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    let charts: Vec<&String> = gpu.charts.iter().filter(|c| !attention::is_chart(c)).collect();
    let drawn_here = attention::has_charts(gpu, order);
    let attention_charts = "The attention charts are drawn from the records by `cargo xtask results`; they \
                            are in the attention section.\n";
    if charts.is_empty() {
        if drawn_here {
            return format!("## Charts\n\nThe host drew no chart kept here (`--plots`). {attention_charts}");
        }
        return format!(
            "## Charts\n\nNo charts were kept for the {} (`{}/charts/`).\n",
            gpu.device(),
            gpu.dir()
        );
    }
    let mut out = String::from("## Charts\n\n");
    out += "Drawn by the host (`--plots`), each under the file of the run that drew it (the run's date is on \
            the chart):\n\n";
    let owners: Vec<Option<&Run>> = charts.iter().map(|chart| chart_run(gpu, chart)).collect();
    // A list per run that drew some, in the files' order; then those of no file here.
    let mut lists = vec![];
    for owner in gpu.runs.iter().map(Some).chain([None]) {
        let file = owner.map(|r| r.file.as_str());
        let items: Vec<String> = charts
            .iter()
            .zip(&owners)
            .filter(|(_, o)| o.map(|r| r.file.as_str()) == file)
            .map(|(chart, _)| format!("- [{}]({})\n", chart_title(chart), (links.chart)(&gpu.kind, chart)))
            .collect();
        if items.is_empty() {
            continue;
        }
        let heading = match owner {
            Some(run) => format!("`{}` ({}):", run.file, run.date()),
            None => "Drawn by runs whose files are not kept here:".to_string(),
        };
        lists.push(format!("{heading}\n\n{}", items.concat()));
    }
    out += &lists.join("\n");
    if drawn_here {
        out += "\n";
        out += attention_charts;
    }
    out
}

/// The run of `gpu` that drew chart `file`: of the runs of the date the chart gives
/// ([`GpuResults::drawn`]; every run where it gives none), the first that holds records of
/// what it shows ([`chart_shows`]), else the first of that date. `None` where no file kept
/// here is of its run.
pub fn chart_run<'a>(gpu: &'a GpuResults, file: &str) -> Option<&'a Run> {
    let drawn = gpu.drawn.get(file);
    let mut of_its_date = gpu.runs.iter().filter(|r| drawn.is_none_or(|date| *date == r.date()));
    let holds = |run: &&Run| run.records.iter().any(|r| chart_shows(file, r));
    of_its_date.clone().find(holds).or_else(|| drawn.and(of_its_date.next()))
}

/// Whether chart `file` (named as the host names them: [`chart_title`]) shows `record`: a
/// GEMM chart its precision and shape, the reduction's its size, a scan chart its setting
/// and size, an attention chart its panel ([`attention::chart_shows`]), a probe's (`p1-…`)
/// its records.
fn chart_shows(file: &str, record: &Record) -> bool {
    let stem = file.trim_end_matches(".svg");
    if let Some((setting, n)) = scan::Setting::from_chart(file) {
        return scan::is_scan(record) && scan::Setting::of(record) == setting && record.n == Some(n);
    }
    if attention::is_chart(file) {
        return attention::chart_shows(file, record);
    }
    match stem.split('-').collect::<Vec<_>>().as_slice() {
        ["gemm", precision, shape] => {
            let (m, n, k) = (record.m.unwrap_or(0), record.n.unwrap_or(0), record.k.unwrap_or(0));
            record.family == "gemm"
                && record.precision.as_deref() == Some(*precision)
                && format!("{m}x{n}x{k}") == *shape
        }
        ["reduce", "ladder", size] => {
            record.family == "reduce"
                && record.n.is_some_and(|n| format!("n2p{}", n.trailing_zeros()) == *size)
        }
        [id, _, ..] => record.kernel.strip_prefix(id).is_some_and(|rest| rest.starts_with('_')),
        _ => false,
    }
}

/// What a chart shows, from its file name: `gemm-f16-4096x4096x4096.svg` → `FP16 GEMM at
/// 4096×4096×4096`, `reduce-ladder-n2p30.svg` → `the reduction ladder at n = 2^30`,
/// `scan-inclusive-i32-n2p30.svg` → `the inclusive scan of i32 at n = 2^30`, an attention
/// chart as [`attention::chart_title`] says.
pub fn chart_title(file: &str) -> String {
    if let Some(title) = attention::chart_title(file) {
        return title;
    }
    let stem = file.trim_end_matches(".svg");
    let parts: Vec<&str> = stem.split('-').collect();
    match parts.as_slice() {
        ["gemm", precision, shape] => {
            format!("{} GEMM at {}", precision_name(precision), shape.replace('x', "×"))
        }
        ["reduce", "ladder", size] => match size.strip_prefix("n2p") {
            Some(power) => format!("the reduction ladder at n = 2^{power}"),
            None => format!("the reduction ladder at {size}"),
        },
        [family, operation, precision, size] if *family == host::families::scan::NAME => {
            scan::chart_caption(operation, precision, size)
        }
        [id, rest @ ..] if !rest.is_empty() => format!("{id}: {}", rest.join(" ")),
        _ => stem.to_string(),
    }
}

/// The figures of one chapter's kernels on one GPU kind: a table per file that has
/// records of them, each row one size (and precision) of the step; for attention steps, a
/// table per panel across files ([`attention::step_tables`]); `None` where no file of the
/// GPU has one.
pub fn step_tables(gpu: &GpuResults, kernels: &[&str], order: &StepOrder, links: &Links) -> Option<String> {
    let mut out = String::new();
    let mut files: Vec<String> = vec![];
    if let Some((runs, text)) = attention::step_tables(gpu, kernels, order, links) {
        files.extend(runs.iter().map(|run| format!("`{}` of {}", run.file, run.date())));
        out += &text;
    }
    for run in &gpu.runs {
        let mut mine: Vec<&Record> = run
            .records
            .iter()
            .filter(|r| kernels.contains(&r.kernel.as_str()) && !attention::is_attention(r))
            .collect();
        if mine.is_empty() {
            continue;
        }
        mine.sort_by_key(|r| {
            (
                scan::is_scan(r).then(|| scan::Setting::of(r)),
                size_rank(r),
                precision_rank(r.precision.as_deref().unwrap_or("")),
                order.rank(&r.kernel),
            )
        });
        files.push(format!("`{}` of {}", run.file, run.date()));
        out += &format!("From `{}`:\n\n", run.file);
        let labels: Vec<String> = mine.iter().map(|r| problem(r)).collect();
        let table = match mine[0].family.as_str() {
            "reduce" => {
                reduction_table(&mine, links).without_column(0).with_leading_column("n", Align::Left, labels)
            }
            "gemm" => {
                gemm_table(&mine, links).without_column(0).with_leading_column("problem", Align::Left, labels)
            }
            family if family == host::families::scan::NAME => scan::table(&mine, links)
                .without_column(0)
                .with_leading_column("problem", Align::Left, labels),
            _ => probe_table(&mine, order).without_column(0),
        };
        out += &table.without_empty_columns().render();
        out += &twins_note(run);
        out += "\n";
    }
    if files.is_empty() {
        return None;
    }
    let driver = gpu
        .runs
        .first()
        .and_then(|r| r.driver.clone())
        .map(|d| format!(", driver CUDA {d}"))
        .unwrap_or_default();
    Some(format!("On the **{}**{driver}: {} in `{}/`.\n\n{out}", gpu.device(), files.join(", "), gpu.dir()))
}

/// A record's problem in a chapter's table: `2^30`, `FP16 4096×4096×4096`, `i32 inclusive
/// 2^30`.
fn problem(record: &Record) -> String {
    match record.family.as_str() {
        "gemm" => {
            format!("{} {}", precision_name(record.precision.as_deref().unwrap_or("")), size_text(record))
        }
        family if family == host::families::scan::NAME => scan::problem(record),
        _ => size_text(record).trim_start_matches("n = ").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_launch_whose_median_left_its_fastest_repetition_behind_is_named() {
        // t04 at 8192³ in f16 on an H200: 1.107 × its fastest repetition.
        assert!(timed_while_the_clock_fell(Some(1720.0), Some(1554.0)));
        // One clock: within 1.5 %; a short launch: scatter, not the clock; no figure: nothing.
        assert!(!timed_while_the_clock_fell(Some(1420.0), Some(1410.0)));
        assert!(!timed_while_the_clock_fell(Some(120.0), Some(100.0)));
        assert!(!timed_while_the_clock_fell(None, Some(100.0)));
        assert!(!timed_while_the_clock_fell(Some(1720.0), None));
        assert_eq!(clock_fell_note(&[]), "");
        let note = clock_fell_note(&["`t04_warp_tile_f16`".into(), "cuBLAS".into()]);
        assert!(
            note.starts_with("- Timed while the clock fell")
                && note.ends_with(": `t04_warp_tile_f16`, cuBLAS.\n")
        );
    }

    /// A GEMM record of `kernel` at 4096³ in f16, at `tflops`, read against `limit`.
    fn gemm(kernel: &str, tflops: f64, limit: &str, passed: bool) -> Record {
        let mut record = Record::new("gemm", kernel);
        (record.precision, record.m, record.n, record.k) =
            (Some("f16".into()), Some(4096), Some(4096), Some(4096));
        (record.figure, record.unit, record.passed) = (Some(tflops), Some("TFLOP/s".into()), Some(passed));
        (record.limit, record.percent_of_limit) = (Some(limit.into()), Some(tflops / 6.5));
        record
    }

    fn run(file: &str, records: Vec<Record>) -> Run {
        Run {
            file: file.into(),
            path: format!("docs/results/h100/{file}"),
            device: "NVIDIA H100 80GB HBM3".into(),
            driver: None,
            date_utc: "2026-11-28T01:01:46Z".into(),
            bandwidth_gbs: None,
            twins: "not run".into(),
            twins_ran: false,
            heat_s: 0.0,
            back_to_back: 1,
            records,
        }
    }

    #[test]
    fn a_heated_figure_is_the_best_over_a_cool_one() {
        const MMA: &str = "mma.sync f16 ceiling (p8)";
        let mut heated = run("heated.json", vec![gemm("t03_pipeline_f16", 330.0, MMA, true)]);
        heated.heat_s = 0.5;
        let cool = run("cool.json", vec![gemm("t05_fragment_pipeline_f16", 373.0, MMA, true)]);
        let (h, c) = (&heated.records[0], &cool.records[0]);
        assert!(better((&heated, h), (&cool, c)) && !better((&cool, c), (&heated, h)));
        let level = run("level.json", vec![gemm("t05_fragment_pipeline_f16", 373.0, MMA, true)]);
        assert!(!better((&level, &level.records[0]), (&cool, c)), "of equal figures, the first stays");
        // Heated back to back beats heated with gaps between launches, whatever the figures.
        let mut steady = run("steady.json", vec![gemm("t05_fragment_pipeline_f16", 300.0, MMA, true)]);
        (steady.heat_s, steady.back_to_back) = (0.5, 8);
        let s = &steady.records[0];
        assert!(better((&steady, s), (&heated, h)) && !better((&heated, h), (&steady, s)));
        let mut cool_steady =
            run("cool-steady.json", vec![gemm("t05_fragment_pipeline_f16", 999.0, MMA, true)]);
        cool_steady.back_to_back = 8;
        assert!(
            !better((&cool_steady, &cool_steady.records[0]), (&heated, h)),
            "back to back but cool: not steady"
        );
        let gpu = GpuResults {
            kind: "h200".into(),
            runs: vec![cool, heated],
            charts: Vec::new(),
            drawn: BTreeMap::new(),
        };
        let (table, heat) = best_portable_gemm(&gpu, &committed_links());
        let text = table.render();
        let row = text.lines().nth(2).unwrap();
        assert!(row.contains("`t03_pipeline_f16`") && row.ends_with("| `heated.json` |"), "{text}");
        assert_eq!(heat, HeatMarks::All, "the one row shown is heated: said once, in the heading");
        assert!(heat.heading().contains("every figure here"));
        // Beside a shape only a cool run timed, the heated row's file is marked.
        let mut other = gemm("t05_fragment_pipeline_f16", 200.0, MMA, true);
        other.m = Some(1024);
        other.n = Some(1024);
        other.k = Some(1024);
        let gpu = GpuResults { runs: [gpu.runs, vec![run("small.json", vec![other])]].concat(), ..gpu };
        let (table, heat) = best_portable_gemm(&gpu, &committed_links());
        let text = table.render();
        assert_eq!(heat, HeatMarks::Mixed, "{text}");
        assert!(text.contains("| `heated.json` † |") && text.contains("| `small.json`  "), "{text}");
        assert!(heat.heading().contains("marked †"));
        assert_eq!(HeatMarks::of([&run("cool.json", vec![])]), HeatMarks::None);
        assert_eq!(HeatMarks::None.heading(), "");
    }

    #[test]
    fn the_portable_table_holds_the_best_mma_sync_step_only() {
        const MMA: &str = "mma.sync f16 ceiling (p8)";
        let runs = vec![
            run(
                "a.json",
                vec![
                    gemm("t04_warp_tile_f16", 340.0, MMA, true),
                    gemm("w08_latency_trims_f16", 760.0, "wgmma f16 ceiling (p8)", true),
                ],
            ),
            run(
                "b.json",
                vec![
                    gemm("t05_fragment_pipeline_f16", 380.0, MMA, false),
                    gemm("t05_fragment_pipeline_f16", 373.0, MMA, true),
                ],
            ),
        ];
        let gpu = GpuResults { kind: "h100".into(), runs, charts: Vec::new(), drawn: BTreeMap::new() };
        let (table, _) = best_portable_gemm(&gpu, &committed_links());
        assert!(table.fits(), "{} columns", table.width());
        let text = table.render();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 1, "one type and shape: {text}");
        // The Hopper step is faster but not portable; the fastest portable record failed its check.
        assert!(rows[0].contains("`t05_fragment_pipeline_f16`") && rows[0].contains("373.0"), "{text}");
        assert!(rows[0].ends_with("| `b.json` |"), "{text}");
        assert!(!text.contains("w08"), "{text}");
    }

    #[test]
    fn the_compilers_product_stands_beside_the_portable_steps_never_among_them() {
        const MMA: &str = "mma.sync f16 ceiling (p8)";
        let mut triton = gemm(REFERENCE_KERNEL, 400.0, MMA, true);
        triton.variant = Some("128×256×64 w8 s3, 96 KB".into());
        let mut failed = gemm(REFERENCE_KERNEL, 500.0, MMA, false);
        failed.variant = Some("256×128×64 w8 s3, 96 KB".into());
        let runs = vec![
            run("steps.json", vec![gemm("t05_fragment_pipeline_f16", 360.0, MMA, true), failed]),
            run("triton.json", vec![gemm("t05_fragment_pipeline_f16", 350.0, MMA, true), triton]),
        ];
        let gpu = GpuResults { kind: "h200".into(), runs, charts: Vec::new(), drawn: BTreeMap::new() };
        // The faster product is the compiler's: the best step is still t05's fastest record.
        let text = best_portable_gemm(&gpu, &committed_links()).0.render();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 1, "{text}");
        assert!(rows[0].contains("`t05_fragment_pipeline_f16`") && rows[0].contains("360.0"), "{text}");
        assert!(rows[0].ends_with("| `steps.json` |") && !text.contains("128×256"), "{text}");
        // Its own table: the checked product, with its tile and its run.
        let (table, _) = portable_reference(&gpu);
        assert!(table.fits(), "{} columns", table.width());
        let text = table.render();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 1, "{text}");
        assert!(rows[0].contains("128×256×64 w8 s3, 96 KB") && rows[0].contains("400.0"), "{text}");
        assert!(rows[0].contains(" 61.5 |") && rows[0].ends_with("| `triton.json` |"), "{text}");
        // In the run's own table it is a row of its own, named with its tile.
        let records: Vec<&Record> = gpu.runs[1].records.iter().collect();
        let own = gemm_table(&records, &committed_links()).render();
        assert!(own.contains("Triton `mma.sync` 128×256×64 w8 s3, 96 KB"), "{own}");
        // Only a product that failed its check: no table.
        let none = GpuResults { runs: vec![gpu.runs[0].clone()], ..gpu };
        assert!(portable_reference(&none).0.is_empty());
    }
}
