//! Where a run's results go, and the promise that none is lost.
//!
//! - The paths of `--json`, `--csv` and `--plots` are checked before the GPU is touched
//!   ([`Output::prepare`]): a path that cannot be written is an error at once, not after
//!   an hour of measuring.
//! - The records are written as each unit of work finishes ([`Output::finished`]): the
//!   files are rewritten whole each time, through a temporary file and a rename, so that
//!   at every moment they hold a complete, valid document of everything measured so far.
//!   A run stopped by Ctrl-C, a kernel fault or a hang keeps all of it.
//! - The run's units of work (a kernel at one size, a probe) are listed up front, so that
//!   a run that stops early can say what it did not run ([`Output::not_run`]); the JSON
//!   says it too (`complete`, `not_run`).

use crate::base::error::{Error, Result};
use crate::report::heatmap::Heatmap;
use crate::report::plot::Plot;
use crate::report::plot::ladder::LadderChart;
use crate::report::records::{self, Record};
use crate::report::table::Table;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A run's outputs and its list of work.
pub struct Output {
    json: Option<PathBuf>,
    csv: Option<PathBuf>,
    plots: Option<PathBuf>,
    /// The JSON document without its records: device, date, seed, timing, conditions, ….
    header: Value,
    records: Vec<Record>,
    failures: Vec<String>,
    /// Units of work planned and not yet finished, in the order they run; shared with
    /// [`Output::not_run_later`].
    pending: Arc<Mutex<Vec<String>>>,
    /// Whether tables print every column (`--wide`) or leave their detail columns out.
    pub wide: bool,
    /// The device and date every chart carries under its title (a probe's plot leaves it
    /// to the output).
    pub stamp: String,
}

