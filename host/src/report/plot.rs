//! Charts as SVG, drawn with `plotters` (its SVG backend only): a sweep is easier to see
//! than to read. [`Plot`] is a line chart of a probe's sweep; [`ladder`] draws each
//! ladder's steps as bars against the hardware's limit and the vendor library.

pub mod ladder;

use crate::base::error::{Error, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// How the x axis is scaled and labelled.
#[derive(Clone, Copy, Debug, Default)]
pub enum XAxis {
    /// Linear, labelled with the value.
    #[default]
    Linear,
    /// Powers of two, labelled with the value (1, 2, 4, …).
    Log2,
    /// Powers of two, labelled as sizes (4K, 16M, 1G).
    Log2Bytes,
}

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart: some series, optional labelled reference lines.
#[derive(Clone, Debug, Default)]
pub struct Plot {
    /// File stem: the chart is written as `<name>.svg`.
    pub name: String,
    pub title: String,
    /// The axes' labels, each with its unit (`stride (elements)`, `GB/s (read + write)`).
    pub x_label: String,
    pub y_label: String,
    /// The units a reference line's value is written in (`GB/s`; for an axis of sizes,
    /// `bytes` writes 50 MiB rather than 52428800 bytes).
    pub x_unit: String,
    pub y_unit: String,
    pub x_axis: XAxis,
    pub series: Vec<Series>,
    /// Horizontal reference lines `(y, label)`, e.g. a ceiling; the chart writes the value
    /// after the label.
    pub h_lines: Vec<(f64, String)>,
    /// Vertical reference lines `(x, label)`, e.g. Little's law; likewise.
    pub v_lines: Vec<(f64, String)>,
    /// The device and the run's date, under the title ([`crate::report::output::Output`]
    /// sets it from the run when the probe left it empty).
    pub stamp: String,
}

/// The chart's width, in pixels.
const WIDTH: u32 = 760;
/// The plot below the header (title, stamp, legend), in pixels.
const HEIGHT: u32 = 400;

/// The font every chart asks for; the SVG viewer picks the face and lays the text out.
pub(crate) const FONT: &str = "sans-serif";
/// plotters writes a text style's size divided by 1.24 as the SVG `font-size`: these give
/// 15.3, 12.1 and 10.5 px.
pub(crate) const TITLE_SIZE: f64 = 19.0;
pub(crate) const TEXT_SIZE: f64 = 15.0;
pub(crate) const SMALL_SIZE: f64 = 13.0;

/// Line and bar colours, in order (the "category10" palette).
pub(crate) const COLORS: &[RGBColor] = &[
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0x8c, 0x56, 0x4b),
];
pub(crate) const GRID: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);
pub(crate) const REFERENCE: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// What a drawing call can fail with (a layout that does not fit, in practice).
pub(crate) type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// `50 MiB`, `4 KiB`, `512 bytes`: a size for a line's label.
fn bytes_text(v: f64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (scale, suffix) in units {
        if v >= scale as f64 {
            return format!("{} {suffix}", ladder::format_value(v / scale as f64));
        }
    }
    format!("{v:.0} bytes")
}

/// A reference line's label with its value: `copy ceiling: 3902 GB/s`.
fn labelled(label: &str, value: f64, unit: &str) -> String {
    match unit {
        "bytes" => format!("{label}: {}", bytes_text(value)),
        "" => format!("{label}: {}", ladder::format_value(value)),
        unit => format!("{label}: {} {unit}", ladder::format_value(value)),
    }
}

/// Lays out legend entries (their text) left to right in rows of at most `width` pixels
/// from `left`: each entry's row and x. Text widths are estimates (the viewer sets the
/// real text): about 0.6 em per character.
pub(crate) fn legend_rows(
    texts: &[String],
    left: i32,
    width: i32,
    break_before: Option<usize>,
) -> Vec<(usize, i32)> {
    let char_px = TEXT_SIZE / 1.24 * 0.62;
    let (mut row, mut x) = (0, left);
    let mut placed = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let entry = 26 + (text.chars().count() as f64 * char_px) as i32 + 30;
        let starts_row = x == left;
        if !starts_row && (x + entry > width || break_before == Some(i)) {
            row += 1;
            x = left;
        }
        placed.push((row, x));
        x += entry;
    }
    placed
}

