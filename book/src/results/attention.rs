//! The attention family on the results pages: the forward pass softmax(Q·Kᵀ·scale + mask)·V
//! as `host::families::attention::report` records it, with cuDNN and FlashAttention-2 beside
//! it as `bench/attention-sdpa.py` adds them afterwards, in the same device call. A step's
//! record has the step's id as its `kernel`, the input type as its `precision`, the query
//! length as its `n` and the shape in its `details` (batch, heads, lengths, head dim, mask,
//! layout); the script adds to it `details.sdpa` (each backend's figure, or why it has none)
//! and `details.percent_of_cudnn` and `percent_of_flash`, and appends a record per shape and
//! backend ([`CUDNN`], [`FLASH`]).
//!
//! One table and one chart are of a [`Panel`]: an input type, head dim and mask in one
//! problem [`Setting`] (how the batch follows the length, the model's width, the heads'
//! grouping, the keys' length, the layout), so that different settings never share a column.
//! Several files may hold figures of one panel (a run per step, runs of several days): each
//! step's cell is the latest run's, each backend's that of the run with the most steps at its
//! length (`figures`).
//!
//! Made here: a run's attention in the files table ([`contents`]), the best step of each
//! panel and length ([`best_part`]), the attention section ([`section`]: per panel, every
//! step's TFLOP/s at every length and its chart), the charts ([`charts`]: drawn here from
//! the records with the host's line chart, since SDPA's figures arrive after the host's run)
//! and a chapter's tables ([`step_tables`]).

use super::{
    Links, StepOrder, capitalised, clock_fell_note, fitting, list_or_range, percent, step_name,
    timed_while_the_clock_fell,
};
use crate::markdown::{Align, Table, one_decimal};
use crate::records::{DRAWN_IN, GpuResults, Run, precision_name};
use crate::results::{self, HeatMarks};
use host::families::attention::NAME;
use host::families::attention::problem::Mask;
use host::families::attention::registry::PRECISIONS;
use host::report::plot::{Plot, Series, XAxis};
use host::report::records::Record;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Range;

/// A yardstick `bench/attention-sdpa.py` times beside the steps: PyTorch's
/// `scaled_dot_product_attention` with one backend alone.
#[derive(Debug, PartialEq, Eq)]
pub struct Backend {
    /// The `kernel` of its records (the script's `BASELINE_KERNEL`).
    pub kernel: &'static str,
    /// Its entry in a step record's `details.sdpa`.
    key: &'static str,
    /// Its name on the pages and charts.
    pub name: &'static str,
    /// Its name in a column's header.
    short: &'static str,
    /// The detail of a step record that holds the step's figure over this backend's, in
    /// percent.
    percent_detail: &'static str,
}

/// cuDNN's fused attention: the vendor every step is measured against.
pub const CUDNN: Backend = Backend {
    kernel: "sdpa_cudnn",
    key: "cudnn",
    name: "cuDNN",
    short: "cuDNN",
    percent_detail: "percent_of_cudnn",
};

/// FlashAttention-2, as PyTorch builds it in.
pub const FLASH: Backend = Backend {
    kernel: "sdpa_flash",
    key: "flash",
    name: "FlashAttention-2",
    short: "FA2",
    percent_detail: "percent_of_flash",
};

/// The backends, in the order the tables and charts show them.
const BACKENDS: [&Backend; 2] = [&CUDNN, &FLASH];

/// What a table shows where a row has no figure at a length.
const MISSING: &str = "–";

/// How many lengths the files table lists one by one; more read as a range (`512–16k`).
const LISTED_LENGTHS: usize = 2;

/// Whether `record` is of the attention family.
pub fn is_attention(record: &Record) -> bool {
    record.family == NAME
}

/// Whether `record` is an attention step's: not one of the backends'.
pub fn is_step(record: &Record) -> bool {
    is_attention(record) && backend(record).is_none()
}

/// Whether `record` is an attention record the pages show: one whose details give its
/// shape.
pub fn is_shown(record: &Record) -> bool {
    is_attention(record) && Shape::of(record).is_some()
}

/// The backend whose record `record` is.
fn backend(record: &Record) -> Option<&'static Backend> {
    BACKENDS.into_iter().find(|b| b.kernel == record.kernel)
}

/// A length as the host's `--seq` takes it: `16k` for 16384, `3000` for 3000.
fn length_text(n: u64) -> String {
    if n >= 1024 && n.is_multiple_of(1024) { format!("{}k", n / 1024) } else { n.to_string() }
}

/// [`length_text`] read back.
fn parse_length(text: &str) -> Option<u64> {
    match text.strip_suffix('k') {
        Some(thousands) => thousands.parse::<u64>().ok()?.checked_mul(1024),
        None => text.parse().ok(),
    }
}

/// Lengths as the files table writes them: `1k, 4k`, `512–16k`.
fn lengths_text(lengths: &[u64]) -> String {
    let names: Vec<String> = lengths.iter().map(|&n| length_text(n)).collect();
    list_or_range(&names, LISTED_LENGTHS)
}

/// A problem as a record's details give it (the host's step records and the script's
/// backend records alike).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    batch: u64,
    heads_q: u64,
    heads_kv: u64,
    seq_q: u64,
    seq_k: u64,
    head_dim: u64,
    mask: String,
    layout: String,
}

impl Shape {
    /// The shape of `record`; `None` where its details lack a field.
    fn of(record: &Record) -> Option<Self> {
        let details = record.details.as_ref()?;
        let number = |key: &str| details.get(key).and_then(Value::as_u64).filter(|&v| v > 0);
        let text = |key: &str| details.get(key).and_then(Value::as_str).map(str::to_string);
        let shape = Self {
            batch: number("batch")?,
            heads_q: number("heads_q")?,
            heads_kv: number("heads_kv")?,
            seq_q: number("seq_q")?,
            seq_k: number("seq_k")?,
            head_dim: number("head_dim")?,
            mask: text("mask")?,
            layout: text("layout")?,
        };
        shape.heads_q.is_multiple_of(shape.heads_kv).then_some(shape)
    }

    /// The model's width: query heads × head dim (`--hidden`).
    fn hidden(&self) -> u64 {
        self.heads_q * self.head_dim
    }

    /// Query heads per key/value head (`--group`).
    fn group(&self) -> u64 {
        self.heads_q / self.heads_kv
    }
}

/// How the batch follows the query length in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Batching {
    /// batch = max(1, tokens / length): the same tokens at every length (`--tokens`, the
    /// host's default).
    Tokens(u64),
    /// The same batch at every length (`--batch`).
    Fixed(u64),
}

/// How long the keys are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Keys {
    /// As long as the queries.
    AsQueries,
    /// The same length at every query length (`--seq-k`).
    Fixed(u64),
}

/// A problem setting: all of a problem but its input type, head dim, mask and length, as one
/// invocation of the host fixes it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Setting {
    pub batching: Batching,
    /// Query heads × head dim.
    pub hidden: u64,
    /// Query heads per key/value head.
    pub group: u64,
    pub keys: Keys,
    /// `bshd` or `bhsd`.
    pub layout: String,
}

impl Setting {
    /// In words: `16k tokens (batch = 16k / length), hidden 2048 (heads = 2048 / head dim),
    /// bshd`.
    pub fn describe(&self) -> String {
        let mut text = match self.batching {
            Batching::Tokens(t) => format!("{} tokens (batch = {} / length)", length_text(t), length_text(t)),
            Batching::Fixed(b) => format!("batch {b}"),
        };
        text += &format!(", hidden {} (heads = {} / head dim)", self.hidden, self.hidden);
        if self.group > 1 {
            text += &format!(", {} query heads per K/V head", self.group);
        }
        if let Keys::Fixed(k) = self.keys {
            text += &format!(", {} keys", length_text(k));
        }
        format!("{text}, {}", self.layout)
    }

    /// For a chart's file name: `tokens16k-hidden2048-bshd`, `batch1-hidden2048-group4-keys4k-bhsd`.
    fn tag(&self) -> String {
        let mut parts = vec![
            match self.batching {
                Batching::Tokens(t) => format!("tokens{}", length_text(t)),
                Batching::Fixed(b) => format!("batch{b}"),
            },
            format!("hidden{}", self.hidden),
        ];
        if self.group > 1 {
            parts.push(format!("group{}", self.group));
        }
        if let Keys::Fixed(k) = self.keys {
            parts.push(format!("keys{}", length_text(k)));
        }
        parts.push(self.layout.clone());
        parts.join("-")
    }

    /// [`Setting::tag`] read back, from its parts.
    fn from_tag(parts: &[&str]) -> Option<Self> {
        let [batching, hidden, more @ .., layout] = parts else { return None };
        let batching = match (batching.strip_prefix("tokens"), batching.strip_prefix("batch")) {
            (Some(t), _) => Batching::Tokens(parse_length(t)?),
            (None, Some(b)) => Batching::Fixed(b.parse().ok()?),
            (None, None) => return None,
        };
        let mut setting = Setting {
            batching,
            hidden: hidden.strip_prefix("hidden")?.parse().ok()?,
            group: 1,
            keys: Keys::AsQueries,
            layout: layout.to_string(),
        };
        for part in more {
            match (part.strip_prefix("group"), part.strip_prefix("keys")) {
                (Some(g), _) => setting.group = g.parse().ok()?,
                (None, Some(k)) => setting.keys = Keys::Fixed(parse_length(k)?),
                (None, None) => return None,
            }
        }
        Some(setting)
    }
}

/// What one table and one chart show: an input type, head dim and mask in one setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panel {
    /// `bf16` or `f16`.
    pub precision: String,
    pub head_dim: u64,
    /// `none` or `causal`.
    pub mask: String,
    pub setting: Setting,
}

impl Panel {
    /// Where it sorts: by setting, then input type (in the registry's order), head dim and
    /// mask (no mask first).
    fn rank(&self) -> (&Setting, usize, &str, u64, usize, &str) {
        let precision =
            PRECISIONS.iter().position(|p| p.short_name() == self.precision).unwrap_or(usize::MAX);
        let mask = Mask::parse(&self.mask).map_or(usize::MAX, |m| m as usize);
        (&self.setting, precision, &self.precision, self.head_dim, mask, &self.mask)
    }

    /// Its query heads.
    fn heads(&self) -> u64 {
        self.setting.hidden / self.head_dim.max(1)
    }

    /// In words: `BF16, head dim 128, causal mask`.
    pub fn title(&self) -> String {
        let mask = if self.mask == "none" { "no mask".to_string() } else { format!("{} mask", self.mask) };
        format!("{}, head dim {}, {mask}", precision_name(&self.precision), self.head_dim)
    }

    /// Its heads in words: `16 heads`, `32 heads (8 K/V)`.
    fn heads_text(&self) -> String {
        let heads = self.heads();
        match self.setting.group {
            1 => format!("{heads} heads"),
            g => format!("{heads} heads ({} K/V)", heads / g),
        }
    }

