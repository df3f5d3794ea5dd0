//! The results table (stdout); progress and diagnostics go to stderr.

use crate::gpu::DeviceInfo;
use crate::reduce::registry::{Ladder, ReduceKernel};
use crate::reduce::runner::Check;
use crate::timing::Timing;

/// One kernel's line: how it ran, whether it was right, how fast.
pub struct Row {
    pub kernel: &'static ReduceKernel,
    pub block: u32,
    pub launches: usize,
    pub check: Check,
    pub timing: Option<Timing>,
}

/// Effective bandwidth in GB/s: bytes the algorithm must read over the median time.
pub fn gigabytes_per_second(bytes: usize, timing: &Timing) -> f64 {
    bytes as f64 / (timing.median_ms * 1e-3) / 1e9
}

fn human_size(n: usize) -> String {
    if n.is_power_of_two() && n >= 1024 { format!("2^{}", n.trailing_zeros()) } else { n.to_string() }
}

/// Prints the table for one input size.
pub fn print_table(info: &DeviceInfo, n: usize, bytes: usize, rows: &[Row]) {
    let peak = info.theoretical_bandwidth();
    println!();
    println!(
        "sum of n = {} i32 ({n} elements, {:.3} GB read) on {}; theoretical {:.0} GB/s",
        human_size(n),
        bytes as f64 / 1e9,
        info.name,
        peak / 1e9
    );
    println!(
        "{:<26} {:>5} {:>4} {:>11} {:>7} {:>8} {:>6} {:>7} {:>7}  {}",
        "kernel", "block", "runs", "median µs", "spread", "GB/s", "% peak", "step ×", "total ×", "check"
    );
    let mut ladder: Option<Ladder> = None;
    let (mut first, mut previous): (Option<f64>, Option<f64>) = (None, None);
    for row in rows {
        if ladder != Some(row.kernel.ladder) {
            ladder = Some(row.kernel.ladder);
            (first, previous) = (None, None);
            println!("-- {}", row.kernel.ladder.title());
        }
        let check = if row.check.passed() {
            "ok".to_string()
        } else {
            format!("WRONG: got {} expected {}", row.check.got, row.check.expected)
        };
        match row.timing {
            Some(t) => {
                let gbs = gigabytes_per_second(bytes, &t);
                let ratio =
                    |base: Option<f64>| base.map_or("-".to_string(), |b| format!("{:.2}", b / t.median_ms));
                println!(
                    "{:<26} {:>5} {:>4} {:>11.1} {:>6.1}% {:>8.1} {:>6.1} {:>7} {:>7}  {check}",
                    row.kernel.id,
                    row.block,
                    row.launches,
                    t.median_ms * 1e3,
                    t.spread_percent(),
                    gbs,
                    100.0 * gbs * 1e9 / peak,
                    ratio(previous),
                    ratio(first),
                );
                first = first.or(Some(t.median_ms));
                previous = Some(t.median_ms);
            }
            None => println!(
                "{:<26} {:>5} {:>4} {:>11} {:>7} {:>8} {:>6} {:>7} {:>7}  {check}",
                row.kernel.id, row.block, row.launches, "-", "-", "-", "-", "-", "-"
            ),
        }
    }
}

/// One input size's rows as JSON records.
pub fn reduction_json(n: usize, bytes: usize, info: &DeviceInfo, rows: &[Row]) -> serde_json::Value {
    let peak = info.theoretical_bandwidth();
    let records: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            let timing = row.timing.map(|t| {
                let gbs = gigabytes_per_second(bytes, &t);
                serde_json::json!({
                    "median_us": t.median_ms * 1e3,
                    "min_us": t.min_ms * 1e3,
                    "max_us": t.max_ms * 1e3,
                    "repetitions": t.repetitions,
                    "gbs": gbs,
                    "percent_of_theoretical": 100.0 * gbs * 1e9 / peak,
                })
            });
            serde_json::json!({
                "kernel": row.kernel.id,
                "ladder": row.kernel.ladder.title(),
                "block": row.block,
                "launches": row.launches,
                "correct": row.check.passed(),
                "expected": row.check.expected,
                "got": row.check.got,
                "timing": timing,
            })
        })
        .collect();
    serde_json::json!({ "n": n, "bytes_read": bytes, "kernels": records })
}