fn size_label(v: f64) -> String {
    let units = [(1u64 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (scale, suffix) in units {
        if v >= scale as f64 {
            return format!("{}{suffix}", v / scale as f64);
        }
    }
    format!("{v}")
}

/// Round tick spacing for about `count` ticks over a range: 1, 2 or 5 × a power of ten.
pub(crate) fn tick_step(span: f64, count: f64) -> f64 {
    let raw = span / count;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(magnitude * 10.0)
}

/// Multiples of `step` from the first at or above `from` to `to`.
pub(crate) fn ticks(from: f64, to: f64, step: f64) -> Vec<f64> {
    let first = (from / step).ceil() as i64;
    let last = (to / step + 1e-9).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A tick value with as many decimals as its step needs.
pub(crate) fn tick_label(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    format!("{value:.decimals$}")
}

/// A linear axis from `from` to `to` with its ticks where the chart puts them (plotters
/// picks its own otherwise: a log2 axis wants whole powers, a bar chart none).
pub(crate) struct Axis {
    pub from: f64,
    pub to: f64,
    pub ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.from) / (self.to - self.from);
        limit.0 + (f64::from(limit.1 - limit.0) * share).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.from..self.to
    }
}

/// Writes `svg` as `<dir>/<name>.svg`, creating `dir` if needed.
pub(crate) fn write_svg(dir: &Path, name: &str, svg: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| Error::new(format!("{}: {e}", dir.display())))?;
    let path = dir.join(format!("{name}.svg"));
    std::fs::write(&path, svg).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    Ok(path)
}

impl Plot {
    fn x_value(&self, x: f64) -> f64 {
        match self.x_axis {
            XAxis::Linear => x,
            XAxis::Log2 | XAxis::Log2Bytes => x.max(f64::MIN_POSITIVE).log2(),
        }
    }

    /// The chart as an SVG document.
    pub fn svg(&self) -> Result<String> {
        let mut svg = String::new();
        self.draw(&mut svg).map_err(|e| Error::new(format!("drawing the chart `{}`: {e}", self.name)))?;
        Ok(svg)
    }

