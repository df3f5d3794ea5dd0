//! Ladder charts: each step of a ladder as a bar, with its value written on it, against
//! horizontal lines for what bounds it (the theoretical bandwidth, a tensor-core ceiling)
//! and what it is measured beside (CUB, cuBLAS), all from one run.
//!
//! The runners fill a [`LadderChart`] with plain numbers ([`LadderChart::step`],
//! [`LadderChart::limit`], [`LadderChart::baseline`]); nothing here reads a table.

use super::{
    Axis, COLORS, DrawResult, FONT, GRID, REFERENCE, SMALL_SIZE, TEXT_SIZE, TITLE_SIZE, tick_step, ticks,
};
use crate::base::error::{Error, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// One step of a ladder: a bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The step's stable id, written under its bar.
    pub id: String,
    /// The legend entry its bar's colour stands for (a sub-ladder, an instruction).
    pub group: String,
    /// The rate it reached, in the chart's unit; `None` when it was not timed.
    pub value: Option<f64>,
    /// Why it was not timed ("wrong result", "verify only"), written in its place.
    pub note: String,
}

/// How a reference line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// A bound no step can pass (theoretical bandwidth, tensor-core ceiling): dashed.
    Limit,
    /// A library measured in the same run (CUB, cuBLAS): solid.
    Baseline,
}

/// A horizontal reference line across the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub label: String,
    pub value: f64,
    pub line: Line,
    /// The bar group this line bounds: drawn in that group's colour.
    pub group: Option<String>,
}

/// One ladder chart: the steps of one problem (an input size, a GEMM shape and
/// precision) on one device in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderChart {
    /// File stem: the chart is written as `<name>.svg`.
    pub name: String,
    pub title: String,
    /// The device the run measured; the subtitle names it.
    pub device: String,
    /// The run's date (`YYYY-MM-DDTHH:MM:SSZ`); the subtitle gives it.
    pub date: String,
    /// More context for the subtitle (timing method, bytes); may be empty.
    pub note: String,
    /// The unit of every value ("GB/s", "TFLOP/s").
    pub unit: String,
    /// The y axis' label: the unit and how it is computed.
    pub y_label: String,
    pub steps: Vec<Step>,
    pub references: Vec<Reference>,
}

/// `n2p30` for 2^30, `n1000` otherwise: a file-name tag for a reduction's size.
pub fn size_tag(n: usize) -> String {
    if n.is_power_of_two() && n > 1 { format!("n2p{}", n.trailing_zeros()) } else { format!("n{n}") }
}

/// `2^30` for powers of two from 1024 up, the number otherwise.
fn human_size(n: usize) -> String {
    if n.is_power_of_two() && n >= 1024 { format!("2^{}", n.trailing_zeros()) } else { n.to_string() }
}

