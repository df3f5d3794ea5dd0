//! The attention family's results for one problem: a record per step and the table printed
//! from the same figures. FLOPs as FlashAttention's papers count them (see
//! [`Problem::flops`]); the limit is the tensor-core ceiling p8 measured in the same run.
//! cuDNN's and FlashAttention-2's figures are added to the records afterwards, by
//! `bench/attention-sdpa.py` in the same device call (PyTorch's SDPA).

use super::problem::Problem;
use super::reference::Check;
use super::registry::AttentionStep;
use crate::base::gpu::DeviceInfo;
use crate::base::precision::Precision;
use crate::families::family::ladder_table;
use crate::measure::timing::Timing;
use crate::report::records::{Record, finite};
use crate::report::table::{Cell, Table};
use crate::twins::TwinResult;

/// What one table is of.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub problem: Problem,
    pub precision: Precision,
}

/// The limit every record of a table is compared with: the best tensor-core rate of its
/// input type on this GPU (TFLOP/s), and what it is.
#[derive(Clone, Debug, Default)]
pub struct Limit {
    pub tflops: Option<f64>,
    pub name: Option<String>,
}

/// One line of a table.
pub struct Row {
    pub step: &'static AttentionStep,
    pub block: Option<u32>,
    pub launches: Option<usize>,
    pub check: Option<Check>,
    pub timing: Option<Timing>,
    pub registers: Option<u32>,
    pub twin: TwinResult,
}

/// The record of one row.
pub fn record(info: &DeviceInfo, setting: &Setting, limit: &Limit, row: &Row) -> Record {
    let p = &setting.problem;
    let _ = info;
    let mut record = Record::new(super::NAME, row.step.id);
    record.variant = Some(variant(p));
    record.precision = Some(setting.precision.short_name().into());
    record.n = Some(p.seq_q as u64);
    let tflops = row.timing.as_ref().map(|t| t.teraflops(p.flops()));
    if let Some(timing) = &row.timing {
        record.set_timing(timing);
        record.figure = tflops.and_then(finite);
        record.unit = Some("TFLOP/s".into());
        if let (Some(t), Some(ceiling)) = (tflops, limit.tflops) {
            record.percent_of_limit = finite(100.0 * t / ceiling);
            record.limit = limit.name.clone();
        }
    }
    if let Some(check) = &row.check {
        record.passed = Some(check.passed());
        record.error = Some(check.max_error);
        record.error_measure = Some(check.method.clone());
    }
    let serde_json::Value::Object(details) = serde_json::json!({
        "batch": p.batch,
        "heads_q": p.heads_q,
        "heads_kv": p.heads_kv,
        "seq_q": p.seq_q,
        "seq_k": p.seq_k,
        "head_dim": p.head_dim,
        "mask": p.mask.name(),
        "layout": p.layout.name(),
        "scale": p.scale(),
        "flops": p.flops(),
        "launches": row.launches,
        "block": row.block,
        "rows_checked": row.check.as_ref().map(|c| c.rows),
        "first_wrong": row.check.as_ref().filter(|c| !c.passed()).map(|c| c.first.clone()),
        "wrong_elements": row.check.as_ref().map(|c| c.wrong),
        "error_over_bound": row.check.as_ref().map(|c| c.max_error_over_bound),
    }) else {
        unreachable!("an object literal")
    };
    record.details = Some(details);
    row.twin.fill(&mut record, row.registers);
    record
}

/// The record's variant: "d128 causal, batch 16 × 16 heads, bshd" (the sequence is its `n`).
fn variant(p: &Problem) -> String {
    let kv = if p.heads_kv == p.heads_q { String::new() } else { format!(" ({} K/V)", p.heads_kv) };
    let keys = if p.seq_k == p.seq_q { String::new() } else { format!(", {} keys", p.seq_k) };
    format!(
        "d{} {}, batch {} × {} heads{kv}{keys}, {}",
        p.head_dim,
        p.mask.name(),
        p.batch,
        p.heads_q,
        p.layout.name()
    )
}

/// The table of one setting, printed from the rows' records.
pub fn table(info: &DeviceInfo, setting: &Setting, limit: &Limit, rows: &[Row]) -> Table {
    let p = &setting.problem;
    let mut table = ladder_table(
        format!(
            "attention forward, {} ({}), {} ({:.3} TFLOP) on {}",
            setting.precision.short_name(),
            "f32 softmax",
            p.describe(),
            p.flops() / 1e12,
            info.name
        ),
        &["TFLOP/s", "% ceiling", "check"],
        &[],
    );
    for row in rows {
        let record = record(info, setting, limit, row);
        let check = match &row.check {
            None => "-".to_string(),
            Some(c) if c.passed() => "ok".to_string(),
            Some(c) => format!("WRONG: {} wrong; {}", c.wrong, c.first),
        };
        let mut cells = vec![
            row.step.id.into(),
            row.block.map_or("-".into(), |b| Cell::Int(i64::from(b))),
            row.launches.map_or("-".into(), |l| Cell::Int(l as i64)),
            row.timing.map_or(Cell::Num(f64::NAN, 1), Cell::Time),
            row.timing.map_or("-".into(), |t| Cell::Int(t.repetitions as i64)),
            record.spread_percent.map_or("-".into(), |s| format!("{s:.1}%").into()),
        ];
        cells.extend(crate::twins::cells(&record));
        cells.extend([
            Cell::Figure(record.figure.unwrap_or(f64::NAN), 1, "TFLOP/s"),
            Cell::OfLimit(record.percent_of_limit.unwrap_or(f64::NAN), 1),
            check.into(),
        ]);
        table.push(cells);
    }
    table.notes.push(
        "FLOPs: 4 · batch · heads · seq_q · seq_k · head dim, halved under the causal mask (FlashAttention's \
         count); % ceiling is over the best tensor-core rate p8 measured for this input type in this run; \
         cuDNN and FlashAttention-2 (PyTorch's SDPA) are timed on the same shapes by bench/attention-sdpa.py"
            .into(),
    );
    if let Some(name) = &limit.name {
        table.notes.push(format!("ceiling: {name}"));
    }
    table
}

/// The unit of work "`step` on this setting", as progress and the list of what was not run
/// name it.
pub fn item(step: &str, setting: &Setting) -> String {
    let p = &setting.problem;
    format!(
        "{step}, {} d{} {} seq {}{}",
        setting.precision.short_name(),
        p.head_dim,
        p.mask.name(),
        p.seq_q,
        if p.seq_k == p.seq_q { String::new() } else { format!("×{}", p.seq_k) }
    )
}
