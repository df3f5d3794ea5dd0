//! The run in machine-readable form: one [`Record`] per kernel and size, with the same
//! fields in every family, written as JSON (`--json`) and CSV (`--csv`) and read back by
//! `host compare`.
//!
//! Reductions and GEMM build their records directly: each is one kernel at one size.
//! Probes have no natural "kernel × size" figure (a stride sweep, a latency ladder, launch
//! costs), so their records keep the shape of their tables ([`from_table`]): one
//! record per row, the kernel is the probe's id, the variant the row's labels, the whole
//! row in `details`, and the common fields filled from the cells that carry them (a
//! timing, the row's figure, its % of a limit, a size, a check) — left empty where the
//! probe has none (p6 and p7 count cycles inside the kernel, not CUDA-event times).

use crate::base::error::{Error, Result};
use crate::measure::timing::{Stop, Timing};
use crate::report::table::{Cell, Table};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// One kernel (or probe row) at one size. Every field but the family and the kernel may
/// be empty (`null` in JSON, an empty cell in CSV) where it does not apply: a kernel that
/// failed its check has no time, a reduction no vendor baseline, FP32 GEMM no
/// tensor-core ceiling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The family's name (`reduce`, `probe`, `gemm`: `Family::name`).
    pub family: String,
    /// The registry id (`x4_packed_tally`, `w02_tma_pipeline`), `cublas` for the vendor's
    /// GEMM, or the probe's id.
    pub kernel: String,
    /// What else tells apart records of one kernel at one size: a reduction's block size, a
    /// probe row's labels (`bytes=4, stride=2`).
    pub variant: Option<String>,
    /// Element type of the inputs: `i32` (reductions), `f32`, `f16`, `bf16` (GEMM).
    pub precision: Option<String>,
    /// GEMM's M×N×K; `n` alone is a reduction's (or a probe's) number of elements.
    pub m: Option<u64>,
    pub n: Option<u64>,
    pub k: Option<u64>,
    /// The timed repetitions, in µs: median, fastest, slowest.
    pub median_us: Option<f64>,
    pub min_us: Option<f64>,
    pub max_us: Option<f64>,
    /// Interquartile range over the median, in percent ([`Timing::spread_percent`]): the
    /// noise `host compare` weighs a difference against.
    pub spread_percent: Option<f64>,
    pub repetitions: Option<u64>,
    /// What ended the timing: `settled` (the minimum reached, the median's noise under the
    /// target), `budget` (cut short by the time budget) or `one_launch` (one launch
    /// showed the minimum would not fit the budget). Absent in files older than it.
    pub stop: Option<Stop>,
    /// The headline figure (`figure` `unit`: 4671.9 GB/s, 612.3 TFLOP/s).
    pub figure: Option<f64>,
    pub unit: Option<String>,
    /// The figure as a percentage of the hardware's limit, and which limit.
    pub percent_of_limit: Option<f64>,
    pub limit: Option<String>,
    /// The figure as a percentage of the vendor library's in the same run, and which one.
    pub percent_of_vendor: Option<f64>,
    pub vendor: Option<String>,
    /// The check against the CPU: whether it passed, the error (empty when the output was
    /// not even finite), and what the error measures.
    pub passed: Option<bool>,
    pub error: Option<f64>,
    pub error_measure: Option<String>,
    /// Registers per thread of the kernel (`cuFuncGetAttribute`), for ladder steps.
    pub registers: Option<u64>,
    /// The step's CUDA C++ twin (`twins/`), on the same buffers: its median time, its
    /// registers per thread, its check, Rust's median over the twin's (above 1: Rust is
    /// slower), and why it was not run or what it got wrong. Absent in older files.
    pub cpp_median_us: Option<f64>,
    pub cpp_registers: Option<u64>,
    pub cpp_passed: Option<bool>,
    pub rust_over_cpp: Option<f64>,
    pub cpp_note: Option<String>,
    /// Fields of one family only: a probe's whole table row, a reduction's launches.
    pub details: Option<Map<String, Value>>,
}

/// The CSV columns: where the run ran, then every field of [`Record`] in order.
pub const CSV_COLUMNS: &[&str] = &[
    "device",
    "date_utc",
    "family",
    "kernel",
    "variant",
    "precision",
    "m",
    "n",
    "k",
    "median_us",
    "min_us",
    "max_us",
    "spread_percent",
    "repetitions",
    "stop",
    "figure",
    "unit",
    "percent_of_limit",
    "limit",
    "percent_of_vendor",
    "vendor",
    "passed",
    "error",
    "error_measure",
    "registers",
    "cpp_median_us",
    "cpp_registers",
    "cpp_passed",
    "rust_over_cpp",
    "cpp_note",
    "details",
];

