//! The `host` binary's command line, run as a user runs it: `--help`, and `host compare`'s
//! output and exit codes. Here, beside the binary, because only a package's own tests can
//! run its executables (`CARGO_BIN_EXE_host`). No GPU is needed: compare never opens one,
//! and these tests pass on machines without a driver.

use host::measure::timing::{Stop, Timing};
use host::report::records::{self, Record};
use std::path::PathBuf;
use std::process::{Command, Output};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host")).args(args).output().expect("the host binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A results file with one GEMM record per `(kernel, median µs)`, 1 % spread, written
/// into this test target's scratch folder.
fn results(name: &str, kernels: &[(&str, f64)]) -> PathBuf {
    let records: Vec<Record> = kernels
        .iter()
        .map(|&(kernel, median_us)| {
            let mut record = Record::new("gemm", kernel);
            record.precision = Some("f16".into());
            (record.m, record.n, record.k) = (Some(4096), Some(4096), Some(4096));
            let ms = median_us * 1e-3;
            record.set_timing(&Timing {
                median_ms: ms,
                min_ms: 0.98 * ms,
                max_ms: 1.02 * ms,
                q1_ms: 0.995 * ms,
                q3_ms: 1.005 * ms,
                repetitions: 30,
                stop: Stop::Settled,
            });
            record.passed = Some(true);
            record
        })
        .collect();
    let header =
        serde_json::json!({ "date_utc": "2025-01-02T03:04:05Z", "device": { "name": "NVIDIA H100" } });
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, records::results_json(header, &records)).expect("the scratch folder is writable");
    path
}

#[test]
fn help_documents_the_suite_and_compare() {
    let help = host(&["--help"]);
    assert!(help.status.success());
    let text = stdout(&help);
    for want in ["compare", "--json", "--csv", "--reps", "--kernels", "host compare OLD.json NEW.json"] {
        assert!(text.contains(want), "`host --help` does not mention {want}:\n{text}");
    }
    let help = host(&["compare", "--help"]);
    assert!(help.status.success());
    let text = stdout(&help);
    for want in ["<OLD>", "<NEW>", "--threshold", "--fail-on-slowdown"] {
        assert!(text.contains(want), "`host compare --help` does not mention {want}:\n{text}");
    }
}

#[test]
fn compare_prints_verdicts_and_fails_only_when_asked() {
    let old = results("old.json", &[("w01_wgmma", 200.0), ("w02_tma", 180.0), ("t01_mma", 900.0)]);
    let new = results("new.json", &[("w01_wgmma", 201.0), ("w02_tma", 240.0), ("w03_persistent", 150.0)]);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let output = host(&["compare", old, new]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let line = |kernel: &str| {
        text.lines()
            .find(|l| l.contains(kernel))
            .unwrap_or_else(|| panic!("no {kernel}:\n{text}"))
            .to_string()
    };
    let verdict = |kernel: &str| line(kernel).split_whitespace().last().unwrap().to_string();
    assert_eq!(verdict("w01_wgmma"), "same", "{text}");
    assert!(line("w02_tma").contains("1.333") && verdict("w02_tma") == "slower", "{text}");
    assert_eq!(
        (verdict("w03_persistent").as_str(), verdict("t01_mma").as_str()),
        ("added", "removed"),
        "{text}"
    );
    assert!(text.contains("NVIDIA H100, 2025-01-02T03:04:05Z"), "{text}");

    let guarded = host(&["compare", old, new, "--fail-on-slowdown"]);
    assert_eq!(guarded.status.code(), Some(1), "a slowdown fails the guard");
    assert!(stderr(&guarded).contains("slower beyond the noise"), "{}", stderr(&guarded));
    // A large enough threshold swallows the 33 % slowdown.
    let lenient = host(&["compare", old, new, "--fail-on-slowdown", "--threshold", "40"]);
    assert_eq!(lenient.status.code(), Some(0), "{}", stdout(&lenient));
    let unchanged = host(&["compare", old, old, "--fail-on-slowdown"]);
    assert_eq!(unchanged.status.code(), Some(0), "{}", stdout(&unchanged));
}

#[test]
fn compare_refuses_bad_files_and_usage_with_status_2() {
    let good = results("good.json", &[("g1", 10.0)]);
    let good = good.to_str().unwrap();
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("missing.json");
    let output = host(&["compare", missing.to_str().unwrap(), good]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot read") && stderr(&output).contains("missing.json"),
        "{}",
        stderr(&output)
    );

    let broken = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("broken.json");
    std::fs::write(&broken, "{\"records\": [").unwrap();
    let output = host(&["compare", good, broken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("broken.json: not valid JSON"), "{}", stderr(&output));

    for usage in [
        vec!["compare", good],
        vec!["--reps", "3", "compare", good, good],
        vec!["compare", good, good, "--threshold", "-1"],
    ] {
        let output = host(&usage);
        assert_eq!(output.status.code(), Some(2), "{usage:?}: {}", stderr(&output));
    }
}

#[test]
fn the_suite_keeps_its_flat_options() {
    // Refused before any GPU is opened, with the exit status of a usage error.
    let output = host(&["-k", "nope", "--reps", "3", "--csv", "unused.csv"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("nothing matches `nope`"), "{}", stderr(&output));
}
