//! The scan family on the results pages: prefix sums (inclusive or exclusive) of `i32` and
//! `f32`, and stream compaction, as `host::families::scan::report` records them. A
//! record's `variant` starts with its operation (`inclusive, block 256`, `compaction`), its
//! `precision` is the element type and `n` the size; a step's record has the step's id as
//! its `kernel`, and each operation, type and size has three records that are no step:
//! CUB's call ([`CUB`]), a device-to-device copy of the same input ([`COPY`]) and an empty
//! kernel's launch ([`EMPTY_LAUNCH`]).
//!
//! Made here: a run's scans in the files table ([`contents`]), the best step of each
//! operation, type and size ([`best_table`]), and the scan section ([`section`]): per file,
//! operation and type, every step's GB/s at every size ([`size_tables`]), every figure at
//! the largest size ([`table`]) and the host's charts.

use super::{
    Links, REGS, StepOrder, capitalised, chart_run, chart_title, figure, fitting, list_or_range, median,
    percent, registers, step_name, twins_note,
};
use crate::markdown::{Align, Table, micros, one_decimal, ratio};
use crate::records::{GpuResults, Run, precision_rank};
use host::families::scan::NAME;
use host::report::plot::ladder::size_tag;
use host::report::records::{Record, human_size};
use std::collections::BTreeMap;
use std::ops::Range;

/// The `kernel` of the record of CUB's `DeviceScan::InclusiveSum`, `ExclusiveSum` or
/// `DeviceSelect::If` in the same run (its `vendor` names which).
pub const CUB: &str = "cub";

/// The `kernel` of the record of `cuMemcpyDtoDAsync` of the input: the bandwidth a scan,
/// which reads and writes every element once, can reach.
pub const COPY: &str = "copy";

/// The `kernel` of the record of an empty kernel's launch: the floor of any launch. It has
/// a time and no GB/s.
pub const EMPTY_LAUNCH: &str = "empty_launch";

/// The records of each operation, type and size that are no step, with their names on the
/// page, in the order the tables show them: first, as in the host's own table.
const BASELINES: &[(&str, &str)] = &[(CUB, "CUB"), (COPY, "copy"), (EMPTY_LAUNCH, "empty launch")];

/// The operations a scan record's variant starts with, in the order the pages show them.
const OPERATIONS: &[&str] = &["inclusive", "exclusive", COMPACTION];

/// Stream compaction's operation: it keeps the elements above zero, of `i32` alone.
const COMPACTION: &str = "compaction";

/// The type compaction runs on, left unsaid in the files table.
const COMPACTION_TYPE: &str = "i32";

/// How many sizes the files table lists one by one; more read as a range (`2^16–2^30`).
const LISTED_SIZES: usize = 2;

/// What one scan table is of: an operation on an element type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Setting {
    /// Where it sorts: scans before compaction, then by type, then inclusive before
    /// exclusive (the derived order compares this first).
    rank: (bool, (usize, String), usize),
    /// `inclusive`, `exclusive` or `compaction`.
    pub operation: String,
    /// `i32` or `f32`.
    pub precision: String,
}

impl Setting {
    /// `operation` (`inclusive`, `exclusive`, `compaction`) on `precision` (`i32`, `f32`).
    pub fn new(operation: &str, precision: &str) -> Self {
        let position = OPERATIONS.iter().position(|&o| o == operation).unwrap_or(OPERATIONS.len());
        Self {
            rank: (operation == COMPACTION, precision_rank(precision), position),
            operation: operation.to_string(),
            precision: precision.to_string(),
        }
    }

    /// The setting of a scan record, from its variant and precision.
    pub fn of(record: &Record) -> Self {
        let variant = record.variant.as_deref().unwrap_or("");
        let operation = variant.split(", ").next().unwrap_or("");
        Self::new(operation, record.precision.as_deref().unwrap_or(""))
    }

    /// The setting and size of the host's scan chart `file` ([`Setting::chart`] read back):
    /// `scan-compaction-i32-n2p24.svg` → i32 compaction, 2^24; `None` for another chart.
    pub fn from_chart(file: &str) -> Option<(Self, u64)> {
        let stem = file.strip_suffix(".svg").unwrap_or(file);
        match stem.split('-').collect::<Vec<_>>().as_slice() {
            [family, operation, precision, tag] if *family == NAME => {
                Some((Self::new(operation, precision), tag_size(tag)?))
            }
            _ => None,
        }
    }

    pub fn is_compaction(&self) -> bool {
        self.operation == COMPACTION
    }

    /// Its name in a table: `i32 inclusive`, `i32 compaction`.
    pub fn label(&self) -> String {
        format!("{} {}", self.precision, self.operation)
    }

    /// Its heading: `Inclusive scan of i32`, `Compaction (keep x > 0) of i32`.
    pub fn title(&self) -> String {
        if self.is_compaction() {
            format!("Compaction (keep x > 0) of {}", self.precision)
        } else {
            format!("{} scan of {}", capitalised(&self.operation), self.precision)
        }
    }

    /// The file of the host's chart of it at size `n` (`--plots`, `scan::chart::ladder`):
    /// `scan-inclusive-i32-n2p30.svg`.
    pub fn chart(&self, n: u64) -> String {
        format!("{NAME}-{}-{}-{}.svg", self.operation, self.precision, size_tag(n as usize))
    }
}

/// The size a chart's size tag names ([`size_tag`] read back): `n2p30` → 2^30, `n1000` →
/// 1000.
fn tag_size(tag: &str) -> Option<u64> {
    match (tag.strip_prefix("n2p"), tag.strip_prefix('n')) {
        (Some(power), _) => power.parse().ok().and_then(|p: u32| 1u64.checked_shl(p)),
        (None, Some(n)) => n.parse().ok(),
        (None, None) => None,
    }
}

