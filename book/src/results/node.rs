//! The node on the results pages: what the node probes measured over several GPUs of one
//! machine, from a run's records alone. m1's table of every ordered pair (its rows carry
//! `from`, `to` and `path` in their details) becomes a matrix per way of moving data, with
//! the heat map the host drew; m2's all-reduce at each GPU count (`GPUs` in its details)
//! sits beside PyTorch's `torch.distributed`, which `bench/allreduce-torch.py` wrote into the
//! same records (`details.torch_bus_gbs`); m3's sharded sum becomes a table of strong
//! scaling, a column per GPU count.
//!
//! A run of one GPU has none of these records: its page has no node section.

use super::{Links, capitalised, percent};
use crate::markdown::{Align, Table, micros, one_decimal};
use crate::records::{GpuResults, Run};
use host::families::probe::latency::size;
use host::report::records::{Record, human_size};
use serde_json::Value;

/// The probes' ids, as the host registers them.
const M1: &str = "m1_interconnect";
const M2: &str = "m2_allreduce";
const M3: &str = "m3_node_sum";

/// The heat map m1 draws of every pair (`m1-pairs.svg` among the charts).
const PAIRS_CHART: &str = "m1-pairs.svg";

/// The sizes per GPU of the all-reduce table: where latency, then the links, decide.
const ALLREDUCE_BYTES: &[u64] = &[1 << 20, 16 << 20, 256 << 20, 1 << 30, 4 << 30];

/// A number of a record's details.
fn detail(record: &Record, key: &str) -> Option<f64> {
    record.details.as_ref()?.get(key)?.as_f64()
}

/// A text of a record's details.
fn detail_text<'a>(record: &'a Record, key: &str) -> Option<&'a str> {
    record.details.as_ref()?.get(key).and_then(Value::as_str)
}

/// m1's rows of one ordered pair.
fn is_pair(record: &Record) -> bool {
    record.kernel == M1 && detail(record, "from").is_some() && detail(record, "to").is_some()
}

/// m2's and m3's rows, which name their GPU count.
fn of_count<'a>(run: &'a Run, kernel: &str) -> Vec<&'a Record> {
    run.records.iter().filter(|r| r.kernel == kernel && detail(r, "GPUs").is_some()).collect()
}

/// The GPU counts of `records`, ascending.
fn counts(records: &[&Record]) -> Vec<u64> {
    let mut counts: Vec<u64> = records.iter().filter_map(|r| detail(r, "GPUs")).map(|c| c as u64).collect();
    counts.sort();
    counts.dedup();
    counts
}

/// Whether `run` measured the node: pairs of GPUs, or a collective over several.
pub fn is_node_run(run: &Run) -> bool {
    run.records.iter().any(is_pair) || !of_count(run, M2).is_empty() || counts(&of_count(run, M3)).len() > 1
}

