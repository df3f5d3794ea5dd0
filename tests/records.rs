//! CPU tests of the machine-readable results: the timing spread, records, their JSON and
//! CSV, probe tables as records, the reduction table, and `host compare`'s verdicts.

use host::families::reduce::registry::REDUCE_KERNELS;
use host::families::reduce::report::{self, Row};
use host::families::reduce::runner::Check;
use host::measure::timing::{Stop, Timing};
use host::report::compare::{self, Verdict};
use host::report::records::{self, CSV_COLUMNS, Record};
use host::report::table::{Cell, Table};
use host::twins::TwinResult;

#[path = "fixtures.rs"]
mod fixtures;
use fixtures::h200;
use serde_json::json;

/// A timing whose median is `median_us` and whose spread is `spread_percent`.
fn timing(median_us: f64, spread_percent: f64) -> Timing {
    let (median_ms, half) = (median_us * 1e-3, median_us * 1e-3 * spread_percent / 200.0);
    Timing {
        median_ms,
        min_ms: median_ms - 2.0 * half,
        max_ms: median_ms + 3.0 * half,
        q1_ms: median_ms - half,
        q3_ms: median_ms + half,
        repetitions: 30,
        stop: Stop::Settled,
    }
}

/// A timed record of `kernel` with this median and spread.
fn timed(family: &str, kernel: &str, median_us: f64, spread_percent: f64) -> Record {
    let mut record = Record::new(family, kernel);
    record.set_timing(&timing(median_us, spread_percent));
    record.passed = Some(true);
    record
}

fn gemm(kernel: &str, median_us: f64, spread_percent: f64) -> Record {
    let mut record = timed("gemm", kernel, median_us, spread_percent);
    record.precision = Some("f32".into());
    (record.m, record.n, record.k) = (Some(4096), Some(4096), Some(4096));
    record
}

#[test]
fn spread_is_the_interquartile_range_and_ignores_one_outlier() {
    let mut samples: Vec<f64> = (1..=9).map(f64::from).collect();
    let t = Timing::from_samples(&mut samples, Stop::Settled);
    assert_eq!((t.median_ms, t.min_ms, t.max_ms, t.repetitions), (5.0, 1.0, 9.0, 9));
    assert_eq!((t.q1_ms, t.q3_ms), (3.0, 7.0));
    assert_eq!(t.spread_percent(), 80.0);
    // Quartiles interpolate between ranks: 1, 2, 3, 4 → 1.75 and 3.25.
    let t = Timing::from_samples(&mut [4.0, 1.0, 3.0, 2.0], Stop::Settled);
    assert_eq!((t.q1_ms, t.median_ms, t.q3_ms), (1.75, 2.5, 3.25));
    // Thirty steady repetitions and one preempted one: the spread stays small.
    let mut steady: Vec<f64> = (0..30).map(|i| 1.0 + f64::from(i % 3) * 0.001).collect();
    steady.push(5.0);
    let t = Timing::from_samples(&mut steady, Stop::Settled);
    assert_eq!(t.max_ms, 5.0);
    assert!(t.spread_percent() < 0.3, "{}", t.spread_percent());
    let t = Timing::from_samples(&mut [2.0], Stop::Settled);
    assert_eq!((t.spread_percent(), t.q1_ms, t.q3_ms), (0.0, 2.0, 2.0));
}

/// Two timed Harris steps, one wrong one (untimed), and a step of the other ladder.
fn reduction_rows() -> Vec<Row> {
    let kernel = |id: &str| REDUCE_KERNELS.iter().find(|k| k.id == id).expect(id);
    let ok = Check { expected: 7, got: 7 };
    vec![
        Row {
            kernel: kernel("h0_interleaved_modulo"),
            block: 256,
            launches: 4,
            check: ok,
            timing: Some(timing(2000.0, 1.0)),
            registers: Some(12),
            twin: TwinResult::NotRun("--twins off".into()),
        },
        Row {
            kernel: kernel("h1_strided_index"),
            block: 256,
            launches: 4,
            check: ok,
            timing: Some(timing(1000.0, 1.0)),
            registers: Some(12),
            twin: TwinResult::Ran {
                passed: true,
                wrong: None,
                timing: Some(timing(800.0, 1.0)),
                registers: Some(14),
            },
        },
        Row {
            kernel: kernel("h2_sequential_addressing"),
            block: 256,
            launches: 4,
            check: Check { expected: 7, got: -5 },
            timing: None,
            registers: Some(12),
            twin: TwinResult::Ran {
                passed: false,
                wrong: Some("got 3, expected 7".into()),
                timing: None,
                registers: Some(12),
            },
        },
        Row {
            kernel: kernel("x4_packed_tally"),
            block: 512,
            launches: 1,
            check: ok,
            timing: Some(timing(1000.0, 0.5)),
            registers: None,
            twin: TwinResult::NotRun("NVRTC not found".into()),
        },
    ]
}

