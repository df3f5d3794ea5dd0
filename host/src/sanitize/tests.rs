//! The options, and whole runs with a fake compute-sanitizer and a fake test binary (bash
//! scripts; skipped, saying so, where there is no bash).

use super::*;
use clap::{CommandFactory, Parser};

/// `host sanitize`'s options alone.
#[derive(Parser, Debug)]
#[command(name = "sanitize")]
struct Cli {
    #[command(flatten)]
    options: SanitizeOptions,
}

fn parse(args: &[&str]) -> std::result::Result<SanitizeOptions, String> {
    Cli::try_parse_from(std::iter::once("sanitize").chain(args.iter().copied()))
        .map(|cli| cli.options)
        .map_err(|e| e.to_string())
}

#[test]
fn arguments() {
    let all = parse(&[]).unwrap();
    assert_eq!(all.tool.0, TOOLS);
    assert!(all.test_binary_args().is_empty());
    assert_eq!((all.tests, all.logs, all.ptx_dir, all.check_only), (None, None, None, false));
    let some = parse(&["--tool", "memcheck,racecheck", "w3", "--", "--skip", "awkward"]).unwrap();
    assert_eq!(some.tool.0, ["memcheck", "racecheck"]);
    assert_eq!(some.test_binary_args(), ["w3", "--skip", "awkward"]);
    let eq = parse(&["--tool=initcheck", "--exact", "h0/block_256/awkward_sizes"]).unwrap();
    assert_eq!(eq.tool.0, ["initcheck"]);
    assert_eq!(eq.test_binary_args(), ["--exact", "h0/block_256/awkward_sizes"]);
    assert!(parse(&["--tool", "leakcheck"]).unwrap_err().contains("unknown tool `leakcheck`"));
    assert!(parse(&["--tool"]).is_err());
    assert!(parse(&["--tool", ","]).unwrap_err().contains("no tool in the list"));
    assert!(
        parse(&["--nocapture"]).unwrap_err().contains("-- --nocapture"),
        "options for the tests go after --"
    );
    // As run.sh and xtask give them: their paths first, the caller's options after (which win).
    let paths = ["--tests", "/b/tests/gpu", "--ptx-dir", "/b/ptx", "--logs", "/b/sanitize"];
    let caller = ["--tools", "racecheck , synccheck", "--logs", "/elsewhere", "g10", "--", "--skip", "g10_x"];
    let bundle = parse(&[&paths[..], &caller[..]].concat()).unwrap();
    assert_eq!(bundle.tool.0, ["racecheck", "synccheck"]);
    assert_eq!(bundle.tests.as_deref(), Some(Path::new("/b/tests/gpu")));
    assert_eq!(bundle.ptx_dir.as_deref(), Some(Path::new("/b/ptx")));
    assert_eq!(bundle.logs.as_deref(), Some(Path::new("/elsewhere")));
    assert_eq!(bundle.test_binary_args(), ["g10", "--skip", "g10_x"]);
    assert_eq!(parse(&["--tool", "memcheck", "--tool", "synccheck"]).unwrap().tool.0, ["synccheck"]);
}

#[test]
fn help_documents_parts_logs_and_statuses() {
    let help = Cli::command().render_long_help().to_string();
    for want in [
        format!("more than {RACECHECK_PART_TESTS} tests in parts of {RACECHECK_PART_TESTS}"),
        RACECHECK_ALONE.join(" and "),
        format!("{}={}", RACECHECK_HAZARD_BUFFER.0, RACECHECK_HAZARD_BUFFER.1).replace('=', " is set to "),
        ONLY_TESTS_ENV.to_string(),
        RACECHECK_SKIPPED.join(", "),
        "<logs>/racecheck-<part>.log".into(),
        "--logs <DIR>".into(),
        "--tests <PATH>".into(),
        "[FILTER]".into(),
        "[-- <TEST-ARGS>...]".into(),
        "2 when nothing could run".into(),
    ] {
        assert!(help.contains(&want), "`host sanitize --help` does not say `{want}`:\n{help}");
    }
    // The GPU test binary reads the same variable.
    let gpu_tests = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/gpu.rs"));
    assert!(gpu_tests.contains(&format!("const ONLY_TESTS_ENV: &str = \"{ONLY_TESTS_ENV}\";")));
}

