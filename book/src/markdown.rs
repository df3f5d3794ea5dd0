//! Markdown pieces every generated page uses: aligned tables, code blocks that no content
//! can close early, numbers as the host's tables print them, and doc comments turned into
//! the book's prose.

use std::fmt::Write as _;

/// How a table column is aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A Markdown table whose source is aligned like the rendered one, so that the committed
/// pages read well as text too.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

/// The widest a table line may be, in characters: the pages are read in terminals and
/// diffs too.
pub const MAX_TABLE_WIDTH: usize = 120;

impl Table {
    /// A table with these columns.
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Self {
            header: columns.iter().map(|&(name, align)| (name.to_string(), align)).collect(),
            rows: vec![],
        }
    }

    /// Adds a row; it must have a cell per column.
    pub fn row(&mut self, cells: Vec<String>) {
        assert_eq!(cells.len(), self.header.len(), "a table row has a cell per column");
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The widest line of the rendered table, in characters.
    pub fn width(&self) -> usize {
        self.render().lines().map(width).max().unwrap_or(0)
    }

    /// Whether every line of the rendered table is narrower than [`MAX_TABLE_WIDTH`], as
    /// the results pages' test (`tables_fit_120_columns`) asks.
    pub fn fits(&self) -> bool {
        self.width() < MAX_TABLE_WIDTH
    }

    /// Leaves out every column whose cells are all empty (a field no record of the table
    /// has), so that a table never shows a column of blanks.
    pub fn without_empty_columns(mut self) -> Self {
        let keep: Vec<bool> =
            (0..self.header.len()).map(|c| self.rows.iter().any(|row| !row[c].is_empty())).collect();
        let filter = |cells: Vec<String>| -> Vec<String> {
            cells.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| c).collect()
        };
        let header = std::mem::take(&mut self.header);
        self.header = header.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(h, _)| h).collect();
        self.rows = std::mem::take(&mut self.rows).into_iter().map(filter).collect();
        self
    }

    /// The table with `text` in every empty cell (after [`Table::without_empty_columns`], a
    /// mark for a figure that is missing where others of its column are not).
    pub fn with_blank_cells(mut self, text: &str) -> Self {
        for cell in self.rows.iter_mut().flatten().filter(|c| c.is_empty()) {
            *cell = text.to_string();
        }
        self
    }

    /// The table without column `index`.
    pub fn without_column(mut self, index: usize) -> Self {
        if index < self.header.len() {
            self.header.remove(index);
            for row in &mut self.rows {
                row.remove(index);
            }
        }
        self
    }

    /// The table with a column in front, `cells` holding its cell of each row.
    pub fn with_leading_column(mut self, name: &str, align: Align, cells: Vec<String>) -> Self {
        assert_eq!(cells.len(), self.rows.len(), "a cell per row");
        self.header.insert(0, (name.to_string(), align));
        for (row, cell) in self.rows.iter_mut().zip(cells) {
            row.insert(0, cell);
        }
        self
    }

    /// The table as Markdown, each column padded to its widest cell.
    pub fn render(&self) -> String {
        let cell = |text: &str| text.replace('|', "\\|");
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                let cells = self.rows.iter().map(|row| width(&cell(&row[c])));
                cells.chain([width(&cell(&self.header[c].0)), 3]).max().unwrap_or(3)
            })
            .collect();
        let line = |cells: Vec<String>| -> String {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .zip(&self.header)
                .map(|((text, &w), (_, align))| {
                    let pad = " ".repeat(w - width(text));
                    match align {
                        Align::Left => format!("{text}{pad}"),
                        Align::Right => format!("{pad}{text}"),
                    }
                })
                .collect();
            format!("| {} |\n", padded.join(" | "))
        };
        let mut out = line(self.header.iter().map(|(h, _)| cell(h)).collect());
        let rule: Vec<String> = widths
            .iter()
            .zip(&self.header)
            .map(|(&w, (_, align))| match align {
                Align::Left => "-".repeat(w),
                Align::Right => format!("{}:", "-".repeat(w - 1)),
            })
            .collect();
        out += &format!("| {} |\n", rule.join(" | "));
        for row in &self.rows {
            out += &line(row.iter().map(|c| cell(c)).collect());
        }
        out
    }
}