/// The node's section of a GPU kind's page: one part per run that measured the node.
pub fn section(gpu: &GpuResults, links: &Links) -> String {
    let mut out = String::new();
    for run in gpu.runs.iter().filter(|r| is_node_run(r)) {
        let gpus = gpu_count(run);
        out += &format!("## The node: {gpus} × {} (`{}`)\n\n", run.device, run.file);
        let mut measured = vec![];
        if run.records.iter().any(is_pair) {
            measured.push("every ordered pair of GPUs (m1)".to_string());
        }
        if !of_count(run, M2).is_empty() {
            measured
                .push("NCCL's all-reduce at each GPU count beside PyTorch's `torch.distributed` (m2)".into());
        }
        if counts(&of_count(run, M3)).len() > 1 {
            measured.push(format!("one array summed over 1 to {gpus} GPUs (m3)"));
        }
        out += &format!(
            "The node probes over {gpus} GPUs of one machine, run {}: {}. Every figure verified on every GPU; \
             NVLink multicast off.\n\n",
            run.date(),
            list(&measured)
        );
        out += &pairs(gpu, run, links);
        out += &allreduce(run);
        out += &scaling(run);
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The GPUs the run used: the most any of its node records names.
fn gpu_count(run: &Run) -> u64 {
    let pair_max = run
        .records
        .iter()
        .filter(|r| is_pair(r))
        .filter_map(|r| Some(detail(r, "from")?.max(detail(r, "to")?) as u64 + 1))
        .max()
        .unwrap_or(0);
    let count_max = run
        .records
        .iter()
        .filter(|r| r.kernel == M2 || r.kernel == M3)
        .filter_map(|r| detail(r, "GPUs"))
        .map(|c| c as u64)
        .max()
        .unwrap_or(0);
    pair_max.max(count_max)
}

/// m1: a matrix per way of moving data (GB/s from a row's GPU to a column's), the copy's
/// latency, and the heat map.
fn pairs(gpu: &GpuResults, run: &Run, links: &Links) -> String {
    let rows: Vec<&Record> = run.records.iter().filter(|r| is_pair(r)).collect();
    if rows.is_empty() {
        return String::new();
    }
    let n = gpu_count(run) as usize;
    let mut methods: Vec<&str> = vec![];
    for record in &rows {
        if let Some(path) = detail_text(record, "path")
            && !methods.contains(&path)
        {
            methods.push(path);
        }
    }
    let bytes = rows.iter().find_map(|r| r.n).map(|n| size(n as usize)).unwrap_or_default();
    let link = rows
        .iter()
        .find(|r| detail_text(r, "path").is_some_and(|p| p.contains("peer access on")))
        .and_then(|r| detail_text(r, "link"))
        .unwrap_or("unknown");
    let mut out = format!(
        "### Every pair of GPUs (m1, {bytes} a transfer)\n\nGB/s from the row's GPU to the column's, each \
         pair and way measured on its own (the link with peer access on, as NVML reports it: {link}; with it off, \
         the copy is staged through the host).\n\n"
    );
    let header: Vec<(String, Align)> = std::iter::once(("from \\ to".to_string(), Align::Left))
        .chain((0..n).map(|b| (format!("GPU {b}"), Align::Right)))
        .collect();
    let header: Vec<(&str, Align)> = header.iter().map(|(name, align)| (name.as_str(), *align)).collect();
    let matrix = |value: &dyn Fn(&Record) -> Option<f64>, method: &str, show: &dyn Fn(f64) -> String| {
        let mut table = Table::new(&header);
        for a in 0..n {
            let mut cells = vec![format!("GPU {a}")];
            for b in 0..n {
                let cell = rows
                    .iter()
                    .find(|r| {
                        detail_text(r, "path") == Some(method)
                            && detail(r, "from") == Some(a as f64)
                            && detail(r, "to") == Some(b as f64)
                    })
                    .map_or(if a == b { "–".to_string() } else { String::new() }, |r| {
                        if r.passed == Some(false) {
                            "WRONG".into()
                        } else {
                            value(r).map(show).unwrap_or_default()
                        }
                    });
                cells.push(cell);
            }
            table.row(cells);
        }
        table.render()
    };
    for method in &methods {
        out += &format!("{}:\n\n", capitalised(method));
        out += &matrix(&|r| r.figure, method, &one_decimal);
        out += "\n";
    }
    if let Some(copy) = methods.iter().find(|m| m.contains("peer access on") && m.starts_with("copy")) {
        out += "Latency of one 8-byte copy (peer access on), µs:\n\n";
        out += &matrix(&|r| detail(r, "8-byte µs"), copy, &micros);
        out += "\n";
    }
    if gpu.charts.iter().any(|c| c == PAIRS_CHART) {
        out += &format!(
            "![Every pair of {n} × {}: GB/s by way of moving data]({})\n\n",
            run.device,
            (links.chart)(&gpu.kind, PAIRS_CHART)
        );
    }
    out
}

/// m2: bus bandwidth at a few sizes, per GPU count, beside PyTorch's.
fn allreduce(run: &Run) -> String {
    let records = of_count(run, M2);
    if records.is_empty() {
        return String::new();
    }
    let counts = counts(&records);
    let mut header: Vec<(String, Align)> =
        vec![("type".into(), Align::Left), ("bytes per GPU".into(), Align::Right)];
    for c in &counts {
        header.push((format!("{c} GPUs"), Align::Right));
        header.push(("torch".into(), Align::Right));
        header.push(("% of torch".into(), Align::Right));
    }
    let header: Vec<(&str, Align)> = header.iter().map(|(name, align)| (name.as_str(), *align)).collect();
    let mut table = Table::new(&header);
    let mut types: Vec<&str> = vec![];
    for record in &records {
        if let Some(t) = detail_text(record, "type")
            && !types.contains(&t)
        {
            types.push(t);
        }
    }
    for t in &types {
        for &bytes in ALLREDUCE_BYTES {
            let of = |c: u64| {
                records.iter().find(|r| {
                    detail_text(r, "type") == Some(t)
                        && r.n == Some(bytes)
                        && detail(r, "GPUs") == Some(c as f64)
                })
            };
            if counts.iter().all(|&c| of(c).is_none()) {
                continue;
            }
            let mut cells = vec![t.to_string(), size(bytes as usize)];
            for &c in &counts {
                let record = of(c);
                cells.push(record.map(|r| figure_or_wrong(r)).unwrap_or_default());
                cells.push(
                    record.and_then(|r| detail(r, "torch_bus_gbs")).map(one_decimal).unwrap_or_default(),
                );
                cells.push(record.map(|r| percent(r.percent_of_vendor)).unwrap_or_default());
            }
            table.row(cells);
        }
    }
    let vendor = records.iter().find_map(|r| r.vendor.clone());
    let mut out = "### All-reduce (m2): bus GB/s at each GPU count\n\n".to_string();
    out += &format!(
        "NCCL's sum all-reduce driven by the host (one process, every GPU), against {} on the same GPUs and \
         sizes in the same call. Bus GB/s = bytes per GPU / time × 2(n − 1)/n, as nccl-tests counts it.\n\n",
        vendor
            .as_deref()
            .map_or("PyTorch's `torch.distributed` (not run for this file)".to_string(), |v| format!(
                "`{v}`"
            ))
    );
    out += &table.without_empty_columns().render();
    out += "\n";
    out
}

/// A record's figure, or `WRONG` where its check failed.
fn figure_or_wrong(record: &Record) -> String {
    if record.passed == Some(false) {
        "WRONG".into()
    } else {
        record.figure.map(one_decimal).unwrap_or_default()
    }
}

/// m3: the time of the whole sum at each GPU count, and its % of linear scaling.
fn scaling(run: &Run) -> String {
    let records = of_count(run, M3);
    let counts = counts(&records);
    if counts.len() < 2 {
        return String::new();
    }
    let mut header: Vec<(String, Align)> = vec![("elements (i32)".into(), Align::Left)];
    for c in &counts {
        header.push((format!("{c} GPU{} µs", if *c == 1 { "" } else { "s" }), Align::Right));
        if *c > 1 {
            header.push(("% of linear".into(), Align::Right));
        }
    }
    header.push(("collective µs".into(), Align::Right));
    let header: Vec<(&str, Align)> = header.iter().map(|(name, align)| (name.as_str(), *align)).collect();
    let mut table = Table::new(&header);
    let mut sizes: Vec<u64> = records.iter().filter_map(|r| r.n).collect();
    sizes.sort();
    sizes.dedup();
    let most = counts.last().copied().unwrap_or(1);
    for n in sizes {
        let of = |c: u64| records.iter().find(|r| r.n == Some(n) && detail(r, "GPUs") == Some(c as f64));
        let mut cells = vec![format!("{} ({})", human_size(n), gib(n * 4))];
        for &c in &counts {
            let record = of(c);
            cells.push(match record {
                Some(r) if r.passed == Some(false) => "WRONG".into(),
                Some(r) => r.median_us.map(micros).unwrap_or_default(),
                None => String::new(),
            });
            if c > 1 {
                cells.push(record.map(|r| percent(r.percent_of_limit)).unwrap_or_default());
            }
        }
        cells.push(of(most).and_then(|r| detail(r, "collective µs")).map(micros).unwrap_or_default());
        table.row(cells);
    }
    let mut out = "### One array summed over the node (m3): strong scaling\n\n".to_string();
    out += &format!(
        "The same i32 array split into one shard per GPU, each summed by the reduction's best step, the partial \
         sums combined by an NCCL all-reduce; the time of the whole sum, L2s flushed, and its % of linear scaling \
         (one GPU's time / this time / GPUs). Collective µs: the all-reduce of one i32 alone, on {most} GPUs.\n\n"
    );
    out += &table.render();
    out += "\n";
    out
}

/// `64 GiB`, `0.25 GiB`: bytes in GiB.
fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    if g >= 1.0 { format!("{g:.0} GiB") } else { format!("{g} GiB") }
}

#[cfg(test)]
mod tests {
    //! The node section on records made as the probes make theirs: tables of the probes'
    //! columns, turned into records by the host's own `from_table`.

    use super::*;
    use crate::markdown::MAX_TABLE_WIDTH;
    use crate::results::committed_links;
    use host::families::probe::{allreduce, interconnect, node_sum};
    use host::report::records::from_table;
    use host::report::table::{Cell, Table as HostTable};

    fn run(records: Vec<Record>) -> Run {
        Run {
            file: "node.json".into(),
            path: "docs/results/h200/node.json".into(),
            device: "NVIDIA H200".into(),
            driver: Some("13.0".into()),
            date_utc: "2026-11-27T18:00:00Z".into(),
            bandwidth_gbs: None,
            twins: "not run".into(),
            twins_ran: false,
            heat_s: 0.0,
            back_to_back: 1,
            records,
        }
    }

    /// m1's pair table over `n` GPUs, the pair 2 → 1's staged copy WRONG.
    fn pair_records(n: usize) -> Vec<Record> {
        let mut table = HostTable::new("pairs", interconnect::PAIR_COLUMNS);
        for (m, path) in ["copy (peer access off)", "copy (peer access on)"].into_iter().enumerate() {
            for a in 0..n {
                for b in (0..n).filter(|&b| b != a) {
                    let wrong = m == 0 && (a, b) == (2, 1);
                    let gbs = if m == 0 { 38.0 } else { 390.0 + a as f64 + b as f64 / 10.0 };
                    table.push(vec![
                        Cell::Int(a as i64),
                        Cell::Int(b as i64),
                        path.into(),
                        Cell::Size(1 << 28),
                        Cell::Num(f64::NAN, 1),
                        Cell::Figure(if wrong { f64::NAN } else { gbs }, 1, "GB/s"),
                        Cell::OfLimit(100.0 * gbs / 478.1, 1),
                        if m == 0 { "PCIe Gen5 ×16: 63.0 GB/s" } else { "NVLink ×18: 478.1 GB/s" }.into(),
                        Cell::Num(if m == 0 { 17.5 } else { 8.25 }, 1),
                        Cell::Check(!wrong),
                    ]);
                }
            }
        }
        from_table("probe", M1, &table)
    }

    fn allreduce_records() -> Vec<Record> {
        let mut table = HostTable::new("m2", allreduce::COLUMNS);
        for gpus in [2, 4] {
            for log2 in [20, 30, 32] {
                let bus = if gpus == 2 { 327.0 } else { 355.0 } - f64::from(32 - log2);
                table.push(vec![
                    Cell::Int(gpus),
                    "i32".into(),
                    Cell::Size(1 << log2),
                    Cell::Num(f64::NAN, 1),
                    Cell::Figure(bus, 1, "GB/s"),
                    Cell::OfLimit(f64::NAN, 1),
                    Cell::Num(bus, 1),
                    Cell::Check(true),
                ]);
            }
        }
        let mut records = from_table("probe", M2, &table);
        // What bench/allreduce-torch.py writes: PyTorch's figure beside the host's.
        for record in records.iter_mut().filter(|r| r.n == Some(1 << 30)) {
            record.details.as_mut().unwrap().insert("torch_bus_gbs".into(), Value::from(340.0));
            record.vendor = Some("torch.distributed (NCCL 2.28.9)".into());
            record.percent_of_vendor = Some(100.0 * record.figure.unwrap() / 340.0);
        }
        records
    }

    fn scaling_records() -> Vec<Record> {
        let mut table = HostTable::new("m3", node_sum::COLUMNS);
        for log2 in [24u32, 35] {
            for gpus in [1i64, 2, 4] {
                let one = if log2 == 24 { 20.6 } else { 30300.0 };
                let us = if log2 == 24 { one + 5.0 * gpus as f64 } else { one / gpus as f64 };
                table.push(vec![
                    Cell::Int(gpus),
                    Cell::Size(1 << log2),
                    Cell::Num(us, 1),
                    Cell::Figure(1.0, 1, "GB/s"),
                    Cell::OfLimit(100.0 * one / us / gpus as f64, 1),
                    Cell::Num(us, 1),
                    Cell::Num(if gpus == 1 { f64::NAN } else { 22.0 }, 1),
                    Cell::Num(one / us, 2),
                    Cell::Check(true),
                ]);
            }
        }
        let mut records = from_table("probe", M3, &table);
        for record in &mut records {
            record.median_us = detail(record, "median µs");
        }
        records
    }

    fn gpu(records: Vec<Record>, charts: Vec<String>) -> GpuResults {
        GpuResults { kind: "h200".into(), runs: vec![run(records)], charts, drawn: Default::default() }
    }

    #[test]
    fn a_node_run_gets_its_matrices_beside_torch_and_its_scaling() {
        let mut records = pair_records(4);
        records.extend(allreduce_records());
        records.extend(scaling_records());
        let text = section(&gpu(records, vec![PAIRS_CHART.into()]), &committed_links());
        assert!(text.starts_with("## The node: 4 × NVIDIA H200 (`node.json`)"), "{text}");
        // A matrix per way, rows from, columns to, the diagonal a dash, the wrong pair said.
        assert!(text.contains("Copy (peer access on):"), "{text}");
        assert!(text.contains("| GPU 3     | 393.0 | 393.1 | 393.2 |     – |"), "{text}");
        assert!(text.contains("### Every pair of GPUs (m1, 256 MiB a transfer)"), "{text}");
        assert!(text.contains("WRONG"), "the wrong pair is shown as such");
        assert!(text.contains("Latency of one 8-byte copy"), "{text}");
        assert!(text.contains("](h200/charts/m1-pairs.svg)"), "the heat map is shown");
        // The all-reduce beside PyTorch where it ran, blank where it did not.
        assert!(text.contains("`torch.distributed (NCCL 2.28.9)`"), "{text}");
        assert!(
            text.contains(
                "| i32  |         1 GiB |  325.0 | 340.0 |       95.6 |  353.0 | 340.0 |      103.8 |"
            ),
            "{text}"
        );
        // Scaling: a column per count, the collective of the most GPUs.
        assert!(
            text.contains("| elements (i32)    | 1 GPU µs | 2 GPUs µs | % of linear | 4 GPUs µs |"),
            "{text}"
        );
        assert!(text.contains("| 2^35 (128 GiB)"), "{text}");
        for line in text.lines().filter(|l| l.starts_with('|')) {
            assert!(crate::markdown::width(line) < MAX_TABLE_WIDTH, "too wide: {line}");
        }
    }

    #[test]
    fn a_run_of_one_gpu_has_no_node_section() {
        let mut one = pair_records(1);
        one.extend(scaling_records().into_iter().filter(|r| detail(r, "GPUs") == Some(1.0)));
        assert!(one.iter().all(|r| !is_pair(r)));
        assert_eq!(section(&gpu(one, vec![]), &committed_links()), "");
    }
}