/// The settings step `kernels` ran in `records`, each once, in page order; where they ran
/// none, every setting the host's registry gives them: compaction for a step of
/// `Scheme::Compaction`, inclusive and exclusive scans for the others, on each type it has
/// entry points for. Empty for the kernels of other families.
pub fn settings_of<'a>(records: impl Iterator<Item = &'a Record>, kernels: &[&str]) -> Vec<Setting> {
    use host::families::scan::registry::{self, ElementType, Scheme};
    let mut settings: Vec<Setting> =
        records.filter(|r| is_step(r) && kernels.contains(&r.kernel.as_str())).map(Setting::of).collect();
    if settings.is_empty() {
        for step in kernels.iter().filter_map(|id| registry::step(id)) {
            for element in
                [ElementType::I32, ElementType::F32].into_iter().filter(|&e| step.entries(e).is_some())
            {
                let operations: &[&str] =
                    if step.scheme == Scheme::Compaction { &[COMPACTION] } else { &OPERATIONS[..2] };
                settings.extend(operations.iter().map(|operation| Setting::new(operation, element.name())));
            }
        }
    }
    settings.sort();
    settings.dedup();
    settings
}

/// Whether `record` is of the scan family.
pub fn is_scan(record: &Record) -> bool {
    record.family == NAME
}

/// Whether `record` is a scan step's: not CUB's, the copy's or the empty launch's.
pub fn is_step(record: &Record) -> bool {
    is_scan(record) && !BASELINES.iter().any(|&(kernel, _)| kernel == record.kernel)
}

/// The block size in a record's variant (`inclusive, block 256` → 256); the baselines have
/// none.
fn block(record: &Record) -> Option<u32> {
    let variant = record.variant.as_deref()?;
    variant.split(", ").find_map(|part| part.strip_prefix("block ")?.parse().ok())
}

/// The record's GB/s over the copy's in the same run, in percent.
fn percent_of_copy(record: &Record) -> Option<f64> {
    record.details.as_ref()?.get("percent_of_copy")?.as_f64()
}

fn size(record: &Record) -> u64 {
    record.n.unwrap_or(0)
}

/// The sizes of `records`, ascending, each once.
fn sizes(records: &[&Record]) -> Vec<u64> {
    let mut sizes: Vec<u64> = records.iter().map(|r| size(r)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Sizes as the files table and the headings write them: `n = 2^30`, `n = 2^20, 2^30`,
/// `n = 2^16–2^30`.
fn sizes_text(sizes: &[u64]) -> String {
    let names: Vec<String> = sizes.iter().map(|&n| human_size(n)).collect();
    format!("n = {}", list_or_range(&names, LISTED_SIZES))
}

/// What a run's scans measured, for the files table: `scan n = 2^16–2^30 (i32 inclusive,
/// f32 inclusive)`, `compaction n = 2^30`; empty where it has no scan record. Scans of the
/// same sizes share one entry.
pub fn contents(run: &Run) -> Vec<String> {
    let mut by_setting: BTreeMap<Setting, Vec<&Record>> = BTreeMap::new();
    for record in run.records.iter().filter(|r| is_scan(r)) {
        by_setting.entry(Setting::of(record)).or_default().push(record);
    }
    let mut scans: Vec<(String, Vec<String>)> = vec![];
    let mut compactions = vec![];
    for (setting, records) in &by_setting {
        let sizes = sizes_text(&sizes(records));
        if setting.is_compaction() {
            let of = if setting.precision == COMPACTION_TYPE {
                String::new()
            } else {
                format!(" ({})", setting.precision)
            };
            compactions.push(format!("compaction {sizes}{of}"));
        } else {
            match scans.iter_mut().find(|(text, _)| *text == sizes) {
                Some((_, labels)) => labels.push(setting.label()),
                None => scans.push((sizes, vec![setting.label()])),
            }
        }
    }
    let scans = scans.into_iter().map(|(sizes, labels)| format!("scan {sizes} ({})", labels.join(", ")));
    scans.chain(compactions).collect()
}

/// The best step of each setting and size over every file of `gpu`: the highest GB/s of a
/// step that was timed, where its check did not fail. Keyed by setting, then size.
pub fn best(gpu: &GpuResults) -> BTreeMap<(Setting, u64), (&Run, &Record)> {
    let mut best: BTreeMap<(Setting, u64), (&Run, &Record)> = BTreeMap::new();
    for run in &gpu.runs {
        let timed =
            run.records.iter().filter(|r| is_step(r) && r.passed != Some(false) && r.figure.is_some());
        for record in timed {
            let slot = best.entry((Setting::of(record), size(record))).or_insert((run, record));
            if record.figure > slot.1.figure {
                *slot = (run, record);
            }
        }
    }
    best
}

/// The "which step is fastest" table of the scans: per setting and size, the best step
/// ([`best`]) with its median, GB/s, % of the copy and % of CUB in its run, and its file.
pub fn best_table(gpu: &GpuResults, links: &Links) -> Table {
    let mut table = Table::new(&[
        ("operation", Align::Left),
        ("n", Align::Left),
        ("best step", Align::Left),
        ("median µs", Align::Right),
        ("GB/s", Align::Right),
        ("% of copy", Align::Right),
        ("% of CUB", Align::Right),
        ("file", Align::Left),
    ]);
    for ((setting, n), (run, record)) in best(gpu) {
        table.row(vec![
            setting.label(),
            human_size(n),
            step_name(&record.kernel, links),
            median(record),
            figure(record),
            percent(percent_of_copy(record)),
            percent(record.percent_of_vendor),
            format!("`{}`", run.file),
        ]);
    }
    table.without_empty_columns()
}

/// The introduction of the scan section.
const INTRO: &str = "GB/s counts the bytes a scan must move: every element read once and written \
                     once (8n bytes of 4-byte elements); compaction reads the input and writes the kept \
                     elements. % of copy is of a device-to-device copy of the same input in the same run \
                     (`cuMemcpyDtoD`), the bandwidth a scan can reach; % of CUB is of CUB in the same run \
                     (`DeviceScan::InclusiveSum` or `ExclusiveSum`, `DeviceSelect::If` for compaction); the \
                     empty launch is the time of an empty kernel's launch, the floor of any step. WRONG: \
                     the check failed (a wrong step is not timed, and never the best).";

/// The scan ladder: per setting and file, every step's GB/s at every size ([`size_tables`],
/// where there are several sizes), every figure at the largest size ([`table`]), and the
/// host's charts of it. Empty where `gpu` has no scan record.
pub fn section(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    // (setting, file): one part each.
    let mut problems: Vec<(Setting, usize)> = vec![];
    for (index, run) in gpu.runs.iter().enumerate() {
        for record in run.records.iter().filter(|r| is_scan(r)) {
            let key = (Setting::of(record), index);
            if !problems.contains(&key) {
                problems.push(key);
            }
        }
    }
    problems.sort();
    if problems.is_empty() {
        return String::new();
    }
    let mut out = format!("## The scan ladder\n\n{INTRO} {REGS}\n\n");
    for (setting, index) in problems {
        let run = &gpu.runs[index];
        let records: Vec<&Record> =
            run.records.iter().filter(|r| is_scan(r) && Setting::of(r) == setting).collect();
        let sizes = sizes(&records);
        let Some(&largest) = sizes.last() else { continue };
        out += &format!("### {}, {} (`{}`)\n\n", setting.title(), sizes_text(&sizes), run.file);
        if sizes.len() > 1 {
            out += "GB/s at each size, and the % of the copy (rounded); the empty launch in µs:\n\n";
            for table in size_tables(&records, order, links) {
                out += &table.render();
                out += "\n";
            }
            out += &format!("Every figure at n = {}:\n\n", human_size(largest));
        }
        let at_largest: Vec<&Record> = records.iter().copied().filter(|r| size(r) == largest).collect();
        out += &table(&rows(&at_largest, order), links).render();
        out += &twins_note(run);
        out += "\n";
        out += &charts(gpu, run, &setting, &sizes, links);
    }
    out
}

/// Where a record's row sorts: the baselines first, in [`BASELINES`]' order, then the
/// steps in ladder order, each by block size.
fn row_rank(record: &Record, order: &StepOrder) -> (usize, (usize, String), Option<u32>) {
    let baseline =
        BASELINES.iter().position(|&(kernel, _)| kernel == record.kernel).unwrap_or(BASELINES.len());
    (baseline, order.rank(&record.kernel), block(record))
}

/// `records` in row order ([`row_rank`]), then by size.
fn rows<'a>(records: &[&'a Record], order: &StepOrder) -> Vec<&'a Record> {
    let mut list = records.to_vec();
    list.sort_by_key(|r| (row_rank(r, order), size(r)));
    list
}