#[test]
fn reduction_table_goes_through_the_generic_table() {
    let (info, n) = (h200(), 1usize << 30);
    let table = report::table(&info, n, n * 4, &reduction_rows());
    assert_eq!(table.rows.len(), 4);
    assert_eq!(table.sections.len(), 2, "one section per ladder");
    let text = table.render();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[1].starts_with("sum of n = 2^30 i32 (1073741824 elements, 4.295 GB read) on NVIDIA H200"),
        "{text}"
    );
    assert!(lines[1].ends_with("theoretical 4814 GB/s"), "{}", lines[1]);
    assert!(lines[2].starts_with("kernel") && lines[2].contains("median µs") && lines[2].ends_with("check"));
    assert_eq!(lines[3], "-- Harris, “Optimizing Parallel Reduction in CUDA”");
    let h1 = lines.iter().find(|l| l.starts_with("h1_strided_index")).expect("h1's line");
    // 4.295 GB in 1 ms: 4295.0 GB/s, 89.2 % of 4814; twice as fast as h0.
    for want in ["1000.0", "4295.0", "89.2", "2.00", "ok"] {
        assert!(h1.split_whitespace().any(|w| w == want), "{want} missing in {h1}");
    }
    let h2 = lines.iter().find(|l| l.starts_with("h2_")).expect("h2's line");
    assert!(h2.ends_with("WRONG: got -5 expected 7") && h2.contains(" - "), "{h2}");
    let x4_at = lines.iter().position(|l| l.starts_with("x4_packed_tally")).expect("x4's line");
    assert!(lines[x4_at - 1].starts_with("-- “Making vector sum really fast”"), "{}", lines[x4_at - 1]);
    // A new ladder's speedups start again from its own first step.
    assert!(lines[x4_at].contains(" - ") && !lines[x4_at].contains("2.00"), "{}", lines[x4_at]);
}

#[test]
fn reduction_records_carry_the_common_fields() {
    let (info, n) = (h200(), 1usize << 30);
    let records = report::records(&info, n, n * 4, &reduction_rows());
    let h1 = &records[1];
    assert_eq!((h1.family.as_str(), h1.kernel.as_str()), ("reduce", "h1_strided_index"));
    assert_eq!(
        (h1.variant.as_deref(), h1.precision.as_deref(), h1.n),
        (Some("block 256"), Some("i32"), Some(1 << 30))
    );
    assert_eq!((h1.m, h1.k), (None, None));
    assert_eq!((h1.median_us, h1.repetitions, h1.unit.as_deref()), (Some(1000.0), Some(30), Some("GB/s")));
    assert!((h1.spread_percent.unwrap() - 1.0).abs() < 1e-9);
    assert!((h1.figure.unwrap() - 4294.967296).abs() < 1e-6);
    assert!((h1.percent_of_limit.unwrap() - 89.2).abs() < 0.1);
    assert!(h1.limit.as_deref().unwrap().contains("4814 GB/s"));
    assert_eq!((h1.percent_of_vendor, h1.vendor.as_deref()), (None, None), "no CUB in the host");
    assert_eq!((h1.passed, h1.error), (Some(true), Some(0.0)));
    assert_eq!(h1.details.as_ref().unwrap()["launches"], 4);
    // The twin: 800 µs against Rust's 1000, so Rust ÷ C++ = 1.25.
    assert_eq!((h1.registers, h1.cpp_registers, h1.cpp_passed), (Some(12), Some(14), Some(true)));
    assert_eq!((h1.cpp_median_us, h1.rust_over_cpp, h1.cpp_note.as_deref()), (Some(800.0), Some(1.25), None));
    assert_eq!((records[0].cpp_median_us, records[0].cpp_note.as_deref()), (None, Some("--twins off")));
    let wrong = &records[2];
    assert_eq!(
        (wrong.passed, wrong.error, wrong.median_us, wrong.figure),
        (Some(false), Some(12.0), None, None)
    );
    assert_eq!(
        (wrong.cpp_passed, wrong.cpp_median_us, wrong.rust_over_cpp, wrong.cpp_note.as_deref()),
        (Some(false), None, None, Some("got 3, expected 7"))
    );
}

