//! The scan ladder at one setting as a chart (`--plots DIR`): each step's bandwidth against
//! the device's theoretical bandwidth and the copy measured in the same run, beside CUB.

use super::report::{Baselines, Row, Setting, Subject};
use crate::base::gpu::DeviceInfo;
use crate::report::plot::ladder::{LadderChart, size_tag};
use crate::report::records::human_size;

/// The chart of one table: `scan-inclusive-i32-n2p30.svg`, `scan-compaction-i32-n2p30.svg`.
pub fn ladder(
    info: &DeviceInfo,
    date: &str,
    setting: &Setting,
    baselines: &Baselines,
    rows: &[Row],
) -> LadderChart {
    let what = if setting.compaction {
        format!("Compaction of n = {} i32", human_size(setting.n as u64))
    } else {
        format!(
            "{} scan of n = {} {}",
            if setting.exclusive { "Exclusive" } else { "Inclusive" },
            human_size(setting.n as u64),
            setting.element.name()
        )
    };
    let mut chart = LadderChart::new(
        format!("scan-{}-{}-{}", setting.operation(), setting.element.name(), size_tag(setting.n)),
        format!("{what}: bandwidth of each step"),
        "GB/s",
        "GB/s (bytes read and written / median time)",
    );
    chart.device = info.name.clone();
    chart.date = date.into();
    chart.note = format!("{:.3} GB moved per run", setting.bytes as f64 / 1e9);
    for row in rows {
        if let Subject::Step(step) = row.subject {
            let value = row.timing.as_ref().map(|t| t.gigabytes_per_second(setting.bytes as f64));
            let note = if row.check.as_ref().is_some_and(|c| !c.passed()) { "WRONG" } else { "not timed" };
            chart.step(step.id, group(step.id), value, note);
        }
    }
    chart.limit("theoretical (2 × memory clock × bus width)", info.theoretical_bandwidth() / 1e9, None);
    if let Some(copy) = baselines.copy_gbs {
        chart.limit("device-to-device copy, this run", copy, None);
    }
    if let Some(cub) = baselines.cub_gbs {
        chart.baseline(setting.cub_name(), cub);
    }
    chart
}

/// The group a step's bar is coloured by: how many passes its scheme makes.
fn group(id: &str) -> &'static str {
    match super::registry::step(id).map(|s| s.scheme) {
        Some(super::registry::Scheme::ScanThenPropagate) => "scan, then propagate (4n)",
        Some(super::registry::Scheme::ReduceThenScan) => "reduce, then scan (3n)",
        _ => "one pass (2n)",
    }
}
