//! The reduction ladder's results for one input size: a record per kernel, and the table
//! printed from the same figures (one section per ladder). Progress and diagnostics go to
//! stderr.
//!
//! Reductions have no vendor column: the host runs no CUB (a C++ template library, with
//! no Rust binding); CUB's figures come from `bench/cub`, run beside the host.

use crate::base::gpu::DeviceInfo;
use crate::families::family::ladder_table;
use crate::families::reduce::registry::{Ladder, ReduceKernel};
use crate::families::reduce::runner::Check;
use crate::measure::timing::Timing;
use crate::report::records::{Record, finite, human_size};
use crate::report::table::{Cell, Table};
use crate::twins::TwinResult;

/// One kernel's line: how it ran, whether it was right, how fast.
pub struct Row {
    pub kernel: &'static ReduceKernel,
    pub block: u32,
    pub launches: usize,
    pub check: Check,
    pub timing: Option<Timing>,
    /// Registers per thread of the kernel.
    pub registers: Option<u32>,
    /// The step's C++ twin on the same input.
    pub twin: TwinResult,
}

/// The record of one kernel's reduction of `n` elements (`bytes` read).
pub fn record(info: &DeviceInfo, n: usize, bytes: usize, row: &Row) -> Record {
    let peak = info.theoretical_bandwidth();
    let mut record = Record::new(super::NAME, row.kernel.id);
    record.variant = Some(format!("block {}", row.block));
    record.precision = Some("i32".into());
    record.n = Some(n as u64);
    if let Some(timing) = &row.timing {
        let gbs = timing.gigabytes_per_second(bytes as f64);
        record.set_timing(timing);
        record.figure = finite(gbs);
        record.unit = Some("GB/s".into());
        record.percent_of_limit = finite(100.0 * gbs * 1e9 / peak);
        record.limit = Some(format!("theoretical bandwidth ({:.0} GB/s)", peak / 1e9));
    }
    record.passed = Some(row.check.passed());
    record.error = Some((i64::from(row.check.got) - i64::from(row.check.expected)).abs() as f64);
    record.error_measure = Some("|sum − CPU sum| (i32, wrapping: exact in any order)".into());
    let serde_json::Value::Object(details) = serde_json::json!({
        "ladder": row.kernel.ladder.title(),
        "launches": row.launches,
        "expected": row.check.expected,
        "got": row.check.got,
    }) else {
        unreachable!("an object literal")
    };
    record.details = Some(details);
    row.twin.fill(&mut record, row.registers);
    record
}

/// The table for one input size, printed from the rows' records: each ladder in its own
/// section, its speedups relative to its own first step.
pub fn table(info: &DeviceInfo, n: usize, bytes: usize, rows: &[Row]) -> Table {
    let mut table = ladder_table(
        format!(
            "sum of n = {} i32 ({n} elements, {:.3} GB read) on {}; theoretical {:.0} GB/s",
            human_size(n as u64),
            bytes as f64 / 1e9,
            info.name,
            info.theoretical_bandwidth() / 1e9
        ),
        &["GB/s", "% peak", "step ×", "total ×", "check"],
        &["total ×"],
    );
    let mut ladder: Option<Ladder> = None;
    let (mut first, mut previous): (Option<f64>, Option<f64>) = (None, None);
    for row in rows {
        if ladder != Some(row.kernel.ladder) {
            ladder = Some(row.kernel.ladder);
            (first, previous) = (None, None);
            table.section(row.kernel.ladder.title());
        }
        let record = record(info, n, bytes, row);
        let median = record.median_us;
        let ratio = |base: Option<f64>| Cell::Num(base.zip(median).map_or(f64::NAN, |(b, m)| b / m), 2);
        let check = if row.check.passed() {
            "ok".to_string()
        } else {
            format!("WRONG: got {} expected {}", row.check.got, row.check.expected)
        };
        let mut cells = vec![
            row.kernel.id.into(),
            Cell::Int(i64::from(row.block)),
            Cell::Int(row.launches as i64),
            row.timing.map_or(Cell::Num(f64::NAN, 1), Cell::Time),
            row.timing.map_or("-".into(), |t| Cell::Int(t.repetitions as i64)),
            record.spread_percent.map_or("-".into(), |s| format!("{s:.1}%").into()),
        ];
        cells.extend(crate::twins::cells(&record));
        cells.extend([
            Cell::Figure(record.figure.unwrap_or(f64::NAN), 1, "GB/s"),
            Cell::OfLimit(record.percent_of_limit.unwrap_or(f64::NAN), 1),
            ratio(previous),
            ratio(first),
            check.into(),
        ]);
        table.push(cells);
        first = first.or(median);
        previous = median.or(previous);
    }
    table
}

/// The records of one input size, in the table's order.
pub fn records(info: &DeviceInfo, n: usize, bytes: usize, rows: &[Row]) -> Vec<Record> {
    rows.iter().map(|row| record(info, n, bytes, row)).collect()
}

/// The unit of work "`kernel` over n elements", as progress and the list of what was not
/// run name it.
pub fn item(kernel: &str, n: usize) -> String {
    format!("{kernel}, n = {}", human_size(n as u64))
}
