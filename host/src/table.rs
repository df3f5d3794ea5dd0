//! Result tables: printed for people, written as JSON records for programs.

use serde_json::{Map, Value};

/// One cell: a number with the decimals to print it with, or text.
#[derive(Clone, Debug)]
pub enum Cell {
    Num(f64, usize),
    Int(i64),
    Text(String),
}

impl Cell {
    fn render(&self) -> String {
        match self {
            Cell::Num(v, decimals) if v.is_finite() => format!("{v:.decimals$}"),
            Cell::Num(..) => "-".into(),
            Cell::Int(v) => v.to_string(),
            Cell::Text(t) => t.clone(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Cell::Num(v, _) => serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number),
            Cell::Int(v) => Value::from(*v),
            Cell::Text(t) => Value::from(t.as_str()),
        }
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

/// A titled table with named columns (the JSON keys) and rows of cells.
#[derive(Clone, Debug)]
pub struct Table {
    pub title: String,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
    /// Lines printed under the table: what to read from it.
    pub notes: Vec<String>,
}

impl Table {
    /// A table with these column names, which must differ (they are the JSON keys).
    pub fn new(title: impl Into<String>, columns: &[&'static str]) -> Self {
        for (i, c) in columns.iter().enumerate() {
            assert!(!columns[..i].contains(c), "column `{c}` appears twice");
        }
        Self { title: title.into(), columns: columns.to_vec(), rows: Vec::new(), notes: Vec::new() }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(row.len(), self.columns.len(), "row width differs from the header in `{}`", self.title);
        self.rows.push(row);
    }

    /// The table as text: a title line, a header, right-aligned numbers.
    pub fn render(&self) -> String {
        let cells: Vec<Vec<String>> =
            self.rows.iter().map(|r| r.iter().map(Cell::render).collect()).collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|c| {
                cells
                    .iter()
                    .map(|r| r[c].chars().count())
                    .chain([self.columns[c].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |items: &[String]| {
            items
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    let pad = widths[c] - s.chars().count();
                    if c == 0 { format!("{s}{}", " ".repeat(pad)) } else { format!("{}{s}", " ".repeat(pad)) }
                })
                .collect::<Vec<_>>()
                .join("  ")
        };
        let mut out = format!("\n{}\n", self.title);
        out += &line(&self.columns.iter().map(|c| c.to_string()).collect::<Vec<_>>());
        out.push('\n');
        for row in &cells {
            out += &line(row);
            out.push('\n');
        }
        for note in &self.notes {
            out += &format!("  {note}\n");
        }
        out
    }

    /// The table as `{"title": …, "rows": [{column: value, …}, …], "notes": […]}`.
    pub fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut record = Map::new();
                for (column, cell) in self.columns.iter().zip(r) {
                    record.insert((*column).into(), cell.json());
                }
                Value::Object(record)
            })
            .collect();
        serde_json::json!({ "title": self.title, "rows": rows, "notes": self.notes })
    }
}
