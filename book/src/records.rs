//! The committed records: `docs/results/<gpu>/*.json`, each what `host --json` wrote for
//! one run, and the run's charts in `docs/results/<gpu>/charts/`. Records are read with the
//! host's own reader ([`host::report::compare::parse`]), which also reads older step ids
//! under today's names.

use crate::{Repo, Result};
use host::report::records::Record;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Where the committed records live, from the repository root.
pub const RESULTS_DIR: &str = "docs/results";

/// One results file: one run of the host.
#[derive(Clone, Debug)]
pub struct Run {
    /// The file's name (`suite.json`).
    pub file: String,
    /// Its path from the repository root (`docs/results/h100/suite.json`).
    pub path: String,
    /// The device's name as the driver gives it (`NVIDIA H100 80GB HBM3`).
    pub device: String,
    /// The driver's CUDA version (`13.0`), when the file has it.
    pub driver: Option<String>,
    /// When the run started, as the file says (`2026-11-24T23:04:05Z`).
    pub date_utc: String,
    /// The theoretical memory bandwidth the reductions are measured against, in GB/s.
    pub bandwidth_gbs: Option<f64>,
    /// How the C++ twins ran (`NVRTC 13.0, compute_90a`), or why they did not.
    pub twins: String,
    /// Whether the twins ran beside their steps in this run.
    pub twins_ran: bool,
    /// Seconds each kernel ran untimed before its repetitions (`host --heat`): above zero, the
    /// run was timed under steady load, at the clock the power cap holds; zero, from a cool
    /// start.
    pub heat_s: f64,
    /// Launches queued back to back in each repetition (`host --back-to-back`); 1 in the runs
    /// before the option, whose repetitions each followed a wait.
    pub back_to_back: u64,
    pub records: Vec<Record>,
}

impl Run {
    /// The date as people read it: `2026-11-24 23:04 UTC`.
    pub fn date(&self) -> String {
        let text = self.date_utc.trim_end_matches('Z');
        match text.split_once('T') {
            Some((day, time)) => format!("{day} {} UTC", time.get(..5).unwrap_or(time)),
            None => self.date_utc.clone(),
        }
    }

    /// Whether its kernels were timed under steady load (`host --heat`).
    pub fn heated(&self) -> bool {
        self.heat_s > 0.0
    }

    /// How near its timing comes to a kernel's steady load, for choosing between figures of
    /// one problem: 0 from a cool start, 1 heated, 2 heated and several launches back to back
    /// a repetition (`--back-to-back`: no idle gap lends the kernel clock).
    pub fn steadiness(&self) -> u8 {
        match (self.heated(), self.back_to_back > 1) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        }
    }

    /// The day alone: `2026-11-24`.
    pub fn day(&self) -> &str {
        self.date_utc.split('T').next().unwrap_or(&self.date_utc)
    }
}

/// Every run committed for one kind of GPU.
#[derive(Clone, Debug)]
pub struct GpuResults {
    /// The folder's name (`h100`): the GPU kind.
    pub kind: String,
    /// Its runs: `suite.json` first (the default run), then the others by name.
    pub runs: Vec<Run>,
    /// The run's charts (`charts/*.svg`) by file name, sorted; empty where none were kept.
    pub charts: Vec<String>,
    /// The date of the run that drew each chart, as its subtitle gives it (`2026-11-25 02:56
    /// UTC`, [`Run::date`]'s form), by file name; a chart that gives none is not here.
    pub drawn: BTreeMap<String, String>,
}

impl GpuResults {
    /// The device's name, from the first run.
    pub fn device(&self) -> &str {
        self.runs.first().map_or(self.kind.as_str(), |r| r.device.as_str())
    }

    /// The folder, from the repository root.
    pub fn dir(&self) -> String {
        format!("{RESULTS_DIR}/{}", self.kind)
    }
}

/// Every GPU kind's results under `docs/results/`, by folder name. An error names the file
/// that cannot be read and why.
pub fn load_all(repo: &Repo) -> Result<Vec<GpuResults>> {
    let dir = repo.root.join(RESULTS_DIR);
    let mut kinds: Vec<String> =
        read_dir_names(&dir)?.into_iter().filter(|name| dir.join(name).is_dir()).collect();
    kinds.sort();
    if kinds.is_empty() {
        return Err(format!(
            "no results in {}: each GPU kind is a folder there (`h100/`) holding the JSON files of \
             `host --json`",
            dir.display()
        ));
    }
    kinds.iter().map(|kind| load(repo, kind)).collect()
}

/// The results of one GPU kind (`docs/results/<kind>/`).
pub fn load(repo: &Repo, kind: &str) -> Result<GpuResults> {
    let dir = repo.root.join(RESULTS_DIR).join(kind);
    let mut files: Vec<String> = read_dir_names(&dir)?.into_iter().filter(|n| n.ends_with(".json")).collect();
    files.sort_by_key(|name| (name != "suite.json", name.clone()));
    if files.is_empty() {
        return Err(format!("{}: no JSON files of `host --json` in it", dir.display()));
    }
    let runs = files
        .iter()
        .map(|file| read_run(&dir.join(file), &format!("{RESULTS_DIR}/{kind}/{file}")))
        .collect::<Result<Vec<_>>>()?;
    let charts_dir = dir.join("charts");
    let mut charts: Vec<String> = if charts_dir.is_dir() {
        read_dir_names(&charts_dir)?.into_iter().filter(|n| n.ends_with(".svg")).collect()
    } else {
        vec![]
    };
    charts.sort();
    let mut drawn = BTreeMap::new();
    for chart in &charts {
        let path = charts_dir.join(chart);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if let Some(date) = chart_date(&text) {
            drawn.insert(chart.clone(), date);
        }
    }
    Ok(GpuResults { kind: kind.to_string(), runs, charts, drawn })
}

