//! The charts of `--plots DIR`, drawn from made-up figures on the CPU: the probes' sweeps
//! and the ladders' bars. Each test checks what a reader needs to find in the SVG: the
//! title, the device and date, every step, series and reference line, the axis labels.
//!
//! `HOST_PLOTS_KEEP=DIR cargo test --test plots` also writes the charts into DIR, to look
//! at them.

use host::families::reduce::registry::REDUCE_KERNELS;
use host::families::reduce::report::Row;
use host::families::reduce::runner::Check;
use host::measure::timing::{Stop, Timing};
use host::report::plot::ladder::{self, LadderChart, Line};
use host::report::plot::{Plot, Series, XAxis};
use std::path::PathBuf;

#[path = "fixtures.rs"]
mod fixtures;
use fixtures::h200;

const DATE: &str = "2026-11-22T14:03:11Z";

/// A scratch folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host-plots-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Writes `svg` into `$HOST_PLOTS_KEEP` when it is set.
fn keep(name: &str, svg: &str) {
    if let Some(dir) = std::env::var_os("HOST_PLOTS_KEEP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
    }
}

fn assert_contains(svg: &str, texts: &[&str]) {
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "not an SVG document");
    for text in texts {
        assert!(svg.contains(text), "missing `{text}`");
    }
}

fn sweep() -> Plot {
    Plot {
        name: "p5-occupancy".into(),
        title: "Bandwidth against <bytes> in flight on NVIDIA H200".into(),
        x_label: "bytes requested and not yet returned, per SM".into(),
        y_label: "GB/s".into(),
        x_axis: XAxis::Log2Bytes,
        series: vec![
            Series {
                name: "ILP 1".into(),
                points: vec![(1024.0, 800.0), (4096.0, 2100.0), (16384.0, 3600.0), (65536.0, 4300.0)],
            },
            Series {
                name: "ILP 4".into(),
                points: vec![(4096.0, 2500.0), (16384.0, 4100.0), (65536.0, 4400.0)],
            },
        ],
        h_lines: vec![(4814.0, "theoretical".into())],
        v_lines: vec![(40_000.0, "Little's law".into())],
        x_unit: "bytes".into(),
        y_unit: "GB/s".into(),
        stamp: "NVIDIA H200, run of 2026-11-22 14:03 UTC".into(),
    }
}

