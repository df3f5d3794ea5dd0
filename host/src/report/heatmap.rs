//! A heat map as SVG: one square grid per panel, a cell per (row, column) coloured by its
//! value and labelled with it. The node probe m1 draws one for every ordered pair of GPUs
//! (from a row's GPU to a column's), a panel per way of moving data, so that a slow pair
//! stands out at a glance. Written by hand (a grid of rectangles and text needs no plotting
//! library), so the same figures give the same bytes.

use super::plot::ladder::format_value;
use super::plot::{FONT, write_svg};
use crate::base::error::Result;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// One grid: its title and a value per (row, column); `None` where there is none (a GPU
/// and itself, a path that was not measured).
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub title: String,
    pub values: Vec<Vec<Option<f64>>>,
}

/// Panels over the same rows and columns, on one colour scale (zero to the largest value
/// of every panel), so that panels compare with each other.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Heatmap {
    /// File stem: the chart is written as `<name>.svg`.
    pub name: String,
    pub title: String,
    /// The device and the run's date, under the title (set from the run when empty).
    pub stamp: String,
    /// What the rows and the columns are (`from`, `to`), and their labels (`GPU 0`, …).
    pub row_axis: String,
    pub column_axis: String,
    pub labels: Vec<String>,
    /// The values' unit (`GB/s`), written beside the scale.
    pub unit: String,
    pub panels: Vec<Panel>,
}

/// A cell's side, the gap between panels, and the margins, in pixels.
const CELL: usize = 64;
const GAP: usize = 48;
const MARGIN: usize = 24;
/// Room for the row labels left of a grid, and for a panel's title and column labels above.
const ROW_LABELS: usize = 64;
const PANEL_HEAD: usize = 52;
/// Room for the chart's title and stamp.
const HEAD: usize = 64;
/// Panels side by side before the next row of panels.
const PANELS_PER_ROW: usize = 2;

/// The colour scale's ends: a pale and a deep blue.
const LOW: (f64, f64, f64) = (0xf2 as f64, 0xf7 as f64, 0xfc as f64);
const HIGH: (f64, f64, f64) = (0x08 as f64, 0x30 as f64, 0x6b as f64);
/// Cells with no value.
const EMPTY: &str = "#e4e4e4";

/// The colour of `fraction` (0 to 1) of the scale, as `#rrggbb`, and whether text on it
/// should be white.
fn colour(fraction: f64) -> (String, bool) {
    let f = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
    let mix = |lo: f64, hi: f64| (lo + (hi - lo) * f).round() as u8;
    (format!("#{:02x}{:02x}{:02x}", mix(LOW.0, HIGH.0), mix(LOW.1, HIGH.1), mix(LOW.2, HIGH.2)), f > 0.5)
}

/// How a text is set: its attributes after `x` and `y`.
const TITLE: &str = r#"font-size="15.3" font-weight="bold""#;
const HEADING: &str = r#"font-size="12.1" font-weight="bold""#;
const GREY: &str = r##"font-size="10.5" fill="#555555""##;
const PLAIN: &str = r#"font-size="10.5""#;
const CENTRED: &str = r#"font-size="10.5" text-anchor="middle""#;
const RIGHT: &str = r#"font-size="10.5" text-anchor="end""#;
const VALUE: &str = r#"font-size="12.1" text-anchor="middle" fill="black""#;
const VALUE_ON_DARK: &str = r#"font-size="12.1" text-anchor="middle" fill="white""#;