/// `Some(v)` for a finite `v`: a NaN or infinite figure is no figure.
pub fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl Record {
    /// A record with only its family and kernel.
    pub fn new(family: impl Into<String>, kernel: impl Into<String>) -> Self {
        Self {
            family: family.into(),
            kernel: kernel.into(),
            variant: None,
            precision: None,
            m: None,
            n: None,
            k: None,
            median_us: None,
            min_us: None,
            max_us: None,
            spread_percent: None,
            repetitions: None,
            stop: None,
            figure: None,
            unit: None,
            percent_of_limit: None,
            limit: None,
            percent_of_vendor: None,
            vendor: None,
            passed: None,
            error: None,
            error_measure: None,
            registers: None,
            cpp_median_us: None,
            cpp_registers: None,
            cpp_passed: None,
            rust_over_cpp: None,
            cpp_note: None,
            details: None,
        }
    }

    /// Fills the timing fields from a measurement.
    pub fn set_timing(&mut self, t: &Timing) {
        self.median_us = finite(t.median_ms * 1e3);
        self.min_us = finite(t.min_ms * 1e3);
        self.max_us = finite(t.max_ms * 1e3);
        self.spread_percent = finite(t.spread_percent());
        self.repetitions = Some(t.repetitions as u64);
        self.stop = Some(t.stop);
    }

    /// What `host compare` matches records on.
    pub fn key(&self) -> Key {
        Key {
            family: self.family.clone(),
            kernel: self.kernel.clone(),
            variant: self.variant.clone(),
            precision: self.precision.clone(),
            size: (self.m, self.n, self.k),
        }
    }
}

/// A record's identity across runs: family, kernel, variant, precision and size.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub family: String,
    pub kernel: String,
    pub variant: Option<String>,
    pub precision: Option<String>,
    pub size: (Option<u64>, Option<u64>, Option<u64>),
}

impl Key {
    /// The size as people write it: `4096×4096×4096`, `n=2^30`, or empty.
    pub fn size_text(&self) -> String {
        match self.size {
            (Some(m), Some(n), Some(k)) => format!("{m}×{n}×{k}"),
            (None, Some(n), None) => format!("n={}", human_size(n)),
            (m, n, k) => [("m", m), ("n", n), ("k", k)]
                .iter()
                .filter_map(|(name, v)| v.map(|v| format!("{name}={v}")))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = [
            Some(self.family.clone()),
            Some(self.kernel.clone()),
            self.variant.as_ref().map(|v| format!("[{v}]")),
            self.precision.clone(),
            Some(self.size_text()).filter(|s| !s.is_empty()),
        ];
        f.write_str(&parts.into_iter().flatten().collect::<Vec<_>>().join(" "))
    }
}

/// `2^K` for powers of two from 1024 up, the decimal number otherwise.
pub fn human_size(n: u64) -> String {
    if n.is_power_of_two() && n >= 1024 { format!("2^{}", n.trailing_zeros()) } else { n.to_string() }
}

/// One record per row of a table of `kernel` (a probe's; see the module's doc), in family
/// `family`: the leading text and integer cells are the variant (`column=value, …`), the
/// typed cells fill the common fields, and the row itself goes to `details`.
pub fn from_table(family: &str, kernel: &str, table: &Table) -> Vec<Record> {
    (0..table.rows.len())
        .map(|index| {
            let row = &table.rows[index];
            let mut record = Record::new(family, kernel);
            let labels: Vec<String> = table
                .columns
                .iter()
                .zip(row)
                .take_while(|(_, cell)| cell.is_label())
                .map(|(column, cell)| format!("{column}={}", cell.render()))
                .collect();
            record.variant = (!labels.is_empty()).then(|| labels.join(", "));
            for (column, cell) in table.columns.iter().zip(row) {
                match cell {
                    Cell::Time(t) if record.median_us.is_none() => record.set_timing(t),
                    Cell::Figure(v, _, unit) if record.unit.is_none() => {
                        record.figure = finite(*v);
                        record.unit = Some((*unit).into());
                    }
                    Cell::OfLimit(v, _) if record.limit.is_none() => {
                        record.percent_of_limit = finite(*v);
                        record.limit = Some(column.strip_prefix("% of ").unwrap_or(column).into());
                    }
                    Cell::Size(n) => record.n = Some(*n),
                    Cell::Check(passed) => record.passed = Some(*passed),
                    _ => {}
                }
            }
            record.details = Some(table.row_json(index));
            record
        })
        .collect()
}

/// Quotes a CSV field when it holds a comma, a quote, a line break or edge spaces
/// (RFC 4180: inside quotes a quote is doubled).
pub fn csv_field(text: &str) -> String {
    let needs_quotes = text.contains([',', '"', '\n', '\r']) || text.trim() != text;
    if needs_quotes { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// The records as CSV: a header of [`CSV_COLUMNS`], then one line per record, each
/// starting with the device and the date of the run so that files of several runs can be
/// concatenated; empty where a field does not apply, `details` as JSON text.
pub fn csv(device: &str, date_utc: &str, records: &[Record]) -> String {
    let line = |fields: Vec<String>| fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",") + "\n";
    let mut out = line(CSV_COLUMNS.iter().map(|c| c.to_string()).collect());
    for record in records {
        let Value::Object(fields) = serde_json::to_value(record).expect("a record serializes") else {
            unreachable!("a record is a JSON object")
        };
        let mut cells = vec![device.to_string(), date_utc.to_string()];
        cells.extend(CSV_COLUMNS[2..].iter().map(|column| match &fields[*column] {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }));
        out += &line(cells);
    }
    out
}

/// The results file of `--json`: the run's header (device, date, seed, timing, …) with the
/// records under `records`, pretty-printed.
pub fn results_json(mut header: Value, records: &[Record]) -> String {
    header["records"] = serde_json::to_value(records).expect("records serialize");
    serde_json::to_string_pretty(&header).expect("results serialize") + "\n"
}

/// Writes `text` to `path`, naming the file in the error.
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::new(format!("writing {}: {e}", path.display())))
}