    /// Its problem in a few words, for a chart: `16k tokens, 16 heads, bshd`.
    fn problem_text(&self) -> String {
        let batch = match self.setting.batching {
            Batching::Tokens(t) => format!("{} tokens", length_text(t)),
            Batching::Fixed(b) => format!("batch {b}"),
        };
        let keys = match self.setting.keys {
            Keys::AsQueries => String::new(),
            Keys::Fixed(k) => format!(", {} keys", length_text(k)),
        };
        format!("{batch}, {}{keys}, {}", self.heads_text(), self.setting.layout)
    }

    /// In a best table's row: `bf16 d128 causal`.
    fn label(&self) -> String {
        format!("{} d{} {}", self.precision, self.head_dim, self.mask)
    }

    /// The file of its chart: `attention-bf16-d128-causal-tokens16k-hidden2048-bshd.svg`.
    pub fn chart(&self) -> String {
        format!("{NAME}-{}-d{}-{}-{}.svg", self.precision, self.head_dim, self.mask, self.setting.tag())
    }

    /// [`Panel::chart`] read back; `None` for another chart.
    pub fn from_chart(file: &str) -> Option<Self> {
        let stem = file.strip_suffix(".svg")?.strip_prefix(NAME)?.strip_prefix('-')?;
        let parts: Vec<&str> = stem.split('-').collect();
        let [precision, head_dim, mask, setting @ ..] = parts.as_slice() else { return None };
        Some(Self {
            precision: precision.to_string(),
            head_dim: head_dim.strip_prefix('d')?.parse().ok()?,
            mask: mask.to_string(),
            setting: Setting::from_tag(setting)?,
        })
    }
}

impl Ord for Panel {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Panel {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether chart `file` is one this module draws ([`Panel::chart`]); the host draws none of
/// this family.
pub fn is_chart(file: &str) -> bool {
    Panel::from_chart(file).is_some()
}

/// What a chart shows, from its file name: `the attention ladder in BF16, head dim 128,
/// causal mask (16k tokens, 16 heads, bshd)`.
pub fn chart_title(file: &str) -> Option<String> {
    let panel = Panel::from_chart(file)?;
    Some(format!("the attention ladder in {} ({})", panel.title(), panel.problem_text()))
}

/// Whether chart `file` shows `record`: its type, head dim, mask, width, grouping and
/// layout (how its batch and keys follow the length is a property of its run, not of the
/// record alone).
pub fn chart_shows(file: &str, record: &Record) -> bool {
    let (Some(panel), Some(shape)) = (Panel::from_chart(file), Shape::of(record)) else { return false };
    is_attention(record)
        && record.precision.as_deref() == Some(panel.precision.as_str())
        && (shape.head_dim, shape.mask.as_str()) == (panel.head_dim, panel.mask.as_str())
        && (shape.hidden(), shape.group(), shape.layout.as_str())
            == (panel.setting.hidden, panel.setting.group, panel.setting.layout.as_str())
}

/// How the batch follows the length over `shapes`, one run's of one width, grouping and
/// layout (one invocation of the host: one `--tokens` or one `--batch`), each shape's: the
/// same tokens where one count gives every batch as the host does (max(1, tokens /
/// length)), the least such count; else the same batch where it is one; else each its own.
/// A single shape of batch above 1 reads as tokens: either reading is the same problem.
fn batching(shapes: &[&Shape]) -> Vec<Batching> {
    // batch = max(1, T / length) holds for T in [batch · length, (batch + 1) · length), and
    // for any T below 2 · length where the batch is 1.
    let low = shapes.iter().filter(|s| s.batch > 1).map(|s| s.batch * s.seq_q).max();
    let high = shapes.iter().map(|s| (s.batch + 1) * s.seq_q).min();
    if let (Some(low), Some(high)) = (low, high)
        && low < high
    {
        return vec![Batching::Tokens(low); shapes.len()];
    }
    match shapes.first() {
        Some(first) if shapes.iter().all(|s| s.batch == first.batch) => {
            vec![Batching::Fixed(first.batch); shapes.len()]
        }
        _ => shapes.iter().map(|s| Batching::Fixed(s.batch)).collect(),
    }
}

/// How long the keys are over `shapes` (as [`batching`]), each shape's: as the queries
/// where they are everywhere, else one length where it is the same everywhere, else each
/// its own.
fn keys(shapes: &[&Shape]) -> Vec<Keys> {
    let own = |s: &&Shape| if s.seq_k == s.seq_q { Keys::AsQueries } else { Keys::Fixed(s.seq_k) };
    match shapes.first() {
        Some(first)
            if shapes.iter().any(|s| s.seq_k != s.seq_q) && shapes.iter().all(|s| s.seq_k == first.seq_k) =>
        {
            vec![Keys::Fixed(first.seq_k); shapes.len()]
        }
        _ => shapes.iter().map(own).collect(),
    }
}

/// Each attention record of `run` that gives its shape, with its panel and query length.
fn placed(run: &Run) -> Vec<(Panel, u64, &Record)> {
    let records: Vec<(&Record, Shape)> =
        run.records.iter().filter(|r| is_attention(r)).filter_map(|r| Some((r, Shape::of(r)?))).collect();
    // A file is one invocation of the host; one that holds several widths, groupings or
    // layouts is read as one invocation per each.
    let mut invocations: BTreeMap<(u64, u64, &str), Vec<usize>> = BTreeMap::new();
    for (index, (_, shape)) in records.iter().enumerate() {
        invocations.entry((shape.hidden(), shape.group(), shape.layout.as_str())).or_default().push(index);
    }
    let mut out = vec![];
    for members in invocations.values() {
        let shapes: Vec<&Shape> = members.iter().map(|&i| &records[i].1).collect();
        let rules = batching(&shapes).into_iter().zip(keys(&shapes));
        for (&index, (batching, keys)) in members.iter().zip(rules) {
            let (record, shape) = &records[index];
            let setting = Setting {
                batching,
                hidden: shape.hidden(),
                group: shape.group(),
                keys,
                layout: shape.layout.clone(),
            };
            let panel = Panel {
                precision: record.precision.clone().unwrap_or_default(),
                head_dim: shape.head_dim,
                mask: shape.mask.clone(),
                setting,
            };
            out.push((panel, shape.seq_q, *record));
        }
    }
    out
}

/// One figure of a panel: the record a cell shows, and its run.
#[derive(Clone, Copy, Debug)]
struct Figure<'a> {
    run: &'a Run,
    record: &'a Record,
}

impl Figure<'_> {
    /// Whether it has a figure a chart or the best table may take: timed, its check not
    /// failed.
    fn counts(&self) -> bool {
        self.record.passed != Some(false) && self.record.figure.is_some()
    }

    fn detail(&self, key: &str) -> Option<&Value> {
        self.record.details.as_ref()?.get(key)
    }

    /// Its figure over `backend`'s in its run, in percent: a step's from its details, a
    /// backend's own (FlashAttention-2's of cuDNN) from its `percent_of_vendor`.
    fn percent_of(&self, backend: &Backend) -> Option<f64> {
        match self.backend() {
            None => self.detail(backend.percent_detail).and_then(Value::as_f64),
            // A backend's record holds its % of cuDNN alone, as the vendor's.
            Some(own) if *backend == CUDNN && own != backend => self.record.percent_of_vendor,
            Some(_) => None,
        }
    }

    fn backend(&self) -> Option<&'static Backend> {
        backend(self.record)
    }

    /// [`clock_fell`] of its record.
    fn clock_fell(&self) -> Option<&'static str> {
        clock_fell(self.record)
    }

    /// Whether `backend` was timed one call a sample, each after an idle spin, beside a step
    /// timed back to back: PyTorch could not queue its calls faster than the GPU ran them
    /// (short calls), and the script said so in the step's details.
    fn backend_had_gaps(&self, backend: &Backend) -> bool {
        self.run.back_to_back > 1
            && self
                .detail("sdpa")
                .and_then(|sdpa| sdpa.get(backend.key))
                .and_then(|entry| entry.get("back_to_back"))
                .and_then(Value::as_bool)
                == Some(false)
    }

    /// Why `backend` has no figure in its run, as the script recorded it in a step's
    /// details.
    fn why_no(&self, backend: &Backend) -> Option<String> {
        let entry = self.detail("sdpa")?.get(backend.key)?;
        entry.get("error").and_then(Value::as_str).map(str::to_string)
    }
}

/// The figures of one panel: per row (a step's or a backend's kernel) and query length, the
/// record of the latest run that has one.
#[derive(Debug, Default)]
struct Grid<'a> {
    cells: BTreeMap<(&'a str, u64), Figure<'a>>,
}

/// Every panel of `gpu` with its figures, in page order. Of several runs with a step's figure
/// for one cell, the latest by date is kept, the later file of one date. A backend's cell is
/// taken from the run that holds the most of the kept step cells at its length (the latest
/// of equals), where that run timed the backend: it stands beside the steps it was timed
/// with, and a later run of one step alone (a01's) does not replace the ladder's.
fn figures(gpu: &GpuResults) -> BTreeMap<Panel, Grid<'_>> {
    let mut panels: BTreeMap<Panel, Grid> = BTreeMap::new();
    let mut backends: BTreeMap<(Panel, &str, u64), Vec<Figure>> = BTreeMap::new();
    for run in &gpu.runs {
        for (panel, length, record) in placed(run) {
            let figure = Figure { run, record };
            if figure.backend().is_some() {
                backends.entry((panel.clone(), record.kernel.as_str(), length)).or_default().push(figure);
            }
            let cells = &mut panels.entry(panel).or_default().cells;
            let key = (record.kernel.as_str(), length);
            if cells.get(&key).is_none_or(|kept| kept.run.date_utc <= run.date_utc) {
                cells.insert(key, figure);
            }
        }
    }
    for ((panel, kernel, length), candidates) in backends {
        let grid = panels.get_mut(&panel).expect("placed above");
        let mut steps_of_run: Vec<(&Run, usize)> = Vec::new();
        let steps_here = grid.cells.iter().filter(|((_, n), f)| *n == length && f.backend().is_none());
        for (_, figure) in steps_here {
            match steps_of_run.iter_mut().find(|(run, _)| std::ptr::eq(*run, figure.run)) {
                Some((_, count)) => *count += 1,
                None => steps_of_run.push((figure.run, 1)),
            }
        }
        let main = steps_of_run.into_iter().max_by(|a, b| {
            a.1.cmp(&b.1).then_with(|| (&a.0.date_utc, &a.0.file).cmp(&(&b.0.date_utc, &b.0.file)))
        });
        if let Some(figure) = main.and_then(|(run, _)| candidates.iter().find(|f| std::ptr::eq(f.run, run))) {
            grid.cells.insert((kernel, length), *figure);
        }
    }
    panels
}

