//! Result tables, printed for people. The machine-readable form of a run is its records
//! (`crate::report::records`); a probe's records are read from its tables, which is why some cells
//! say what they hold (a timing, the row's figure, its % of a limit) and not only how to
//! print it.

use crate::measure::timing::{Stop, Timing};
use serde_json::{Map, Value};

/// One cell: how to print it and, for the typed ones, what it means.
#[derive(Clone, Debug)]
pub enum Cell {
    /// A number and the decimals to print it with (`-` when not finite).
    Num(f64, usize),
    Int(i64),
    Text(String),
    /// A measurement, printed as its median in µs; its record gets the median, the
    /// spread and the repetitions.
    Time(Timing),
    /// The row's headline figure, with its unit (`GB/s`, `TFLOP/s`) and decimals.
    Figure(f64, usize, &'static str),
    /// The figure as a percentage of the limit the column names (`% of theoretical`).
    OfLimit(f64, usize),
    /// A problem size (elements), printed as an integer; its record's `n`.
    Size(u64),
    /// A verification's outcome, printed `ok` or `WRONG`.
    Check(bool),
}

impl Cell {
    /// The cell as printed.
    pub fn render(&self) -> String {
        match self {
            Cell::Num(v, decimals) | Cell::Figure(v, decimals, _) | Cell::OfLimit(v, decimals)
                if v.is_finite() =>
            {
                format!("{v:.decimals$}")
            }
            Cell::Num(..) | Cell::Figure(..) | Cell::OfLimit(..) => "-".into(),
            Cell::Int(v) => v.to_string(),
            Cell::Text(t) => t.clone(),
            Cell::Time(t) => {
                format!("{:.1}{}", t.median_ms * 1e3, t.stop.mark().map_or("", |(mark, _)| mark))
            }
            Cell::Size(n) => n.to_string(),
            Cell::Check(passed) => if *passed { "ok" } else { "WRONG" }.into(),
        }
    }

    /// The cell's value as it is printed, unrounded (a timing as its median in µs); NaN as
    /// null.
    pub fn json(&self) -> Value {
        let number = |v: f64| serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number);
        match self {
            Cell::Num(v, _) | Cell::Figure(v, _, _) | Cell::OfLimit(v, _) => number(*v),
            Cell::Time(t) => number(t.median_ms * 1e3),
            Cell::Int(v) => Value::from(*v),
            Cell::Size(n) => Value::from(*n),
            Cell::Text(t) => Value::from(t.as_str()),
            Cell::Check(passed) => Value::from(*passed),
        }
    }

    /// Whether the cell labels its row rather than measuring something: text and integers.
    pub fn is_label(&self) -> bool {
        matches!(self, Cell::Text(_) | Cell::Int(_))
    }
}

impl From<&str> for Cell {
    fn from(t: &str) -> Self {
        Cell::Text(t.into())
    }
}

impl From<String> for Cell {
    fn from(t: String) -> Self {
        Cell::Text(t)
    }
}

/// A titled table with named columns (the keys of [`Table::row_json`]) and rows of cells.
#[derive(Clone, Debug)]
pub struct Table {
    pub title: String,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
    /// Headings printed between rows: `(index of the first row under it, heading)`.
    pub sections: Vec<(usize, String)>,
    /// Lines printed under the table: what to read from it.
    pub notes: Vec<String>,
    /// Columns printed only in the wide form ([`Table::render_wide`], `--wide`): detail
    /// that would make the table wider than a terminal. The records hold them all.
    pub detail: Vec<&'static str>,
}

/// The width a table's notes are wrapped to, and that the narrow form of a table aims at.
pub const TERMINAL_COLUMNS: usize = 120;