/// The name of the temporary file `path` is written through.
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Whether `path` can be written as a file: its folder exists and takes a new file, and
/// it is not itself a folder. Leaves nothing behind.
fn check_file(option: &str, path: &Path) -> Result<()> {
    let bad = |why: String| Error::new(format!("{option} {}: {why}; nothing was run", path.display()));
    if path.is_dir() {
        return Err(bad("is a folder; give a file name".into()));
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(bad(format!("the folder {} does not exist", folder.display())));
    }
    let probe = temporary(path);
    std::fs::write(&probe, b"").map_err(|e| bad(format!("cannot be written ({e})")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Whether `dir` is (or can be made) a folder that takes new files. Creates it.
fn check_folder(option: &str, dir: &Path) -> Result<()> {
    let bad = |why: String| Error::new(format!("{option} {}: {why}; nothing was run", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot be made a folder ({e})")))?;
    let probe = dir.join(".host-write-check");
    std::fs::write(&probe, b"").map_err(|e| bad(format!("cannot be written into ({e})")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `text` to `path` through a temporary file and a rename: a reader (or a run that
/// stops mid-write) sees the old document or the new one, never half of one.
fn replace_file(path: &Path, text: &str) -> Result<()> {
    let partial = temporary(path);
    records::write_file(&partial, text)?;
    std::fs::rename(&partial, path)
        .map_err(|e| Error::new(format!("writing {}: renaming {}: {e}", path.display(), partial.display())))
}

impl Output {
    /// Checks that every output path can be written; call it before any GPU work.
    pub fn prepare(json: Option<&Path>, csv: Option<&Path>, plots: Option<&Path>) -> Result<Self> {
        if let Some(path) = json {
            check_file("--json", path)?;
        }
        if let Some(path) = csv {
            check_file("--csv", path)?;
        }
        if let Some(dir) = plots {
            check_folder("--plots", dir)?;
        }
        Ok(Self {
            json: json.map(Path::to_path_buf),
            csv: csv.map(Path::to_path_buf),
            plots: plots.map(Path::to_path_buf),
            header: Value::Null,
            records: Vec::new(),
            failures: Vec::new(),
            pending: Arc::default(),
            wide: false,
            stamp: String::new(),
        })
    }

    /// The run's units of work, in order, and the document's header (device, date, …);
    /// writes the files once, with no records yet.
    pub fn start(&mut self, work: Vec<String>, header: Value) -> Result<()> {
        crate::base::progress::start(work.len());
        *self.pending() = work;
        self.header = header;
        self.write()
    }

    /// Sets a header field (`conditions`, `tensor_ceilings`) for the next write.
    pub fn set(&mut self, key: &str, value: Value) {
        self.header[key] = value;
    }

    /// A probe that did not run here, and why: printed now, and kept in the header's
    /// `skipped` (the run goes on).
    pub fn skipped(&mut self, probe: &str, reason: &str) {
        let line = super::table::wrap(
            &format!("{probe}: not run: {reason}"),
            "",
            "  ",
            super::table::TERMINAL_COLUMNS,
        );
        crate::base::progress::suspend(|| println!("{line}"));
        if !self.header["skipped"].is_object() {
            self.header["skipped"] = serde_json::json!({});
        }
        self.header["skipped"][probe] = reason.into();
    }

    /// A failed check, as printed (`probe: what was wrong`).
    pub fn failure(&mut self, failure: String) {
        self.failures.push(failure);
    }

    /// Records measured outside the list of work (the ceilings a GEMM run measures
    /// first); written now.
    pub fn add(&mut self, records: Vec<Record>) -> Result<()> {
        self.records.extend(records);
        self.write()
    }

    /// The unit of work `item` is finished with these records: they are written now.
    pub fn finished(&mut self, item: &str, records: Vec<Record>) -> Result<()> {
        let mut pending = self.pending();
        if let Some(at) = pending.iter().position(|p| p == item) {
            pending.remove(at);
            crate::base::progress::done_one();
        }
        drop(pending);
        self.add(records)
    }

    /// Prints a table now (stdout), above the progress line.
    pub fn table(&self, table: &Table) {
        let text = if self.wide { table.render_wide() } else { table.render() };
        crate::base::progress::suspend(|| print!("{text}"));
    }

    /// A figure's stamp: its own, or this run's when it has none.
    fn stamp_of(&self, own: &str) -> String {
        if own.is_empty() { self.stamp.clone() } else { own.to_string() }
    }

    /// Writes a probe's plot, when `--plots` asks for them.
    pub fn plot(&self, plot: &Plot) -> Result<()> {
        let Some(dir) = &self.plots else { return Ok(()) };
        Plot { stamp: self.stamp_of(&plot.stamp), ..plot.clone() }.write(dir).map(drop)
    }

    /// Writes a probe's heat map, when `--plots` asks for them.
    pub fn heatmap(&self, map: &Heatmap) -> Result<()> {
        let Some(dir) = &self.plots else { return Ok(()) };
        Heatmap { stamp: self.stamp_of(&map.stamp), ..map.clone() }.write(dir).map(drop)
    }

    /// Writes a ladder chart, when `--plots` asks for them.
    pub fn chart(&self, chart: &LadderChart) -> Result<()> {
        match &self.plots {
            Some(dir) => chart.write(dir).map(drop),
            None => Ok(()),
        }
    }

    /// The units of work not finished, in order.
    pub fn not_run(&self) -> Vec<String> {
        self.pending().clone()
    }

    /// [`Output::not_run`] for whoever must ask after the `Output` is out of reach: the
    /// GPU watchdog, which stops the process from its own thread when a kernel hangs.
    pub fn not_run_later(&self) -> impl Fn() -> Vec<String> + Send + 'static {
        let pending = Arc::clone(&self.pending);
        move || pending.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The last write: `complete` says whether every unit of work ran, `not_run` lists
    /// those that did not.
    pub fn close(&mut self, complete: bool) -> Result<()> {
        self.header["complete"] = complete.into();
        self.header["not_run"] = self.not_run().into();
        self.write()
    }

    /// Rewrites the JSON and CSV files with every record so far.
    fn write(&self) -> Result<()> {
        if let Some(path) = &self.csv {
            let device = self.header["device"]["name"].as_str().unwrap_or_default();
            let date = self.header["date_utc"].as_str().unwrap_or_default();
            replace_file(path, &records::csv(device, date, &self.records))?;
        }
        if let Some(path) = &self.json {
            let mut header = self.header.clone();
            header["failures"] = self.failures.clone().into();
            if header.get("complete").is_none() {
                header["complete"] = false.into();
                header["not_run"] = self.not_run().into();
            }
            replace_file(path, &records::results_json(header, &self.records))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("host-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn unwritable_paths_are_refused_up_front() {
        let dir = scratch("refuse");
        let missing = dir.join("no/such/folder/r.json");
        let err = Output::prepare(Some(&missing), None, None).err().expect("a missing folder is refused");
        assert!(
            err.to_string().contains("does not exist") && err.to_string().contains("nothing was run"),
            "{err}"
        );
        let err = Output::prepare(None, Some(&dir), None).err().expect("a folder is not a file");
        assert!(err.to_string().contains("is a folder"), "{err}");
        let file = dir.join("plain-file");
        std::fs::write(&file, "x").unwrap();
        let err = Output::prepare(None, None, Some(&file.join("charts"))).err().expect("a file is no folder");
        assert!(err.to_string().starts_with("--plots"), "{err}");
        // Nothing is left behind by the checks.
        let ok =
            Output::prepare(Some(&dir.join("r.json")), Some(&dir.join("r.csv")), Some(&dir.join("charts")));
        assert!(ok.is_ok());
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["charts", "plain-file"]);
    }

    #[test]
    fn records_are_on_disk_as_each_unit_finishes() {
        let dir = scratch("incremental");
        let (json, csv) = (dir.join("r.json"), dir.join("r.csv"));
        let mut out = Output::prepare(Some(&json), Some(&csv), None).unwrap();
        let header = serde_json::json!({ "date_utc": "2026-11-23T00:00:00Z", "device": { "name": "GPU" } });
        out.start(vec!["a".into(), "b".into(), "c".into()], header).unwrap();
        // What the watchdog would say if a kernel hung now, and after "a".
        let later = out.not_run_later();
        assert_eq!(later(), ["a", "b", "c"]);
        let read = || -> Value { serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap() };
        assert_eq!(read()["records"].as_array().unwrap().len(), 0);
        assert_eq!(read()["complete"], false);
        out.finished("a", vec![Record::new("reduce", "a")]).unwrap();
        let doc = read();
        assert_eq!(doc["records"][0]["kernel"], "a");
        assert_eq!(doc["not_run"], serde_json::json!(["b", "c"]));
        assert_eq!(later(), ["b", "c"]);
        assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 2, "header and one record");
        out.close(false).unwrap();
        assert_eq!(out.not_run(), ["b", "c"]);
        let doc = read();
        assert_eq!(
            (doc["complete"].clone(), doc["not_run"].clone()),
            (false.into(), serde_json::json!(["b", "c"]))
        );
        assert!(!temporary(&json).exists(), "no temporary file is left");
    }
}