#[test]
fn twin_columns_and_notes_say_what_the_twins_did() {
    let (info, n) = (h200(), 1usize << 30);
    let table = report::table(&info, n, n * 4, &reduction_rows());
    let text = table.render_wide();
    let line = |start: &str| text.lines().find(|l| l.starts_with(start)).expect(start).to_string();
    let h1 = line("h1_strided_index");
    for want in ["800.0", "1.250", "12/14"] {
        assert!(h1.split_whitespace().any(|w| w == want), "{want} missing in {h1}");
    }
    assert!(line("h2_").split_whitespace().any(|w| w == "WRONG"), "the wrong twin is marked");
    assert!(line("x4_").contains("-/-"), "no registers known");
    // The narrow form leaves the registers out, says so, and fits a terminal.
    let narrow = table.render();
    assert!(!narrow.contains("12/14") && narrow.contains("not shown (`--wide`"), "{narrow}");
    assert!(narrow.lines().all(|l| l.chars().count() <= 120), "{narrow}");
    let records = report::records(&info, n, n * 4, &reduction_rows());
    let refs: Vec<&Record> = records.iter().collect();
    let notes = host::twins::notes(&host::twins::TwinMode::Unavailable("NVRTC not found".into()), &refs);
    assert_eq!(notes, vec!["C++ twins: not run: NVRTC not found".to_string()]);
    let off = host::twins::notes(&host::twins::TwinMode::Off, &refs);
    assert_eq!(off, vec!["C++ twins: not run (--twins off)".to_string()]);
}

#[test]
fn probe_tables_become_records_with_the_common_fields_they_have() {
    let mut table =
        Table::new("p", &["bytes", "stride", "elements", "median µs", "GB/s", "% of copy ceiling", "check"]);
    table.push(vec![
        Cell::Int(4),
        Cell::Int(2),
        Cell::Size(1 << 20),
        Cell::Time(timing(10.0, 4.0)),
        Cell::Figure(812.5, 1, "GB/s"),
        Cell::OfLimit(40.0, 1),
        Cell::Check(true),
    ]);
    table.push(vec![
        Cell::Int(8),
        Cell::Int(2),
        Cell::Num(f64::NAN, 0),
        Cell::Num(f64::NAN, 1),
        Cell::Figure(f64::NAN, 1, "GB/s"),
        Cell::OfLimit(f64::NAN, 1),
        Cell::Check(false),
    ]);
    let records = records::from_table("probe", "p2_bank_conflicts", &table);
    assert_eq!(records.len(), 2);
    let first = &records[0];
    assert_eq!((first.family.as_str(), first.kernel.as_str()), ("probe", "p2_bank_conflicts"));
    assert_eq!(first.variant.as_deref(), Some("bytes=4, stride=2"));
    assert_eq!((first.n, first.median_us, first.repetitions), (Some(1 << 20), Some(10.0), Some(30)));
    assert!((first.spread_percent.unwrap() - 4.0).abs() < 1e-9);
    assert_eq!((first.figure, first.unit.as_deref()), (Some(812.5), Some("GB/s")));
    assert_eq!((first.percent_of_limit, first.limit.as_deref()), (Some(40.0), Some("copy ceiling")));
    assert_eq!(first.passed, Some(true));
    let details = first.details.as_ref().unwrap();
    assert_eq!((details["stride"].as_i64(), details["median µs"].as_f64()), (Some(2), Some(10.0)));
    let second = &records[1];
    assert_eq!(second.variant.as_deref(), Some("bytes=8, stride=2"));
    assert_eq!(
        (second.median_us, second.figure, second.percent_of_limit, second.passed),
        (None, None, None, Some(false))
    );
    assert_eq!(second.unit.as_deref(), Some("GB/s"));
}

/// A results file as `host --json` writes it.
fn results_file(records: &[Record]) -> String {
    let header = json!({
        "date_utc": "2025-01-02T03:04:05Z",
        "device": h200().json(),
        "seed": 42,
        "timing": { "repetitions": 30, "warmup": 3, "l2_flushed": true },
        "failures": [],
    });
    records::results_json(header, records)
}