/// A row's name: the baseline's, or the step's, with its block size where `records` hold
/// the step with several.
fn row_name(record: &Record, records: &[&Record], links: &Links) -> String {
    if let Some(&(_, name)) = BASELINES.iter().find(|&&(kernel, _)| kernel == record.kernel) {
        return name.to_string();
    }
    let name = step_name(&record.kernel, links);
    let mut blocks: Vec<Option<u32>> =
        records.iter().filter(|r| r.kernel == record.kernel).map(|r| block(r)).collect();
    blocks.sort_unstable();
    blocks.dedup();
    match block(record) {
        Some(b) if blocks.len() > 1 => format!("{name} (block {b})"),
        _ => name,
    }
}

/// A cell of the sizes' tables: the GB/s and the % of the copy, rounded (`2893.1 (97%)`);
/// the copy's GB/s alone, the empty launch's median µs; `WRONG` where the check failed;
/// empty where it was not timed.
fn size_cell(record: &Record) -> String {
    if record.passed == Some(false) {
        return "WRONG".into();
    }
    match record.kernel.as_str() {
        EMPTY_LAUNCH => record.median_us.map(micros).unwrap_or_default(),
        COPY => record.figure.map(one_decimal).unwrap_or_default(),
        _ => match (record.figure, percent_of_copy(record)) {
            (Some(gbs), Some(of_copy)) => format!("{} ({of_copy:.0}%)", one_decimal(gbs)),
            (Some(gbs), None) => one_decimal(gbs),
            _ => String::new(),
        },
    }
}

/// The sizes' tables of one setting of one file: a row per baseline and step (and block
/// size), a column per size, each cell [`size_cell`]; the sizes shared out evenly over as
/// few tables as fit the page.
pub fn size_tables(records: &[&Record], order: &StepOrder, links: &Links) -> Vec<Table> {
    let sizes = sizes(records);
    let mut lines = rows(records, order);
    lines.dedup_by(|a, b| a.kernel == b.kernel && block(a) == block(b));
    let build = |range: Range<usize>| -> Table {
        let headers: Vec<String> =
            sizes[range.clone()].iter().map(|&n| format!("n = {}", human_size(n))).collect();
        let mut columns = vec![("step", Align::Left)];
        columns.extend(headers.iter().map(|h| (h.as_str(), Align::Right)));
        let mut table = Table::new(&columns);
        for line in &lines {
            let mut name = row_name(line, records, links);
            if line.kernel == EMPTY_LAUNCH {
                name += " (µs)";
            }
            let mut cells = vec![name];
            cells.extend(sizes[range.clone()].iter().map(|&n| {
                records
                    .iter()
                    .find(|r| r.kernel == line.kernel && block(r) == block(line) && size(r) == n)
                    .map(|r| size_cell(r))
                    .unwrap_or_default()
            }));
            table.row(cells);
        }
        table
    };
    fitting(sizes.len(), build)
}

/// A scan table: one row per record (of one setting and size on the results page, of one
/// step's settings and sizes in a chapter), in the order given.
pub fn table(records: &[&Record], links: &Links) -> Table {
    let mut table = Table::new(&[
        ("step", Align::Left),
        ("launches", Align::Right),
        ("median µs", Align::Right),
        ("GB/s", Align::Right),
        ("% of copy", Align::Right),
        ("% of CUB", Align::Right),
        ("C++ µs", Align::Right),
        ("Rust ÷ C++", Align::Right),
        ("regs", Align::Right),
    ]);
    for record in records {
        let launches = record.details.as_ref().and_then(|d| d.get("launches")).and_then(|v| v.as_u64());
        table.row(vec![
            row_name(record, records, links),
            launches.map(|l| l.to_string()).unwrap_or_default(),
            median(record),
            figure(record),
            // The host records a % of the copy for the empty launch too, of bytes it does not move.
            if record.kernel == EMPTY_LAUNCH { String::new() } else { percent(percent_of_copy(record)) },
            if record.kernel == CUB { String::new() } else { percent(record.percent_of_vendor) },
            record.cpp_median_us.map(micros).unwrap_or_default(),
            record.rust_over_cpp.map(ratio).unwrap_or_default(),
            registers(record),
        ]);
    }
    table.without_empty_columns()
}