impl Table {
    /// A table with these column names, which must differ (they are the JSON keys).
    pub fn new(title: impl Into<String>, columns: &[&'static str]) -> Self {
        for (i, c) in columns.iter().enumerate() {
            assert!(!columns[..i].contains(c), "column `{c}` appears twice");
        }
        Self {
            title: title.into(),
            columns: columns.to_vec(),
            rows: Vec::new(),
            sections: Vec::new(),
            notes: Vec::new(),
            detail: Vec::new(),
        }
    }

    /// Marks `columns` as detail: left out of the narrow form, printed with `--wide`.
    pub fn detail(&mut self, columns: &[&'static str]) {
        for c in columns {
            assert!(self.columns.contains(c), "no column `{c}` in `{}`", self.title);
        }
        self.detail.extend_from_slice(columns);
    }

    /// Starts a section: `heading` is printed above the next row pushed.
    pub fn section(&mut self, heading: impl Into<String>) {
        self.sections.push((self.rows.len(), heading.into()));
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(row.len(), self.columns.len(), "row width differs from the header in `{}`", self.title);
        self.rows.push(row);
    }

    /// The table as text without its detail columns (which a note names): what fits a
    /// terminal.
    pub fn render(&self) -> String {
        self.render_as(false)
    }

    /// The table as text with every column.
    pub fn render_wide(&self) -> String {
        self.render_as(true)
    }

    /// The table as text: a title line, a header, right-aligned numbers, the notes wrapped.
    fn render_as(&self, wide: bool) -> String {
        let shown: Vec<usize> =
            (0..self.columns.len()).filter(|&c| wide || !self.detail.contains(&self.columns[c])).collect();
        let cells: Vec<Vec<String>> =
            self.rows.iter().map(|r| shown.iter().map(|&c| r[c].render()).collect()).collect();
        let columns: Vec<&str> = shown.iter().map(|&c| self.columns[c]).collect();
        let widths: Vec<usize> = (0..columns.len())
            .map(|c| {
                cells
                    .iter()
                    .map(|r| r[c].chars().count())
                    .chain([columns[c].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Numbers align right; the first column and columns of text alone align left.
        let left: Vec<bool> = shown
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                i == 0 || (!self.rows.is_empty() && self.rows.iter().all(|r| matches!(r[c], Cell::Text(_))))
            })
            .collect();
        let line = |items: &[String]| {
            let text = items
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    let pad = widths[c] - s.chars().count();
                    if left[c] {
                        format!("{s}{}", " ".repeat(pad))
                    } else {
                        format!("{}{s}", " ".repeat(pad))
                    }
                })
                .collect::<Vec<_>>()
                .join("  ");
            text.trim_end().to_string()
        };
        let mut out = format!("\n{}\n", self.title);
        out += &line(&columns.iter().map(|c| c.to_string()).collect::<Vec<_>>());
        out.push('\n');
        for (index, row) in cells.iter().enumerate() {
            for (_, heading) in self.sections.iter().filter(|(at, _)| *at == index) {
                out += &format!("-- {heading}\n");
            }
            out += &line(row);
            out.push('\n');
        }
        let hidden: Vec<&str> = self.detail.iter().copied().filter(|_| !wide).collect();
        let hidden_note = (!hidden.is_empty()).then(|| {
            format!("not shown (`--wide` prints them; the records hold them): {}", hidden.join(", "))
        });
        for note in self.notes.iter().chain(&self.timing_notes(&columns)).chain(&hidden_note) {
            out += &wrap(note, "  ", "    ", TERMINAL_COLUMNS);
        }
        out
    }

    /// Notes about the timings in the table: how many repetitions each median is of (when
    /// no column says it), and what a mark after a figure means.
    fn timing_notes(&self, shown: &[&str]) -> Vec<String> {
        let timings: Vec<&Timing> = self
            .rows
            .iter()
            .flatten()
            .filter_map(|cell| if let Cell::Time(t) = cell { Some(t) } else { None })
            .collect();
        let mut notes = Vec::new();
        if timings.is_empty() {
            return notes;
        }
        if !shown.contains(&"reps") {
            let fewest = timings.iter().map(|t| t.repetitions).min().unwrap_or(0);
            let most = timings.iter().map(|t| t.repetitions).max().unwrap_or(0);
            let count = if fewest == most { fewest.to_string() } else { format!("{fewest} to {most}") };
            notes.push(format!("µs: each the median of {count} repetitions"));
        }
        for stop in [Stop::Budget, Stop::OneLaunch] {
            if let Some((mark, meaning)) = stop.mark().filter(|_| timings.iter().any(|t| t.stop == stop)) {
                notes.push(format!("{mark} {meaning}"));
            }
        }
        notes
    }

    /// Row `index` as `{column: value, …}`.
    pub fn row_json(&self, index: usize) -> Map<String, Value> {
        self.columns
            .iter()
            .zip(&self.rows[index])
            .map(|(column, cell)| ((*column).into(), cell.json()))
            .collect()
    }
}

/// `text` broken at spaces into lines of at most `width` characters (a word longer than a
/// line stands alone), the first starting with `first`, the others with `rest`.
pub fn wrap(text: &str, first: &str, rest: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out += line.trim_end();
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line += word;
        empty = false;
    }
    out += line.trim_end();
    out.push('\n');
    out
}