/// What the host stamps on a chart before its run's date: `NVIDIA H200, run of 2026-11-25
/// 02:56 UTC` (`host::run`, `LadderChart::subtitle`).
pub const DRAWN_IN: &str = ", run of ";

/// The run's date a chart's subtitle gives ([`DRAWN_IN`]): up to the end of its line, or
/// to the `;` before a note.
pub fn chart_date(svg: &str) -> Option<String> {
    let (_, after) = svg.split_once(DRAWN_IN)?;
    let date = after.split(['\n', '<', ';']).next()?.trim();
    (!date.is_empty()).then(|| date.to_string())
}

fn read_dir_names(dir: &Path) -> Result<Vec<String>> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut names = vec![];
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// One results file: the host's reader for the records, the header read here.
fn read_run(path: &Path, shown: &str) -> Result<Run> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let results = host::report::compare::parse(&text).map_err(|why| format!("{}: {why}", path.display()))?;
    let header: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let driver = header.pointer("/device/driver_version").and_then(Value::as_u64).map(cuda_version);
    let bandwidth_gbs = header.pointer("/device/theoretical_bandwidth_gbs").and_then(Value::as_f64);
    let heat_s = header.pointer("/timing/heat_s").and_then(Value::as_f64).unwrap_or(0.0);
    let back_to_back = header.pointer("/timing/back_to_back").and_then(Value::as_u64).unwrap_or(1);
    let twins = &header["twins"];
    let (twins, twins_ran) = match (twins.get("compiler").and_then(Value::as_str), twins.get("not_run")) {
        (Some(compiler), _) => {
            let target =
                twins.get("target").and_then(Value::as_str).map(|t| format!(", {t}")).unwrap_or_default();
            (format!("{compiler}{target}"), true)
        }
        (None, Some(Value::String(why))) => (format!("not run ({why})"), false),
        _ => ("not recorded".to_string(), false),
    };
    Ok(Run {
        file: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        path: shown.to_string(),
        device: results.device,
        driver,
        date_utc: results.date_utc,
        bandwidth_gbs,
        twins,
        twins_ran,
        heat_s,
        back_to_back,
        records: results.records,
    })
}

/// The driver's version number as CUDA writes it: 13000 → `13.0`, 12080 → `12.8`.
pub fn cuda_version(version: u64) -> String {
    format!("{}.{}", version / 1000, version % 1000 / 10)
}

/// A GEMM precision's name in prose: `f32` → `FP32`.
pub fn precision_name(precision: &str) -> String {
    match precision {
        "f32" => "FP32".into(),
        "f16" => "FP16".into(),
        "bf16" => "BF16".into(),
        "e4m3" => "FP8".into(),
        "e4m3-blocks" => "FP8 blocks".into(),
        "e4m3-e5m2" => "FP8 e5m2 B".into(),
        other => other.to_string(),
    }
}

/// Where a precision sorts: the order the GEMM tables print them.
pub fn precision_rank(precision: &str) -> (usize, String) {
    let known = ["i32", "f32", "f16", "bf16", "e4m3", "e4m3-blocks", "e4m3-e5m2"];
    (known.iter().position(|&p| p == precision).unwrap_or(known.len()), precision.to_string())
}

/// A record's problem size as people write it: `4096×4096×4096`, `n = 2^30`.
pub fn size_text(record: &Record) -> String {
    match (record.m, record.n, record.k) {
        (None, Some(n), None) => format!("n = {}", host::report::records::human_size(n)),
        _ => record.key().size_text(),
    }
}

/// The order records of one size sort in: GEMM by M·N·K then M, N, K.
pub fn size_rank(record: &Record) -> (u128, u64, u64, u64) {
    let (m, n, k) = (record.m.unwrap_or(0), record.n.unwrap_or(0), record.k.unwrap_or(0));
    let volume = u128::from(m.max(1)) * u128::from(n.max(1)) * u128::from(k.max(1));
    (volume, m, n, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions() {
        assert_eq!(cuda_version(13000), "13.0");
        assert_eq!(cuda_version(12080), "12.8");
        assert_eq!(precision_name("f32"), "FP32");
        assert_eq!(precision_name("f16"), "FP16");
        assert_eq!(precision_name("bf16"), "BF16");
        assert_eq!(precision_name("i32"), "i32");
    }

    #[test]
    fn chart_dates() {
        let svg = "<text>\nNVIDIA H200, run of 2026-11-25 02:56 UTC; 8.590 GB moved per run\n</text>";
        assert_eq!(chart_date(svg).as_deref(), Some("2026-11-25 02:56 UTC"));
        let svg = "<text>NVIDIA H200, run of 2026-11-25 00:30 UTC</text>";
        assert_eq!(chart_date(svg).as_deref(), Some("2026-11-25 00:30 UTC"));
        assert_eq!(chart_date("<text>Strided copy</text>"), None);
    }

    #[test]
    fn sizes() {
        let mut r = Record::new("reduce", "x4_packed_tally");
        r.n = Some(1 << 30);
        assert_eq!(size_text(&r), "n = 2^30");
        let mut g = Record::new("gemm", "w08_latency_trims_f16");
        (g.m, g.n, g.k) = (Some(8192), Some(1024), Some(8192));
        assert_eq!(size_text(&g), "8192×1024×8192");
        assert!(size_rank(&r) < size_rank(&g));
    }
}
