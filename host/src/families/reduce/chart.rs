//! The reduction ladder at one input size as a chart (`--plots DIR`): each step's
//! bandwidth, coloured by where it comes from (Harris's talk, “Making vector sum really
//! fast”, the project), against the device's theoretical bandwidth and, when the run
//! measured it, CUB's.

use crate::base::gpu::DeviceInfo;
use crate::families::reduce::report::Row;
use crate::report::plot::ladder::LadderChart;

/// The chart of one input size's rows: `reduce-ladder-n2p30.svg`. `cub` is CUB's
/// `DeviceReduce::Sum` in GB/s over the same bytes, when the run has it (the host does not
/// measure CUB itself: `bench/cub` does, beside it), and is left out otherwise.
pub fn ladder(
    info: &DeviceInfo,
    date: &str,
    n: usize,
    bytes: usize,
    rows: &[Row],
    cub: Option<f64>,
) -> LadderChart {
    let mut chart = LadderChart::reduction(n, &info.name, date);
    chart.note = format!("{:.3} GB read per sum", bytes as f64 / 1e9);
    for row in rows {
        let value = row.timing.as_ref().map(|t| t.gigabytes_per_second(bytes as f64));
        let note = if row.check.passed() { "not timed" } else { "WRONG" };
        chart.step(row.kernel.id, ladder_title(row.kernel.id), value, note);
    }
    chart.limit("theoretical (2 × memory clock × bus width)", info.theoretical_bandwidth() / 1e9, None);
    if let Some(cub) = cub {
        chart.baseline("CUB DeviceReduce::Sum", cub);
    }
    chart
}

/// The title of the ladder a step belongs to (by its id's letters), which colours its bar:
/// Harris's steps, those of “Making vector sum really fast”, the project's own.
fn ladder_title(id: &str) -> &'static str {
    use crate::families::family::Family;
    let ladders = super::Reduce.ladders();
    ladders
        .iter()
        .find(|l| {
            id.strip_prefix(l.prefix).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map_or("", |l| l.title)
}