#[test]
fn records_survive_json_and_keep_the_header() {
    let (info, n) = (h200(), 1usize << 20);
    let mut all = report::records(&info, n, n * 4, &reduction_rows());
    let mut cublas = gemm("cublas", 180.0, 0.4);
    (cublas.figure, cublas.unit, cublas.vendor) =
        (Some(763.6), Some("TFLOP/s".into()), Some("cuBLAS GemmEx".into()));
    cublas.percent_of_vendor = Some(100.0);
    cublas.error = Some(3.5e-7);
    cublas.error_measure = Some("relative Frobenius error over 4100 sampled entries".into());
    all.push(cublas);
    let mut table = Table::new("p", &["what, exactly", "median µs"]);
    table.push(vec!["a \"quoted\" label".into(), Cell::Time(timing(3.0, 0.0))]);
    all.extend(records::from_table("probe", "p7_sync", &table));

    let text = results_file(&all);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["device"]["name"], "NVIDIA H200");
    assert_eq!((value["seed"].as_u64(), value["timing"]["repetitions"].as_u64()), (Some(42), Some(30)));
    assert_eq!(value["records"][0]["family"], "reduce");
    assert!(value["records"][0]["min_us"].is_number() && value["records"][2]["median_us"].is_null());
    let back = compare::parse(&text).unwrap();
    assert_eq!(back.records, all);
    assert_eq!((back.device.as_str(), back.date_utc.as_str()), ("NVIDIA H200", "2025-01-02T03:04:05Z"));
}

/// Splits one CSV line (RFC 4180), for the test only.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[test]
fn csv_fields_are_quoted_only_when_they_must_be() {
    assert_eq!(records::csv_field("plain"), "plain");
    assert_eq!(records::csv_field(""), "");
    assert_eq!(records::csv_field("bytes=4, stride=2"), "\"bytes=4, stride=2\"");
    assert_eq!(records::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(records::csv_field("two\nlines"), "\"two\nlines\"");
    assert_eq!(records::csv_field(" padded"), "\" padded\"");
    assert_eq!(records::csv_field("µs × 2"), "µs × 2");
}

#[test]
fn csv_has_fixed_columns_and_one_row_per_record() {
    // The columns after device and date are exactly the record's fields.
    let value = serde_json::to_value(Record::new("gemm", "g")).unwrap();
    let mut fields: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    let mut columns = CSV_COLUMNS[2..].to_vec();
    fields.sort_unstable();
    columns.sort_unstable();
    assert_eq!(fields, columns);

    let mut probe = timed("probe", "p2_bank_conflicts", 12.5, 1.0);
    probe.variant = Some("bytes=4, stride=2".into());
    probe.details = Some(json!({ "label": "say \"hi\"" }).as_object().unwrap().clone());
    let records = [gemm("g10_fewer_instructions", 2500.0, 0.5), probe];
    let text = records::csv("NVIDIA H200, 141 GB", "2025-01-02T03:04:05Z", &records);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], CSV_COLUMNS.join(","));
    let column = |name: &str| CSV_COLUMNS.iter().position(|c| *c == name).unwrap();
    for line in &lines[1..] {
        let cells = csv_fields(line);
        assert_eq!(cells.len(), CSV_COLUMNS.len(), "{line}");
        assert_eq!(cells[0], "NVIDIA H200, 141 GB");
    }
    let gemm_cells = csv_fields(lines[1]);
    assert_eq!(gemm_cells[column("kernel")], "g10_fewer_instructions");
    assert_eq!(
        (gemm_cells[column("m")].as_str(), gemm_cells[column("median_us")].as_str()),
        ("4096", "2500.0")
    );
    assert_eq!((gemm_cells[column("variant")].as_str(), gemm_cells[column("details")].as_str()), ("", ""));
    assert_eq!(gemm_cells[column("passed")], "true");
    let probe_cells = csv_fields(lines[2]);
    assert_eq!(probe_cells[column("variant")], "bytes=4, stride=2");
    assert_eq!(probe_cells[column("m")], "", "no GEMM shape: an empty cell");
    assert_eq!(probe_cells[column("details")], r#"{"label":"say \"hi\""}"#);
}

/// The verdict on OLD → NEW for one record.
fn verdict(old: &Record, new: &Record, threshold: f64) -> Verdict {
    compare::judge(old, new, threshold).verdict
}