/// Writes `content`, escaped, as a text element at `(x, y)` set as `style` says.
fn text(svg: &mut String, (x, y): (usize, usize), style: &str, content: &str) {
    let _ = writeln!(svg, r#"<text x="{x}" y="{y}" {style}>{}</text>"#, escaped(content));
}

/// Text safe inside SVG.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Heatmap {
    /// The largest value of every panel (the scale's top); 1 where there is none.
    fn top(&self) -> f64 {
        let top = self
            .panels
            .iter()
            .flat_map(|p| p.values.iter().flatten().flatten())
            .fold(0.0f64, |a, &v| a.max(v));
        if top > 0.0 { top } else { 1.0 }
    }

    /// The chart as an SVG document.
    pub fn svg(&self) -> String {
        let n = self.labels.len();
        let grid = n * CELL;
        let panel_width = ROW_LABELS + grid;
        let panel_height = PANEL_HEAD + grid;
        let columns = self.panels.len().clamp(1, PANELS_PER_ROW);
        let rows = self.panels.len().div_ceil(PANELS_PER_ROW).max(1);
        // Wide enough for the title too (about 0.6 em a character at 15 px, bold).
        let title_width = (self.title.chars().count() as f64 * 15.3 * 0.62).ceil() as usize;
        let width = 2 * MARGIN + (columns * panel_width + (columns - 1) * GAP).max(title_width);
        let scale_height = 60;
        let height = HEAD + rows * panel_height + (rows - 1) * GAP + scale_height + 2 * MARGIN;
        let top = self.top();

        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" font-family="{FONT}">"#
        );
        let _ = writeln!(svg, r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#);
        text(&mut svg, (MARGIN, MARGIN + 12), TITLE, &self.title);
        text(&mut svg, (MARGIN, MARGIN + 30), GREY, &self.stamp);
        for (index, panel) in self.panels.iter().enumerate() {
            let left = MARGIN + (index % PANELS_PER_ROW) * (panel_width + GAP);
            let top_y = MARGIN + HEAD + (index / PANELS_PER_ROW) * (panel_height + GAP);
            let grid_left = left + ROW_LABELS;
            let grid_top = top_y + PANEL_HEAD;
            text(&mut svg, (grid_left, top_y + 14), HEADING, &panel.title);
            text(&mut svg, (grid_left, top_y + 30), GREY, &format!("{} →", self.column_axis));
            text(&mut svg, (left, top_y + 30), GREY, &format!("{} ↓", self.row_axis));
            for (c, label) in self.labels.iter().enumerate() {
                text(&mut svg, (grid_left + c * CELL + CELL / 2, grid_top - 6), CENTRED, label);
            }
            for (r, label) in self.labels.iter().enumerate() {
                let y = grid_top + r * CELL;
                text(&mut svg, (grid_left - 6, y + CELL / 2 + 4), RIGHT, label);
                for c in 0..n {
                    let x = grid_left + c * CELL;
                    let value = panel.values.get(r).and_then(|row| row.get(c)).copied().flatten();
                    let (fill, white) = match value {
                        Some(v) => colour(v / top),
                        None => (EMPTY.to_string(), false),
                    };
                    let _ = writeln!(
                        svg,
                        r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="white"/>"#
                    );
                    let style = if white { VALUE_ON_DARK } else { VALUE };
                    text(
                        &mut svg,
                        (x + CELL / 2, y + CELL / 2 + 4),
                        style,
                        &value.map_or("–".into(), format_value),
                    );
                }
            }
        }
        // The scale: a bar from zero to the top value.
        let bar_y = height - MARGIN - scale_height + 24;
        let steps = 10;
        let step_width = 24;
        for s in 0..steps {
            let (fill, _) = colour((s as f64 + 0.5) / steps as f64);
            let _ = writeln!(
                svg,
                r#"<rect x="{}" y="{bar_y}" width="{step_width}" height="12" fill="{fill}"/>"#,
                MARGIN + s * step_width
            );
        }
        text(&mut svg, (MARGIN, bar_y + 26), PLAIN, "0");
        let scale_end = format!("{} {}", format_value(top), self.unit);
        text(&mut svg, (MARGIN + steps * step_width, bar_y + 26), RIGHT, &scale_end);
        svg += "</svg>\n";
        svg
    }

    /// Writes the chart as `<dir>/<name>.svg`.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        write_svg(dir, &self.name, &self.svg())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_two() -> Heatmap {
        Heatmap {
            name: "pairs".into(),
            title: "Pairs <of> GPUs".into(),
            stamp: "a GPU, a date".into(),
            row_axis: "from".into(),
            column_axis: "to".into(),
            labels: vec!["GPU 0".into(), "GPU 1".into()],
            unit: "GB/s".into(),
            panels: vec![
                Panel {
                    title: "copy".into(),
                    values: vec![vec![None, Some(390.0)], vec![Some(195.0), None]],
                },
                Panel { title: "staged".into(), values: vec![vec![None, Some(38.4)], vec![Some(0.0), None]] },
            ],
        }
    }

    #[test]
    fn every_pair_gets_a_cell_with_its_value() {
        let svg = two_by_two().svg();
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        // Two panels of four cells, and the ten steps of the scale.
        assert_eq!(svg.matches("<rect ").count(), 1 + 2 * 4 + 10);
        for value in [">390<", ">195<", ">38.4<", ">0.00<"] {
            assert!(svg.contains(value), "{value} missing");
        }
        // No value on the diagonal: an empty cell marked with a dash.
        assert_eq!(svg.matches(">–<").count(), 4);
        assert!(svg.contains("Pairs &lt;of&gt; GPUs"), "the title is escaped");
        assert!(svg.contains(">390 GB/s<"), "the scale ends at the largest value");
    }

    #[test]
    fn the_scale_is_shared_and_deep_where_high() {
        assert_eq!(colour(0.0).0, "#f2f7fc");
        assert_eq!(colour(1.0), ("#08306b".to_string(), true));
        assert_eq!(colour(f64::NAN).0, "#f2f7fc");
        // The fastest cell of either panel takes the deep end; half of it the middle.
        let svg = two_by_two().svg();
        assert!(svg.contains(r##"fill="#08306b" stroke"##));
        assert!(svg.contains(&format!(r#"fill="{}" stroke"#, colour(0.5).0)));
        assert_eq!(two_by_two().svg(), svg, "the same figures give the same bytes");
    }
}