    /// Writes the chart as `<dir>/<name>.svg`.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        write_svg(dir, &self.name, &self.svg()?)
    }

    fn draw(&self, out: &mut String) -> DrawResult {
        // The x axis is drawn in plot coordinates (log2 of the value on a log axis).
        let xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .chain(self.v_lines.iter().map(|l| l.0))
            .map(|x| self.x_value(x))
            .collect();
        let (mut x0, mut x1) =
            xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        } else if x0 == x1 {
            (x0, x1) = (x0.min(0.0), x0.max(0.0) + 1.0);
        }
        let y_max = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(self.h_lines.iter().map(|l| l.0))
            .fold(0.0f64, f64::max);
        let y1 = if y_max > 0.0 { y_max * 1.08 } else { 1.0 };

        let (x_ticks, x_step) = match self.x_axis {
            XAxis::Linear => {
                let step = tick_step(x1 - x0, 5.0);
                (ticks(x0, x1, step), step)
            }
            XAxis::Log2 | XAxis::Log2Bytes => {
                let every = ((x1 - x0) / 12.0).ceil().max(1.0) as i64;
                let exponents = (x0.ceil() as i64..=x1.floor() as i64).filter(|e| e % every == 0);
                (exponents.map(|e| e as f64).collect(), 1.0)
            }
        };
        let y_step = tick_step(y1, 5.0);
        // A little room either side, so the end points are not cut by the frame.
        let pad = (x1 - x0) * 0.02;
        let x_axis = self.x_axis;
        let x_label = move |x: &f64| match x_axis {
            XAxis::Linear => tick_label(*x, x_step),
            XAxis::Log2 => format!("{}", 2f64.powf(x.round())),
            XAxis::Log2Bytes => size_label(2f64.powf(x.round())),
        };
        let y_label = move |y: &f64| tick_label(*y, y_step);

        // The header: title, the device and date, and the legend (series, then the
        // reference lines with their values) in rows above the plot, off the data.
        let mut legend: Vec<(String, Option<RGBColor>)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), Some(COLORS[i % COLORS.len()])))
            .collect();
        let first_line = legend.len();
        legend.extend(self.h_lines.iter().map(|(y, label)| (labelled(label, *y, &self.y_unit), None)));
        legend.extend(self.v_lines.iter().map(|(x, label)| (labelled(label, *x, &self.x_unit), None)));
        let texts: Vec<String> = legend.iter().map(|(t, _)| t.clone()).collect();
        let placed = legend_rows(&texts, 72, WIDTH as i32 - 16, Some(first_line));
        let rows = placed.iter().map(|&(row, _)| row + 1).max().unwrap_or(0) as u32;
        let header = 58 + 18 * rows;

        let root = SVGBackend::with_string(out, (WIDTH, HEIGHT + header)).into_drawing_area();
        root.fill(&WHITE)?;
        let center = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(
            self.title.clone(),
            (WIDTH as i32 / 2, 10),
            TextStyle::from((FONT, TITLE_SIZE)).pos(center),
        ))?;
        root.draw(&Text::new(
            self.stamp.clone(),
            (WIDTH as i32 / 2, 34),
            TextStyle::from((FONT, TEXT_SIZE)).color(&REFERENCE).pos(center),
        ))?;
        let legend_text = TextStyle::from((FONT, TEXT_SIZE)).pos(Pos::new(HPos::Left, VPos::Center));
        for ((text, color), &(row, x)) in legend.iter().zip(&placed) {
            let y = 64 + 18 * row as i32;
            match color {
                Some(color) => root.draw(&Rectangle::new([(x, y - 2), (x + 16, y + 2)], color.filled()))?,
                None => {
                    for dash in [(x, x + 6), (x + 10, x + 16)] {
                        root.draw(&PathElement::new(
                            vec![(dash.0, y), (dash.1, y)],
                            REFERENCE.stroke_width(1),
                        ))?;
                    }
                }
            }
            root.draw(&Text::new(text.clone(), (x + 26, y), legend_text.clone()))?;
        }
        let (_, body) = root.split_vertically(header);
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(
                Axis { from: x0 - pad, to: x1 + pad, ticks: x_ticks },
                Axis { from: 0.0, to: y1, ticks: ticks(0.0, y1, y_step) },
            )?;
        chart
            .configure_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(RGBColor(0x33, 0x33, 0x33))
            .label_style((FONT, TEXT_SIZE))
            .axis_desc_style((FONT, TEXT_SIZE))
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .draw()?;

        // The reference lines, dashed; the legend says which is which and its value, and a
        // short name at the line's end says which line it is.
        let reference = ShapeStyle::from(REFERENCE).stroke_width(1);
        let reference_text = TextStyle::from((FONT, SMALL_SIZE)).color(&REFERENCE);
        let mut h_lines: Vec<&(f64, String)> = self.h_lines.iter().collect();
        h_lines.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut previous_px: Option<i32> = None;
        for (y, label) in h_lines {
            chart.draw_series(DashedLineSeries::new([(x0 - pad, *y), (x1 + pad, *y)], 6, 4, reference))?;
            let py = chart.backend_coord(&(x1, *y)).1;
            let crowded = previous_px.is_some_and(|p| py - p < 14);
            let (offset, v_pos) = if crowded { (4, VPos::Top) } else { (-4, VPos::Bottom) };
            chart.draw_series(std::iter::once(
                EmptyElement::at((x1 + pad, *y))
                    + Text::new(
                        label.clone(),
                        (-4, offset),
                        reference_text.pos(Pos::new(HPos::Right, v_pos)),
                    ),
            ))?;
            previous_px = Some(py);
        }
        for (x, label) in &self.v_lines {
            let x = self.x_value(*x);
            chart.draw_series(DashedLineSeries::new([(x, 0.0), (x, y1)], 6, 4, reference))?;
            // At the line's foot, clear of the horizontal lines' labels at the top.
            chart.draw_series(std::iter::once(
                EmptyElement::at((x, 0.0))
                    + Text::new(
                        label.clone(),
                        (4, -4),
                        reference_text.pos(Pos::new(HPos::Left, VPos::Bottom)),
                    ),
            ))?;
        }
        for (i, series) in self.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let points: Vec<(f64, f64)> = series.points.iter().map(|&(x, y)| (self.x_value(x), y)).collect();
            chart.draw_series(std::iter::once(PathElement::new(points.clone(), color.stroke_width(2))))?;
            chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
        }
        root.present()?;
        Ok(())
    }
}