#[test]
fn compare_weighs_differences_against_both_runs_noise() {
    let old = gemm("g1", 100.0, 1.0);
    // 1.5 % slower: within the 2 % threshold.
    assert_eq!(verdict(&old, &gemm("g1", 101.5, 1.0), 2.0), Verdict::Same);
    assert_eq!(verdict(&old, &gemm("g1", 103.0, 1.0), 2.0), Verdict::Slower);
    assert_eq!(verdict(&old, &gemm("g1", 97.0, 1.0), 2.0), Verdict::Faster);
    // The noisier run decides: 3 % is within NEW's 5 % spread, whichever way.
    assert_eq!(verdict(&old, &gemm("g1", 103.0, 5.0), 2.0), Verdict::Same);
    assert_eq!(verdict(&gemm("g1", 100.0, 5.0), &gemm("g1", 97.0, 0.1), 2.0), Verdict::Same);
    // With no threshold, the spreads alone.
    assert_eq!(verdict(&old, &gemm("g1", 101.5, 1.0), 0.0), Verdict::Slower);
    let line = compare::judge(&old, &gemm("g1", 103.0, 4.0), 2.0);
    assert!((line.ratio.unwrap() - 1.03).abs() < 1e-12);
    assert!((line.noise_percent.unwrap() - 4.0).abs() < 1e-9);
    // No time on one side: nothing to compare; wrong in NEW outranks everything.
    let mut untimed = gemm("g1", 100.0, 1.0);
    untimed.median_us = None;
    assert_eq!(verdict(&old, &untimed, 2.0), Verdict::Untimed);
    assert_eq!(verdict(&untimed, &old, 2.0), Verdict::Untimed);
    untimed.passed = Some(false);
    assert_eq!(verdict(&old, &untimed, 2.0), Verdict::Wrong);
    assert!(Verdict::Wrong.fails_guard() && Verdict::Slower.fails_guard());
    assert!(
        !Verdict::Faster.fails_guard() && !Verdict::Added.fails_guard() && !Verdict::Removed.fails_guard()
    );
}

#[test]
fn compare_matches_on_kernel_family_precision_variant_and_size() {
    let mut other_size = gemm("g1", 100.0, 1.0);
    other_size.n = Some(1024);
    let mut bf16 = gemm("g1", 100.0, 1.0);
    bf16.precision = Some("bf16".into());
    let mut block = timed("reduce", "h0", 100.0, 1.0);
    block.variant = Some("block 256".into());
    let mut other_block = block.clone();
    other_block.variant = Some("block 512".into());
    let old = vec![gemm("g1", 100.0, 1.0), other_size.clone(), block.clone(), gemm("gone", 5.0, 1.0)];
    let new = vec![
        gemm("g1", 150.0, 1.0),
        bf16,
        other_size,
        other_block,
        block,
        gemm("g1", 1.0, 1.0), // the same key twice: the first counts
    ];
    let (lines, warnings) = compare::compare(&old, &new, 2.0);
    let summary: Vec<(String, Verdict)> = lines.iter().map(|l| (l.key.to_string(), l.verdict)).collect();
    assert_eq!(
        summary,
        vec![
            ("gemm g1 f32 4096×4096×4096".to_string(), Verdict::Slower),
            ("gemm g1 bf16 4096×4096×4096".to_string(), Verdict::Added),
            ("gemm g1 f32 4096×1024×4096".to_string(), Verdict::Same),
            ("reduce h0 [block 512]".to_string(), Verdict::Added),
            ("reduce h0 [block 256]".to_string(), Verdict::Same),
            ("gemm gone f32 4096×4096×4096".to_string(), Verdict::Removed),
        ]
    );
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("NEW holds gemm g1 f32 4096×4096×4096 more than once"), "{}", warnings[0]);
    assert_eq!((lines[0].old_us, lines[0].new_us), (Some(100.0), Some(150.0)));
    assert_eq!((lines[5].old_us, lines[5].new_us), (Some(5.0), None));
    let text = compare::table(&lines, 2.0, compare::Show::default()).render();
    assert!(text.contains("1.500") && text.contains("slower") && text.contains("removed"), "{text}");
    assert!(
        text.contains("summary: 0 WRONG, 1 slower, 0 faster, 2 added, 1 removed, 2 same, 0 untimed"),
        "{text}"
    );
    // What changed comes first, and the summary names it.
    let verdicts: Vec<&str> = text
        .lines()
        .skip(3)
        .take(6)
        .map(|l| l.split_whitespace().find(|w| Verdict::ALL.iter().any(|v| v.name() == *w)).unwrap_or(""))
        .collect();
    assert_eq!(verdicts, ["slower", "added", "added", "removed", "same", "same"], "{text}");
    assert!(text.contains("slower: gemm g1 f32 4096×4096×4096 (+50.0 %)"), "{text}");
    assert!(text.contains("added: gemm g1 bf16 4096×4096×4096; reduce h0 [block 512]"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 120), "{text}");
    // Untimed records are counted, and listed only when asked.
    let mut untimed = gemm("p", 1.0, 1.0);
    untimed.median_us = None;
    let (lines, _) = compare::compare(std::slice::from_ref(&untimed), std::slice::from_ref(&untimed), 2.0);
    let hidden = compare::table(&lines, 2.0, compare::Show::default()).render();
    assert!(
        hidden.contains("1 untimed (not listed: --all lists them)") && !hidden.contains("\np "),
        "{hidden}"
    );
    let shown = compare::table(&lines, 2.0, compare::Show { untimed: true, wide: false }).render();
    assert!(shown.lines().any(|l| l.starts_with("p ") && l.contains("untimed")), "{shown}");
}