/// The width of `text` in a monospaced font, counting characters (the tables hold no wide
/// characters).
pub fn width(text: &str) -> usize {
    text.chars().count()
}

/// A fenced code block of `language` holding `code` exactly: the fence is longer than any
/// run of backticks inside, so no content closes it early.
pub fn code_block(language: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let body = if code.ends_with('\n') { code.to_string() } else { format!("{code}\n") };
    format!("{fence}{language}\n{body}{fence}\n")
}

/// Rust source for a `rust` code block of mdBook, which hides lines that start with `# `
/// or are a lone `#` (its "boring" lines) and reads `##` as an escaped `#`: such lines get
/// one more `#`, so that every line shows as it is in the file.
pub fn escape_rust_for_mdbook(code: &str) -> String {
    code.split_inclusive('\n')
        .map(|line| {
            let body = line.trim_start();
            let indent = &line[..line.len() - body.len()];
            let after = body.strip_prefix('#').map(|rest| rest.trim_end_matches(['\n', '\r']));
            match after {
                Some(rest) if rest.is_empty() || rest.starts_with(' ') || rest.starts_with('#') => {
                    format!("{indent}#{body}")
                }
                _ => line.to_string(),
            }
        })
        .collect()
}

/// A time in µs as the host's tables print it: two decimals under 10 µs, one above.
pub fn micros(us: f64) -> String {
    if us < 10.0 { format!("{us:.2}") } else { format!("{us:.1}") }
}

/// A figure (GB/s, TFLOP/s) or a percentage: one decimal.
pub fn one_decimal(v: f64) -> String {
    format!("{v:.1}")
}

/// A ratio (Rust ÷ C++): three decimals.
pub fn ratio(v: f64) -> String {
    format!("{v:.3}")
}