/// A folder of its own under the temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("host-sanitize-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        Self(dir)
    }

    fn script(&self, path: &str, text: &str) -> PathBuf {
        let path = self.0.join(path);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether this machine has no bash (then the whole runs are not checked, and the test says
/// so).
fn no_bash() -> bool {
    let missing = Command::new("bash").arg("--version").output().is_err();
    if missing {
        eprintln!("no bash here: whole runs with a fake compute-sanitizer are not checked");
    }
    missing
}

/// The fake compute-sanitizer: `--tool TOOL PROGRAM ARGS...` runs the program, prints what
/// it was given, then the tool's summary: 0 hazards for racecheck (a test puts its own
/// number in place of `${FAKE_HAZARDS:-0}`), 0 errors for the others.
const FAKE_SANITIZER: &str = r#"#!/usr/bin/env bash
tool=$2; shift 2
echo "fake: buffer=${NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS:-unset} ptx=${GPU_KERNELS_PTX_DIR:-unset}"
echo "fake: args=$*"
"$@"; rc=$?
if [ "$tool" = racecheck ]; then n=${FAKE_HAZARDS:-0}; echo "========= RACECHECK SUMMARY: $n hazards displayed (0 errors, $n warnings)"
else echo "========= ERROR SUMMARY: 0 errors"; fi
exit $rc
"#;

/// The fake test binary: `--list` lists `total` tests (and the cuBLAS one, and one that
/// racecheck runs alone after the third), ignoring the skips; a run reports one passed test
/// per name in the ONLY_TESTS_ENV file, or `total`.
fn fake_tests(total: usize) -> String {
    let alone = RACECHECK_ALONE[1];
    format!(
        r#"#!/usr/bin/env bash
for a in "$@"; do [ "$a" = --list ] && listing=1; done
if [ -n "${{listing:-}}" ]; then
  echo "cublas/row_major_matches_the_reference: test"
  for i in $(seq 1 {total}); do printf 't%03d/awkward_shapes: test\n' "$i"; [ "$i" = 3 ] && echo "{alone}_bf16/awkward_shapes: test"; done
  exit 0
fi
n={total}
if [ -n "${{{ONLY_TESTS_ENV}:-}}" ]; then n=$(wc -l < "${{{ONLY_TESTS_ENV}}}"); echo "only: $(head -n 1 "${{{ONLY_TESTS_ENV}}}")"; fi
echo "test result: ok. $n passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s"
"#
    )
}

/// A fake machine: compute-sanitizer on `path`, the tests at `tests/gpu`.
fn fake_machine(name: &str, total: usize) -> (Scratch, Environment) {
    let here = Scratch::new(name);
    here.script("bin/compute-sanitizer", FAKE_SANITIZER);
    here.script("tests/gpu", &fake_tests(total));
    let env = Environment {
        path: Some(here.0.join("bin").into_os_string()),
        cuda_home: None,
        ptx_dir: None,
        hazard_buffer_set: false,
        exe_dir: Some(here.0.clone()),
    };
    (here, env)
}

/// Racecheck in parts, end to end: the parts of [`parts`], each process told its tests, one
/// line and one log per part; the defaults beside the executable (the bundle's layout).
#[test]
fn racecheck_runs_in_parts_each_told_its_tests() {
    if no_bash() {
        return;
    }
    let total = RACECHECK_PART_TESTS + 5;
    let (here, env) = fake_machine("parts", total);
    let options = parse(&["--tool", "racecheck,memcheck"]).unwrap();
    let mut out = Vec::new();
    assert!(sanitize(&options, &env, &mut out).unwrap(), "every run clean");
    let stdout = String::from_utf8(out).unwrap();

    let alone = RACECHECK_ALONE[1];
    let listed: Vec<String> = std::iter::once("cublas/row_major_matches_the_reference".to_string())
        .chain((1..=total).flat_map(|i| {
            let alone = (i == 3).then(|| format!("{alone}_bf16/awkward_shapes"));
            std::iter::once(format!("t{i:03}/awkward_shapes")).chain(alone)
        }))
        .collect();
    let expected = parts("racecheck", &listed).expect("more than one part");
    assert_eq!(expected.iter().map(Vec::len).collect::<Vec<_>>(), [4, 1, RACECHECK_PART_TESTS, 2]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), expected.len() + 1, "{stdout}");
    let logs = here.0.join("sanitize");
    for (i, part) in expected.iter().enumerate() {
        let log = logs.join(format!("racecheck-{}.log", i + 1));
        let names = std::fs::read_to_string(logs.join(format!("racecheck-{}.tests", i + 1))).unwrap();
        assert_eq!(names.lines().collect::<Vec<_>>(), *part, "part {}", i + 1);
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains(&format!("only: {}", part[0])), "part {} was told its tests: {text}", i + 1);
        assert!(text.contains(&format!("ptx={}", here.0.join("ptx").display())), "{text}");
        assert!(text.contains(&format!("buffer={}", RACECHECK_HAZARD_BUFFER.1)), "{text}");
        assert!(text.contains("--skip n_past --skip all_kernels/n_past_2^32 --skip cublas/"), "{text}");
        assert!(
            lines[i].starts_with(&format!(
                "racecheck ok   hazards 0 (errors 0, warnings 0); tests ok: {} passed, 0 failed, 0 ignored; exit 0; ",
                part.len()
            )),
            "{}",
            lines[i]
        );
        assert!(lines[i].ends_with(&format!(" s; log {}", log.display())), "{}", lines[i]);
    }
    assert!(lines[expected.len()].starts_with(&format!("memcheck  ok   errors 0; tests ok: {total} passed")));
}