impl<'a> Grid<'a> {
    fn get(&self, kernel: &str, length: u64) -> Option<Figure<'a>> {
        self.cells.get(&(kernel, length)).copied()
    }

    /// The query lengths of any row, ascending.
    fn lengths(&self) -> Vec<u64> {
        let mut lengths: Vec<u64> = self.cells.keys().map(|&(_, n)| n).collect();
        lengths.sort_unstable();
        lengths.dedup();
        lengths
    }

    /// The lengths `kernel` has a record at.
    fn lengths_of(&self, kernel: &str) -> Vec<u64> {
        self.cells.keys().filter(|(k, _)| *k == kernel).map(|&(_, n)| n).collect()
    }

    /// The steps with a record, in ladder order.
    fn steps(&self, order: &StepOrder) -> Vec<&'a str> {
        let mut steps: Vec<&str> =
            self.cells.values().filter(|f| f.backend().is_none()).map(|f| f.record.kernel.as_str()).collect();
        steps.sort_by_key(|k| order.rank(k));
        steps.dedup();
        steps
    }

    /// Its figures of `rows` at `lengths`.
    fn shown(&self, rows: &[Row], lengths: &[u64]) -> Vec<Figure<'a>> {
        rows.iter().flat_map(|row| lengths.iter().filter_map(|&n| self.get(row.kernel(), n))).collect()
    }

    /// The runs its figures are of, oldest first.
    fn runs(&self) -> Vec<&'a Run> {
        runs(self.cells.values().copied())
    }

    /// Whether `backend` was timed (or tried) in a run of these figures: a record of it, or
    /// its entry in a step's details.
    fn has(&self, backend: &Backend) -> bool {
        self.cells.values().any(|f| {
            f.backend() == Some(backend) || f.detail("sdpa").and_then(|s| s.get(backend.key)).is_some()
        })
    }

    /// The best step at `length`: the highest figure of a step whose check did not fail; of
    /// equal figures, the first in ladder order.
    /// A figure timed under steady load comes before any from a cool start
    /// ([`results::better`]).
    fn best(&self, length: u64, order: &StepOrder) -> Option<Figure<'a>> {
        let mut best: Option<Figure> = None;
        for figure in self.steps(order).into_iter().filter_map(|s| self.get(s, length).filter(Figure::counts))
        {
            if best.is_none_or(|b| results::better((figure.run, figure.record), (b.run, b.record))) {
                best = Some(figure);
            }
        }
        best
    }

    /// The tensor-core ceiling of the panel's input type, [`ceiling`] of all its figures.
    fn ceiling(&self) -> Option<(f64, &'a Run)> {
        ceiling(self.cells.values().copied())
    }
}

/// The runs `figures` are of, each once, oldest first.
fn runs<'a>(figures: impl Iterator<Item = Figure<'a>>) -> Vec<&'a Run> {
    let mut runs: Vec<&Run> = figures.map(|f| f.run).collect();
    runs.sort_by(|a, b| (&a.date_utc, &a.file).cmp(&(&b.date_utc, &b.file)));
    runs.dedup_by(|a, b| std::ptr::eq(*a, *b));
    runs
}

/// The tensor-core ceiling (p8) that the latest run of the steps' `figures` measured, in
/// TFLOP/s, from a step's figure and its % of it; with that run.
fn ceiling<'a>(figures: impl Iterator<Item = Figure<'a>>) -> Option<(f64, &'a Run)> {
    let mut latest: Option<(f64, &Run)> = None;
    for figure in figures.filter(|f| f.backend().is_none()) {
        let (Some(tflops), Some(percent)) = (figure.record.figure, figure.record.percent_of_limit) else {
            continue;
        };
        if percent > 0.0 && latest.is_none_or(|(_, run)| figure.run.date_utc > run.date_utc) {
            latest = Some((tflops * 100.0 / percent, figure.run));
        }
    }
    latest
}

/// A row of a panel's table or chart.
#[derive(Clone, Copy, Debug)]
enum Row<'a> {
    Step(&'a str),
    Backend(&'static Backend),
}

impl Row<'_> {
    fn kernel(&self) -> &str {
        match self {
            Row::Step(kernel) => kernel,
            Row::Backend(backend) => backend.kernel,
        }
    }

    fn name(&self, links: &Links) -> String {
        match self {
            Row::Step(kernel) => step_name(kernel, links),
            Row::Backend(backend) => backend.name.to_string(),
        }
    }
}

/// The rows of `grid` shown for `steps`: those steps, then each backend that was timed in
/// its runs (one that was not is left out, and a note says so).
fn rows<'a>(grid: &Grid, steps: &[&'a str]) -> Vec<Row<'a>> {
    let backends = BACKENDS.into_iter().filter(|b| grid.has(b)).map(Row::Backend);
    steps.iter().map(|&s| Row::Step(s)).chain(backends).collect()
}

/// A cell of a lengths table: the TFLOP/s and the % of cuDNN in its run, rounded (`612.3
/// (98%)`); cuDNN's TFLOP/s alone; `WRONG` where the check failed; empty where there is no
/// figure.
/// `mark_heated`: a panel whose figures come from heated runs and cool ones marks the heated
/// figures with [`HEATED_MARK`].
fn cell(figure: Option<Figure>, mark_heated: bool) -> String {
    let Some(figure) = figure else { return String::new() };
    if figure.record.passed == Some(false) {
        return "WRONG".into();
    }
    let mark = if mark_heated && figure.run.heated() { HEATED_MARK } else { "" };
    let gaps = if figure.backend_had_gaps(&CUDNN) { GAPS_MARK } else { "" };
    match (figure.record.figure, figure.percent_of(&CUDNN)) {
        (Some(tflops), Some(of_cudnn)) => {
            format!("{} ({}{gaps}){mark}", one_decimal(tflops), rounded_percent(of_cudnn))
        }
        (Some(tflops), None) => format!("{}{mark}", one_decimal(tflops)),
        (None, _) => String::new(),
    }
}

/// What follows a figure timed under steady load in a panel that mixes heated and cool runs.
const HEATED_MARK: &str = "*";

/// Whether the figures shown of `rows` at `lengths` come from heated runs and cool ones both.
fn mixes_heat(grid: &Grid, rows: &[Row], lengths: &[u64]) -> bool {
    let shown = runs(grid.shown(rows, lengths).into_iter());
    shown.iter().any(|r| r.heated()) && shown.iter().any(|r| !r.heated())
}

/// A percentage in a cell: whole from 10 % up (`98%`), with a decimal below (`0.2%`), where
/// the first steps of the ladder are.
fn rounded_percent(percent: f64) -> String {
    if percent < 9.95 { format!("{percent:.1}%") } else { format!("{percent:.0}%") }
}

/// The tables of `rows` of one panel at `lengths`: a column per length, each cell
/// [`cell`], [`MISSING`] where a row has no figure; the lengths shared out over as few
/// tables as fit the page.
fn lengths_tables(grid: &Grid, rows: &[Row], lengths: &[u64], links: &Links) -> Vec<Table> {
    let mark_heated = mixes_heat(grid, rows, lengths);
    let build = |range: Range<usize>| -> Table {
        let headers: Vec<String> =
            lengths[range.clone()].iter().map(|&n| format!("seq {}", length_text(n))).collect();
        let mut columns = vec![("step", Align::Left)];
        columns.extend(headers.iter().map(|h| (h.as_str(), Align::Right)));
        let mut table = Table::new(&columns);
        for row in rows {
            let mut cells = vec![row.name(links)];
            cells
                .extend(lengths[range.clone()].iter().map(|&n| cell(grid.get(row.kernel(), n), mark_heated)));
            table.row(cells);
        }
        table.with_blank_cells(MISSING)
    };
    fitting(lengths.len(), build)
}

/// `file` (`date`), for the line above a table.
fn run_name(run: &Run) -> String {
    match run.heated() {
        true => format!("`{}` ({}, heated {} s)", run.file, run.date(), run.heat_s),
        false => format!("`{}` ({})", run.file, run.date()),
    }
}

/// The line above a panel's table of `rows` at `lengths`: the runs its figures are of, and
/// the ceiling.
fn sources(grid: &Grid, rows: &[Row], lengths: &[u64]) -> String {
    let shown = grid.shown(rows, lengths);
    let names: Vec<String> = runs(shown.iter().copied()).iter().map(|r| run_name(r)).collect();
    let mut text = match names.as_slice() {
        [one] => format!("From {one}."),
        [earlier @ .., last] => format!(
            "From {} and {last}, each step's cell the latest run's, each backend's that of the run with the most \
             steps at its length; a step's % is of cuDNN in its own run.",
            earlier.join(", ")
        ),
        [] => String::new(),
    };
    if mixes_heat(grid, rows, lengths) {
        text += &format!(
            " The heated runs' figures, marked {HEATED_MARK}, were timed under steady load (`host --heat`), at \
             the clock the power cap holds; the others from a cool start, at a higher clock: compare a step with \
             cuDNN by its % (of cuDNN in its own run), and a step with another only within one run."
        );
    }
    if shown.iter().any(|f| f.backend_had_gaps(&CUDNN) && f.percent_of(&CUDNN).is_some()) {
        text += &format!(
            " A % marked {GAPS_MARK} is of a cuDNN timed one call a sample, each after an idle spin (Python could \
             not queue its calls faster than the GPU ran them), beside a step timed back to back: it reads high."
        );
    }
    if let Some((ceiling, run)) = ceiling(shown.into_iter()) {
        text += &format!(" The tensor-core ceiling p8 measured in `{}`: {ceiling:.0} TFLOP/s.", run.file);
    }
    text
}

/// Whose median, of `record`'s and (for a step) of the cuDNN figure its % is of, was taken
/// while the clock fell ([`timed_while_the_clock_fell`]): "its own", "cuDNN's", "both", or
/// none.
fn clock_fell(record: &Record) -> Option<&'static str> {
    let fell = timed_while_the_clock_fell;
    let own = fell(record.median_us, record.min_us);
    let sdpa = record.details.as_ref().and_then(|d| d.get("sdpa"));
    let cudnn = backend(record).is_none()
        && sdpa.and_then(|s| s.get(CUDNN.key)).is_some_and(|entry| {
            fell(entry.get("median_us").and_then(Value::as_f64), entry.get("min_us").and_then(Value::as_f64))
        });
    match (own, cudnn) {
        (true, true) => Some("both"),
        (true, false) => Some("its own"),
        (false, true) => Some("cuDNN's"),
        (false, false) => None,
    }
}