/// Step ids as they were in earlier runs, and today's: the tensor-core steps were numbered
/// with two digits on 2026-11-24 (`t1`…`t9` became `t01`…`t09`, and `t2_ldmatrix`, from the
/// file `t2_ldmatrix_swizzle.rs`, became `t02_ldmatrix`, like its file), and on 2026-11-27
/// the Hopper steps `t05`…`t17` became a ladder of their own, `w01`…`w13`, so that the
/// portable `mma.sync` steps (`t`) can grow before them; on 2026-11-28 the scan's producer ring
/// (`s14`, for a day) went before the compaction steps (`s12`, `s13` became `s13`, `s14`). Records of older runs are read
/// under today's ids, so that `host compare` matches them with today's.
pub const RENAMED: &[(&str, &str)] = &[
    ("t1_mma_sync", "t01_mma_sync"),
    ("t2_ldmatrix", "t02_ldmatrix"),
    ("t3_pipeline", "t03_pipeline"),
    ("t4_warp_tile", "t04_warp_tile"),
    ("t5_wgmma", "w01_wgmma"),
    ("t6_tma", "w02_tma"),
    ("t7_persistent", "w03_persistent"),
    ("t8_multicast", "w04_multicast"),
    ("t9_tma_store", "w05_tma_store"),
    ("t05_wgmma", "w01_wgmma"),
    ("t06_tma", "w02_tma"),
    ("t07_persistent", "w03_persistent"),
    ("t08_multicast", "w04_multicast"),
    ("t09_tma_store", "w05_tma_store"),
    ("t10_setmaxnreg", "w06_setmaxnreg"),
    ("t11_stream_k", "w07_stream_k"),
    ("t12_latency_trims", "w08_latency_trims"),
    ("t13_small_tile", "w09_small_tile"),
    ("t14_narrow_tile", "w10_narrow_tile"),
    ("t15_aligned_stream_k", "w11_aligned_stream_k"),
    ("t16_pipelined_fixup", "w12_pipelined_fixup"),
    ("t17_shares_first", "w13_shares_first"),
    ("s12_compaction", "s13_compaction"),
    ("s13_staged_compaction", "s14_staged_compaction"),
    ("s14_producer_ring", "s12_producer_ring"),
];

/// `kernel`'s id today: renamed if it starts with an old step's name ([`RENAMED`]), else
/// unchanged.
pub fn current_id(kernel: &str) -> std::borrow::Cow<'_, str> {
    for (old, new) in RENAMED {
        if let Some(rest) = kernel.strip_prefix(old)
            && (rest.is_empty() || rest.starts_with('_'))
        {
            return format!("{new}{rest}").into();
        }
    }
    kernel.into()
}