/// `text` with the characters that would start raw HTML (`<`, `&`) escaped outside inline
/// code spans: doc comments write `x < 32` and `<registers>` as text.
pub fn escape_html_outside_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // Inside a code span opened by `ticks` backticks.
    let mut ticks = 0usize;
    while let Some(c) = chars.next() {
        if c == '`' {
            let mut run = 1;
            while chars.peek() == Some(&'`') {
                chars.next();
                run += 1;
            }
            if ticks == 0 {
                ticks = run;
            } else if run == ticks {
                ticks = 0;
            }
            out.push_str(&"`".repeat(run));
            continue;
        }
        match c {
            '<' if ticks == 0 => out.push_str("&lt;"),
            '&' if ticks == 0 => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
    out
}

/// Shifts every ATX heading of `markdown` (outside code blocks) down by `levels`, at most to
/// level 6: a doc comment's `# Safety` becomes a sub-heading of its item, not a chapter
/// title.
pub fn demote_headings(markdown: &str, levels: usize) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in markdown.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            out.push_str(line);
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker: String = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect();
            fence = Some(marker);
            out.push_str(line);
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with([' ', '\n']) {
            let level = (hashes + levels).min(6);
            let _ = write!(out, "{}{}", "#".repeat(level), &line[hashes..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Rewrites rustdoc's intra-doc links (`` [`name`] ``, `` [`path::to::name`] ``) in
/// `markdown`: to a link where `resolve` knows a segment of the path, the last first (its
/// target in angle brackets, which marks it as made here), else to plain inline code, since
/// mdBook has no item to point them at.
pub fn intra_doc_links(markdown: &str, resolve: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("`]") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &after[..end];
        let tail = &after[end + 2..];
        // A link with its own target (`[`x`](url)`, `[`x`][ref]`) stays as it is.
        if name.contains('`') || name.contains('\n') || tail.starts_with('(') || tail.starts_with('[') {
            out.push_str("[`");
            rest = after;
            continue;
        }
        // The path's segments from the last: `pipeline::PipelineState` may be found by its
        // module where the item itself has no place of its own.
        let path = name.trim_end_matches("()").trim_end_matches('!');
        match path.rsplit("::").find_map(resolve) {
            Some(target) => {
                let _ = write!(out, "[`{name}`](<{target}>)");
            }
            None => {
                let _ = write!(out, "`{name}`");
            }
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// The `//!` lines that open a Rust file (its module doc), without the `//!` and the one
/// space after it, joined by newlines.
pub fn module_doc(source: &str) -> String {
    let mut lines = vec![];
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("//!") else {
            if line.trim().is_empty() && lines.is_empty() {
                continue;
            }
            break;
        };
        lines.push(rest.strip_prefix(' ').unwrap_or(rest));
    }
    lines.join("\n")
}

/// The id mdBook gives a heading whose text is `text`: lower case, letters, digits, `_` and
/// `-` kept, spaces as `-`, everything else dropped.
pub fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_drop_empty_columns() {
        let mut t = Table::new(&[("step", Align::Left), ("GB/s", Align::Right), ("note", Align::Left)]);
        t.row(vec!["x4".into(), "3127.1".into(), String::new()]);
        t.row(vec!["h0_interleaved".into(), "840.6".into(), String::new()]);
        let text = t.without_empty_columns().render();
        assert_eq!(
            text,
            "| step           |   GB/s |\n| -------------- | -----: |\n| x4             | 3127.1 |\n\
             | h0_interleaved |  840.6 |\n"
        );
    }

    #[test]
    fn code_blocks_outlast_their_backticks() {
        assert_eq!(code_block("rust", "let a = 1;"), "```rust\nlet a = 1;\n```\n");
        assert!(code_block("rust", "/// ```ignore\n/// x\n/// ```\n").starts_with("````rust\n"));
    }

    #[test]
    fn mdbook_hidden_lines_are_escaped() {
        let code = "#[kernel]\n# hidden\n    #\n##x\n#![no_std]\n";
        assert_eq!(escape_rust_for_mdbook(code), "#[kernel]\n## hidden\n    ##\n###x\n#![no_std]\n");
    }

    #[test]
    fn html_is_escaped_outside_code_only() {
        assert_eq!(escape_html_outside_code("a < b, `x < y` & <tag>"), "a &lt; b, `x < y` &amp; &lt;tag>");
        assert_eq!(escape_html_outside_code("``a ` <`` <"), "``a ` <`` &lt;");
    }

    #[test]
    fn headings_are_demoted_outside_code() {
        let text = "# Safety\ntext\n```\n# not a heading\n```\n## Returns\n#nospace\n";
        assert_eq!(
            demote_headings(text, 3),
            "#### Safety\ntext\n```\n# not a heading\n```\n##### Returns\n#nospace\n"
        );
    }

    #[test]
    fn intra_doc_links_resolve_or_become_code() {
        let resolve =
            |name: &str| (name == "shuffle_down_i32").then(|| "device/warp.md#shuffle_down_i32".to_string());
        assert_eq!(
            intra_doc_links(
                "see [`crate::device::warp::shuffle_down_i32`] and [`copy_16b`], [`x`](y)",
                &resolve
            ),
            "see [`crate::device::warp::shuffle_down_i32`](<device/warp.md#shuffle_down_i32>) and `copy_16b`, [`x`](y)"
        );
    }

    #[test]
    fn module_docs_and_heading_ids() {
        assert_eq!(module_doc("//! One.\n//!\n//!   two\nuse x;\n//! not\n"), "One.\n\n  two");
        assert_eq!(heading_id("`shuffle_down_i32`"), "shuffle_down_i32");
        assert_eq!(heading_id("The C++ twin"), "the-c-twin");
    }
}