/// The notes under a panel's table of `rows` at `lengths`: each check that failed, the
/// figures whose median (or whose cuDNN's) was taken while the clock fell, each backend left
/// out, and why a backend has no figure where the script said.
fn notes(grid: &Grid, rows: &[Row], lengths: &[u64], links: &Links) -> String {
    let mut out = String::new();
    let mut fell = vec![];
    for row in rows {
        for &n in lengths {
            let Some(whose) = grid.get(row.kernel(), n).filter(Figure::counts).and_then(|f| f.clock_fell())
            else {
                continue;
            };
            fell.push(match row {
                Row::Step(_) => format!("{} at seq {} ({whose})", row.name(links), length_text(n)),
                Row::Backend(_) => format!("{} at seq {}", row.name(links), length_text(n)),
            });
        }
    }
    out += &clock_fell_note(&fell);
    for row in rows.iter().filter(|r| matches!(r, Row::Step(_))) {
        for &n in lengths {
            let Some(figure) = grid.get(row.kernel(), n).filter(|f| f.record.passed == Some(false)) else {
                continue;
            };
            let wrong = figure.detail("wrong_elements").and_then(Value::as_u64);
            let first = figure.detail("first_wrong").and_then(Value::as_str);
            let what = match (wrong, first) {
                (Some(w), Some(first)) => format!("{w} wrong; first: {first}"),
                (Some(w), None) => format!("{w} wrong"),
                (None, _) => "failed".into(),
            };
            out += &format!("- {} at seq {}: WRONG ({what}).\n", row.name(links), length_text(n));
        }
    }
    let left_out: Vec<&str> = BACKENDS.iter().filter(|b| !grid.has(b)).map(|b| b.name).collect();
    if !left_out.is_empty() {
        let several = runs(grid.shown(rows, lengths).into_iter()).len() > 1;
        out += &format!(
            "- {}: not timed in {} (`bench/attention-sdpa.py` adds {} to a run's records).\n",
            left_out.join(" and "),
            if several { "these runs" } else { "this run" },
            if left_out.len() > 1 { "them" } else { "it" }
        );
    }
    for backend in BACKENDS.into_iter().filter(|b| grid.has(b)) {
        // The lengths of each reason, in order of first appearance.
        let mut reasons: Vec<(String, Vec<u64>)> = vec![];
        for &n in
            lengths.iter().filter(|&&n| grid.get(backend.kernel, n).is_none_or(|f| f.record.figure.is_none()))
        {
            let reason = grid.cells.iter().filter(|((_, m), _)| *m == n).find_map(|(_, f)| f.why_no(backend));
            let Some(reason) = reason else { continue };
            match reasons.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, at)) => at.push(n),
                None => reasons.push((reason, vec![n])),
            }
        }
        for (reason, at) in reasons {
            let at: Vec<String> = at.iter().map(|&n| length_text(n)).collect();
            out += &format!("- {} at seq {}: {reason}\n", backend.name, at.join(", "));
        }
    }
    if out.is_empty() { out } else { out + "\n" }
}