/// The charts of `setting` that belong to `run`'s section, those it drew ([`chart_run`]):
/// the largest size's shown, the others linked.
fn charts(gpu: &GpuResults, run: &Run, setting: &Setting, sizes: &[u64], links: &Links) -> String {
    let mine: Vec<(u64, String)> = sizes
        .iter()
        .map(|&n| (n, setting.chart(n)))
        .filter(|(_, chart)| {
            gpu.charts.contains(chart) && chart_run(gpu, chart).is_some_and(|owner| owner.file == run.file)
        })
        .collect();
    let Some(((_, largest), others)) = mine.split_last() else { return String::new() };
    let mut out = format!(
        "![{} on the {}]({})\n\n",
        capitalised(&chart_title(largest)),
        gpu.device(),
        (links.chart)(&gpu.kind, largest)
    );
    if !others.is_empty() {
        let others: Vec<String> = others
            .iter()
            .map(|(n, chart)| format!("[n = {}]({})", human_size(*n), (links.chart)(&gpu.kind, chart)))
            .collect();
        out += &format!("Its charts at the other sizes: {}.\n\n", others.join(", "));
    }
    out
}

/// The title of the host's scan chart of `operation` on `precision` at size tag `tag`
/// (`inclusive`, `i32`, `n2p30` → `the inclusive scan of i32 at n = 2^30`).
pub fn chart_caption(operation: &str, precision: &str, tag: &str) -> String {
    let size = match (tag.strip_prefix("n2p"), tag.strip_prefix('n')) {
        (Some(power), _) => format!("2^{power}"),
        (None, Some(n)) => n.to_string(),
        (None, None) => tag.to_string(),
    };
    if operation == COMPACTION {
        format!("the compaction of {precision} at n = {size}")
    } else {
        format!("the {operation} scan of {precision} at n = {size}")
    }
}

/// A scan record's problem in a chapter's table: `i32 inclusive 2^30`.
pub fn problem(record: &Record) -> String {
    format!("{} {}", Setting::of(record).label(), human_size(size(record)))
}

#[cfg(test)]
mod tests {
    //! The scan parts of a page, on a fixture the host's own code writes: its records are
    //! `host::families::scan::report::record` of rows as the runner makes them, its files
    //! `results_json` of a header as `host::run` makes it, its charts the runner's
    //! `scan::chart::ladder`, written by the host. No GPU is needed: the times come from a
    //! simple model of an H100.

    use super::*;
    use crate::Repo;
    use crate::markdown::MAX_TABLE_WIDTH;
    use crate::records;
    use crate::results::{committed_links, page, step_tables};
    use host::base::gpu::DeviceInfo;
    use host::families::scan::chart;
    use host::families::scan::reference::{Check, GUARD, POISON, check_compaction, check_scan};
    use host::families::scan::registry::{self, ElementType, SCAN_STEPS, ScanStep, Scheme};
    use host::families::scan::report::{self, Baselines, Row, Subject};
    use host::measure::timing::{Stop, Timing};
    use host::report::records::results_json;
    use host::twins::TwinResult;
    use std::path::PathBuf;

    /// The fixture's device: the H100 of `docs/results/h100/` (3352 GB/s theoretical).
    fn h100() -> DeviceInfo {
        DeviceInfo {
            ordinal: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            max_threads_per_sm: 2048,
            sm_clock_khz: 1_980_000,
            l2_bytes: 52_428_800,
            memory_bytes: 85_017_493_504,
            memory_clock_khz: 2_619_000,
            memory_bus_bits: 5120,
            driver_version: 13000,
            ptx_arch: registry::SM90A,
        }
    }

    /// The model's copy bandwidth at large sizes, in GB/s.
    const COPY_GBS: f64 = 2950.0;
    /// The model's cost of one launch, in µs (the empty launch's time).
    const LAUNCH_US: f64 = 2.2;
    /// The sizes of the fixture's sweep: 2^16 to 2^30.
    const SWEEP: Range<u32> = 16..31;
    /// The size of i32 inclusive at which [`wrong_step`] fails its check.
    const WRONG_AT: u64 = 1 << 30;
    /// The cost of a bulk copy's setup (`sm_90a` steps), in µs: it loses at small sizes what
    /// it wins at large ones.
    const BULK_SETUP_US: f64 = 0.5;