/// A value with three or four significant digits: 4671, 752, 51.4, 0.84.
pub fn format_value(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// `2026-11-22 14:03 UTC` from `2026-11-22T14:03:11Z`; anything else as it is.
pub fn display_date(date: &str) -> String {
    match (date.get(..10), date.get(10..11), date.get(11..16), date.ends_with('Z')) {
        (Some(day), Some("T"), Some(time), true) => format!("{day} {time} UTC"),
        _ => date.to_string(),
    }
}

impl LadderChart {
    /// An empty chart.
    pub fn new(name: impl Into<String>, title: impl Into<String>, unit: &str, y_label: &str) -> Self {
        Self {
            name: name.into(),
            title: title.into(),
            device: String::new(),
            date: String::new(),
            note: String::new(),
            unit: unit.into(),
            y_label: y_label.into(),
            steps: Vec::new(),
            references: Vec::new(),
        }
    }

    /// The reduction ladder at `n` i32: `reduce-ladder-n2p30.svg`, in GB/s.
    pub fn reduction(n: usize, device: &str, date: &str) -> Self {
        Self {
            device: device.into(),
            date: date.into(),
            ..Self::new(
                format!("reduce-ladder-{}", size_tag(n)),
                format!("Sum of n = {} i32: bandwidth of each step", human_size(n)),
                "GB/s",
                "GB/s (bytes read / median time)",
            )
        }
    }

    /// The GEMM ladder of one precision at one shape: `gemm-f16-4096x4096x4096.svg`, in
    /// TFLOP/s. `precision` is the title's name ("FP16 (f32 accumulate)"), `tag` the file
    /// name's ("f16").
    pub fn gemm(precision: &str, tag: &str, (m, n, k): (u32, u32, u32), device: &str, date: &str) -> Self {
        Self {
            device: device.into(),
            date: date.into(),
            ..Self::new(
                format!("gemm-{tag}-{m}x{n}x{k}"),
                format!("{precision} GEMM, M×N×K = {m}×{n}×{k}: TFLOP/s of each step"),
                "TFLOP/s",
                "TFLOP/s (2·M·N·K / median time)",
            )
        }
    }

    /// Adds a step: its bar when `value` is a rate, `note` in its place when it is `None`.
    pub fn step(&mut self, id: &str, group: &str, value: Option<f64>, note: &str) {
        let value = value.filter(|v| v.is_finite());
        self.steps.push(Step { id: id.into(), group: group.into(), value, note: note.into() });
    }

    /// Adds a dashed line for a bound, in the colour of `group`'s bars when given.
    pub fn limit(&mut self, label: &str, value: f64, group: Option<&str>) {
        if value.is_finite() && value > 0.0 {
            self.references.push(Reference {
                label: label.into(),
                value,
                line: Line::Limit,
                group: group.map(Into::into),
            });
        }
    }

    /// Adds a solid line for a library measured in the same run.
    pub fn baseline(&mut self, label: &str, value: f64) {
        if value.is_finite() && value > 0.0 {
            self.references.push(Reference { label: label.into(), value, line: Line::Baseline, group: None });
        }
    }

    /// Whether any step was timed: a chart without one is not drawn.
    pub fn has_values(&self) -> bool {
        self.steps.iter().any(|s| s.value.is_some())
    }

    /// The subtitle: device, date, and the note.
    pub fn subtitle(&self) -> String {
        let mut line = format!("{}, run of {}", self.device, display_date(&self.date));
        if !self.note.is_empty() {
            line += "; ";
            line += &self.note;
        }
        line
    }

    /// The bar groups in order of first appearance.
    fn groups(&self) -> Vec<&str> {
        let mut groups: Vec<&str> = Vec::new();
        for step in &self.steps {
            if !groups.contains(&step.group.as_str()) {
                groups.push(&step.group);
            }
        }
        groups
    }

    /// The chart as an SVG document.
    pub fn svg(&self) -> Result<String> {
        let mut svg = String::new();
        self.draw(&mut svg).map_err(|e| Error::new(format!("drawing the chart `{}`: {e}", self.name)))?;
        Ok(svg)
    }

    /// Writes the chart as `<dir>/<name>.svg` and returns its path; writes nothing and
    /// returns `None` when no step was timed (a verification-only run).
    pub fn write(&self, dir: &Path) -> Result<Option<PathBuf>> {
        if !self.has_values() {
            return Ok(None);
        }
        super::write_svg(dir, &self.name, &self.svg()?).map(Some)
    }

    fn draw(&self, out: &mut String) -> DrawResult {
        const STEP_WIDTH: u32 = 46;
        const PLOT_HEIGHT: u32 = 360;
        const LEFT: i32 = 16;
        // Text width estimates for the layout (the viewer sets the real text): about
        // 0.6 em per character.
        let char_px = |size: f64| size / 1.24 * 0.62;

        let groups = self.groups();
        let group_color = |group: &str| {
            COLORS_BARS[groups.iter().position(|g| *g == group).unwrap_or(0) % COLORS_BARS.len()]
        };
        let (mut limits, mut baselines) = (0, 0);
        let reference_colors: Vec<RGBColor> = self
            .references
            .iter()
            .map(|r| match (&r.group, r.line) {
                (Some(g), _) if groups.contains(&g.as_str()) => group_color(g),
                (_, Line::Limit) => {
                    limits += 1;
                    COLORS_LIMITS[(limits - 1) % COLORS_LIMITS.len()]
                }
                (_, Line::Baseline) => {
                    baselines += 1;
                    COLORS_BASELINES[(baselines - 1) % COLORS_BASELINES.len()]
                }
            })
            .collect();

        let count = self.steps.len().max(1);
        let width = (110 + STEP_WIDTH * count as u32).max(760);
        let longest = self.steps.iter().map(|s| s.id.chars().count()).max().unwrap_or(0);
        let label_band = (longest as f64 * char_px(TEXT_SIZE) * 0.9) as u32 + 24;

        // The legend: the bar groups, then the reference lines with their values from a
        // new row, each row filled left to right.
        let mut legend: Vec<(String, LegendMark, RGBColor)> =
            groups.iter().map(|g| (g.to_string(), LegendMark::Bar, group_color(g))).collect();
        for (r, &color) in self.references.iter().zip(&reference_colors) {
            let mark = if r.line == Line::Limit { LegendMark::Dashed } else { LegendMark::Solid };
            legend.push((format!("{}: {} {}", r.label, format_value(r.value), self.unit), mark, color));
        }
        let mut rows: Vec<Vec<(i32, usize)>> = vec![Vec::new()];
        let mut x = LEFT + 56;
        for (i, (text, ..)) in legend.iter().enumerate() {
            let entry = 26 + (text.chars().count() as f64 * char_px(TEXT_SIZE)) as i32 + 30;
            let full = x + entry > width as i32 - LEFT;
            if (full || i == groups.len()) && !rows.last().is_some_and(Vec::is_empty) {
                rows.push(Vec::new());
                x = LEFT + 56;
            }
            rows.last_mut().expect("one row at least").push((x, i));
            x += entry;
        }
        let header = 58 + 18 * rows.len() as u32;
        let height = header + PLOT_HEIGHT + label_band + 12;

        let root = SVGBackend::with_string(out, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let center = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(
            self.title.clone(),
            (width as i32 / 2, 10),
            TextStyle::from((FONT, TITLE_SIZE)).pos(center),
        ))?;
        root.draw(&Text::new(
            self.subtitle(),
            (width as i32 / 2, 34),
            TextStyle::from((FONT, TEXT_SIZE)).color(&REFERENCE).pos(center),
        ))?;
        let legend_text = TextStyle::from((FONT, TEXT_SIZE)).pos(Pos::new(HPos::Left, VPos::Center));
        for (row, entries) in rows.iter().enumerate() {
            let y = 64 + 18 * row as i32;
            for &(x, i) in entries {
                let (text, mark, color) = &legend[i];
                match mark {
                    LegendMark::Bar => {
                        root.draw(&Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.filled()))?
                    }
                    LegendMark::Solid => {
                        root.draw(&PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)))?
                    }
                    LegendMark::Dashed => {
                        for dash in [(x, x + 6), (x + 10, x + 16)] {
                            root.draw(&PathElement::new(
                                vec![(dash.0, y), (dash.1, y)],
                                color.stroke_width(2),
                            ))?;
                        }
                    }
                }
                root.draw(&Text::new(text.clone(), (x + 26, y), legend_text.clone()))?;
            }
        }

        let (_, body) = root.split_vertically(header);
        let top = self
            .steps
            .iter()
            .filter_map(|s| s.value)
            .chain(self.references.iter().map(|r| r.value))
            .fold(0.0f64, f64::max);
        // Room above the tallest bar for its value.
        let y1 = if top > 0.0 { top * 1.1 } else { 1.0 };
        let y_step = tick_step(y1, 8.0);
        let last = count as f64 - 0.5;
        let mut chart = ChartBuilder::on(&body)
            .margin_left(LEFT as u32)
            .margin_right(24)
            .margin_top(8)
            .x_label_area_size(label_band)
            .y_label_area_size(72)
            .build_cartesian_2d(
                Axis { from: -0.5, to: last, ticks: Vec::new() },
                Axis { from: 0.0, to: y1, ticks: ticks(0.0, y1, y_step) },
            )?;
        let y_label = move |y: &f64| super::tick_label(*y, y_step);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(RGBColor(0x33, 0x33, 0x33))
            .label_style((FONT, TEXT_SIZE))
            .axis_desc_style((FONT, TEXT_SIZE))
            .y_desc(&self.y_label)
            .y_label_formatter(&y_label)
            .draw()?;

        for (r, &color) in self.references.iter().zip(&reference_colors) {
            // A line that bounds one group of bars (a tensor-core ceiling) spans those bars
            // only; the others (a theoretical bandwidth, a library) span the chart.
            let bounded: Vec<f64> = self
                .steps
                .iter()
                .enumerate()
                .filter(|(_, s)| r.group.as_ref() == Some(&s.group))
                .map(|(i, _)| i as f64)
                .collect();
            let ends = match (bounded.first(), bounded.last()) {
                (Some(&first), Some(&end)) => [(first - 0.5, r.value), (end + 0.5, r.value)],
                _ => [(-0.5, r.value), (last, r.value)],
            };
            match r.line {
                Line::Limit => {
                    chart.draw_series(DashedLineSeries::new(ends, 8, 5, color.stroke_width(2)))?;
                }
                Line::Baseline => {
                    chart.draw_series(std::iter::once(PathElement::new(
                        ends.to_vec(),
                        color.stroke_width(2),
                    )))?;
                }
            }
        }
        // A value sits inside the top of its bar, in white, clear of the reference lines;
        // above it when the bar is too short to hold it.
        let value_above = TextStyle::from((FONT, SMALL_SIZE)).pos(Pos::new(HPos::Center, VPos::Bottom));
        let value_inside =
            TextStyle::from((FONT, SMALL_SIZE)).color(&WHITE).pos(Pos::new(HPos::Center, VPos::Top));
        let note_text = TextStyle::from((FONT, SMALL_SIZE))
            .color(&COLORS[1])
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, step) in self.steps.iter().enumerate() {
            let x = i as f64;
            match step.value {
                Some(v) => {
                    let color = group_color(&step.group);
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x - 0.36, 0.0), (x + 0.36, v)],
                        color.filled(),
                    )))?;
                    let bar_px = chart.backend_coord(&(x, 0.0)).1 - chart.backend_coord(&(x, v)).1;
                    let (offset, style) = if bar_px >= 20 { (4, &value_inside) } else { (-3, &value_above) };
                    chart.draw_series(std::iter::once(
                        EmptyElement::at((x, v)) + Text::new(format_value(v), (0, offset), style.clone()),
                    ))?;
                }
                None => {
                    let note = if step.note.is_empty() { "not timed" } else { &step.note };
                    chart.draw_series(std::iter::once(
                        EmptyElement::at((x, 0.0)) + Text::new(note.to_string(), (0, -6), note_text.clone()),
                    ))?;
                }
            }
            // The step's id under its bar, read bottom to top, ending at the axis.
            let (px, py) = chart.backend_coord(&(x, 0.0));
            root.draw(&Text::new(
                step.id.clone(),
                (px, py + 8),
                TextStyle::from((FONT, TEXT_SIZE))
                    .transform(FontTransform::Rotate270)
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        root.present()?;
        Ok(())
    }
}

/// How a legend entry is marked.
#[derive(Clone, Copy)]
enum LegendMark {
    Bar,
    Solid,
    Dashed,
}

/// Bar colours by group: blue, green, purple, teal.
const COLORS_BARS: &[RGBColor] = &[COLORS[0], COLORS[2], COLORS[3], COLORS[5]];
/// Lines not tied to a group: limits grey, then brown; baselines red, then orange.
const COLORS_LIMITS: &[RGBColor] = &[REFERENCE, COLORS[6]];
const COLORS_BASELINES: &[RGBColor] = &[COLORS[1], COLORS[4]];

/// Writes every chart that has a timed step into `dir`; returns the paths written.
pub fn write_all(dir: &Path, charts: &[LadderChart]) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for chart in charts {
        written.extend(chart.write(dir)?);
    }
    Ok(written)
}