/// The chart of a panel: TFLOP/s by length, a line per backend (first, so that their
/// colours stay put as the ladder grows) and per step with a figure, the tensor-core ceiling
/// as a dashed line; `None` where no row has a figure. Dated with the latest run of its
/// figures (its subtitle as the host's charts write it, [`DRAWN_IN`]).
fn plot(gpu: &GpuResults, panel: &Panel, grid: &Grid, order: &StepOrder) -> Option<Plot> {
    let steps = grid.steps(order);
    let rows = BACKENDS
        .into_iter()
        .filter(|b| grid.has(b))
        .map(Row::Backend)
        .chain(steps.into_iter().map(Row::Step));
    let series: Vec<Series> = rows
        .map(|row| Series {
            name: match row {
                Row::Step(kernel) => kernel.to_string(),
                Row::Backend(backend) => backend.name.to_string(),
            },
            points: grid
                .lengths()
                .into_iter()
                .filter_map(|n| {
                    Some((n as f64, grid.get(row.kernel(), n).filter(Figure::counts)?.record.figure?))
                })
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    if series.is_empty() {
        return None;
    }
    let runs = grid.runs();
    let latest = runs.last()?;
    let earlier: Vec<String> = runs[..runs.len() - 1].iter().map(|r| r.date()).collect();
    let earlier = if earlier.is_empty() {
        String::new()
    } else {
        format!("; with the run{} of {}", if earlier.len() > 1 { "s" } else { "" }, earlier.join(", "))
    };
    let keys = if panel.setting.keys == Keys::AsQueries { "queries = keys" } else { "queries" };
    Some(Plot {
        name: panel.chart().trim_end_matches(".svg").to_string(),
        title: format!("Attention forward, {}: TFLOP/s by length", panel.title()),
        x_label: format!("sequence length ({keys})"),
        y_label: "TFLOP/s (FLOPs / median time)".into(),
        x_unit: String::new(),
        y_unit: "TFLOP/s".into(),
        x_axis: XAxis::Log2Bytes,
        series,
        h_lines: grid
            .ceiling()
            .map(|(c, _)| (c, "tensor-core ceiling (p8)".to_string()))
            .into_iter()
            .collect(),
        v_lines: vec![],
        stamp: format!("{}{DRAWN_IN}{}{earlier}; {}", gpu.device(), latest.date(), panel.problem_text()),
    })
}

/// Every chart of `gpu`'s attention figures, as (file name, SVG): one per panel that has a
/// figure. The same records give the same bytes.
pub fn charts(gpu: &GpuResults, order: &StepOrder) -> crate::Result<Vec<(String, String)>> {
    let mut out = vec![];
    for (panel, grid) in &figures(gpu) {
        if let Some(plot) = plot(gpu, panel, grid, order) {
            out.push((panel.chart(), plot.svg().map_err(|e| e.to_string())?));
        }
    }
    Ok(out)
}

/// The charts of the panels where `kernels` have a record, on any of `gpus`, each once, in
/// page order: those a chapter of these steps shows.
pub fn charts_of(gpus: &[GpuResults], kernels: &[&str], order: &StepOrder) -> Vec<String> {
    let mut panels: Vec<Panel> = vec![];
    for gpu in gpus {
        for (panel, grid) in figures(gpu) {
            let charted = plot(gpu, &panel, &grid, order).is_some();
            if charted && kernels.iter().any(|k| !grid.lengths_of(k).is_empty()) && !panels.contains(&panel) {
                panels.push(panel);
            }
        }
    }
    panels.sort();
    panels.iter().map(Panel::chart).collect()
}

/// What a run's attention measured, for the files table: `attention seq 512–16k (bf16 d64,
/// d128; cuDNN, FA2)`; `None` where it has no attention record.
pub fn contents(run: &Run) -> Option<String> {
    let placed = placed(run);
    if placed.is_empty() {
        return None;
    }
    let mut lengths: Vec<u64> = placed.iter().map(|&(_, n, _)| n).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let mut panels: Vec<&Panel> = placed.iter().map(|(p, _, _)| p).collect();
    panels.sort();
    let mut types: Vec<&str> = panels.iter().map(|p| p.precision.as_str()).collect();
    types.dedup();
    let mut dims: Vec<u64> = panels.iter().map(|p| p.head_dim).collect();
    dims.sort_unstable();
    dims.dedup();
    let dims: Vec<String> = dims.iter().map(|d| format!("d{d}")).collect();
    let backends: Vec<&str> = BACKENDS
        .iter()
        .filter(|b| placed.iter().any(|(_, _, r)| r.kernel == b.kernel))
        .map(|b| b.short)
        .collect();
    let backends = if backends.is_empty() { String::new() } else { format!("; {}", backends.join(", ")) };
    Some(format!(
        "attention seq {} ({} {}{backends})",
        lengths_text(&lengths),
        types.join(", "),
        dims.join(", ")
    ))
}

/// What a table whose heated figures were timed one launch a sample adds to its heading.
const GAPPY_NOTE: &str = "timed one launch a sample, PyTorch's each after an idle spin: at the power cap \
     the gaps lent cuDNN 1–12 % at head dim 128, 1k–4k keys, no mask: a step's % of cuDNN there reads low (records.md, \
     idle gaps)";

/// What a table adds to its heading where some of its best figures come from runs heated one
/// launch a sample: which files, and [`GAPPY_NOTE`].
fn gappy_note(rows: &[(&Panel, u64, Figure)]) -> String {
    let mut files: Vec<&str> = rows
        .iter()
        .map(|(_, _, best)| best.run)
        .filter(|run| run.heated() && run.back_to_back <= 1)
        .map(|run| run.file.as_str())
        .collect();
    files.sort_unstable();
    files.dedup();
    match files.as_slice() {
        [] => String::new(),
        _ if files.len() == runs(rows.iter().map(|(_, _, best)| *best)).len() => {
            format!("; heated runs {GAPPY_NOTE}")
        }
        [one] => format!("; `{one}` {GAPPY_NOTE}"),
        [earlier @ .., last] => {
            let names: Vec<String> = earlier.iter().map(|f| format!("`{f}`")).collect();
            format!("; {} and `{last}` {GAPPY_NOTE}", names.join(", "))
        }
    }
}

/// What follows a % of a backend timed one call a sample beside a step timed back to back.
const GAPS_MARK: &str = "°";

/// What a table with a [`GAPS_MARK`] adds to its heading.
const GAPS_NOTE: &str = "; ° the backend timed one call a sample, each after an idle spin, as Python could not queue \
     its calls faster than the GPU ran them, the step back to back: the % reads high (records.md, idle gaps)";

/// The "which step is fastest" part of the attention: per setting, a table of each panel's
/// best step at each length (`Grid::best`) with its TFLOP/s, its % of cuDNN, of
/// FlashAttention-2 and of the ceiling, and its file. Empty where `gpu` has no attention
/// step with a figure.
pub fn best_part(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    let mut settings: Vec<(&Setting, Vec<(&Panel, u64, Figure)>)> = vec![];
    let figures = figures(gpu);
    for (panel, grid) in &figures {
        if settings.last().is_none_or(|(s, _)| **s != panel.setting) {
            settings.push((&panel.setting, vec![]));
        }
        let rows = &mut settings.last_mut().expect("pushed above").1;
        rows.extend(grid.lengths().into_iter().filter_map(|n| Some((panel, n, grid.best(n, order)?))));
    }
    let mut out = String::new();
    for (setting, rows) in settings.into_iter().filter(|(_, rows)| !rows.is_empty()) {
        let heat = HeatMarks::of(rows.iter().map(|(_, _, best)| best.run));
        // PyTorch's calls timed one a sample, each after an idle spin: at the power cap those
        // gaps lend cuDNN clock (docs/records.md).
        let gappy = gappy_note(&rows);
        let mut table = best_table();
        let mut marked = false;
        for (panel, length, best) in rows {
            let mut of = |backend: &Backend| {
                let gaps = best.backend_had_gaps(backend) && best.percent_of(backend).is_some();
                marked |= gaps;
                percent(best.percent_of(backend)) + if gaps { GAPS_MARK } else { "" }
            };
            let (of_cudnn, of_flash) = (of(&CUDNN), of(&FLASH));
            table.row(vec![
                panel.label(),
                length_text(length),
                step_name(&best.record.kernel, links),
                one_decimal(best.record.figure.unwrap_or_default()),
                of_cudnn,
                of_flash,
                percent(best.record.percent_of_limit),
                heat.file(best.run),
            ]);
        }
        out += &format!(
            "Attention forward, {} (TFLOP/s; % of cuDNN and of FlashAttention-2 in the same run where it \
             timed them, % of the tensor-core ceiling p8{}{}{}):\n\n",
            setting.describe(),
            heat.heading(),
            gappy,
            if marked { GAPS_NOTE } else { "" }
        );
        out += &table.without_empty_columns().with_blank_cells(MISSING).render();
        out += "\n";
    }
    out
}

/// An empty table of best steps.
fn best_table() -> Table {
    Table::new(&[
        ("problem", Align::Left),
        ("seq", Align::Right),
        ("best step", Align::Left),
        ("TFLOP/s", Align::Right),
        ("% cuDNN", Align::Right),
        ("% FA2", Align::Right),
        ("% ceiling", Align::Right),
        ("file", Align::Left),
    ])
}

/// The introduction of the attention section.
const INTRO: &str = "TFLOP/s counts FLOPs as FlashAttention's papers do, 4 · batch · heads · seq_q · seq_k · head \
                     dim, halved under the causal mask, over the median time. cuDNN and FlashAttention-2 are \
                     PyTorch's `scaled_dot_product_attention` pinned to that backend, timed on the same shapes in \
                     the same device call by `bench/attention-sdpa.py`; a cell's (%) is its TFLOP/s over cuDNN's \
                     in its run, rounded. The dashed line of each chart is the tensor-core ceiling p8 measured in \
                     the run. WRONG: the check failed (a wrong step is not timed, and never the best); –: no \
                     figure (a note under the table says why where the records do).";

/// The attention ladder: per setting and panel, every step's and backend's TFLOP/s at every
/// length, the notes, and the panel's chart. Empty where `gpu` has no attention record.
pub fn section(gpu: &GpuResults, order: &StepOrder, links: &Links) -> String {
    let figures = figures(gpu);
    if figures.is_empty() {
        return String::new();
    }
    let mut out = format!("## The attention ladder\n\n{INTRO}\n\n");
    let mut setting: Option<&Setting> = None;
    for (panel, grid) in &figures {
        if setting != Some(&panel.setting) {
            out += &format!("### {}\n\n", capitalised(&panel.setting.describe()));
            setting = Some(&panel.setting);
        }
        let rows = rows(grid, &grid.steps(order));
        let lengths = grid.lengths();
        out += &format!(
            "#### {} ({})\n\n{}\n\n",
            panel.title(),
            panel.heads_text(),
            sources(grid, &rows, &lengths)
        );
        for table in lengths_tables(grid, &rows, &lengths, links) {
            out += &table.render();
            out += "\n";
        }
        out += &notes(grid, &rows, &lengths, links);
        if plot(gpu, panel, grid, order).is_some() {
            out += &format!(
                "![The attention ladder in {} on the {}]({})\n\n",
                panel.title(),
                gpu.device(),
                (links.chart)(&gpu.kind, &panel.chart())
            );
        }
    }
    out
}

/// The figures of a chapter's `kernels` on `gpu`: per panel where one has a record, its
/// row and the backends' at the lengths it ran, with the notes; and the runs they are of.
/// `None` where no attention record of `gpu` is of these kernels.
pub fn step_tables<'a>(
    gpu: &'a GpuResults,
    kernels: &[&str],
    order: &StepOrder,
    links: &Links,
) -> Option<(Vec<&'a Run>, String)> {
    let mut out = String::new();
    let mut used: Vec<&Run> = vec![];
    for (panel, grid) in &figures(gpu) {
        let mut steps: Vec<&str> = grid.steps(order).into_iter().filter(|s| kernels.contains(s)).collect();
        steps.sort_by_key(|k| order.rank(k));
        let mut lengths: Vec<u64> = steps.iter().flat_map(|s| grid.lengths_of(s)).collect();
        lengths.sort_unstable();
        lengths.dedup();
        if lengths.is_empty() {
            continue;
        }
        let rows = rows(grid, &steps);
        for run in runs(grid.shown(&rows, &lengths).into_iter()) {
            if !used.iter().any(|r| std::ptr::eq(*r, run)) {
                used.push(run);
            }
        }
        out += &format!(
            "**{}** ({}). {}\n\n",
            panel.title(),
            panel.problem_text(),
            sources(grid, &rows, &lengths)
        );
        for table in lengths_tables(grid, &rows, &lengths, links) {
            out += &table.render();
            out += "\n";
        }
        out += &notes(grid, &rows, &lengths, links);
    }
    (!used.is_empty()).then_some((used, out))
}

/// Whether `gpu` has an attention chart: a panel with a figure.
pub fn has_charts(gpu: &GpuResults, order: &StepOrder) -> bool {
    figures(gpu).iter().any(|(panel, grid)| plot(gpu, panel, grid, order).is_some())
}

#[cfg(test)]
mod tests {
    //! The attention parts of a page and its charts, on a fixture the host's own code writes:
    //! its step records are `host::families::attention::report::record` of rows as the runner
    //! makes them, SDPA's figures are added to them as `bench/attention-sdpa.py` adds them
    //! ([`add_sdpa`], after the script's `apply_results`), its files are `results_json` of a
    //! header as `host::run` makes it. No GPU is needed: the figures come from a simple model.
    //!
    //! The ladder is the registry's steps and two steps of the fixture's own ([`FUSED`],
    //! [`MMA`]), so that the tests hold as the registry grows. Three files: `a01.json`, an
    //! earlier run of the registry's steps alone without SDPA; `ladder.json`, every step in
    //! the host's default setting (16k tokens, hidden 2048) with SDPA, where [`MMA`] fails its
    //! check at [`WRONG_AT`] and FlashAttention-2 refuses head dim 128 at 16k; `batch1.json`,
    //! batch 1 at head dim 128.

    use super::*;
    use crate::Repo;
    use crate::markdown::MAX_TABLE_WIDTH;
    use crate::records::{self, chart_date};
    use crate::results::{self as results, committed_links, page};
    use host::base::gpu::DeviceInfo;
    use host::base::precision::Precision;
    use host::families::attention::problem::{Layout, Problem};
    use host::families::attention::reference::Check;
    use host::families::attention::registry::{ATTENTION_STEPS, AttentionStep, HeadDims, SM80, Scheme};
    use host::families::attention::report::{self, Limit};
    use host::measure::timing::{Stop, Timing};
    use host::report::records::results_json;
    use host::twins::TwinResult;
    use serde_json::json;
    use std::path::PathBuf;

    #[test]
    fn a_median_taken_while_the_clock_fell_is_told_apart() {
        let record = |kernel: &str, median: f64, min: f64, cudnn: Option<(f64, f64)>| -> Record {
            let mut value = json!({ "family": NAME, "kernel": kernel, "median_us": median, "min_us": min });
            if let Some((median, min)) = cudnn {
                value["details"] = json!({ "sdpa": { "cudnn": { "median_us": median, "min_us": min } } });
            }
            serde_json::from_value(value).unwrap()
        };
        let step = "a09_softmax_chains";
        // a09 at head dim 128, 16k keys on an H200: 3446 µs at the capped clock, 3015 at the first.
        assert_eq!(clock_fell(&record(step, 3446.0, 3015.0, Some((3120.0, 3100.0)))), Some("its own"));
        assert_eq!(clock_fell(&record(step, 3087.0, 3082.0, Some((3425.0, 3120.0)))), Some("cuDNN's"));
        assert_eq!(clock_fell(&record(step, 3446.0, 3015.0, Some((3425.0, 3120.0)))), Some("both"));
        assert_eq!(clock_fell(&record(step, 3446.0, 3015.0, None)), Some("its own"));
        // At one clock the two lie within 1.5 %; a short launch scatters for other reasons.
        assert_eq!(clock_fell(&record(step, 3033.0, 3022.0, Some((3130.0, 3120.0)))), None);
        assert_eq!(clock_fell(&record(step, 120.0, 100.0, Some((130.0, 100.0)))), None);
        // A backend's own record: its median alone.
        assert_eq!(clock_fell(&record(CUDNN.kernel, 3425.0, 3120.0, None)), Some("its own"));
    }

    /// The fixture's device: the H100 of `docs/results/h100/`.
    fn h100() -> DeviceInfo {
        DeviceInfo {
            ordinal: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            max_threads_per_sm: 2048,
            sm_clock_khz: 1_980_000,
            l2_bytes: 52_428_800,
            memory_bytes: 85_017_493_504,
            memory_clock_khz: 2_619_000,
            memory_bus_bits: 5120,
            driver_version: 13000,
            ptx_arch: SM80,
        }
    }

    fn no_dynamic_shared(_: u32) -> u32 {
        0
    }

    /// A fused step of the fixture's own, after the registry's.
    static FUSED: AttentionStep = AttentionStep {
        id: "a98_fixture_fused",
        summary: "a fused step of the fixture",
        scheme: Scheme::Fused { block_q: |_| 64, threads: 128 },
        head_dims: HeadDims::Only(&[64, 128]),
        shared_bytes: no_dynamic_shared,
        entries: &[],
        arch: SM80,
    };

    /// A tensor-core step of the fixture's own, the fastest of the ladder.
    static MMA: AttentionStep =
        AttentionStep { id: "a99_fixture_mma", summary: "a tensor-core step", ..FUSED };

    /// Every step of the fixture, in ladder order.
    fn ladder() -> Vec<&'static AttentionStep> {
        ATTENTION_STEPS.iter().chain([&FUSED, &MMA]).collect()
    }

    /// The steps that keep their scores in memory (the registry's), run at the short
    /// lengths alone.
    fn registered() -> Vec<&'static AttentionStep> {
        ATTENTION_STEPS.iter().collect()
    }

    /// Whether `step` is one of the fixture's own.
    fn is_fixtures(step: &AttentionStep) -> bool {
        [FUSED.id, MMA.id].contains(&step.id)
    }

    /// The tensor-core ceiling of the run, in TFLOP/s.
    const CEILING: f64 = 877.0;
    /// The length at which [`MMA`] fails its check (bf16, head dim 128, causal, 16k tokens).
    const WRONG_AT: u64 = 16384;
    /// The reason FlashAttention-2 gives at head dim 128 and 16k.
    const REFUSAL: &str = "No available kernel. Aborting execution. (Flash attention refuses this shape.)";
    /// The runs' dates: `a01.json` first.
    const EARLY: &str = "2026-11-25T03:48:02Z";
    const DATE: &str = "2026-12-01T10:00:00Z";
    const LATER: &str = "2026-12-01T11:30:00Z";

    /// A step's TFLOP/s on a problem: a01 under 1, the others growing with the length and
    /// along the ladder.
    fn model(step: &AttentionStep, p: &Problem) -> f64 {
        let rank = ladder().iter().position(|s| s.id == step.id).unwrap() as f64;
        let registered = ATTENTION_STEPS.len() as f64;
        if rank < registered {
            return 0.8 + 0.01 * rank + p.head_dim as f64 / 1280.0;
        }
        let length = (p.seq_q as f64).log2() - 8.0;
        (120.0 + 150.0 * (rank - registered)) * (1.0 + 0.1 * length) * p.head_dim as f64 / 128.0
    }

    /// A settled timing of `flops` at `tflops`.
    fn timing(flops: f64, tflops: f64) -> Timing {
        let ms = flops / (tflops * 1e12) * 1e3;
        Timing {
            median_ms: ms,
            min_ms: ms * 0.99,
            max_ms: ms * 1.02,
            q1_ms: ms * 0.998,
            q3_ms: ms * 1.002,
            repetitions: 20,
            stop: Stop::Settled,
        }
    }

    /// A check as the host's reference makes it, right or wrong.
    fn check(right: bool) -> Check {
        Check {
            wrong: if right { 0 } else { 12 },
            first: if right { String::new() } else { "o[0, 3, 77, 5] = NaN, want 0.25".into() },
            max_error: if right { 1e-4 } else { f64::NAN },
            max_error_over_bound: if right { 0.03 } else { f64::INFINITY },
            rows: 184,
            method: "184 sampled rows against an f64 reference".into(),
        }
    }

    /// A problem of the host's settings: `batch` (or 16k tokens), hidden 2048, bshd.
    fn problem(batch: Option<usize>, seq: usize, head_dim: usize, mask: Mask) -> Problem {
        Problem {
            batch: batch.unwrap_or((16384 / seq).max(1)),
            heads_q: 2048 / head_dim,
            heads_kv: 2048 / head_dim,
            seq_q: seq,
            seq_k: seq,
            head_dim,
            layout: Layout::Bshd,
            mask,
            softmax_scale: None,
        }
    }

    /// The records the runner writes for `steps` on one problem; `wrong`: a step whose
    /// check fails.
    fn problem_records(steps: &[&'static AttentionStep], p: Problem, wrong: Option<&str>) -> Vec<Record> {
        let setting = report::Setting { problem: p, precision: Precision::Bf16 };
        let limit = Limit {
            tflops: Some(CEILING),
            name: Some("tensor-core ceiling (p8), wgmma 877.0 TFLOP/s".into()),
        };
        steps
            .iter()
            .map(|&step| {
                let right = wrong != Some(step.id);
                let row = report::Row {
                    step,
                    block: Some(128),
                    launches: Some(1),
                    check: Some(check(right)),
                    timing: right.then(|| timing(p.flops(), model(step, &p))),
                    registers: Some(96),
                    twin: TwinResult::NotRun("not asked".into()),
                };
                report::record(&h100(), &setting, &limit, &row)
            })
            .collect()
    }

    /// A backend's figure on a shape, or why it has none: cuDNN ahead of FlashAttention-2,
    /// which refuses head dim 128 at 16k.
    fn backend_figure(backend: &Backend, shape: &Shape) -> Result<f64, String> {
        let length = (shape.seq_q as f64).log2() - 8.0;
        match backend.key {
            "cudnn" => Ok(380.0 * (1.0 + 0.08 * length)),
            _ if shape.head_dim == 128 && shape.seq_q == 16384 => Err(REFUSAL.into()),
            _ => Ok(300.0 * (1.0 + 0.08 * length)),
        }
    }

    /// `records` as `bench/attention-sdpa.py` leaves them (its `apply_results`): each step
    /// record gets `details.sdpa`, its % of each backend and cuDNN as its vendor; a record
    /// per shape and backend is appended, with the shape in its details.
    fn add_sdpa(records: &mut Vec<Record>) {
        let mut shapes: Vec<(Shape, usize)> = vec![];
        for (index, record) in records.iter().enumerate().filter(|(_, r)| is_step(r)) {
            let shape = Shape::of(record).unwrap();
            if !shapes.iter().any(|(s, _)| *s == shape) {
                shapes.push((shape, index));
            }
        }
        let percent = |step: Option<f64>, of: Option<f64>| Some(100.0 * step? / of?);
        for (shape, template) in shapes {
            let figures: Vec<(&Backend, Result<f64, String>)> =
                BACKENDS.iter().map(|&b| (b, backend_figure(b, &shape))).collect();
            let tflops = |backend: &Backend| figures.iter().find(|(b, _)| *b == backend)?.1.clone().ok();
            let (cudnn, flash) = (tflops(&CUDNN), tflops(&FLASH));
            let mut sdpa = json!({ "mode": "interleaved", "torch": "2.9.0", "cudnn_version": 91002 });
            for (backend, figure) in &figures {
                sdpa[backend.key] = match figure {
                    Ok(t) => json!({ "median_us": 1000.0, "tflops": t }),
                    Err(why) => json!({ "error": why }),
                };
            }
            for record in records.iter_mut().filter(|r| is_step(r) && Shape::of(r).as_ref() == Some(&shape)) {
                let details = record.details.as_mut().unwrap();
                details.insert("sdpa".into(), sdpa.clone());
                details.insert("percent_of_cudnn".into(), json!(percent(record.figure, cudnn)));
                details.insert("percent_of_flash".into(), json!(percent(record.figure, flash)));
                record.vendor = Some("cuDNN (PyTorch SDPA)".into());
                record.percent_of_vendor = percent(record.figure, cudnn);
            }
            let (variant, n, flops) = {
                let t = &records[template];
                (t.variant.clone(), t.n, t.details.as_ref().unwrap()["flops"].clone())
            };
            for (backend, figure) in &figures {
                let mut record = Record::new(NAME, backend.kernel);
                (record.variant, record.n, record.precision) = (variant.clone(), n, Some("bf16".into()));
                record.unit = Some("TFLOP/s".into());
                record.figure = figure.clone().ok();
                record.median_us = record.figure.map(|_| 1000.0);
                record.vendor = Some("cuDNN (PyTorch SDPA)".into());
                record.percent_of_vendor = percent(record.figure, cudnn);
                let serde_json::Value::Object(details) = json!({
                    "batch": shape.batch, "heads_q": shape.heads_q, "heads_kv": shape.heads_kv,
                    "seq_q": shape.seq_q, "seq_k": shape.seq_k, "head_dim": shape.head_dim,
                    "mask": shape.mask, "layout": shape.layout, "flops": flops,
                }) else {
                    unreachable!("an object literal")
                };
                record.details = Some(details);
                records.push(record);
            }
        }
    }

    /// The lengths of `ladder.json`: `host --seq 512,1k,4k,16k`.
    const LENGTHS: [usize; 4] = [512, 1024, 4096, 16384];
    /// The lengths the registry's steps run at in `ladder.json` (their scores in memory).
    const SHORT: [usize; 2] = [512, 1024];

    /// `ladder.json`: every step, both head dims and masks, 16k tokens, then SDPA.
    fn ladder_run() -> Vec<Record> {
        let mut records = vec![];
        for head_dim in [64, 128] {
            for mask in [Mask::None, Mask::Causal] {
                for seq in LENGTHS {
                    let steps: Vec<_> =
                        ladder().into_iter().filter(|s| SHORT.contains(&seq) || is_fixtures(s)).collect();
                    let wrong =
                        (head_dim == 128 && mask == Mask::Causal && seq as u64 == WRONG_AT).then_some(MMA.id);
                    records.extend(problem_records(&steps, problem(None, seq, head_dim, mask), wrong));
                }
            }
        }
        add_sdpa(&mut records);
        records
    }

    /// `a01.json`: the registry's steps at 1k and 4k, no SDPA (as the quick run).
    fn early_run() -> Vec<Record> {
        let mut records = vec![];
        for head_dim in [64, 128] {
            for mask in [Mask::None, Mask::Causal] {
                for seq in [1024, 4096] {
                    records.extend(problem_records(&registered(), problem(None, seq, head_dim, mask), None));
                }
            }
        }
        records
    }

    /// `batch1.json`: batch 1, head dim 128, both masks, the fixture's steps, then SDPA.
    fn batch1_run() -> Vec<Record> {
        let mut records = vec![];
        for mask in [Mask::None, Mask::Causal] {
            for seq in [1024, 4096, 16384] {
                records.extend(problem_records(&[&FUSED, &MMA], problem(Some(1), seq, 128, mask), None));
            }
        }
        add_sdpa(&mut records);
        records
    }

    /// A results file as `host --json` writes it, of a run at `date`.
    fn results_file(records: &[Record], date: &str) -> String {
        let header = json!({
            "date_utc": date,
            "device": h100().json(),
            "seed": 7,
            "timing": { "min_samples": 20, "min_time_s": 0.01, "max_noise_percent": 0.5, "budget_s": 10.0,
                        "warmup": 3, "l2_flushed": true },
            "twins": { "compiler": "NVRTC 13.0", "target": "compute_90a", "options": host::twins::OPTIONS },
            "complete": true,
            "not_run": [],
            "failures": [],
        });
        results_json(header, records)
    }

    /// A repository whose `docs/results/h100/` holds the fixture's three files; removed when
    /// dropped.
    struct Fixture {
        root: PathBuf,
    }

    impl Fixture {
        fn new(name: &str) -> Self {
            let root = std::env::temp_dir().join(format!("book-attention-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let dir = root.join(records::RESULTS_DIR).join("h100");
            std::fs::create_dir_all(&dir).unwrap();
            for (file, records, date) in [
                ("a01.json", early_run(), EARLY),
                ("ladder.json", ladder_run(), DATE),
                ("batch1.json", batch1_run(), LATER),
            ] {
                std::fs::write(dir.join(file), results_file(&records, date)).unwrap();
            }
            Self { root }
        }

        fn repo(&self) -> Repo {
            Repo::at(&self.root)
        }

        fn results(&self) -> PathBuf {
            self.root.join(records::RESULTS_DIR)
        }

        fn gpu(&self) -> GpuResults {
            records::load(&self.repo(), "h100").unwrap()
        }
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    /// The default setting of the fixture: 16k tokens, hidden 2048, bshd.
    fn tokens() -> Setting {
        Setting {
            batching: Batching::Tokens(16384),
            hidden: 2048,
            group: 1,
            keys: Keys::AsQueries,
            layout: "bshd".into(),
        }
    }

    fn panel(head_dim: u64, mask: &str, setting: Setting) -> Panel {
        Panel { precision: "bf16".into(), head_dim, mask: mask.into(), setting }
    }

    /// The part of `text` from the line `from` to the next heading of its level or above.
    fn part<'t>(text: &'t str, from: &str) -> &'t str {
        let start = text.find(from).unwrap_or_else(|| panic!("no {from:?} in:\n{text}"));
        let level = from.chars().take_while(|&c| c == '#').count();
        let rest = &text[start + from.len()..];
        let end = rest
            .match_indices("\n#")
            .find(|(at, _)| rest[at + 1..].chars().take_while(|&c| c == '#').count() <= level)
            .map_or(rest.len(), |(at, _)| at);
        &text[start..start + from.len() + end]
    }

    /// The cell of the first table in `text` in the row whose first cell starts with `row`
    /// and the column headed `column`.
    fn cell(text: &str, row: &str, column: &str) -> Option<String> {
        let split = |line: &str| -> Vec<String> {
            line.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect()
        };
        let mut lines = text.lines().skip_while(|l| !l.starts_with('|'));
        let header = split(lines.next()?);
        let at = header.iter().position(|h| h == column)?;
        lines
            .take_while(|l| l.starts_with('|'))
            .map(split)
            .find(|c| c[0].starts_with(row))
            .map(|c| c[at].clone())
    }

    #[test]
    fn each_run_reads_as_its_setting() {
        let fixture = Fixture::new("read");
        let gpu = fixture.gpu();
        let settings = |file: &str| -> Vec<Setting> {
            let run = gpu.runs.iter().find(|r| r.file == file).unwrap();
            let mut settings: Vec<Setting> = placed(run).into_iter().map(|(p, _, _)| p.setting).collect();
            settings.dedup();
            settings
        };
        assert_eq!(settings("ladder.json"), [tokens()]);
        assert_eq!(settings("a01.json"), [tokens()]);
        assert_eq!(settings("batch1.json"), [Setting { batching: Batching::Fixed(1), ..tokens() }]);
        let figures = figures(&gpu);
        // 2 head dims × 2 masks of 16k tokens, 2 masks of batch 1.
        assert_eq!(figures.len(), 6);
        let grid = &figures[&panel(128, "causal", tokens())];
        assert_eq!(grid.lengths(), LENGTHS.map(|n| n as u64));
        let ids: Vec<&str> = ladder().iter().map(|s| s.id).collect();
        assert_eq!(grid.steps(&StepOrder::new()), ids);
        // a01.json is older: ladder.json's figure at 1k, a01.json's at 4k.
        let first = registered()[0].id;
        assert_eq!(grid.get(first, 1024).unwrap().run.file, "ladder.json");
        assert_eq!(grid.get(first, 4096).unwrap().run.file, "a01.json");
        assert!(grid.get(first, 16384).is_none());
        let (ceiling, _) = grid.ceiling().unwrap();
        assert!((ceiling - CEILING).abs() < 1e-6, "{ceiling}");
        let run = |file: &str| gpu.runs.iter().find(|r| r.file == file).unwrap();
        assert_eq!(
            contents(run("ladder.json")).as_deref(),
            Some("attention seq 512–16k (bf16 d64, d128; cuDNN, FA2)")
        );
        assert_eq!(contents(run("a01.json")).as_deref(), Some("attention seq 1k, 4k (bf16 d64, d128)"));
        assert_eq!(
            contents(run("batch1.json")).as_deref(),
            Some("attention seq 1k–16k (bf16 d128; cuDNN, FA2)")
        );
    }

    #[test]
    fn a_backend_stands_beside_the_steps_it_was_timed_with() {
        // A later run of one step with its own cuDNN and FlashAttention-2 (as a01's ladder part
        // is): its step's cells are the latest, but the backends' stay the ladder's.
        let fixture = Fixture::new("beside");
        let mut lone = problem_records(&[&FUSED], problem(None, 1024, 128, Mask::None), None);
        add_sdpa(&mut lone);
        let dir = fixture.results().join("h100");
        std::fs::write(dir.join("lone.json"), results_file(&lone, LATER)).unwrap();
        let gpu = fixture.gpu();
        let grids = figures(&gpu);
        let grid = &grids[&panel(128, "none", tokens())];
        assert_eq!(grid.get(FUSED.id, 1024).unwrap().run.file, "lone.json");
        for backend in BACKENDS {
            assert_eq!(grid.get(backend.kernel, 1024).unwrap().run.file, "ladder.json", "{}", backend.name);
        }
        // Where the lone run is the only one, its backends are taken.
        let lone_only = GpuResults {
            runs: gpu.runs.iter().filter(|r| r.file == "lone.json").cloned().collect(),
            ..gpu.clone()
        };
        let grids = super::figures(&lone_only);
        assert_eq!(
            grids[&panel(128, "none", tokens())].get(CUDNN.kernel, 1024).unwrap().run.file,
            "lone.json"
        );
    }

    #[test]
    fn how_the_batch_follows_the_length() {
        let shape = |batch, seq_q| Shape {
            batch,
            heads_q: 16,
            heads_kv: 16,
            seq_q,
            seq_k: seq_q,
            head_dim: 128,
            mask: "none".into(),
            layout: "bshd".into(),
        };
        let rule = |shapes: &[Shape]| batching(&shapes.iter().collect::<Vec<_>>());
        // 16k tokens, batch 1 past them (the host's max(1, tokens / length)).
        let tokens = [shape(32, 512), shape(4, 4096), shape(1, 16384), shape(1, 32768)];
        assert_eq!(rule(&tokens), [Batching::Tokens(16384); 4]);
        // Lengths that do not divide the tokens: 16384 / 3000 = 5.
        assert_eq!(rule(&[shape(5, 3000), shape(16, 1024)]), [Batching::Tokens(16384); 2]);
        assert_eq!(rule(&[shape(4, 1024), shape(4, 4096)]), [Batching::Fixed(4); 2]);
        assert_eq!(rule(&[shape(1, 1024), shape(1, 4096)]), [Batching::Fixed(1); 2]);
        assert_eq!(rule(&[shape(3, 1024), shape(2, 4096)]), [Batching::Fixed(3), Batching::Fixed(2)]);
        let keys_of = |shapes: &[Shape]| keys(&shapes.iter().collect::<Vec<_>>());
        let with_keys = |seq_q, seq_k| Shape { seq_k, ..shape(1, seq_q) };
        assert_eq!(keys_of(&tokens), [Keys::AsQueries; 4]);
        assert_eq!(keys_of(&[with_keys(1024, 4096), with_keys(4096, 4096)]), [Keys::Fixed(4096); 2]);
    }

    #[test]
    fn the_tables_hold_every_step_and_length_and_fit() {
        let fixture = Fixture::new("tables");
        let text = page(&fixture.gpu(), &StepOrder::new(), &committed_links());
        for (number, line) in text.lines().enumerate() {
            assert!(
                !line.starts_with('|') || line.chars().count() < MAX_TABLE_WIDTH,
                "line {} is {} columns: {line}",
                number + 1,
                line.chars().count()
            );
        }
        let section = part(&text, "## The attention ladder");
        let panels: Vec<&str> = section.lines().filter(|l| l.starts_with("#### ")).collect();
        assert_eq!(
            panels,
            [
                "#### BF16, head dim 64, no mask (32 heads)",
                "#### BF16, head dim 64, causal mask (32 heads)",
                "#### BF16, head dim 128, no mask (16 heads)",
                "#### BF16, head dim 128, causal mask (16 heads)",
                "#### BF16, head dim 128, no mask (16 heads)",
                "#### BF16, head dim 128, causal mask (16 heads)",
            ]
        );
        let default = part(
            section,
            "### 16k tokens (batch = 16k / length), hidden 2048 (heads = 2048 / head dim), bshd",
        );
        let causal = part(default, "#### BF16, head dim 128, causal mask");
        let rows: Vec<String> = causal
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| step") && !l.starts_with("| ---"))
            .map(|l| l.trim_matches('|').split(" | ").next().unwrap().trim().to_string())
            .collect();
        let mut expected: Vec<String> = ladder().iter().map(|s| format!("`{}`", s.id)).collect();
        expected.extend(["cuDNN".into(), "FlashAttention-2".into()]);
        assert_eq!(rows, expected);
        let header = causal.lines().find(|l| l.starts_with("| step")).unwrap();
        for n in ["512", "1k", "4k", "16k"] {
            assert!(header.contains(&format!(" seq {n} ")), "{header}");
        }
        // Two files: a01.json for the registry's steps at 4k.
        assert!(
            causal
                .contains("From `a01.json` (2026-11-25 03:48 UTC) and `ladder.json` (2026-12-01 10:00 UTC)")
        );
        assert!(
            causal.contains("The tensor-core ceiling p8 measured in `ladder.json`: 877 TFLOP/s."),
            "{causal}"
        );
        let first = format!("`{}`", registered()[0].id);
        assert_eq!(cell(causal, &first, "seq 16k").as_deref(), Some(MISSING));
        assert!(cell(causal, &first, "seq 4k").unwrap().starts_with("0."), "a01.json's, without SDPA");
        let mma = format!("`{}`", MMA.id);
        assert_eq!(cell(causal, &mma, "seq 16k").as_deref(), Some("WRONG"));
        assert!(causal.contains(&format!(
            "- {mma} at seq 16k: WRONG (12 wrong; first: o[0, 3, 77, 5] = NaN, want 0.25)."
        )));
        // FlashAttention-2 refused 16k at head dim 128: no figure, and why.
        assert_eq!(cell(causal, "FlashAttention-2", "seq 16k").as_deref(), Some(MISSING));
        assert!(causal.contains(&format!("- FlashAttention-2 at seq 16k: {REFUSAL}\n")), "{causal}");
        let fused = cell(causal, &format!("`{}`", FUSED.id), "seq 4k").unwrap();
        assert!(fused.ends_with("%)") && fused.contains(" ("), "TFLOP/s and % of cuDNN: {fused}");
        let flash = cell(causal, "FlashAttention-2", "seq 4k").unwrap();
        assert!(flash.ends_with("(79%)"), "FlashAttention-2's % of cuDNN: {flash}");
        assert!(!cell(causal, "cuDNN", "seq 4k").unwrap().contains('%'));
        // Head dim 64 at 16k: FlashAttention-2 has its figure.
        let d64 = part(default, "#### BF16, head dim 64, no mask");
        assert_ne!(cell(d64, "FlashAttention-2", "seq 16k").as_deref(), Some(MISSING));
        assert!(d64.contains("![The attention ladder in BF16, head dim 64, no mask on the NVIDIA H100 80GB HBM3](h100/charts/attention-bf16-d64-none-tokens16k-hidden2048-bshd.svg)"));
    }

    #[test]
    fn settings_never_share_a_column() {
        let fixture = Fixture::new("settings");
        let gpu = fixture.gpu();
        let text = page(&gpu, &StepOrder::new(), &committed_links());
        let batch1 = part(&text, "### Batch 1, hidden 2048 (heads = 2048 / head dim), bshd");
        let causal = part(batch1, "#### BF16, head dim 128, causal mask");
        assert!(causal.contains("From `batch1.json` (2026-12-01 11:30 UTC)."), "{causal}");
        // Batch 1 at 16k is the same problem as 16k tokens at 16k: its own table still.
        let figures = figures(&gpu);
        let own = figures[&panel(128, "causal", Setting { batching: Batching::Fixed(1), ..tokens() })]
            .get(FUSED.id, 16384)
            .unwrap();
        assert_eq!(own.run.file, "batch1.json");
        let fused = format!("`{}`", FUSED.id);
        assert!(
            cell(causal, &fused, "seq 16k").unwrap().starts_with(&one_decimal(own.record.figure.unwrap()))
        );
        assert_eq!(cell(causal, &fused, "seq 512"), None, "no column of the other setting");
        assert!(
            cell(causal, &format!("`{}`", registered()[0].id), "seq 1k").is_none(),
            "no row of it either"
        );
    }

    #[test]
    fn a_failed_step_is_never_the_best() {
        let fixture = Fixture::new("best");
        let gpu = fixture.gpu();
        let order = StepOrder::new();
        let figures = figures(&gpu);
        for (panel, grid) in &figures {
            for n in grid.lengths() {
                let best = grid.best(n, &order).unwrap();
                assert_eq!(best.record.passed, Some(true));
                let wrong = *panel == panel_of(128, "causal") && n == WRONG_AT;
                assert_eq!(best.record.kernel, if wrong { FUSED.id } else { MMA.id }, "{panel:?} at {n}");
            }
        }
        let text = page(&gpu, &order, &committed_links());
        let best = part(&text, "## Which step is fastest on this GPU?");
        let row =
            best.lines().find(|l| l.starts_with("| bf16 d128 causal |") && l.contains("| 16k |")).unwrap();
        assert!(row.contains(&format!("| `{}` |", FUSED.id)) && row.ends_with("| `ladder.json` |"), "{row}");
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[6], "–", "FlashAttention-2 refused it: {row}");
        assert!(best.contains("Attention forward, batch 1, hidden 2048"), "{best}");
    }

    #[test]
    fn where_a_length_has_heated_figures_the_best_is_one_of_them() {
        let fixture = Fixture::new("best-heated");
        let mut gpu = fixture.gpu();
        let order = StepOrder::new();
        let cool: Vec<(Panel, u64, String)> = figures(&gpu)
            .iter()
            .flat_map(|(panel, grid)| {
                grid.lengths()
                    .into_iter()
                    .map(|n| (panel.clone(), n, grid.best(n, &order).unwrap().run.file.clone()))
            })
            .collect();
        gpu.runs.iter_mut().filter(|r| r.file == "a01.json").for_each(|r| r.heat_s = 0.5);
        let mut moved = 0;
        for (panel, grid) in &figures(&gpu) {
            for n in grid.lengths() {
                let best = grid.best(n, &order).unwrap();
                let heated_here =
                    grid.steps(&order).iter().any(|s| grid.get(s, n).is_some_and(|f| f.run.heated()));
                assert_eq!(best.run.heated(), heated_here, "{panel:?} at {n}: {}", best.run.file);
                let before = cool.iter().find(|(p, m, _)| p == panel && *m == n).map(|(_, _, f)| f.as_str());
                moved += usize::from(before != Some(best.run.file.as_str()));
            }
        }
        assert!(
            moved > 0,
            "the fixture should have a length where the heated run's figure is not the highest"
        );
        let text = page(&gpu, &order, &committed_links());
        assert!(text.contains("`a01.json` †"), "the best table marks the heated file");
        assert!(text.contains("heated 0.5 s)"), "the panels' sources name the heating");
        assert!(
            text.lines().any(|l| l
                .split('|')
                .map(str::trim)
                .any(|c| { c.ends_with(HEATED_MARK) && c.starts_with(|ch: char| ch.is_ascii_digit()) })),
            "a panel that mixes runs marks the heated cells"
        );
        assert!(
            text.contains(&format!("; `a01.json` {GAPPY_NOTE}")),
            "heated one launch a sample: the heading says which run and what that lends cuDNN"
        );
        gpu.runs.iter_mut().filter(|r| r.file == "a01.json").for_each(|r| r.back_to_back = 8);
        let text = page(&gpu, &order, &committed_links());
        assert!(!text.contains(GAPPY_NOTE), "heated back to back: nothing to add");
        assert!(!text.contains(GAPS_NOTE), "cuDNN back to back too: nothing to mark");
        // cuDNN's calls too short for Python to queue them back to back: the script timed them
        // one a sample and said so; the step's % of it is marked where it is shown.
        for run in gpu.runs.iter_mut().filter(|r| r.file == "ladder.json") {
            run.back_to_back = 8;
            for record in &mut run.records {
                let sdpa = record.details.as_mut().and_then(|d| d.get_mut("sdpa"));
                if let Some(cudnn) = sdpa.and_then(|s| s.get_mut("cudnn")) {
                    cudnn["back_to_back"] = json!(false);
                }
            }
        }
        let text = page(&gpu, &order, &committed_links());
        let best = part(&text, "## Which step is fastest on this GPU?");
        assert!(best.contains(GAPS_NOTE), "{best}");
        let rows: Vec<&str> = best.lines().filter(|l| l.starts_with("| bf16 ")).collect();
        assert!(rows.iter().any(|row| row.contains(GAPS_MARK)), "{best}");
        for row in rows {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let shown = cells[5].starts_with(|c: char| c.is_ascii_digit());
            assert_eq!(cells[5].ends_with(GAPS_MARK), cells[8] == "`ladder.json`" && shown, "{row}");
            assert!(!cells[6].ends_with(GAPS_MARK), "FlashAttention-2 was back to back: {row}");
        }
        let panels = part(&text, "#### BF16, head dim 128, no mask");
        assert!(panels.contains(&format!("A % marked {GAPS_MARK} is of a cuDNN")), "{panels}");
        assert!(panels.contains(&format!("%{GAPS_MARK})")), "the panel's cells mark it too: {panels}");
    }

    fn panel_of(head_dim: u64, mask: &str) -> Panel {
        panel(head_dim, mask, tokens())
    }

    #[test]
    fn charts_are_written_the_same_and_checked() {
        let fixture = Fixture::new("charts");
        let repo = fixture.repo();
        let dir = fixture.results();
        let written = results::write(&repo, &dir).unwrap();
        let charts: Vec<&PathBuf> =
            written.iter().filter(|p| p.extension().is_some_and(|e| e == "svg")).collect();
        assert_eq!(charts.len(), 6, "a chart per panel: {written:?}");
        assert!(results::stale(&repo, &dir).unwrap().is_empty());
        // The same records give the same bytes.
        let gpu = fixture.gpu();
        assert_eq!(
            super::charts(&gpu, &StepOrder::new()).unwrap(),
            super::charts(&gpu, &StepOrder::new()).unwrap()
        );
        let chart = dir.join("h100/charts").join(panel_of(128, "causal").chart());
        let svg = std::fs::read_to_string(&chart).unwrap();
        // Dated with its latest run, as the host dates its charts.
        assert_eq!(chart_date(&svg).as_deref(), Some("2026-12-01 10:00 UTC"));
        for name in ["cuDNN", "FlashAttention-2", MMA.id, FUSED.id, "tensor-core ceiling (p8): 877 TFLOP/s"] {
            assert!(svg.contains(name), "{name}");
        }
        assert_eq!(gpu.charts.len(), 6);
        assert_eq!(results::chart_run(&gpu, &panel_of(128, "causal").chart()).unwrap().file, "ladder.json");
        // The page is the same with the charts on disk as without.
        let again = results::outputs(&repo).unwrap();
        assert!(again.iter().all(|(name, text)| std::fs::read_to_string(dir.join(name)).unwrap() == *text));
        // A chart changed, gone, or of records no longer there: stale.
        std::fs::write(&chart, svg.replace("cuDNN", "cuBLAS")).unwrap();
        let stale = results::stale(&repo, &dir).unwrap();
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert!(
            stale[0].starts_with(&format!("h100/charts/{} differs", panel_of(128, "causal").chart())),
            "{stale:?}"
        );
        std::fs::remove_file(&chart).unwrap();
        assert!(results::stale(&repo, &dir).unwrap()[0].ends_with("is missing"));
        let orphan = dir.join("h100/charts").join(panel_of(256, "none").chart());
        std::fs::write(&orphan, "<svg/>").unwrap();
        let stale = results::stale(&repo, &dir).unwrap();
        assert_eq!(stale.len(), 2, "{stale:?}");
        assert!(stale[1].ends_with("is a chart of records no longer there"), "{stale:?}");
        // Writing again mends all of it, and leaves the host's charts alone.
        let host_chart = dir.join("h100/charts/scan-inclusive-i32-n2p30.svg");
        std::fs::write(&host_chart, "<svg/>").unwrap();
        results::write(&repo, &dir).unwrap();
        assert!(results::stale(&repo, &dir).unwrap().is_empty());
        assert!(!orphan.exists() && host_chart.exists());
        // The host's chart is listed as the host's; the attention charts are not.
        let text = page(&fixture.gpu(), &StepOrder::new(), &committed_links());
        let list = part(&text, "## Charts");
        assert!(list.contains("scan-inclusive-i32-n2p30.svg") && !list.contains("attention-bf16"), "{list}");
        assert!(
            list.contains("\n\nThe attention charts are drawn from the records by `cargo xtask results`")
        );
    }

    #[test]
    fn chart_names_read_back() {
        let grouped = Setting {
            batching: Batching::Fixed(2),
            hidden: 4096,
            group: 4,
            keys: Keys::Fixed(4096),
            layout: "bhsd".into(),
        };
        for setting in [tokens(), grouped] {
            let panel = Panel { precision: "f16".into(), head_dim: 64, mask: "causal".into(), setting };
            assert_eq!(Panel::from_chart(&panel.chart()), Some(panel.clone()), "{}", panel.chart());
        }
        assert_eq!(
            panel_of(128, "causal").chart(),
            "attention-bf16-d128-causal-tokens16k-hidden2048-bshd.svg"
        );
        assert_eq!(
            crate::results::chart_title(&panel_of(128, "causal").chart()),
            "the attention ladder in BF16, head dim 128, causal mask (16k tokens, 16 heads, bshd)"
        );
        for other in ["scan-inclusive-i32-n2p30.svg", "gemm-f16-4096x4096x4096.svg", "attention-bf16.svg"] {
            assert!(!is_chart(other), "{other}");
        }
        assert_eq!(
            (length_text(16384), length_text(3000), parse_length("16k")),
            ("16k".into(), "3000".into(), Some(16384))
        );
    }

    #[test]
    fn a_chapter_shows_its_step_with_the_backends_beside_it() {
        let fixture = Fixture::new("chapter");
        let gpu = fixture.gpu();
        let text =
            crate::results::step_tables(&gpu, &[FUSED.id], &StepOrder::new(), &committed_links()).unwrap();
        assert!(
            text.starts_with(
                "On the **NVIDIA H100 80GB HBM3**, driver CUDA 13.0: `ladder.json` of 2026-12-01 10:00 UTC, \
                 `batch1.json` of 2026-12-01 11:30 UTC in `docs/results/h100/`.\n\n"
            ),
            "{text}"
        );
        assert_eq!(
            text.matches("\n| step ").count() + usize::from(text.starts_with("| step")),
            6,
            "a table per panel"
        );
        let causal = &text[text.find("**BF16, head dim 128, causal mask** (16k tokens").unwrap()..];
        let rows: Vec<&str> = causal
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .map(|l| l.trim_matches('|').split(" | ").next().unwrap().trim())
            .collect();
        assert_eq!(rows, [format!("`{}`", FUSED.id).as_str(), "cuDNN", "FlashAttention-2"]);
        assert!(cell(causal, "cuDNN", "seq 512").is_some());
        // The registry's first step: its lengths alone, no backend in a01.json.
        let first = registered()[0].id;
        let text =
            crate::results::step_tables(&gpu, &[first], &StepOrder::new(), &committed_links()).unwrap();
        let header = text.lines().find(|l| l.starts_with("| step")).unwrap();
        assert!(header.contains("seq 4k") && !header.contains("seq 16k"), "{header}");
        assert!(text.contains("`a01.json` of 2026-11-25 03:48 UTC"), "{text}");
        assert!(
            crate::results::step_tables(&gpu, &["x4_packed_tally"], &StepOrder::new(), &committed_links())
                .is_none()
        );
    }
}
