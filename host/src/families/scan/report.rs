//! The scan family's results for one input: a record per step and baseline, and the table
//! printed from the same figures. Bandwidth counts what a copy moves: every element read
//! once and written once (compaction: read once, the kept ones written).

use super::reference::Check;
use super::registry::{ElementType, ScanStep};
use crate::base::gpu::DeviceInfo;
use crate::families::family::ladder_table;
use crate::measure::timing::Timing;
use crate::report::records::{Record, finite, human_size};
use crate::report::table::{Cell, Table};
use crate::twins::TwinResult;

/// What a row measures.
#[derive(Clone, Copy, Debug)]
pub enum Subject {
    Step(&'static ScanStep),
    /// `cuMemcpyDtoDAsync` of the input to the output: the bandwidth limit a scan meets.
    Copy,
    /// CUB's `DeviceScan` or `DeviceSelect::If`.
    Cub,
    /// An empty kernel's launch: the floor of any launch.
    EmptyLaunch,
}

/// One line of a table.
pub struct Row {
    pub subject: Subject,
    /// Threads per block of the step's main kernel.
    pub block: Option<u32>,
    pub launches: Option<usize>,
    /// `None` for the rows with nothing to check (copy, empty launch).
    pub check: Option<Check>,
    pub timing: Option<Timing>,
    pub registers: Option<u32>,
    pub twin: TwinResult,
}

/// What one table is of: the operation, its element type, its size.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub element: ElementType,
    pub exclusive: bool,
    pub compaction: bool,
    pub n: usize,
    /// Bytes one run moves (read + written).
    pub bytes: usize,
}

impl Setting {
    /// `inclusive`, `exclusive` or `compaction`.
    pub fn operation(&self) -> &'static str {
        match (self.compaction, self.exclusive) {
            (true, _) => "compaction",
            (false, true) => "exclusive",
            (false, false) => "inclusive",
        }
    }

    /// The name of CUB's call for this table.
    pub fn cub_name(&self) -> &'static str {
        match (self.compaction, self.exclusive) {
            (true, _) => "CUB DeviceSelect::If",
            (false, true) => "CUB DeviceScan::ExclusiveSum",
            (false, false) => "CUB DeviceScan::InclusiveSum",
        }
    }
}

/// The figures every record of a table is compared with: the copy's and CUB's bandwidth,
/// and the empty launch's time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Baselines {
    pub copy_gbs: Option<f64>,
    pub cub_gbs: Option<f64>,
    pub empty_us: Option<f64>,
}

impl Row {
    /// The row's name in the table and its record's `kernel`.
    pub fn label(&self, setting: &Setting) -> &'static str {
        match self.subject {
            Subject::Step(step) => step.id,
            Subject::Copy => "copy (cuMemcpyDtoD)",
            Subject::Cub => setting.cub_name(),
            Subject::EmptyLaunch => "empty launch",
        }
    }

    /// The record's `kernel`: the step's id, or the baseline's short name.
    fn kernel(&self) -> &'static str {
        match self.subject {
            Subject::Step(step) => step.id,
            Subject::Copy => "copy",
            Subject::Cub => "cub",
            Subject::EmptyLaunch => "empty_launch",
        }
    }
}