/// Hazards fail the run; the caller's paths, filter, hazard buffer and PTX are used; a
/// selection of one part is one process.
#[test]
fn hazards_fail_and_the_callers_settings_hold() {
    if no_bash() {
        return;
    }
    let (here, mut env) = fake_machine("hazards", 2);
    env.hazard_buffer_set = true;
    env.ptx_dir = Some("/from/the/environment".into());
    let tests = here.0.join("tests/gpu");
    let logs = here.0.join("elsewhere");
    let logs_arg = logs.to_str().unwrap();
    let options =
        parse(&["--tests", tests.to_str().unwrap(), "--logs", logs_arg, "--tool", "racecheck", "t00"])
            .unwrap();
    here.script("bin/compute-sanitizer", &FAKE_SANITIZER.replace("${FAKE_HAZARDS:-0}", "2"));
    let mut out = Vec::new();
    assert!(!sanitize(&options, &env, &mut out).unwrap(), "hazards fail");
    let stdout = String::from_utf8(out).unwrap();
    let log = logs.join("racecheck.log");
    assert_eq!(stdout.lines().count(), 1, "3 tests listed: one process\n{stdout}");
    assert!(
        stdout.starts_with("racecheck FAIL hazards 2 (errors 0, warnings 2); tests ok: 2 passed"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("buffer=unset"), "the caller's setting is left alone: {text}");
    assert!(text.contains("ptx=/from/the/environment"), "{text}");
    assert!(text.contains("--skip cublas/ t00"), "{text}");
    assert!(!text.contains("only:"), "{text}");
}

/// No compute-sanitizer: the error says what to install (exit status 2); `--check-only`
/// finds it and runs nothing; a missing test binary is an error that names the option.
#[test]
fn missing_sanitizer_check_only_and_missing_tests() {
    let here = Scratch::new("missing");
    let env = Environment { path: Some(here.0.join("bin").into_os_string()), ..Environment::default() };
    let options = parse(&["--tool", "memcheck"]).unwrap();
    if find_sanitizer(&search_dirs(None, None)).is_some() {
        eprintln!("a compute-sanitizer is installed in {DEFAULT_CUDA_BIN}: the missing case is not checked");
    } else {
        let error = sanitize(&options, &env, &mut Vec::new()).unwrap_err();
        assert_eq!(error.kind().exit_status(), 2);
        let text = error.to_string();
        assert!(text.contains("compute-sanitizer not found") && text.contains("CUDA toolkit"), "{text}");
    }
    here.script("bin/compute-sanitizer", "#!/bin/sh\nexit 9\n");
    let env = Environment { exe_dir: Some(here.0.clone()), ..env };
    let check = parse(&["--check-only", "--tool", "memcheck"]).unwrap();
    let mut out = Vec::new();
    assert!(sanitize(&check, &env, &mut out).unwrap());
    assert!(out.is_empty() && !here.0.join("sanitize").exists(), "nothing ran");
    let error = sanitize(&options, &env, &mut out).unwrap_err().to_string();
    assert!(error.contains("no GPU test binary at") && error.contains("--tests PATH"), "{error}");
}