#[test]
fn sizes_print_as_people_write_them() {
    let key = |m, n, k| {
        let mut r = Record::new("probe", "p");
        (r.m, r.n, r.k) = (m, n, k);
        r.key().size_text()
    };
    assert_eq!(key(Some(4096), Some(1), Some(777)), "4096×1×777");
    assert_eq!(key(None, Some(1 << 30), None), "n=2^30");
    assert_eq!(key(None, Some(1000), None), "n=1000");
    assert_eq!(key(None, None, None), "");
    assert_eq!(key(None, Some(8), Some(2)), "n=8 k=2");
}

#[test]
fn unreadable_results_are_refused_with_the_reason() {
    let refuse = |text: &str| compare::parse(text).expect_err(text);
    assert!(refuse("{ not json").starts_with("not valid JSON: "), "{}", refuse("{ not json"));
    let csv = format!("{}\nH200,2026-11-24T00:00:00Z,gemm,g01", records::CSV_COLUMNS.join(","));
    assert!(refuse(&csv).starts_with("a CSV file (`--csv`)"), "{}", refuse(&csv));
    assert!(refuse(r#"{"device": {}}"#).contains("no `records` list: not a results file"));
    assert!(refuse(r#"{"reductions": [], "gemm": []}"#).contains("older host"));
    assert!(refuse(r#"{"records": {}}"#).contains("`records` is not a list"));
    let bad = refuse(r#"{"records": [{"family": "gemm", "kernel": "g1"}, {"family": "gemm"}]}"#);
    assert!(bad.starts_with("record 1: missing field `kernel`"), "{bad}");
    let bad = refuse(r#"{"records": [{"kernel": "g1", "family": "gemm", "median_us": "fast"}]}"#);
    assert!(bad.starts_with("record 0 (`g1`): invalid type"), "{bad}");
    // Fields a record does not need may be missing; unknown header fields are ignored.
    let ok =
        compare::parse(r#"{"records": [{"family": "reduce", "kernel": "h0"}], "conditions": {}}"#).unwrap();
    assert_eq!((ok.records.len(), ok.device.as_str()), (1, "unknown"));
}

#[test]
fn records_of_older_runs_are_read_under_todays_ids() {
    assert_eq!(records::current_id("t5_wgmma_f16"), "w01_wgmma_f16");
    assert_eq!(records::current_id("t12_latency_trims_bf16"), "w08_latency_trims_bf16");
    assert_eq!(records::current_id("t2_ldmatrix_bf16"), "t02_ldmatrix_bf16");
    assert_eq!(
        records::current_id("w08_latency_trims_f16"),
        "w08_latency_trims_f16",
        "t1 is not a prefix of w08"
    );
    assert_eq!(records::current_id("w06_setmaxnreg_f16"), "w06_setmaxnreg_f16");
    assert_eq!(records::current_id("cublas"), "cublas");
    let old = compare::parse(r#"{"records": [{"family": "gemm", "kernel": "t1_mma_sync_f16"}]}"#).unwrap();
    assert_eq!((old.records[0].kernel.as_str(), old.renamed), ("t01_mma_sync_f16", 1));
    // Every renamed id is a step of today.
    let steps: Vec<&str> = host::families::all_steps().into_iter().map(|(_, s)| s.id).collect();
    for (_, new) in records::RENAMED {
        assert!(steps.iter().any(|id| id.starts_with(new)), "{new} is no step");
    }
}
