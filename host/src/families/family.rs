//! The one face every family shows the rest of the host: the reductions, the probes, the
//! GEMM ladder, and every ladder to come. A family is a folder under `families/` with a
//! type that implements [`Family`], and one line in [`super::FAMILIES`]; `--list`,
//! selection, the run, `host sass`, the records, the GPU tests and the CPU tests that hold
//! the registries against the PTX all go through this trait and never name a family.
//!
//! A family may use the shared floors (`base`, `measure`, `report`, `twins`, `cli`) and
//! this module, never another family: `tests/house.rs` checks it.

use crate::base::error::Result;
use crate::base::gpu::Gpu;
use crate::base::ptx::Arch;
use crate::cli::Options;
use crate::measure::timing::Timer;
use crate::report::output::Output;
use crate::twins::{self, TwinMode};
use std::path::Path;

/// One step of a ladder (or one probe): what `--list`, selection, the registry tests and
/// `host sass` need to know of it, whatever the family.
#[derive(Clone, Debug)]
pub struct Step {
    /// Stable name on the command line and in the records: the ladder's letter, the step's
    /// number, its idea (`w01_wgmma_f16`, `x4_packed_tally`, `p6_latency`).
    pub id: &'static str,
    /// The step's idea in a few words.
    pub summary: &'static str,
    /// The oldest PTX target that holds its entry points (`sm_80` for most; `sm_90a` for
    /// Hopper's own instructions, which only that PTX holds).
    pub arch: Arch,
    /// The PTX entry points it launches, each with the oldest PTX target that holds it (a
    /// step may launch some entry points only where their target's PTX is loaded, as p8
    /// launches its `wgmma` kernels only from the sm_90a PTX).
    pub symbols: Vec<(&'static str, Arch)>,
    /// Whether it is a ladder step with a CUDA C++ twin beside it (`twins/<family>/`),
    /// defining the same entry points; probes have none.
    pub twinned: bool,
}

impl Step {
    /// A step whose entry points are all in the PTX of `arch`.
    pub fn new(
        id: &'static str,
        summary: &'static str,
        arch: Arch,
        symbols: &[&'static str],
        twinned: bool,
    ) -> Self {
        Self { id, summary, arch, symbols: symbols.iter().map(|&s| (s, arch)).collect(), twinned }
    }

    /// Its entry points' names.
    pub fn symbol_names(&self) -> Vec<&'static str> {
        self.symbols.iter().map(|&(s, _)| s).collect()
    }

    /// The twin file that defines this step's first entry point, if any.
    pub fn twin(&self) -> Option<&'static twins::Source> {
        self.symbols.first().and_then(|&(s, _)| twins::source_of(s))
    }

    /// The letters before the step's number: its ladder (`t` for `w01_wgmma_f16`).
    pub fn ladder(&self) -> &'static str {
        let end = self.id.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(self.id.len());
        &self.id[..end]
    }

    /// The step's number within its ladder (5 for `w01_wgmma_f16`), if it has one.
    pub fn number(&self) -> Option<u32> {
        let rest = &self.id[self.ladder().len()..];
        let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        rest[..end].parse().ok()
    }
}

/// A ladder of a family: the steps whose ids start with `prefix`.
#[derive(Clone, Copy, Debug)]
pub struct Ladder {
    /// The letters its step ids start with (`g`, `t`, `h`).
    pub prefix: &'static str,
    /// What it is, in a few words (`FP32 GEMM`, `tensor-core GEMM`).
    pub title: &'static str,
}

/// What a family's run gets: the device, the run's timer, options, seed and date, the C++
/// twins (or why they do not run), and the output every table, chart and record goes to.
pub struct RunContext<'a, 'o> {
    pub gpu: &'a Gpu,
    pub timer: &'a Timer,
    pub options: &'a Options,
    pub seed: u64,
    /// The run's date (UTC), printed on its charts.
    pub date: &'a str,
    pub twins: &'a TwinMode<'a>,
    /// Where the PTX was loaded from (the node probes open the other GPUs with it).
    pub ptx_dir: &'a Path,
    pub output: &'o mut Output,
}

/// A GPU test of a family: a name (`<step>/<what it checks>`) and a check that passes or
/// says what went wrong. `tests/gpu.rs` runs every family's tests; without a GPU they are
/// reported as ignored, with the reason.
pub struct GpuTest {
    pub name: String,
    /// Why it cannot run on this machine even with a GPU (a device it needs is missing, NVRTC
    /// is absent, fewer GPUs than it needs), or `None`.
    pub ignored: Option<String>,
    pub run: Box<dyn FnOnce() -> std::result::Result<(), String> + Send>,
}

impl GpuTest {
    pub fn new(
        name: impl Into<String>,
        run: impl FnOnce() -> std::result::Result<(), String> + Send + 'static,
    ) -> Self {
        Self { name: name.into(), ignored: None, run: Box::new(run) }
    }

    /// The same test, ignored for `reason` where there is one.
    pub fn ignored_if(mut self, reason: Option<String>) -> Self {
        self.ignored = reason;
        self
    }
}

/// A family of kernels: a ladder (or several), or a set of probes.
pub trait Family: Sync {
    /// Its name in `--list`, in selection (`-k gemm`) and in the records' `family` field.
    fn name(&self) -> &'static str;

    /// What it is, in a line (`--list` prints it above its steps).
    fn title(&self) -> &'static str;

    /// Its ladders, by id prefix, in ladder order.
    fn ladders(&self) -> &'static [Ladder];

    /// Every step, in ladder order.
    fn steps(&self) -> Vec<Step>;

    /// Refuses options that make no sense for the `selected` steps (which may be none),
    /// before the GPU is touched: nothing measured is ever lost to a typo.
    fn check_options(&self, selected: &[Step], options: &Options) -> Result<()> {
        let _ = (selected, options);
        Ok(())
    }

    /// The units of work a run of `selected` does, in order, as progress and the note of
    /// an unfinished run name them.
    fn work(&self, selected: &[Step], options: &Options) -> Vec<String>;

    /// Runs, verifies and times `selected` (never empty), writing every record, table and
    /// chart to `ctx.output` as it goes; returns whether every check passed.
    fn run(&self, selected: &[Step], ctx: &mut RunContext) -> Result<bool>;

    /// Its GPU tests. `gpu_present`: a driver and a device were found, so tests this device
    /// cannot run can be told apart (ignored, with the reason) from the others.
    fn gpu_tests(&self, gpu_present: bool) -> Vec<GpuTest>;
}

/// A ladder's table: the columns every ladder shares (the step; its block and launches; its
/// median time, repetitions and spread; its C++ twin's), then `figures`, the family's own
/// (ending with its check). The lead's launch, repetition, spread and register columns and the
/// family's `wide` ones print only in the wide form (`--wide`).
pub fn ladder_table(
    title: impl Into<String>,
    figures: &[&'static str],
    wide: &[&'static str],
) -> crate::report::table::Table {
    let mut columns = vec!["kernel", "block", "launches", "median µs", "reps", "spread"];
    columns.extend_from_slice(twins::COLUMNS);
    columns.extend_from_slice(figures);
    let mut table = crate::report::table::Table::new(title, &columns);
    let mut detail = vec!["block", "launches", "reps", "spread", twins::COLUMNS[2]];
    detail.extend_from_slice(wide);
    table.detail(&detail);
    table
}