#[test]
fn sweeps_draw_every_series_point_and_reference_line() {
    let plot = sweep();
    let svg = plot.svg().unwrap();
    keep(&plot.name, &svg);
    assert_contains(
        &svg,
        &[
            "Bandwidth against &lt;bytes&gt; in flight on NVIDIA H200",
            "bytes requested and not yet returned, per SM",
            "GB/s",
            "ILP 1",
            "ILP 4",
            "theoretical",
            "Little&apos;s law",
            "theoretical: 4814 GB/s",
            "Little&apos;s law: 39.1 KiB",
            "NVIDIA H200, run of 2026-11-22 14:03 UTC",
            "1K",
            "4K",
            "64K",
            "4000",
        ],
    );
    // One marker per point; the lines are polylines in the series' colours.
    assert_eq!(svg.matches("<circle").count(), 7);
    assert!(svg.contains(r##"stroke="#1F77B4""##) && svg.contains(r##"stroke="#D62728""##));
}

#[test]
fn sweeps_label_log2_and_linear_axes() {
    let mut plot = sweep();
    plot.x_axis = XAxis::Log2;
    plot.series = vec![Series { name: "useful bytes".into(), points: vec![(1.0, 2635.0), (32.0, 170.0)] }];
    plot.v_lines.clear();
    let svg = plot.svg().unwrap();
    for tick in [">\n1\n<", ">\n2\n<", ">\n16\n<", ">\n32\n<"] {
        assert!(svg.contains(tick), "missing tick {tick:?}");
    }
    plot.x_axis = XAxis::Linear;
    plot.series = vec![Series { name: "ns".into(), points: vec![(0.0, 0.5), (31.0, 0.9)] }];
    plot.h_lines.clear();
    let svg = plot.svg().unwrap();
    assert!(svg.contains(">\n30\n<") && svg.contains(">\n0.8\n<"), "linear ticks, y with one decimal");
}

/// The `y` of the text element that writes `label`, and its `dy`.
fn text_position(svg: &str, label: &str) -> (f64, String) {
    let end = svg.find(&format!(">\n{label}\n</text>")).unwrap_or_else(|| panic!("no text `{label}`"));
    let tag = &svg[svg[..end].rfind("<text").unwrap()..end];
    let attribute = |name: &str| {
        let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[start..][..tag[start..].find('"').unwrap()].to_string()
    };
    (attribute("y").parse().unwrap(), attribute("dy"))
}

#[test]
fn sweeps_keep_the_labels_of_close_lines_apart() {
    let plot = Plot {
        name: "p1-stride-copy".into(),
        title: "Strided copy on NVIDIA H200".into(),
        x_label: "stride (elements)".into(),
        y_label: "GB/s (read + write)".into(),
        x_axis: XAxis::Log2,
        series: vec![
            Series { name: "useful bytes".into(), points: vec![(1.0, 2635.2), (2.0, 1480.9), (32.0, 170.4)] },
            Series {
                name: "sectors moved".into(),
                points: vec![(1.0, 2635.2), (2.0, 2961.8), (32.0, 1362.9)],
            },
        ],
        h_lines: vec![(3890.8, "copy ceiling".into()), (3876.4, "memcpy".into())],
        y_unit: "GB/s".into(),
        ..Plot::default()
    };
    let svg = plot.svg().unwrap();
    keep(&plot.name, &svg);
    let (ceiling, memcpy) = (text_position(&svg, "copy ceiling"), text_position(&svg, "memcpy"));
    // The upper line's label sits above it (text bottom at y), the lower one's below (top at y).
    assert_eq!((ceiling.1.as_str(), memcpy.1.as_str()), ("-0.5ex", "0.76em"));
    assert!(memcpy.0 - ceiling.0 >= 8.0, "{ceiling:?} {memcpy:?}");
}

#[test]
fn sweeps_survive_empty_and_flat_data() {
    let mut plot = sweep();
    plot.series = vec![Series { name: "none".into(), points: vec![] }];
    plot.h_lines.clear();
    plot.v_lines.clear();
    assert!(plot.svg().is_ok());
    plot.series = vec![Series { name: "one".into(), points: vec![(8.0, 0.0)] }];
    assert!(plot.svg().is_ok());
}

/// Rows as the runner makes them: H200 figures at 2^30 (docs/runs/2026-11-22-h200-final),
/// one step wrong.
fn reduction_rows() -> Vec<Row> {
    let gbs = [838.3, 679.7, 875.7, 1652.6, 2275.4, 2331.6, 3752.6, 618.3, 725.9, 1041.5, 1026.1, 3579.7];
    let bytes = 4.0 * (1u64 << 30) as f64;
    REDUCE_KERNELS
        .iter()
        .enumerate()
        .map(|(i, kernel)| {
            let wrong = kernel.id == "v3_batch_per_thread";
            let rate = gbs.get(i).copied().unwrap_or(4670.0);
            let median_ms = bytes / (rate * 1e9) * 1e3;
            Row {
                kernel,
                block: 256,
                launches: 1,
                check: Check { expected: 7, got: if wrong { 8 } else { 7 } },
                timing: (!wrong).then_some(Timing {
                    median_ms,
                    min_ms: median_ms,
                    max_ms: median_ms,
                    q1_ms: median_ms,
                    q3_ms: median_ms,
                    repetitions: 30,
                    stop: Stop::Settled,
                }),
                registers: None,
                twin: host::twins::TwinResult::NotRun("--twins off".into()),
            }
        })
        .collect()
}

#[test]
fn reduction_ladders_show_each_step_against_the_theoretical_bandwidth() {
    let rows = reduction_rows();
    let chart = host::families::reduce::chart::ladder(&h200(), DATE, 1 << 30, 4 << 30, &rows, None);
    assert_eq!(chart.name, "reduce-ladder-n2p30");
    assert_eq!(chart.steps.len(), REDUCE_KERNELS.len());
    assert_eq!(chart.references.len(), 1, "theoretical only: this run has no CUB figure");
    let svg = chart.svg().unwrap();
    keep(&chart.name, &svg);
    let mut texts = vec![
        "Sum of n = 2^30 i32: bandwidth of each step",
        "NVIDIA H200, run of 2026-11-22 14:03 UTC",
        "GB/s (bytes read / median time)",
        "Harris, “Optimizing Parallel Reduction in CUDA”",
        "“Making vector sum really fast”",
        "the project&apos;s own steps",
        "theoretical (2 × memory clock × bus width): 4814 GB/s",
        ">\n838\n<",
        ">\n3753\n<",
        "WRONG",
    ];
    texts.extend(REDUCE_KERNELS.iter().map(|k| k.id));
    assert_contains(&svg, &texts);
    assert!(!svg.contains("CUB"), "no CUB line without a CUB figure");
    // The bars in three colours, one per source: Harris, the article, the project.
    let groups: std::collections::BTreeSet<&str> = chart.steps.iter().map(|s| s.group.as_str()).collect();
    assert_eq!(groups.len(), 3, "{groups:?}");
    // Step names read bottom to top under their bars.
    assert!(svg.contains("rotate(270"));
}

#[test]
fn reduction_ladders_draw_cub_when_the_run_has_it() {
    let chart =
        host::families::reduce::chart::ladder(&h200(), DATE, 1000, 4000, &reduction_rows(), Some(4629.6));
    assert_eq!(chart.name, "reduce-ladder-n1000");
    assert!(chart.references.iter().any(|r| r.line == Line::Baseline && r.value == 4629.6));
    let svg = chart.svg().unwrap();
    assert_contains(&svg, &["Sum of n = 1000 i32", "CUB DeviceReduce::Sum: 4630 GB/s"]);
}

/// An FP16 GEMM chart at 4096³ with H200 figures: cuBLAS, both ceilings, a wrong step and
/// one skipped.
fn gemm_f16() -> LadderChart {
    let mut chart =
        LadderChart::gemm("FP16 (f32 accumulate)", "f16", (4096, 4096, 4096), "NVIDIA H100 80GB HBM3", DATE);
    chart.baseline("cuBLAS GemmEx (f32 compute)", 755.23);
    for (id, group, value) in [
        ("t01_mma_sync_f16", "mma.sync m16n8k16", Some(25.54)),
        ("t02_ldmatrix_f16", "mma.sync m16n8k16", Some(202.64)),
        ("t03_pipeline_f16", "mma.sync m16n8k16", None),
        ("t04_warp_tile_f16", "mma.sync m16n8k16", Some(342.38)),
        ("w01_wgmma_f16", "wgmma m64n256k16", Some(499.88)),
        ("w02_tma_f16", "wgmma m64n256k16", Some(607.62)),
    ] {
        chart.step(id, group, value, "WRONG");
    }
    chart.step("w10_narrow_tile_f16", "wgmma m64n256k16", None, "skipped");
    chart.limit("mma.sync m16n8k16 ceiling (p8)", 612.3, Some("mma.sync m16n8k16"));
    chart.limit("wgmma m64n256k16 ceiling (p8)", 871.0, Some("wgmma m64n256k16"));
    chart
}

#[test]
fn gemm_ladders_show_each_step_against_cublas_and_the_ceilings() {
    let chart = gemm_f16();
    assert_eq!(chart.name, "gemm-f16-4096x4096x4096");
    let svg = chart.svg().unwrap();
    keep(&chart.name, &svg);
    assert_contains(
        &svg,
        &[
            "FP16 (f32 accumulate) GEMM, M×N×K = 4096×4096×4096: TFLOP/s of each step",
            "NVIDIA H100 80GB HBM3, run of 2026-11-22 14:03 UTC",
            "TFLOP/s (2·M·N·K / median time)",
            "t01_mma_sync_f16",
            "w02_tma_f16",
            "w10_narrow_tile_f16",
            "cuBLAS GemmEx (f32 compute): 755 TFLOP/s",
            "mma.sync m16n8k16 ceiling (p8): 612 TFLOP/s",
            "wgmma m64n256k16 ceiling (p8): 871 TFLOP/s",
            ">\n25.5\n<",
            ">\n608\n<",
            "WRONG",
            "skipped",
        ],
    );
    // A ceiling is drawn in the colour of the bars it bounds, over those bars only: the
    // mma.sync ceiling's dashes end before the first wgmma bar starts.
    let ceiling_colour = r##"stroke="#1F77B4""##;
    assert!(svg.contains(ceiling_colour) && svg.contains(r##"fill="#1F77B4""##));
    let xs = |tag: &str, colour: &str, attribute: &str| -> Vec<f64> {
        svg.split('<')
            .filter(|e| e.starts_with(tag) && e.contains(colour))
            .filter_map(|e| {
                let at = e.find(&format!("{attribute}=\"")).unwrap() + attribute.len() + 2;
                let value = &e[at..at + e[at..].find('"').unwrap()];
                value
                    .split([' ', ','])
                    .filter(|v| !v.is_empty())
                    .step_by(2)
                    .map(|v| v.parse::<f64>().ok())
                    .max_by(|a, b| a.partial_cmp(b).unwrap())
                    .flatten()
            })
            .collect()
    };
    let dash_end = xs("polyline", "1F77B4", "points").into_iter().fold(0.0, f64::max);
    // The wgmma bars (wider than the 16-pixel legend swatch).
    let wgmma_bars: Vec<f64> = svg
        .split('<')
        .filter(|e| e.starts_with("rect") && e.contains("2CA02C") && !e.contains("width=\"16\""))
        .map(|e| e[e.find("x=\"").unwrap() + 3..].split('"').next().unwrap().parse().unwrap())
        .collect();
    let first_wgmma = wgmma_bars.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        dash_end < first_wgmma,
        "the mma.sync ceiling reaches {dash_end}, the wgmma bars start at {first_wgmma}"
    );
}

#[test]
fn gemm_charts_name_the_precision_and_shape_and_group_steps_by_instruction() {
    use host::base::precision::Precision;
    use host::families::gemm::registry::kernels;
    let chart = host::families::gemm::chart::new(Precision::Bf16, (8192, 1, 777), &h200(), DATE);
    assert_eq!(chart.name, "gemm-bf16-8192x1x777");
    assert!(chart.title.starts_with("BF16 (f32 accumulate) GEMM, M×N×K = 8192×1×777"));
    assert_eq!(
        host::families::gemm::chart::new(Precision::F32, (1024, 1024, 1024), &h200(), DATE).name,
        "gemm-f32-1024x1024x1024"
    );
    for kernel in kernels() {
        let group = host::families::gemm::chart::group(kernel);
        match kernel.precision {
            Precision::F32 => assert_eq!(group, "CUDA cores (FFMA)", "{}", kernel.id),
            _ => {
                assert!(group.starts_with("mma.sync") || group.starts_with("wgmma"), "{}: {group}", kernel.id)
            }
        }
    }
    // Ceilings only where the run has one: none for FP32.
    let mut fp32 = host::families::gemm::chart::new(Precision::F32, (4096, 4096, 4096), &h200(), DATE);
    host::families::gemm::chart::add_ceilings(&mut fp32, |_| None);
    assert!(fp32.references.is_empty());
    let mut f16 = host::families::gemm::chart::new(Precision::F16, (4096, 4096, 4096), &h200(), DATE);
    host::families::gemm::chart::add_ceilings(&mut f16, |i| (i.name().starts_with("wgmma")).then_some(871.0));
    assert_eq!(f16.references.len(), 1);
    assert_eq!(f16.references[0].group.as_deref(), Some("wgmma m64n256k16"));
}

#[test]
fn charts_are_written_under_stable_names_and_untimed_ones_are_not() {
    let dir = scratch("write");
    let mut untimed = LadderChart::reduction(1 << 20, "NVIDIA H200", DATE);
    untimed.step("h0_interleaved_modulo", "Harris", None, "not timed");
    let reduction =
        host::families::reduce::chart::ladder(&h200(), DATE, 1 << 30, 4 << 30, &reduction_rows(), None);
    let written = ladder::write_all(&dir, &[reduction, gemm_f16(), untimed]).unwrap();
    let names: Vec<String> =
        written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["reduce-ladder-n2p30.svg", "gemm-f16-4096x4096x4096.svg"]);
    for path in &written {
        assert!(std::fs::read_to_string(path).unwrap().starts_with("<svg"));
    }
    let sweep = sweep().write(&dir).unwrap();
    assert_eq!(sweep, dir.join("p5-occupancy.svg"));
    assert!(sweep.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn values_and_sizes_are_written_short() {
    assert_eq!(ladder::format_value(4671.8), "4672");
    assert_eq!(ladder::format_value(755.23), "755");
    assert_eq!(ladder::format_value(51.4), "51.4");
    assert_eq!(ladder::format_value(0.8449), "0.84");
    assert_eq!(ladder::size_tag(1 << 30), "n2p30");
    assert_eq!(ladder::size_tag(1 << 16), "n2p16");
    assert_eq!(ladder::size_tag(1_000_000), "n1000000");
    assert_eq!(ladder::size_tag(1), "n1");
    // Non-finite rates are not bars.
    let mut chart = LadderChart::reduction(1 << 10, "d", DATE);
    chart.step("a", "g", Some(f64::NAN), "not timed");
    chart.limit("none", f64::NAN, None);
    assert!(!chart.has_values() && chart.references.is_empty());
}