    /// The registry's steps of the scans (`compaction: false`) or of compaction, in ladder
    /// order. The fixture names no step: the ladder changes, the model follows it.
    fn steps(compaction: bool) -> Vec<&'static ScanStep> {
        SCAN_STEPS.iter().filter(|s| (s.scheme == Scheme::Compaction) == compaction).collect()
    }

    /// The step whose check fails in the fixture, at [`WRONG_AT`] of i32 inclusive: the
    /// last scan step, the fastest there in the model, so that the best is another.
    fn wrong_step() -> &'static str {
        steps(false).last().expect("the ladder has scan steps").id
    }

    /// A step's bandwidth at large sizes, as a fraction of the copy's: by the passes its
    /// scheme makes, growing along the ladder within a scheme.
    fn efficiency(step: &ScanStep) -> f64 {
        let rank =
            SCAN_STEPS.iter().filter(|s| s.scheme == step.scheme).position(|s| s.id == step.id).unwrap_or(0);
        let (first, gain) = match step.scheme {
            Scheme::ScanThenPropagate => (0.28, 0.06),
            Scheme::ReduceThenScan => (0.66, 0.02),
            Scheme::SinglePass => (0.80, 0.04),
            Scheme::Ring => (0.98, 0.0),
            Scheme::Compaction => (0.85, 0.05),
        };
        (first + gain * rank as f64).min(0.98)
    }

    /// A step's cost before its first byte, in µs.
    fn setup_us(step: &ScanStep) -> f64 {
        if step.arch == registry::SM90A { BULK_SETUP_US } else { 0.0 }
    }

    /// The launches of a step over `n` elements, as its scheme makes them.
    fn launches(step: &ScanStep, n: usize) -> usize {
        match step.scheme {
            Scheme::SinglePass | Scheme::Ring | Scheme::Compaction => 1,
            Scheme::ScanThenPropagate | Scheme::ReduceThenScan => match step.tiles(n) {
                1 => 1,
                tiles => 2 + launches(step, tiles),
            },
        }
    }

    /// A settled timing of median `us`.
    fn timing(us: f64) -> Timing {
        let ms = us / 1e3;
        Timing {
            median_ms: ms,
            min_ms: ms * 0.99,
            max_ms: ms * 1.03,
            q1_ms: ms * 0.998,
            q3_ms: ms * 1.002,
            repetitions: 20,
            stop: Stop::Settled,
        }
    }

    /// A check as the host's reference makes it: right (an empty output, its guard
    /// untouched) or wrong (a small output left poisoned).
    fn check(element: ElementType, compaction: bool, right: bool) -> Check {
        let n = if right { 0 } else { 4 };
        let words = vec![POISON; n + GUARD];
        let check = match (compaction, right) {
            (true, true) => check_compaction(1, n, 0, &words, false),
            (true, false) => check_compaction(1, n, POISON, &words, false),
            (false, _) => check_scan(element, false, 1, n, &words),
        };
        assert_eq!(check.passed(), right, "{check:?}");
        check
    }

    /// The records the runner writes for one setting at size `n`, in its order: each step's,
    /// then CUB's, the copy's and the empty launch's; `wrong` is a step whose check fails.
    /// Also the chart `--plots` draws of it.
    fn setting_records(
        element: ElementType,
        compaction: bool,
        n: usize,
        wrong: Option<&str>,
    ) -> (Vec<Record>, host::report::plot::ladder::LadderChart) {
        let info = h100();
        // Compaction reads the input and writes the kept half of it.
        let bytes = if compaction { 4 * n + 4 * (n / 2) } else { 8 * n };
        let setting = report::Setting { element, exclusive: false, compaction, n, bytes };
        let copy = timing(LAUNCH_US + (8 * n) as f64 / (COPY_GBS * 1e3));
        let cub = timing(2.0 * LAUNCH_US + bytes as f64 / (0.96 * COPY_GBS * 1e3));
        let baselines = Baselines {
            copy_gbs: Some(copy.gigabytes_per_second((8 * n) as f64)),
            cub_gbs: Some(cub.gigabytes_per_second(bytes as f64)),
            empty_us: Some(LAUNCH_US),
        };
        let mut rows: Vec<Row> = steps(compaction)
            .into_iter()
            .map(|step| {
                let launches = launches(step, n);
                let us = launches as f64 * LAUNCH_US
                    + setup_us(step)
                    + bytes as f64 / (efficiency(step) * COPY_GBS * 1e3);
                let right = wrong != Some(step.id);
                Row {
                    subject: Subject::Step(step),
                    block: Some(step.threads),
                    launches: Some(launches),
                    check: Some(check(element, compaction, right)),
                    timing: right.then(|| timing(us)),
                    registers: Some(32),
                    twin: TwinResult::Ran {
                        passed: true,
                        wrong: None,
                        timing: Some(timing(us * 1.02)),
                        registers: Some(30),
                    },
                }
            })
            .collect();
        let baseline = |subject, timing, check| Row {
            subject,
            block: None,
            launches: (!matches!(subject, Subject::Cub)).then_some(1),
            check,
            timing: Some(timing),
            registers: None,
            twin: TwinResult::NotRun(String::new()),
        };
        rows.push(baseline(Subject::Cub, cub, Some(check(element, compaction, true))));
        rows.push(baseline(Subject::Copy, copy, None));
        rows.push(baseline(Subject::EmptyLaunch, timing(LAUNCH_US), None));
        let records = rows.iter().map(|row| report::record(&info, &setting, &baselines, row)).collect();
        (records, chart::ladder(&info, DATE, &setting, &baselines, &rows))
    }

    /// The fixture's runs' date.
    const DATE: &str = "2026-11-26T10:00:00Z";

    /// A results file as `host --json` writes it: the run's header, then its records.
    fn results_file(records: &[Record]) -> String {
        results_file_at(records, DATE)
    }

    /// A results file of a run that started at `date` (`YYYY-MM-DDTHH:MM:SSZ`).
    fn results_file_at(records: &[Record], date: &str) -> String {
        let header = serde_json::json!({
            "date_utc": date,
            "device": h100().json(),
            "seed": 7,
            "timing": {
                "min_samples": 20, "min_time_s": 0.01, "max_noise_percent": 0.5, "budget_s": 10.0,
                "warmup": 3, "l2_flushed": true,
            },
            "twins": { "compiler": "NVRTC 13.0", "target": "compute_90a", "options": host::twins::OPTIONS },
            "complete": true,
            "not_run": [],
            "failures": [],
        });
        results_json(header, records)
    }

    /// The sweep: `host -k scan -n 2^16,…,2^30 --scan-type i32,f32 --json scan.json`, where
    /// [`wrong_step`] fails at [`WRONG_AT`] of i32. Its records and charts.
    fn sweep() -> (Vec<Record>, Vec<host::report::plot::ladder::LadderChart>) {
        let (mut records, mut charts) = (vec![], vec![]);
        for n in SWEEP.map(|power| 1usize << power) {
            for (element, compaction) in
                [(ElementType::I32, false), (ElementType::F32, false), (ElementType::I32, true)]
            {
                let wrong =
                    (element == ElementType::I32 && !compaction && n as u64 == WRONG_AT).then(wrong_step);
                let (mine, chart) = setting_records(element, compaction, n, wrong);
                records.extend(mine);
                charts.push(chart);
            }
        }
        (records, charts)
    }

    /// The suite at 2^30: a reduction, the i32 scans and compaction (the same step wrong), a
    /// probe, a GEMM shape.
    fn suite() -> Vec<Record> {
        let mut reduction = Record::new("reduce", "x4_packed_tally");
        (reduction.variant, reduction.precision, reduction.n) =
            (Some("block 256".into()), Some("i32".into()), Some(1 << 30));
        (reduction.median_us, reduction.figure, reduction.unit) =
            (Some(1373.9), Some(3126.2), Some("GB/s".into()));
        let mut probe = Record::new("probe", "p1_stride_copy");
        probe.variant = Some("stride=1".into());
        let mut gemm = Record::new("gemm", "w08_latency_trims_f16");
        (gemm.precision, gemm.m, gemm.n, gemm.k) = (Some("f16".into()), Some(4096), Some(4096), Some(4096));
        let mut records = vec![reduction];
        records.extend(setting_records(ElementType::I32, false, 1 << 30, Some(wrong_step())).0);
        records.extend(setting_records(ElementType::I32, true, 1 << 30, None).0);
        records.extend([probe, gemm]);
        records
    }

    /// The charts the fixture keeps: some of the sweep's, as a folder would after a few runs.
    const KEPT_CHARTS: &[&str] = &[
        "scan-inclusive-i32-n2p16.svg",
        "scan-inclusive-i32-n2p20.svg",
        "scan-inclusive-i32-n2p30.svg",
        "scan-inclusive-f32-n2p30.svg",
        "scan-compaction-i32-n2p30.svg",
    ];

    /// A repository whose `docs/results/h100/` holds `files` and, where `with_charts`, the
    /// sweep's charts of [`KEPT_CHARTS`] as the host writes them; its results.
    fn fixture(name: &str, files: &[(&str, String)], with_charts: bool) -> GpuResults {
        let root: PathBuf = std::env::temp_dir().join(format!("book-scan-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join(records::RESULTS_DIR).join("h100");
        std::fs::create_dir_all(dir.join("charts")).unwrap();
        for (file, text) in files {
            std::fs::write(dir.join(file), text).unwrap();
        }
        if with_charts {
            for chart in
                sweep().1.iter().filter(|c| KEPT_CHARTS.contains(&format!("{}.svg", c.name).as_str()))
            {
                chart.write(&dir.join("charts")).unwrap();
            }
        }
        let gpu = records::load(&Repo::at(&root), "h100").unwrap();
        let _ = std::fs::remove_dir_all(&root);
        gpu
    }

    /// Both files and the charts.
    fn both(name: &str) -> GpuResults {
        fixture(
            name,
            &[("suite.json", results_file(&suite())), ("scan.json", results_file(&sweep().0))],
            true,
        )
    }

    fn i32_inclusive() -> Setting {
        let mut record = Record::new(NAME, "s01_hillis_steele");
        (record.variant, record.precision) = (Some("inclusive, block 256".into()), Some("i32".into()));
        Setting::of(&record)
    }

    /// The cell of `table` (rendered) in the row whose first cell starts with `row` and the
    /// column headed `column`.
    fn cell(table: &str, row: &str, column: &str) -> Option<String> {
        let split = |line: &str| -> Vec<String> {
            line.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect()
        };
        let mut lines = table.lines();
        let header = split(lines.next()?);
        let at = header.iter().position(|h| h == column)?;
        lines.map(split).find(|cells| cells[0].starts_with(row)).map(|cells| cells[at].clone())
    }

    #[test]
    fn the_fixture_reads_back_as_the_host_wrote_it() {
        let gpu = both("read");
        assert_eq!(gpu.runs.iter().map(|r| r.file.as_str()).collect::<Vec<_>>(), ["suite.json", "scan.json"]);
        let sweep = &gpu.runs[1];
        let (scans, compactions) = (steps(false).len(), steps(true).len());
        assert_eq!(sweep.records.len(), SWEEP.len() * (2 * (scans + 3) + (compactions + 3)));
        let first = &sweep.records[0];
        let s01 = registry::step("s01_hillis_steele").unwrap();
        assert_eq!(
            (first.family.as_str(), first.kernel.as_str(), first.precision.as_deref(), first.n),
            (NAME, s01.id, Some("i32"), Some(1 << 16))
        );
        assert_eq!(first.variant, Some(format!("inclusive, block {}", s01.threads)));
        assert!(
            first.cpp_median_us.is_some()
                && first.rust_over_cpp.is_some()
                && percent_of_copy(first).is_some()
        );
        let cub = sweep.records.iter().find(|r| r.kernel == CUB).unwrap();
        assert_eq!(cub.vendor.as_deref(), Some("CUB DeviceScan::InclusiveSum"));
        let empty = sweep.records.iter().find(|r| r.kernel == EMPTY_LAUNCH).unwrap();
        assert!(empty.figure.is_none() && empty.median_us.is_some());
        assert!(sweep.records.iter().any(|r| r.kernel == COPY && Setting::of(r).is_compaction()));
        // The host wrote the charts under the names the page looks for.
        let mut kept: Vec<&str> = KEPT_CHARTS.to_vec();
        kept.sort_unstable();
        assert_eq!(gpu.charts, kept);
        // And the page names them as the host does.
        assert_eq!(i32_inclusive().chart(1 << 30), "scan-inclusive-i32-n2p30.svg");
    }

    #[test]
    fn the_best_step_is_the_fastest_whose_check_passed() {
        let gpu = both("best");
        let best = best(&gpu);
        assert_eq!(best.len(), 3 * SWEEP.len(), "every setting and size of the sweep has a best step");
        for (run, record) in best.values() {
            assert!(is_step(record) && record.passed == Some(true), "{} in {}", record.kernel, run.file);
        }
        let kernel = |setting: &Setting, n: u64| best[&(setting.clone(), n)].1.kernel.as_str();
        // The fastest at 2^30 failed its check (in both files): the one before it is the best.
        let scans = steps(false);
        let runner_up = scans[scans.len() - 2].id;
        assert_eq!(kernel(&i32_inclusive(), WRONG_AT), runner_up);
        assert_eq!(kernel(&i32_inclusive(), WRONG_AT / 2), wrong_step());
        let compaction = best.keys().map(|(s, _)| s).find(|s| s.is_compaction()).unwrap();
        assert_eq!(kernel(compaction, 1 << 30), steps(true).last().unwrap().id);
        let table = best_table(&gpu, &committed_links());
        assert!(table.fits(), "{} columns", table.width());
        let text = table.render();
        let row = text.lines().find(|l| l.contains("| i32 inclusive ") && l.contains(" | 2^30 ")).unwrap();
        assert!(row.contains(&format!("| `{runner_up}` ")) && row.ends_with("| `suite.json` |"), "{row}");
        assert!(text.contains("| i32 compaction | 2^16 |"), "{text}");
    }

    #[test]
    fn the_size_tables_show_every_step_and_size_and_fit() {
        let gpu = both("sizes");
        let records: Vec<&Record> =
            gpu.runs[1].records.iter().filter(|r| Setting::of(r) == i32_inclusive()).collect();
        let tables = size_tables(&records, &StepOrder::new(), &committed_links());
        assert!(tables.len() > 1, "15 sizes do not fit in one table of 120 columns");
        for table in &tables {
            assert!(table.fits(), "{} columns:\n{}", table.width(), table.render());
        }
        let texts: Vec<String> = tables.iter().map(Table::render).collect();
        for power in SWEEP {
            let column = format!("n = 2^{power}");
            assert_eq!(texts.iter().filter(|t| cell(t, "CUB", &column).is_some()).count(), 1, "{column}");
        }
        let names: Vec<String> = texts[0]
            .lines()
            .skip(2)
            .map(|l| l.trim_matches('|').split(" | ").next().unwrap().trim().to_string())
            .collect();
        let mut expected: Vec<String> = vec!["CUB".into(), "copy".into(), "empty launch (µs)".into()];
        expected.extend(steps(false).iter().map(|s| format!("`{}`", s.id)));
        assert_eq!(names, expected);
        let last = texts.last().unwrap();
        assert_eq!(cell(last, &format!("`{}`", wrong_step()), "n = 2^30").as_deref(), Some("WRONG"));
        let first = cell(last, &format!("`{}`", steps(false)[0].id), "n = 2^30").unwrap();
        assert!(first.ends_with("%)") && first.contains(" ("), "GB/s and % of copy: {first}");
        assert_eq!(cell(last, "empty launch", "n = 2^30").as_deref(), Some("2.20"));
    }

    #[test]
    fn the_page_describes_and_shows_the_scans_within_120_columns() {
        let gpu = both("page");
        let text = page(&gpu, &StepOrder::new(), &committed_links());
        for (number, line) in text.lines().enumerate() {
            assert!(
                !line.starts_with('|') || line.chars().count() < MAX_TABLE_WIDTH,
                "line {} is {} columns: {line}",
                number + 1,
                line.chars().count()
            );
        }
        assert_eq!(
            super::contents(&gpu.runs[1]),
            ["scan n = 2^16–2^30 (i32 inclusive, f32 inclusive)", "compaction n = 2^16–2^30"]
        );
        // The suite's line would make the files table too wide: what each file measured is
        // listed below it.
        assert!(
            text.contains(
                "- `suite.json` measured reduction n = 2^30; scan n = 2^30 (i32 inclusive); compaction n = 2^30; \
                 probe p1; GEMM 4096³.\n"
            ),
            "{text}"
        );
        assert!(!text.contains("other records"));
        assert!(text.contains("The scan (GB/s"));
        let headings: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("### ") && l.contains("scan") || l.starts_with("### Compaction"))
            .collect();
        assert_eq!(
            headings,
            [
                "### Inclusive scan of i32, n = 2^30 (`suite.json`)",
                "### Inclusive scan of i32, n = 2^16–2^30 (`scan.json`)",
                "### Inclusive scan of f32, n = 2^16–2^30 (`scan.json`)",
                "### Compaction (keep x > 0) of i32, n = 2^30 (`suite.json`)",
                "### Compaction (keep x > 0) of i32, n = 2^16–2^30 (`scan.json`)",
            ]
        );
        // A chart shows in the section of the first file that has its setting and size.
        let part = |from: &str, to: &str| &text[text.find(from).unwrap()..text.find(to).unwrap()];
        let suite_part =
            part("### Inclusive scan of i32, n = 2^30 (`suite.json`)", "### Inclusive scan of i32, n = 2^16");
        assert!(suite_part.contains(
            "![The inclusive scan of i32 at n = 2^30 on the NVIDIA H100 80GB HBM3](h100/charts/scan-inclusive-i32-n2p30.svg)"
        ));
        let sweep_part =
            part("### Inclusive scan of i32, n = 2^16–2^30 (`scan.json`)", "### Inclusive scan of f32");
        assert!(sweep_part.contains("](h100/charts/scan-inclusive-i32-n2p20.svg)\n"), "{sweep_part}");
        assert!(sweep_part.contains(
            "Its charts at the other sizes: [n = 2^16](h100/charts/scan-inclusive-i32-n2p16.svg).\n"
        ));
        assert!(!sweep_part.contains("n2p30.svg"));
        assert!(sweep_part.contains("Every figure at n = 2^30:"));
        assert!(
            text.contains(
                "- [the compaction of i32 at n = 2^30](h100/charts/scan-compaction-i32-n2p30.svg)\n"
            )
        );
    }

    /// A run before the fixture's [`DATE`], which drew none of its charts.
    const EARLIER: &str = "2026-11-26T08:00:00Z";

    #[test]
    fn a_chart_shows_under_the_file_whose_run_drew_it() {
        // The suite ran first and has i32 inclusive and compaction at 2^30 too, but the
        // sweep's run drew the charts: its date is on them.
        let gpu = fixture(
            "drawn",
            &[("suite.json", results_file_at(&suite(), EARLIER)), ("scan.json", results_file(&sweep().0))],
            true,
        );
        let chart = i32_inclusive().chart(1 << 30);
        assert_eq!(gpu.drawn.get(&chart).map(String::as_str), Some("2026-11-26 10:00 UTC"));
        assert_eq!(chart_run(&gpu, &chart).map(|r| r.file.as_str()), Some("scan.json"));
        let text = page(&gpu, &StepOrder::new(), &committed_links());
        let part = |from: &str, to: &str| &text[text.find(from).unwrap()..text.find(to).unwrap()];
        let suite_part =
            part("### Inclusive scan of i32, n = 2^30 (`suite.json`)", "### Inclusive scan of i32, n = 2^16");
        assert!(!suite_part.contains(".svg"), "{suite_part}");
        let sweep_part =
            part("### Inclusive scan of i32, n = 2^16–2^30 (`scan.json`)", "### Inclusive scan of f32");
        assert!(sweep_part.contains(
            "![The inclusive scan of i32 at n = 2^30 on the NVIDIA H100 80GB HBM3](h100/charts/scan-inclusive-i32-n2p30.svg)"
        ));
        assert!(sweep_part.contains("Its charts at the other sizes: [n = 2^16]"), "{sweep_part}");
        // Compaction's chart at 2^30 once, in the sweep's section, not also in the suite's.
        let compaction = part("### Compaction (keep x > 0) of i32, n = 2^30 (`suite.json`)", "## Charts");
        assert_eq!(compaction.matches("![").count(), 1, "{compaction}");
        // The charts' list names the file whose run drew them, not the suite's.
        let charts = &text[text.find("## Charts").unwrap()..];
        assert!(charts.contains("each under the file of the run that drew it"), "{charts}");
        assert!(!charts.contains("`suite.json`"), "{charts}");
        let listed: Vec<&str> = charts.lines().filter(|l| l.starts_with("- [")).collect();
        assert_eq!(listed.len(), KEPT_CHARTS.len());
        assert!(
            charts.starts_with(&format!(
                "## Charts\n\nDrawn by the host (`--plots`), each under the file of the run that drew it (the \
                 run's date is on the chart):\n\n`scan.json` (2026-11-26 10:00 UTC):\n\n{}\n",
                listed.join("\n")
            )),
            "{charts}"
        );
    }

    #[test]
    fn a_chart_of_a_run_not_kept_shows_in_no_section() {
        let gpu = fixture(
            "not-kept",
            &[
                ("suite.json", results_file_at(&suite(), EARLIER)),
                ("scan.json", results_file_at(&sweep().0, EARLIER)),
            ],
            true,
        );
        assert!(gpu.charts.iter().all(|c| chart_run(&gpu, c).is_none()));
        let text = page(&gpu, &StepOrder::new(), &committed_links());
        assert!(!text.contains("!["), "no section shows a chart its run did not draw");
        let charts = &text[text.find("## Charts").unwrap()..];
        assert!(charts.contains("\n\nDrawn by runs whose files are not kept here:\n\n- ["), "{charts}");
        assert_eq!(charts.lines().filter(|l| l.starts_with("- [")).count(), KEPT_CHARTS.len());
    }

    #[test]
    fn chart_names_read_back() {
        let (setting, n) = Setting::from_chart(&i32_inclusive().chart(1 << 30)).unwrap();
        assert_eq!((setting, n), (i32_inclusive(), 1 << 30));
        let (setting, n) = Setting::from_chart("scan-compaction-i32-n2p24.svg").unwrap();
        assert!(setting.is_compaction() && setting.precision == "i32" && n == 1 << 24);
        assert_eq!(Setting::from_chart("scan-exclusive-f32-n1000.svg").map(|(_, n)| n), Some(1000));
        assert_eq!(Setting::from_chart("reduce-ladder-n2p30.svg"), None);
        assert_eq!(Setting::from_chart("gemm-f16-4096x4096x4096.svg"), None);
        // Before any record: compaction for a compaction step, the scans for the others.
        let settings = |compaction: bool| settings_of(std::iter::empty(), &[steps(compaction)[0].id]);
        assert_eq!(settings(true), [Setting::new("compaction", "i32")]);
        let scans = settings(false);
        assert_eq!(scans.first(), Some(&i32_inclusive()));
        assert!(scans.len() == 4 && scans.iter().all(|s| !s.is_compaction()), "{scans:?}");
    }

    #[test]
    fn a_page_without_scan_records_has_no_scan_part() {
        let suite: Vec<Record> = suite().into_iter().filter(|r| !is_scan(r)).collect();
        let gpu = fixture("none", &[("suite.json", results_file(&suite))], false);
        let text = page(&gpu, &StepOrder::new(), &committed_links());
        assert!(!text.to_lowercase().contains("scan"), "{text}");
        assert!(
            text.contains("| `suite.json` | 2026-11-26 10:00 | reduction n = 2^30; probe p1; GEMM 4096³ |"),
            "{text}"
        );
    }

    #[test]
    fn a_scan_chapter_shows_its_step_at_every_setting_and_size() {
        let gpu = both("chapter");
        let text = step_tables(&gpu, &[wrong_step()], &StepOrder::new(), &committed_links()).unwrap();
        assert!(text.contains("From `suite.json`:") && text.contains("From `scan.json`:"));
        let sweep = &text[text.find("From `scan.json`:").unwrap()..];
        assert_eq!(
            cell(sweep.lines().skip(2).collect::<Vec<_>>().join("\n").as_str(), "i32 inclusive 2^30", "GB/s")
                .as_deref(),
            Some("WRONG")
        );
        let rows: Vec<&str> =
            sweep.lines().filter(|l| l.starts_with("| i32") || l.starts_with("| f32")).collect();
        assert_eq!(rows.len(), 2 * SWEEP.len());
        assert!(
            rows[0].starts_with("| i32 inclusive 2^16 ")
                && rows[SWEEP.len()].starts_with("| f32 inclusive 2^16 ")
        );
        assert!(text.lines().all(|l| !l.starts_with('|') || l.chars().count() < MAX_TABLE_WIDTH));
    }

    #[test]
    fn chart_titles_and_even_ranges() {
        use crate::results::{chart_title, even_ranges};
        assert_eq!(chart_title("scan-inclusive-i32-n2p30.svg"), "the inclusive scan of i32 at n = 2^30");
        assert_eq!(chart_title("scan-exclusive-f32-n1000.svg"), "the exclusive scan of f32 at n = 1000");
        assert_eq!(chart_title("scan-compaction-i32-n2p20.svg"), "the compaction of i32 at n = 2^20");
        assert_eq!(even_ranges(15, 1).len(), 1);
        assert_eq!(even_ranges(15, 2), [0..8, 8..15]);
        assert_eq!(even_ranges(15, 4), [0..4, 4..8, 8..12, 12..15]);
        assert_eq!(sizes_text(&[1 << 30]), "n = 2^30");
        assert_eq!(sizes_text(&[1 << 20, 1 << 30]), "n = 2^20, 2^30");
        assert_eq!(sizes_text(&[1 << 16, 1 << 20, 1 << 30]), "n = 2^16–2^30");
    }
}