/// The record of one row.
pub fn record(info: &DeviceInfo, setting: &Setting, baselines: &Baselines, row: &Row) -> Record {
    let peak = info.theoretical_bandwidth();
    let mut record = Record::new(super::NAME, row.kernel());
    record.variant = Some(match row.block {
        Some(block) => format!("{}, block {block}", setting.operation()),
        None => setting.operation().into(),
    });
    record.precision = Some(setting.element.name().into());
    record.n = Some(setting.n as u64);
    let gbs = row.timing.as_ref().map(|t| t.gigabytes_per_second(setting.bytes as f64));
    if let Some(timing) = &row.timing {
        record.set_timing(timing);
        if !matches!(row.subject, Subject::EmptyLaunch) {
            record.figure = gbs.and_then(finite);
            record.unit = Some("GB/s".into());
            record.percent_of_limit = gbs.and_then(|g| finite(100.0 * g * 1e9 / peak));
            record.limit = Some(format!("theoretical bandwidth ({:.0} GB/s)", peak / 1e9));
        }
    }
    if let Some(cub) = baselines.cub_gbs.filter(|_| !matches!(row.subject, Subject::EmptyLaunch)) {
        record.vendor = Some(setting.cub_name().into());
        record.percent_of_vendor = gbs.and_then(|g| finite(100.0 * g / cub));
    }
    if let Some(check) = &row.check {
        record.passed = Some(check.passed());
        record.error = Some(check.max_error);
        record.error_measure = Some(check.method.into());
    }
    let percent_of_copy = gbs.zip(baselines.copy_gbs).and_then(|(g, c)| finite(100.0 * g / c));
    let over_empty = row.timing.zip(baselines.empty_us).and_then(|(t, e)| finite(t.median_ms * 1e3 / e));
    let serde_json::Value::Object(details) = serde_json::json!({
        "launches": row.launches,
        "bytes_moved": setting.bytes,
        "percent_of_copy": percent_of_copy,
        "copy_gbs": baselines.copy_gbs,
        "times_empty_launch": over_empty,
        "empty_launch_us": baselines.empty_us,
        "first_wrong": row.check.as_ref().filter(|c| !c.passed()).map(|c| c.first.clone()),
        "wrong_elements": row.check.as_ref().map(|c| c.wrong),
        "error_over_bound": row.check.as_ref().map(|c| c.max_error_over_bound),
    }) else {
        unreachable!("an object literal")
    };
    record.details = Some(details);
    if matches!(row.subject, Subject::Step(_)) {
        row.twin.fill(&mut record, row.registers);
    }
    record
}

/// The table of one setting, printed from the rows' records.
pub fn table(info: &DeviceInfo, setting: &Setting, baselines: &Baselines, rows: &[Row]) -> Table {
    let what = if setting.compaction {
        format!("compaction (keep x > 0) of n = {} i32", human_size(setting.n as u64))
    } else {
        format!(
            "{} scan of n = {} {}",
            setting.operation(),
            human_size(setting.n as u64),
            setting.element.name()
        )
    };
    let mut table = ladder_table(
        format!(
            "{what} ({} elements, {:.3} GB moved) on {}; theoretical {:.0} GB/s",
            setting.n,
            setting.bytes as f64 / 1e9,
            info.name,
            info.theoretical_bandwidth() / 1e9
        ),
        &["GB/s", "% peak", "% copy", "% CUB", "× launch", "check"],
        &["% peak"],
    );
    for row in rows {
        let record = record(info, setting, baselines, row);
        let details = record.details.as_ref().expect("set by record()");
        let number = |key: &str| details.get(key).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
        let check = match &row.check {
            None => "-".to_string(),
            Some(c) if c.passed() => "ok".to_string(),
            Some(c) => format!("WRONG: {} wrong; {}", c.wrong, c.first),
        };
        let mut cells = vec![
            row.label(setting).into(),
            row.block.map_or("-".into(), |b| Cell::Int(i64::from(b))),
            row.launches.map_or("-".into(), |l| Cell::Int(l as i64)),
            row.timing.map_or(Cell::Num(f64::NAN, 1), Cell::Time),
            row.timing.map_or("-".into(), |t| Cell::Int(t.repetitions as i64)),
            record.spread_percent.map_or("-".into(), |s| format!("{s:.1}%").into()),
        ];
        if matches!(row.subject, Subject::Step(_)) {
            cells.extend(crate::twins::cells(&record));
        } else {
            cells.extend(["".into(), Cell::Num(f64::NAN, 3), "".into()]);
        }
        cells.extend([
            Cell::Figure(record.figure.unwrap_or(f64::NAN), 1, "GB/s"),
            Cell::OfLimit(record.percent_of_limit.unwrap_or(f64::NAN), 1),
            Cell::Num(number("percent_of_copy"), 1),
            Cell::Num(record.percent_of_vendor.unwrap_or(f64::NAN), 1),
            Cell::Num(number("times_empty_launch"), 2),
            check.into(),
        ]);
        table.push(cells);
    }
    table.notes.push(format!(
        "GB/s counts {} bytes per run; % copy is over the device-to-device copy of the same bytes in this run; \
         × launch is the time over an empty kernel's launch (timed the same way)",
        if setting.compaction { "the input read and the kept elements written" } else { "every element read and written once: 8n" }
    ));
    table
}

/// The unit of work "`step` on this setting", as progress and the list of what was not run
/// name it.
pub fn item(step: &str, setting: &Setting) -> String {
    format!(
        "{step}, {} {}, n = {}",
        setting.operation(),
        setting.element.name(),
        human_size(setting.n as u64)
    )
}
