//! Line charts as SVG, written by hand: a sweep is easier to see than to read.

use std::fmt::Write;

/// How the x axis is scaled and labelled.
#[derive(Clone, Copy, Debug)]
pub enum XAxis {
    /// Linear, labelled with the value.
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
#[derive(Clone, Debug)]
pub struct Plot {
    /// File stem: the chart is written as `<name>.svg`.
    pub name: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_axis: XAxis,
    pub series: Vec<Series>,
    /// Horizontal reference lines `(y, label)`, e.g. a ceiling.
    pub h_lines: Vec<(f64, String)>,
    /// Vertical reference lines `(x, label)`, e.g. Little's law.
    pub v_lines: Vec<(f64, String)>,
}

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 460.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 62.0;
const COLORS: &[&str] = &["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"];

fn size_label(v: f64) -> String {
    let units = [(1u64 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (scale, suffix) in units {
        if v >= scale as f64 {
            return format!("{}{suffix}", v / scale as f64);
        }
    }
    format!("{v}")
}

/// Round tick spacing for a range: 1, 2 or 5 × a power of ten.
fn tick_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(magnitude * 10.0)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Plot {
    fn x_value(&self, x: f64) -> f64 {
        match self.x_axis {
            XAxis::Linear => x,
            XAxis::Log2 | XAxis::Log2Bytes => x.max(f64::MIN_POSITIVE).log2(),
        }
    }

    /// The chart as an SVG document.
    pub fn svg(&self) -> String {
        let points: Vec<(f64, f64)> = self.series.iter().flat_map(|s| s.points.iter().copied()).collect();
        let xs: Vec<f64> = points
            .iter()
            .map(|p| self.x_value(p.0))
            .chain(self.v_lines.iter().map(|l| self.x_value(l.0)))
            .collect();
        let (mut x0, mut x1) =
            xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if !x0.is_finite() || x0 == x1 {
            (x0, x1) = (x0.min(0.0), x0.max(0.0) + 1.0);
        }
        let y_max = points.iter().map(|p| p.1).chain(self.h_lines.iter().map(|l| l.0)).fold(0.0f64, f64::max);
        let y1 = if y_max > 0.0 { y_max * 1.08 } else { 1.0 };
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let sx = |x: f64| LEFT + (self.x_value(x) - x0) / (x1 - x0) * pw;
        let sy = |y: f64| TOP + ph - y / y1 * ph;

        let mut svg = String::new();
        let _ = write!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>
"#,
            WIDTH / 2.0,
            escape(&self.title)
        );
        // Grid and y ticks.
        let step = tick_step(y1);
        let mut y = 0.0;
        while y <= y1 {
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" x2="{}" y1="{py:.1}" y2="{py:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                WIDTH - RIGHT,
                LEFT - 6.0,
                sy(y) + 4.0,
                if step < 1.0 { format!("{y:.1}") } else { format!("{y:.0}") },
                py = sy(y)
            );
            y += step;
        }
        // X ticks.
        let ticks: Vec<f64> = match self.x_axis {
            XAxis::Linear => {
                let step = tick_step(x1 - x0);
                let mut t = (x0 / step).ceil() * step;
                let mut v = Vec::new();
                while t <= x1 + 1e-9 {
                    v.push(t);
                    t += step;
                }
                v
            }
            XAxis::Log2 | XAxis::Log2Bytes => {
                let every = ((x1 - x0) / 12.0).ceil().max(1.0) as i64;
                (x0.ceil() as i64..=x1.floor() as i64)
                    .filter(|e| e % every == 0)
                    .map(|e| 2f64.powi(e as i32))
                    .collect()
            }
        };
        for t in ticks {
            let label = match self.x_axis {
                XAxis::Log2Bytes => size_label(t),
                _ => format!("{t}"),
            };
            let _ = writeln!(
                svg,
                r##"<line x1="{px:.1}" x2="{px:.1}" y1="{TOP}" y2="{}" stroke="#f0f0f0"/><text x="{px:.1}" y="{}" text-anchor="middle">{label}</text>"##,
                TOP + ph,
                TOP + ph + 18.0,
                px = sx(t)
            );
        }
        // Axes and labels.
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{b}" stroke="#333"/><line x1="{LEFT}" x2="{r}" y1="{b}" y2="{b}" stroke="#333"/>
<text x="{cx}" y="{xl}" text-anchor="middle">{xlab}</text>
<text x="18" y="{cy}" text-anchor="middle" transform="rotate(-90 18 {cy})">{ylab}</text>
"##,
            b = TOP + ph,
            r = WIDTH - RIGHT,
            cx = LEFT + pw / 2.0,
            xl = HEIGHT - 16.0,
            cy = TOP + ph / 2.0,
            xlab = escape(&self.x_label),
            ylab = escape(&self.y_label)
        );
        for (y, label) in &self.h_lines {
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" x2="{}" y1="{py:.1}" y2="{py:.1}" stroke="#555" stroke-dasharray="6 4"/><text x="{}" y="{:.1}" text-anchor="end" fill="#555">{}</text>"##,
                WIDTH - RIGHT,
                WIDTH - RIGHT - 4.0,
                sy(*y) - 5.0,
                escape(label),
                py = sy(*y)
            );
        }
        for (x, label) in &self.v_lines {
            let _ = writeln!(
                svg,
                r##"<line x1="{px:.1}" x2="{px:.1}" y1="{TOP}" y2="{}" stroke="#555" stroke-dasharray="6 4"/><text x="{:.1}" y="{}" fill="#555">{}</text>"##,
                TOP + ph,
                sx(*x) + 4.0,
                TOP + 14.0,
                escape(label),
                px = sx(*x)
            );
        }
        for (i, series) in self.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let path: Vec<String> =
                series.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y))).collect();
            let _ = writeln!(
                svg,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
                path.join(" ")
            );
            for &(x, y) in &series.points {
                let _ =
                    writeln!(svg, r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"/>"#, sx(x), sy(y));
            }
            let ly = TOP + 14.0 + 16.0 * i as f64;
            let _ = writeln!(
                svg,
                r#"<rect x="{}" y="{:.1}" width="14" height="4" fill="{color}"/><text x="{}" y="{:.1}">{}</text>"#,
                LEFT + 12.0,
                ly - 4.0,
                LEFT + 32.0,
                ly + 1.0,
                escape(&series.name)
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}
