//! `cargo xtask sanitize [--tool LIST] [FILTER] [-- TEST-ARGS...]`: the GPU tests under each
//! of NVIDIA's compute-sanitizer tools (memcheck, racecheck, synccheck, initcheck), one line
//! per tool, non-zero exit when any of them finds something.
//!
//! It builds the PTX (if stale) and the GPU test binary (as `cargo xtask bundle` does), then
//! runs `compute-sanitizer --tool TOOL <gpu tests> --test-threads=1 --skip n_past …` once per
//! tool, with `GPU_KERNELS_PTX_DIR` set to the PTX, and keeps each full log in
//! `target/sanitize/<tool>.log`. The bundle's `run.sh --sanitize` does the same in bash
//! ([`bash`]); both read the logs with the same patterns and print the same line:
//!
//! ```text
//! memcheck  ok   errors 0; tests ok: 88 passed, 0 failed, 6 ignored; exit 0; 212.4 s; log target/sanitize/memcheck.log
//! racecheck FAIL hazards 3 (errors 0, warnings 3); tests ok: 88 passed, 0 failed, 6 ignored; exit 0; 801.0 s; log …
//! ```
//!
//! The summary lines read (the last match in a log counts), as extended regexes:
//!
//! | what | pattern |
//! | --- | --- |
//! | memcheck, synccheck, initcheck | `ERROR SUMMARY: ([0-9]+) errors?` |
//! | racecheck | `RACECHECK SUMMARY: ([0-9]+) hazards? displayed \(([0-9]+) errors?, ([0-9]+) warnings?\)` |
//! | the tests (libtest) | `test result: (ok\|FAILED)\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored` |
//!
//! A run passes when its summary line is there and counts 0 (for racecheck: 0 hazards, so
//! warnings count too: a warp-synchronous race is reported as a warning), the tests' result
//! line says `ok` with at least one test passed (a filter that matches nothing, or a machine
//! without a GPU where every test is ignored, checks nothing), and compute-sanitizer exited 0
//! (it passes on the test binary's status). A missing summary line means the tool did not
//! finish: a failure, never a pass.
//!
//! Racecheck runs in parts when the selection holds more than [`RACECHECK_PART_TESTS`]
//! tests: the tests are listed (`--list`, with the same filters), cut into parts of that
//! many in the list's order, and each part runs in a process of its own, told its tests
//! by a file named in [`ONLY_TESTS_ENV`]; one line and one log
//! (`racecheck-<part>.log`) per part. One racecheck process over the whole suite outgrew
//! the 128 GiB of host memory of the lent machines. The tests named in [`RACECHECK_ALONE`]
//! (those that nearly fill racecheck's hazard buffer, [`RACECHECK_HAZARD_BUFFER`]) each
//! get a part of their own.

use crate::Result;
use ptx_builder::Workspace;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Instant;

/// The tools, in the order they run by default.
pub const TOOLS: [&str; 4] = ["memcheck", "racecheck", "synccheck", "initcheck"];

/// Test-name patterns skipped under every tool: the test on 2^32 + 5 elements (16 GiB of
/// input) would take hours under a sanitizer and need its shadow memory on top. Given as a
/// substring and as the full name, so that the skip holds with `--exact` too.
pub const SKIPPED: [&str; 2] = ["n_past", "all_kernels/n_past_2^32"];

/// Tests racecheck skips: `cublas/row_major_matches_the_reference` launches nothing but
/// cuBLAS's kernels. Racecheck reports shared-memory hazards inside cuBLAS 13's Hopper `nvjet`
/// kernels (5 reports of 384 to 512 hazards each, H200, compute-sanitizer 2025.3.1,
/// 2026-11-23): closed vendor code that we can neither read nor fix. Leaving those kernels out
/// by name instead (`--kernel-name-exclude regex=nvjet|…`) made the sanitizer itself fail
/// ("failed to handle a hardware exception") and lose the context. Memcheck, synccheck and
/// initcheck still run the test; racecheck still checks every kernel of this project.
pub const RACECHECK_SKIPPED: [&str; 1] = ["cublas/"];

/// The most tests one racecheck process runs. Racecheck's host memory grows with each
/// test a process runs: over the whole suite (92 tests then) one process reached 124 GiB
/// and was killed by the OOM killer at its last test, on a machine of 128 GiB (H200,
/// 2026-11-23), while the same tests in two processes were clean.
pub const RACECHECK_PART_TESTS: usize = 24;

/// Racecheck's buffer of raw hazard records, as compute-sanitizer reads it from the
/// environment, and the size every run here gives it unless the caller set one. The
/// default buffer overflows on the stream-K steps whose owners read a partial tile out of a
/// pipeline stage with ordinary loads before the copy engine refills it (t16, t17): every
/// byte read and then rewritten is a raw record, as racecheck does not follow the ordering
/// through the stage's cluster-scope `mbarrier`. The tool then prints "Maximum number of
/// hazards reached", counted as a warning, with no race found (H100, 2026-11-23). With this
/// buffer each of those tests alone reports 0 hazards, 0 warnings (H200, the same day); the
/// records are kept in host memory for the whole process, so a larger buffer does not
/// scale: 200 M records over the t-steps in one process was killed for memory at t17.
pub const RACECHECK_HAZARD_BUFFER: (&str, &str) = ("NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS", "20000000");

/// Tests (substrings of their names) that racecheck runs in a process of their own: those
/// that fill [`RACECHECK_HAZARD_BUFFER`] nearly alone, so that no test before them in the
/// same process leaves too little of it.
pub const RACECHECK_ALONE: [&str; 2] = ["t16_pipelined_fixup", "t17_shares_first"];

/// The environment variable that names a file of test names, one per line: the GPU test
/// binary (`tests/gpu.rs`) then runs only those, and fails if one of them does not exist.
pub const ONLY_TESTS_ENV: &str = "GPU_TESTS_ONLY";

/// Where the sanitizer is looked for after `$PATH`, in order: `$CUDA_HOME/bin`, then this.
pub const DEFAULT_CUDA_BIN: &str = "/usr/local/cuda/bin";

/// What to do when no compute-sanitizer is found.
pub const MISSING: &str = "compute-sanitizer not found (looked on PATH, in $CUDA_HOME/bin and /usr/local/cuda/bin). \
It ships with the CUDA toolkit (bin/compute-sanitizer): install the toolkit, or only the sanitizer \
(NVIDIA's cuda-sanitizer-<version> package, or `pip install nvidia-cuda-sanitizer-api` for CUDA 13, \
`nvidia-cuda-sanitizer-api-cu12` for CUDA 12, whose binary is site-packages/nvidia/cuda_sanitizer_api/bin/compute-sanitizer), \
then put its folder on PATH or set CUDA_HOME";

pub const USAGE: &str = "usage: cargo xtask sanitize [--tool LIST] [FILTER] [--exact] [-- TEST-ARGS...]

Runs the GPU tests under compute-sanitizer, once per tool (default: memcheck,racecheck,synccheck,initcheck),
prints one line per tool and exits non-zero if any tool found something, failed to run, or a test failed.
FILTER, --exact and whatever follows `--` go to the test binary (e.g. `-- g10 --skip awkward`).
Racecheck runs a selection of more than 24 tests in parts of 24, a process each (a line each);
t16_pipelined_fixup and t17_shares_first each in a process of their own.
Full logs: target/sanitize/<tool>.log (racecheck in parts: racecheck-<part>.log).";

/// What `sanitize` was asked to do.
#[derive(Debug, PartialEq)]
pub struct Options {
    pub tools: Vec<String>,
    /// Passed to the test binary after the fixed arguments.
    pub test_args: Vec<String>,
}

/// Parses `[--tool LIST | --tool=LIST] [FILTER] [--exact] [-- TEST-ARGS...]`.
pub fn parse_args(args: &[String]) -> Result<Options> {
    let mut tools: Vec<String> = TOOLS.iter().map(|t| t.to_string()).collect();
    let mut test_args = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let list = if arg == "--tool" || arg == "--tools" {
            Some(rest.next().ok_or("--tool needs a list, e.g. --tool memcheck,racecheck")?.as_str())
        } else {
            arg.strip_prefix("--tool=")
        };
        if let Some(list) = list {
            tools = list.split(',').map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect();
            continue;
        }
        match arg.as_str() {
            "--" => {
                test_args.extend(rest.by_ref().cloned());
            }
            "--exact" => test_args.push(arg.clone()),
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "sanitize: unknown option `{flag}` (options for the test binary go after `--`)\n\n{USAGE}"
                ));
            }
            _ => test_args.push(arg.clone()),
        }
    }
    if tools.is_empty() {
        return Err(format!("sanitize: --tool names no tool; the tools are {}", TOOLS.join(", ")));
    }
    if let Some(bad) = tools.iter().find(|t| !TOOLS.contains(&t.as_str())) {
        return Err(format!("sanitize: unknown tool `{bad}`; the tools are {}", TOOLS.join(", ")));
    }
    Ok(Options { tools, test_args })
}

/// The folders compute-sanitizer is looked for in, in order: each of `path`, then
/// `cuda_home/bin`, then [`DEFAULT_CUDA_BIN`].
pub fn search_dirs(path: Option<&OsStr>, cuda_home: Option<&OsStr>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    if let Some(home) = cuda_home.filter(|h| !h.is_empty()) {
        dirs.push(Path::new(home).join("bin"));
    }
    dirs.push(PathBuf::from(DEFAULT_CUDA_BIN));
    dirs
}

/// The first `compute-sanitizer` that is an executable file in `dirs`.
pub fn find_sanitizer(dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join("compute-sanitizer")).find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The arguments of compute-sanitizer for one tool over the GPU test binary: the tool, the
/// binary, one test thread (the tests share one device and one lock anyway), the skips, then
/// the user's test arguments. Each tool runs with its defaults (racecheck's detect level
/// `warn`, so warnings are reported and counted); racecheck also skips the cuBLAS test
/// ([`RACECHECK_SKIPPED`]).
pub fn sanitizer_args(tool: &str, test_binary: &Path, test_args: &[String]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--tool".into(), tool.into(), test_binary.into()];
    args.extend(binary_args(tool, test_args));
    args
}

/// The test binary's arguments under `tool`: one test thread, the skips, the user's.
pub fn binary_args(tool: &str, test_args: &[String]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--test-threads=1".into()];
    let racecheck_only: &[&str] = if tool == "racecheck" { &RACECHECK_SKIPPED } else { &[] };
    for skip in SKIPPED.iter().chain(racecheck_only) {
        args.push("--skip".into());
        args.push(skip.into());
    }
    args.extend(test_args.iter().map(OsString::from));
    args
}

/// The test names in the output of the test binary's `--list` (`name: test` lines).
pub fn listed_tests(list: &str) -> Vec<String> {
    list.lines().filter_map(|l| l.strip_suffix(": test")).map(String::from).collect()
}

/// The processes `tool` runs in: `None`, one process over the selection; or the selection
/// cut, in the listed order, into parts of at most [`RACECHECK_PART_TESTS`] tests, each test
/// named in [`RACECHECK_ALONE`] a part of its own (racecheck only, and only when that makes
/// more than one part).
pub fn parts(tool: &str, listed: &[String]) -> Option<Vec<Vec<String>>> {
    if tool != "racecheck" {
        return None;
    }
    let alone = |test: &str| RACECHECK_ALONE.iter().any(|pattern| test.contains(pattern));
    let (mut parts, mut part) = (Vec::new(), Vec::new());
    for test in listed {
        if alone(test) {
            if !part.is_empty() {
                parts.push(std::mem::take(&mut part));
            }
            parts.push(vec![test.clone()]);
            continue;
        }
        part.push(test.clone());
        if part.len() == RACECHECK_PART_TESTS {
            parts.push(std::mem::take(&mut part));
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    (parts.len() > 1).then_some(parts)
}

/// A tool's summary line, read from its log.
#[derive(Debug, PartialEq)]
pub struct Summary {
    /// Errors; for racecheck, hazards (errors and warnings).
    pub count: u64,
    /// `errors N`, or `hazards N (errors E, warnings W)`.
    pub text: String,
}

/// The libtest result line of the test binary.
#[derive(Debug, PartialEq)]
pub struct TestResult {
    pub ok: bool,
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
}

/// A tiny matcher for the fixed summary formats: literals and decimal numbers.
struct Cursor<'a>(&'a str);

impl Cursor<'_> {
    fn literal(&mut self, text: &str) -> Option<()> {
        self.0 = self.0.strip_prefix(text)?;
        Some(())
    }

    fn optional(&mut self, text: &str) {
        let _ = self.literal(text);
    }

    fn number(&mut self) -> Option<u64> {
        let digits = self.0.find(|c: char| !c.is_ascii_digit()).unwrap_or(self.0.len());
        let value = self.0[..digits].parse().ok()?;
        self.0 = &self.0[digits..];
        Some(value)
    }
}

/// The last match of `parse` at any position of any line of `log`.
fn last_match<T>(log: &str, marker: &str, parse: impl Fn(&mut Cursor) -> Option<T>) -> Option<T> {
    let mut found = None;
    for line in log.lines() {
        let mut from = 0;
        while let Some(at) = line[from..].find(marker) {
            let start = from + at;
            if let Some(value) = parse(&mut Cursor(&line[start..])) {
                found = Some(value);
            }
            from = start + marker.len();
        }
    }
    found
}

/// The tool's summary in `log` (see the module's table of patterns), or `None` when there is
/// none: the tool did not finish.
pub fn parse_summary(tool: &str, log: &str) -> Option<Summary> {
    if tool == "racecheck" {
        last_match(log, "RACECHECK SUMMARY: ", |c| {
            c.literal("RACECHECK SUMMARY: ")?;
            let hazards = c.number()?;
            c.literal(" hazard")?;
            c.optional("s");
            c.literal(" displayed (")?;
            let errors = c.number()?;
            c.literal(" error")?;
            c.optional("s");
            c.literal(", ")?;
            let warnings = c.number()?;
            c.literal(" warning")?;
            c.optional("s");
            c.literal(")")?;
            Some(Summary {
                count: hazards,
                text: format!("hazards {hazards} (errors {errors}, warnings {warnings})"),
            })
        })
    } else {
        last_match(log, "ERROR SUMMARY: ", |c| {
            c.literal("ERROR SUMMARY: ")?;
            let errors = c.number()?;
            c.literal(" error")?;
            Some(Summary { count: errors, text: format!("errors {errors}") })
        })
    }
}

/// The test binary's last `test result:` line in `log`.
pub fn parse_test_result(log: &str) -> Option<TestResult> {
    last_match(log, "test result: ", |c| {
        c.literal("test result: ")?;
        let ok = if c.literal("ok").is_some() {
            true
        } else {
            c.literal("FAILED")?;
            false
        };
        c.literal(". ")?;
        let passed = c.number()?;
        c.literal(" passed; ")?;
        let failed = c.number()?;
        c.literal(" failed; ")?;
        let ignored = c.number()?;
        c.literal(" ignored")?;
        Some(TestResult { ok, passed, failed, ignored })
    })
}

/// One tool's run over the tests.
#[derive(Debug)]
pub struct Outcome {
    pub tool: String,
    pub summary: Option<Summary>,
    pub tests: Option<TestResult>,
    /// compute-sanitizer's exit status as a shell reports it (128 + N for signal N).
    pub exit: i32,
    pub seconds: f64,
}

impl Outcome {
    /// Reads a finished run's log.
    pub fn from_log(tool: &str, log: &str, exit: i32, seconds: f64) -> Outcome {
        Outcome {
            tool: tool.to_string(),
            summary: parse_summary(tool, log),
            tests: parse_test_result(log),
            exit,
            seconds,
        }
    }

    /// Clean: a summary of zero, the tests passed (at least one of them), and a zero exit
    /// status.
    pub fn passed(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| s.count == 0)
            && self.tests.as_ref().is_some_and(|t| t.ok && t.passed > 0)
            && self.exit == 0
    }

    /// The one line for this tool (the same as `run.sh --sanitize` prints).
    pub fn line(&self, log: &str) -> String {
        let summary = self.summary.as_ref().map_or("no summary line", |s| s.text.as_str());
        let tests = self.tests.as_ref().map_or_else(
            || "no test result line".to_string(),
            |t| {
                format!(
                    "tests {}: {} passed, {} failed, {} ignored",
                    if t.ok { "ok" } else { "FAILED" },
                    t.passed,
                    t.failed,
                    t.ignored
                )
            },
        );
        format!(
            "{:<9} {:<4} {summary}; {tests}; exit {}; {:.1} s; log {log}",
            self.tool,
            if self.passed() { "ok" } else { "FAIL" },
            self.exit,
            self.seconds
        )
    }
}

/// An exit status as a shell's `$?` gives it.
fn shell_status(status: ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    status.code().unwrap_or(-1)
}

/// `cargo xtask sanitize`.
pub fn sanitize(ws: &Workspace, args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "-h" || a == "--help") && !args.iter().any(|a| a == "--") {
        println!("{USAGE}");
        return Ok(());
    }
    let options = parse_args(args)?;
    let dirs = search_dirs(std::env::var_os("PATH").as_deref(), std::env::var_os("CUDA_HOME").as_deref());
    let sanitizer = find_sanitizer(&dirs).ok_or(MISSING)?;

    ptx_builder::ensure(ws, &ptx_builder::arch::default_archs())?;
    let tests = crate::test_binaries(ws)?;
    let (_, test_binary) = tests
        .iter()
        .find(|(name, _)| name == "gpu")
        .ok_or("cargo test --no-run built no `gpu` test binary")?;
    let logs = ws.target.join("sanitize");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;

    eprintln!("compute-sanitizer: {}", sanitizer.display());
    eprintln!(
        "skipping all_kernels/n_past_2^32 under the sanitizers (16 GiB of input: hours, and shadow memory on top)"
    );
    if options.tools.iter().any(|t| t == "racecheck") {
        eprintln!(
            "racecheck skips {}: it runs only cuBLAS's kernels (vendor code)",
            RACECHECK_SKIPPED.join(", ")
        );
    }
    let ptx_dir = ws.ptx_dir();
    let run = |tool: &str, log: &Path, only: Option<&Path>| -> Result<Outcome> {
        let file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let stderr = file.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
        let mut command = Command::new(&sanitizer);
        command
            .args(sanitizer_args(tool, test_binary, &options.test_args))
            .env("GPU_KERNELS_PTX_DIR", &ptx_dir);
        let (buffer, size) = RACECHECK_HAZARD_BUFFER;
        if std::env::var_os(buffer).is_none() {
            command.env(buffer, size);
        }
        if let Some(only) = only {
            command.env(ONLY_TESTS_ENV, only);
        }
        let start = Instant::now();
        let status = command
            .stdout(file)
            .stderr(stderr)
            .status()
            .map_err(|e| format!("could not start {}: {e}", sanitizer.display()))?;
        let seconds = start.elapsed().as_secs_f64();
        let text = std::fs::read(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let outcome = Outcome::from_log(tool, &String::from_utf8_lossy(&text), shell_status(status), seconds);
        let shown = log.strip_prefix(&ws.root).unwrap_or(log);
        println!("{}", outcome.line(&shown.display().to_string()));
        Ok(outcome)
    };
    let (mut runs, mut failed) = (0, 0);
    for tool in &options.tools {
        let listed = if tool == "racecheck" {
            list_tests(test_binary, tool, &options.test_args, &ptx_dir)?
        } else {
            Vec::new()
        };
        match parts(tool, &listed) {
            None => {
                eprintln!("running {tool} over the GPU tests ...");
                let outcome = run(tool, &logs.join(format!("{tool}.log")), None)?;
                runs += 1;
                failed += usize::from(!outcome.passed());
            }
            Some(parts) => {
                eprintln!(
                    "{tool} runs the {} tests in {} processes of at most {RACECHECK_PART_TESTS} (see RACECHECK_PART_TESTS; {} alone)",
                    listed.len(),
                    parts.len(),
                    RACECHECK_ALONE.join(" ")
                );
                for (i, part) in parts.iter().enumerate() {
                    let names = logs.join(format!("{tool}-{}.tests", i + 1));
                    std::fs::write(&names, part.join("\n") + "\n")
                        .map_err(|e| format!("{}: {e}", names.display()))?;
                    eprintln!(
                        "running {tool} part {} of {}: {} to {} ...",
                        i + 1,
                        parts.len(),
                        part[0],
                        part[part.len() - 1]
                    );
                    let outcome = run(tool, &logs.join(format!("{tool}-{}.log", i + 1)), Some(&names))?;
                    runs += 1;
                    failed += usize::from(!outcome.passed());
                }
            }
        }
    }
    if failed > 0 {
        return Err(format!("{failed} of {runs} sanitizer runs failed: see the logs above"));
    }
    Ok(())
}

/// The tests the binary would run under `tool` with `test_args` (its `--list`).
fn list_tests(test_binary: &Path, tool: &str, test_args: &[String], ptx_dir: &Path) -> Result<Vec<String>> {
    let output = Command::new(test_binary)
        .arg("--list")
        .args(binary_args(tool, test_args))
        .env("GPU_KERNELS_PTX_DIR", ptx_dir)
        .output()
        .map_err(|e| format!("could not start {}: {e}", test_binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "listing the GPU tests ({} --list) failed: {}\n{}",
            test_binary.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(listed_tests(&String::from_utf8_lossy(&output.stdout)))
}

/// The bash half of `run.sh --sanitize`: the same runs, patterns, lines and exit status as
/// [`sanitize`], from the bundle (`$here/tests/gpu`, logs in `$here/sanitize` or
/// `$SANITIZE_LOGS`). Defines `find_sanitizer`, `sanitizer_line` and `sanitize`.
pub fn bash() -> String {
    let skipped: Vec<String> = RACECHECK_SKIPPED.iter().map(|s| format!("'{s}'")).collect();
    let alone: Vec<String> = RACECHECK_ALONE.iter().map(|s| format!("'{s}'")).collect();
    BASH.replace("RACECHECK_SKIPPED_VALUE", &skipped.join(" "))
        .replace("RACECHECK_PART_TESTS_VALUE", &RACECHECK_PART_TESTS.to_string())
        .replace("ONLY_TESTS_ENV_VALUE", ONLY_TESTS_ENV)
        .replace("RACECHECK_ALONE_VALUE", &alone.join(" "))
        .replace("RACECHECK_HAZARD_BUFFER_NAME", RACECHECK_HAZARD_BUFFER.0)
        .replace("RACECHECK_HAZARD_BUFFER_SIZE", RACECHECK_HAZARD_BUFFER.1)
}

/// [`bash`] before the racecheck exclusion is filled in.
const BASH: &str = r#"
# ---- compute-sanitizer over the GPU tests: the same runs, lines and exit status as
# `cargo xtask sanitize` (xtask/src/sanitize.rs, which matches the same patterns by hand).
# Summary lines read from each log (extended regexes; the last match counts):
#   memcheck, synccheck, initcheck:  ERROR SUMMARY: ([0-9]+) errors?
#   racecheck:  RACECHECK SUMMARY: ([0-9]+) hazards? displayed \(([0-9]+) errors?, ([0-9]+) warnings?\)
#   the tests:  test result: (ok|FAILED)\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored
# A run passes when its summary is there and counts 0 (racecheck: hazards, warnings
# included), the tests' result is ok with at least one passed, and compute-sanitizer exited 0.
sanitizer_tools="memcheck racecheck synccheck initcheck"
# racecheck skips the tests that run only cuBLAS's kernels: see RACECHECK_SKIPPED in
# xtask/src/sanitize.rs.
racecheck_skipped=(RACECHECK_SKIPPED_VALUE)
# racecheck runs a selection of more tests than this in parts, a process each, told its tests
# by a file named in ONLY_TESTS_ENV_VALUE: see RACECHECK_PART_TESTS in xtask/src/sanitize.rs.
racecheck_part_tests=RACECHECK_PART_TESTS_VALUE
# ... and each test whose name holds one of these in a process of its own: see RACECHECK_ALONE.
racecheck_alone=(RACECHECK_ALONE_VALUE)
# racecheck's buffer of raw hazards, unless the caller set it: see RACECHECK_HAZARD_BUFFER.
export RACECHECK_HAZARD_BUFFER_NAME="${RACECHECK_HAZARD_BUFFER_NAME:-RACECHECK_HAZARD_BUFFER_SIZE}"

find_sanitizer() {
  local dir
  if command -v compute-sanitizer >/dev/null 2>&1; then command -v compute-sanitizer; return 0; fi
  for dir in ${CUDA_HOME:+"$CUDA_HOME/bin"} /usr/local/cuda/bin; do
    if [ -f "$dir/compute-sanitizer" ] && [ -x "$dir/compute-sanitizer" ]; then
      echo "$dir/compute-sanitizer"; return 0
    fi
  done
  return 1
}

# sanitizer_line TOOL LOG EXIT SECONDS SHOWN: prints the tool's line; fails when the run did.
sanitizer_line() {
  local tool=$1 log=$2 rc=$3 secs=$4 shown=$5 m count="" what="no summary line"
  local tests="no test result line" ok=1
  if [ "$tool" = racecheck ]; then
    m=$(grep -aoE 'RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?, [0-9]+ warnings?\)' "$log" | tail -n 1)
    if [ -n "$m" ]; then
      count=$(sed -E 's/^RACECHECK SUMMARY: ([0-9]+).*/\1/' <<<"$m")
      what=$(sed -E 's/^RACECHECK SUMMARY: ([0-9]+) hazards? displayed \(([0-9]+) errors?, ([0-9]+) warnings?\)$/hazards \1 (errors \2, warnings \3)/' <<<"$m")
    fi
  else
    m=$(grep -aoE 'ERROR SUMMARY: [0-9]+ errors?' "$log" | tail -n 1)
    if [ -n "$m" ]; then
      count=$(sed -E 's/^ERROR SUMMARY: ([0-9]+).*/\1/' <<<"$m")
      what="errors $count"
    fi
  fi
  if [ -z "$count" ] || [ "$count" != 0 ]; then ok=0; fi
  m=$(grep -aoE 'test result: (ok|FAILED)\. [0-9]+ passed; [0-9]+ failed; [0-9]+ ignored' "$log" | tail -n 1)
  if [ -n "$m" ]; then
    tests=$(sed -E 's/^test result: (ok|FAILED)\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored$/tests \1: \2 passed, \3 failed, \4 ignored/' <<<"$m")
    case "$m" in "test result: ok. 0 passed"*) ok=0 ;; "test result: ok."*) ;; *) ok=0 ;; esac
  else
    ok=0
  fi
  [ "$rc" = 0 ] || ok=0
  local verdict=FAIL
  [ $ok = 1 ] && verdict=ok
  printf '%-9s %-4s %s; %s; exit %s; %s s; log %s\n' "$tool" "$verdict" "$what" "$tests" "$rc" "$secs" "$shown"
  [ $ok = 1 ]
}

# sanitize [--tool LIST] [FILTER] [--exact] [-- TEST-ARGS...]: exit 0 when every tool is
# clean, 1 when one is not, 2 when nothing could run.
sanitize() {
  local tools="memcheck,racecheck,synccheck,initcheck" args=() list=() tool cs logs log
  local status=0 start rc secs
  while [ $# -gt 0 ]; do
    case "$1" in
      --tool|--tools)
        if [ $# -lt 2 ]; then echo "error: --tool needs a list, e.g. --tool memcheck,racecheck" >&2; return 2; fi
        tools=$2; shift 2 ;;
      --tool=*) tools=${1#--tool=}; shift ;;
      --) shift; args+=("$@"); break ;;
      --exact) args+=("$1"); shift ;;
      -*) echo "error: unknown option $1 (options for the test binary go after --)" >&2; return 2 ;;
      *) args+=("$1"); shift ;;
    esac
  done
  IFS=', ' read -ra list <<<"$tools"
  if [ ${#list[@]} -eq 0 ]; then echo "error: --tool names no tool; the tools are $sanitizer_tools" >&2; return 2; fi
  for tool in "${list[@]}"; do
    case " $sanitizer_tools " in
      *" $tool "*) ;;
      *) echo "error: unknown tool '$tool'; the tools are $sanitizer_tools" >&2; return 2 ;;
    esac
  done
  if ! cs=$(find_sanitizer); then
    echo "error: compute-sanitizer not found (looked on PATH, in \$CUDA_HOME/bin and /usr/local/cuda/bin)." >&2
    echo "It ships with the CUDA toolkit (bin/compute-sanitizer): install the toolkit, or only the sanitizer" >&2
    echo "(NVIDIA's cuda-sanitizer-<version> package, or 'pip install nvidia-cuda-sanitizer-api' for CUDA 13," >&2
    echo "'nvidia-cuda-sanitizer-api-cu12' for CUDA 12: site-packages/nvidia/cuda_sanitizer_api/bin)," >&2
    echo "then put its folder on PATH or set CUDA_HOME." >&2
    return 2
  fi
  logs=${SANITIZE_LOGS:-$here/sanitize}
  mkdir -p "$logs" || return 2
  echo "compute-sanitizer: $cs" >&2
  echo "skipping all_kernels/n_past_2^32 under the sanitizers (16 GiB of input: hours, and shadow memory on top)" >&2
  for tool in "${list[@]}"; do
    local skips=() skip listed=() part parts
    if [ "$tool" = racecheck ]; then
      for skip in "${racecheck_skipped[@]}"; do skips+=(--skip "$skip"); done
      echo "racecheck skips ${racecheck_skipped[*]}: it runs only cuBLAS's kernels (vendor code)" >&2
      local test_args=(--test-threads=1 --skip n_past --skip 'all_kernels/n_past_2^32' ${skips[@]+"${skips[@]}"}
        ${args[@]+"${args[@]}"})
      if ! part=$("$here/tests/gpu" --list "${test_args[@]}"); then
        echo "error: listing the GPU tests ($here/tests/gpu --list) failed" >&2
        return 2
      fi
      mapfile -t listed < <(sed -n 's/: test$//p' <<<"$part")
    fi
    # The parts, as `parts` in xtask/src/sanitize.rs cuts them: each a newline-ended list.
    local cuts=() current="" count=0 test pattern lone
    for test in ${listed[@]+"${listed[@]}"}; do
      lone=0
      for pattern in "${racecheck_alone[@]}"; do
        if [[ $test == *"$pattern"* ]]; then lone=1; fi
      done
      if [ $lone = 1 ]; then
        if [ $count -gt 0 ]; then cuts+=("$current"); current=""; count=0; fi
        cuts+=("$test"$'\n')
        continue
      fi
      current+="$test"$'\n'
      count=$((count + 1))
      if [ $count -eq $racecheck_part_tests ]; then cuts+=("$current"); current=""; count=0; fi
    done
    if [ $count -gt 0 ]; then cuts+=("$current"); fi
    if [ ${#cuts[@]} -le 1 ]; then
      log="$logs/$tool.log"
      echo "running $tool over the GPU tests ..." >&2
      sanitizer_run "$tool" "$log" "" ${skips[@]+"${skips[@]}"} ${args[@]+"${args[@]}"} || status=1
      continue
    fi
    parts=${#cuts[@]}
    echo "$tool runs the ${#listed[@]} tests in $parts processes of at most $racecheck_part_tests (see RACECHECK_PART_TESTS; ${racecheck_alone[*]} alone)" >&2
    for ((part = 1; part <= parts; part++)); do
      local names="$logs/$tool-$part.tests"
      printf '%s' "${cuts[part - 1]}" >"$names"
      echo "running $tool part $part of $parts: $(head -n 1 "$names") to $(tail -n 1 "$names") ..." >&2
      sanitizer_run "$tool" "$logs/$tool-$part.log" "$names" ${skips[@]+"${skips[@]}"} ${args[@]+"${args[@]}"} ||
        status=1
    done
  done
  return $status
}

# sanitizer_run TOOL LOG NAMES [TEST-ARGS...]: one compute-sanitizer process over the tests
# (those listed in the file NAMES, when not empty), its line printed; fails when it did.
# Uses $cs and $here from sanitize.
sanitizer_run() {
  local tool=$1 log=$2 names=$3 start rc secs
  shift 3
  start=$(date +%s.%N)
  if [ -n "$names" ]; then
    ONLY_TESTS_ENV_VALUE="$names" "$cs" --tool "$tool" "$here/tests/gpu" --test-threads=1 --skip n_past \
      --skip 'all_kernels/n_past_2^32' "$@" >"$log" 2>&1
  else
    "$cs" --tool "$tool" "$here/tests/gpu" --test-threads=1 --skip n_past --skip 'all_kernels/n_past_2^32' \
      "$@" >"$log" 2>&1
  fi
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  sanitizer_line "$tool" "$log" "$rc" "$secs" "$log"
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    const MEMCHECK_CLEAN: &str = "\
========= COMPUTE-SANITIZER

running 93 tests
test fill_matches_the_cpu_generator ... ok
test all_kernels/n_past_2^32 ... ignored
test result: ok. 87 passed; 0 failed; 5 ignored; 0 measured; 1 filtered out; finished in 212.40s

========= ERROR SUMMARY: 0 errors
";

    const MEMCHECK_THREE: &str = "\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 16 bytes
=========     at v3_bounds_checked+0x1f0
=========     by thread (255,0,0) in block (4095,0,0)
=========     Address 0x7f3a00400000 is out of bounds
test v3_bounds_checked/block_256/awkward_sizes ... FAILED
test result: FAILED. 86 passed; 1 failed; 5 ignored; 0 measured; 1 filtered out; finished in 30.02s
========= ERROR SUMMARY: 3 errors
";

    const RACECHECK_WARNINGS: &str = "\
========= COMPUTE-SANITIZER
========= Warning: Race reported between Write access at h4_unrolled_last_warp+0x3a0
=========     and Read access at h4_unrolled_last_warp+0x3f0 [96 hazards]
test result: ok. 87 passed; 0 failed; 5 ignored; 0 measured; 1 filtered out; finished in 801.00s
========= RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings)
";

    const RACECHECK_CLEAN: &str = "\
test result: ok. 87 passed; 0 failed; 5 ignored; 0 measured; 1 filtered out; finished in 801.00s
========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
";

    const NOTHING_RAN: &str = "\
test result: ok. 0 passed; 0 failed; 92 ignored; 0 measured; 1 filtered out; finished in 0.00s
========= ERROR SUMMARY: 0 errors
";

    /// compute-sanitizer killed (or the process aborted) before it printed its summary.
    const CUT_SHORT: &str = "\
========= COMPUTE-SANITIZER
running 93 tests
test fill_matches_the_cpu_generator ... ok
";

    #[test]
    fn error_summaries() {
        assert_eq!(
            parse_summary("memcheck", MEMCHECK_CLEAN),
            Some(Summary { count: 0, text: "errors 0".into() })
        );
        assert_eq!(
            parse_summary("initcheck", MEMCHECK_THREE),
            Some(Summary { count: 3, text: "errors 3".into() })
        );
        assert_eq!(
            parse_summary("synccheck", "========= ERROR SUMMARY: 1 error\n").map(|s| s.count),
            Some(1)
        );
        // The last summary counts.
        let two = format!("{MEMCHECK_THREE}{MEMCHECK_CLEAN}");
        assert_eq!(parse_summary("memcheck", &two).map(|s| s.count), Some(0));
        assert_eq!(parse_summary("memcheck", "ERROR SUMMARY: many errors"), None);
    }

    #[test]
    fn racecheck_counts_hazards_with_warnings() {
        let summary = parse_summary("racecheck", RACECHECK_WARNINGS).expect("a summary");
        assert_eq!(summary.count, 3, "warnings are hazards: they fail the run");
        assert_eq!(summary.text, "hazards 3 (errors 0, warnings 3)");
        let one = "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)";
        assert_eq!(
            parse_summary("racecheck", one).map(|s| s.text),
            Some("hazards 1 (errors 1, warnings 0)".into())
        );
        assert_eq!(parse_summary("racecheck", RACECHECK_CLEAN).map(|s| s.count), Some(0));
        // racecheck is read from its own summary only.
        assert_eq!(parse_summary("racecheck", MEMCHECK_CLEAN), None);
    }

    #[test]
    fn missing_summary_is_a_failure() {
        assert_eq!(parse_summary("memcheck", CUT_SHORT), None);
        assert_eq!(parse_summary("racecheck", CUT_SHORT), None);
        let outcome = Outcome::from_log("memcheck", CUT_SHORT, 134, 3.0);
        assert!(!outcome.passed());
        assert_eq!(
            outcome.line("target/sanitize/memcheck.log"),
            "memcheck  FAIL no summary line; no test result line; exit 134; 3.0 s; log target/sanitize/memcheck.log"
        );
    }

    #[test]
    fn test_results() {
        assert_eq!(
            parse_test_result(MEMCHECK_CLEAN),
            Some(TestResult { ok: true, passed: 87, failed: 0, ignored: 5 })
        );
        assert_eq!(
            parse_test_result(MEMCHECK_THREE),
            Some(TestResult { ok: false, passed: 86, failed: 1, ignored: 5 })
        );
        assert_eq!(parse_test_result(CUT_SHORT), None);
    }

    #[test]
    fn verdicts_and_lines() {
        let clean = Outcome::from_log("memcheck", MEMCHECK_CLEAN, 0, 212.44);
        assert!(clean.passed());
        assert_eq!(
            clean.line("target/sanitize/memcheck.log"),
            "memcheck  ok   errors 0; tests ok: 87 passed, 0 failed, 5 ignored; exit 0; 212.4 s; log target/sanitize/memcheck.log"
        );
        let three = Outcome::from_log("memcheck", MEMCHECK_THREE, 1, 30.0);
        assert!(!three.passed());
        assert!(
            three.line("m.log").starts_with(
                "memcheck  FAIL errors 3; tests FAILED: 86 passed, 1 failed, 5 ignored; exit 1;"
            )
        );
        let races = Outcome::from_log("racecheck", RACECHECK_WARNINGS, 0, 801.0);
        assert!(!races.passed(), "hazard warnings fail the run");
        assert!(Outcome::from_log("racecheck", RACECHECK_CLEAN, 0, 1.0).passed());
        // Every test ignored (no GPU) or filtered out: nothing was checked.
        assert!(!Outcome::from_log("memcheck", NOTHING_RAN, 0, 1.0).passed());
        // A clean summary does not hide a failed run.
        assert!(!Outcome::from_log("synccheck", MEMCHECK_CLEAN, 1, 1.0).passed());
    }

    #[test]
    fn command_line_for_each_tool() {
        let binary = Path::new("/r/target/release/deps/gpu-0123abcd");
        for tool in TOOLS {
            let args = sanitizer_args(tool, binary, &[]);
            let racecheck: &[&str] = if tool == "racecheck" { &["--skip", "cublas/"] } else { &[] };
            let expected: Vec<OsString> = [
                "--tool",
                tool,
                "/r/target/release/deps/gpu-0123abcd",
                "--test-threads=1",
                "--skip",
                "n_past",
                "--skip",
                "all_kernels/n_past_2^32",
            ]
            .iter()
            .chain(racecheck)
            .map(OsString::from)
            .collect();
            assert_eq!(args, expected, "{tool}");
        }
        let filtered = sanitizer_args("racecheck", binary, &["g10".into(), "--exact".into()]);
        assert_eq!(filtered[filtered.len() - 2..], [OsString::from("g10"), OsString::from("--exact")]);
    }

    #[test]
    fn arguments() {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let all = parse_args(&[]).unwrap();
        assert_eq!(all.tools, TOOLS);
        assert!(all.test_args.is_empty());
        let some =
            parse_args(&strings(&["--tool", "memcheck,racecheck", "t7", "--", "--skip", "awkward"])).unwrap();
        assert_eq!(some.tools, ["memcheck", "racecheck"]);
        assert_eq!(some.test_args, ["t7", "--skip", "awkward"]);
        let eq =
            parse_args(&strings(&["--tool=initcheck", "--exact", "h0/block_256/awkward_sizes"])).unwrap();
        assert_eq!(eq.tools, ["initcheck"]);
        assert_eq!(eq.test_args, ["--exact", "h0/block_256/awkward_sizes"]);
        assert!(
            parse_args(&strings(&["--tool", "leakcheck"])).unwrap_err().contains("unknown tool `leakcheck`")
        );
        assert!(parse_args(&strings(&["--tool"])).is_err());
        assert!(parse_args(&strings(&["--tool", ","])).is_err());
        assert!(parse_args(&strings(&["--nocapture"])).unwrap_err().contains("after `--`"));
    }

    #[test]
    fn sanitizer_search() {
        let dirs = search_dirs(Some(OsStr::new("/a/bin:/b/bin")), Some(OsStr::new("/opt/cuda")));
        assert_eq!(
            dirs,
            [PathBuf::from("/a/bin"), "/b/bin".into(), "/opt/cuda/bin".into(), DEFAULT_CUDA_BIN.into()]
        );
        assert_eq!(search_dirs(None, None), [PathBuf::from(DEFAULT_CUDA_BIN)]);

        let home = std::env::temp_dir().join(format!("xtask-sanitize-{}", std::process::id()));
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let fake = bin.join("compute-sanitizer");
        std::fs::write(&fake, "#!/bin/sh\n").unwrap();
        let empty = home.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(find_sanitizer(std::slice::from_ref(&bin)), None, "not executable");
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(find_sanitizer(&[empty.clone(), bin.clone()]), Some(fake.clone()));
        assert_eq!(find_sanitizer(&[empty]), None);
        std::fs::remove_dir_all(&home).unwrap();
        assert!(MISSING.contains("CUDA toolkit") && MISSING.contains("nvidia-cuda-sanitizer-api"));
    }

    #[test]
    fn racecheck_runs_large_selections_in_parts() {
        let list = "fill: test\nh0/block_64/awkward_sizes: test\n\nnot a test line\n";
        assert_eq!(listed_tests(list), ["fill", "h0/block_64/awkward_sizes"]);
        let names = |n: usize| (0..n).map(|i| format!("t{i:03}/awkward_shapes")).collect::<Vec<_>>();
        let all = names(2 * RACECHECK_PART_TESTS + 1);
        assert_eq!(parts("memcheck", &all), None, "only racecheck is split");
        assert_eq!(
            parts("racecheck", &names(RACECHECK_PART_TESTS)),
            None,
            "one part: one process, as before"
        );
        let split = parts("racecheck", &all).expect("parts");
        assert_eq!(
            split.iter().map(Vec::len).collect::<Vec<_>>(),
            [RACECHECK_PART_TESTS, RACECHECK_PART_TESTS, 1]
        );
        assert_eq!(split.concat(), all, "every test once, in the listed order");
        // A test named in RACECHECK_ALONE closes the part before it and is a part of its own,
        // even in a selection that would otherwise be one part.
        let mut few = names(5);
        few.insert(2, format!("{}_f16/awkward_shapes", RACECHECK_ALONE[0]));
        let split = parts("racecheck", &few).expect("parts");
        assert_eq!(split.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1, 3]);
        assert_eq!(split[1], [few[2].clone()]);
        assert_eq!(split.concat(), few);
        assert_eq!(parts("racecheck", &few[2..3]), None, "alone already");
        assert_eq!(parts("memcheck", &few), None);
        assert!(
            USAGE.contains(&format!(
                "more than {RACECHECK_PART_TESTS} tests in parts of {RACECHECK_PART_TESTS}"
            ))
        );
        // The GPU test binary reads the same variable.
        let gpu_tests = include_str!("../../tests/gpu.rs");
        assert!(gpu_tests.contains(&format!("const ONLY_TESTS_ENV: &str = \"{ONLY_TESTS_ENV}\";")));
    }

    /// Whether this machine has no bash (then the bash half of `run.sh` goes unchecked, and
    /// the test says so).
    fn no_bash() -> bool {
        let missing = Command::new("bash").arg("--version").output().is_err();
        if missing {
            eprintln!("no bash here: the bash half is not checked");
        }
        missing
    }

    /// run.sh's racecheck in parts, end to end, with a fake sanitizer and a fake test binary:
    /// the same parts as [`parts`], each process told its tests, one line per part.
    #[test]
    fn bash_runs_racecheck_in_the_same_parts() {
        if no_bash() {
            return;
        }
        let here = std::env::temp_dir().join(format!("xtask-sanitize-parts-{}", std::process::id()));
        let (bin, tests) = (here.join("bin"), here.join("tests"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&tests).unwrap();
        let total = RACECHECK_PART_TESTS + 5;
        // One of the tests that racecheck runs alone, listed after the third.
        let alone = RACECHECK_ALONE[1];
        // The fake test binary: `--list` lists `total` tests, skipping n_past and cublas/ as
        // asked; a run reports one passed test per name in the ONLY_TESTS_ENV file.
        let fake_tests = format!(
            r#"#!/usr/bin/env bash
for a in "$@"; do [ "$a" = --list ] && listing=1; done
if [ -n "${{listing:-}}" ]; then
  echo "cublas/row_major_matches_the_reference: test"
  for i in $(seq 1 {total}); do printf 't%03d/awkward_shapes: test
' "$i"; [ "$i" = 3 ] && echo "{alone}_bf16/awkward_shapes: test"; done
  exit 0
fi
n={total}
if [ -n "${{{ONLY_TESTS_ENV}:-}}" ]; then n=$(wc -l < "${{{ONLY_TESTS_ENV}}}"); echo "only: $(head -n 1 "${{{ONLY_TESTS_ENV}}}")"; fi
echo "test result: ok. $n passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s"
"#
        );
        let fake_sanitizer = r#"#!/usr/bin/env bash
tool=$2; shift 2
"$@"
if [ "$tool" = racecheck ]; then echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else echo "========= ERROR SUMMARY: 0 errors"; fi
"#;
        // `--list` honours the skips only in a real binary; the fake's cuBLAS line shows
        // that the names come from the listing as it is.
        let gpu = tests.join("gpu");
        std::fs::write(&gpu, fake_tests).unwrap();
        let sanitizer = bin.join("compute-sanitizer");
        std::fs::write(&sanitizer, fake_sanitizer).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            for f in [&gpu, &sanitizer] {
                std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let script = format!(
            "{}\nhere='{}'\nSANITIZE_LOGS='{}/logs'\nPATH='{}':\"$PATH\"\nsanitize --tool racecheck,memcheck",
            bash(),
            here.display(),
            here.display(),
            bin.display()
        );
        let out = Command::new("bash").arg("-c").arg(&script).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        let listed: Vec<String> = std::iter::once("cublas/row_major_matches_the_reference".to_string())
            .chain((1..=total).flat_map(|i| {
                let alone = (i == 3).then(|| format!("{alone}_bf16/awkward_shapes"));
                std::iter::once(format!("t{i:03}/awkward_shapes")).chain(alone)
            }))
            .collect();
        let expected = parts("racecheck", &listed).expect("more than one part");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), expected.len() + 1, "{stdout}");
        for (i, part) in expected.iter().enumerate() {
            let log = here.join("logs").join(format!("racecheck-{}.log", i + 1));
            let names = std::fs::read_to_string(here.join("logs").join(format!("racecheck-{}.tests", i + 1)))
                .unwrap();
            assert_eq!(names.lines().collect::<Vec<_>>(), *part, "part {}", i + 1);
            let text = std::fs::read_to_string(&log).unwrap();
            assert!(
                text.contains(&format!("only: {}", part[0])),
                "part {} was told its tests: {text}",
                i + 1
            );
            let rust = Outcome::from_log("racecheck", &text, 0, 0.0);
            assert!(rust.passed());
            assert!(
                lines[i].starts_with(&format!(
                    "racecheck ok   hazards 0 (errors 0, warnings 0); tests ok: {} passed",
                    part.len()
                )),
                "{}",
                lines[i]
            );
        }
        assert!(
            lines[expected.len()].starts_with(&format!("memcheck  ok   errors 0; tests ok: {total} passed"))
        );
        std::fs::remove_dir_all(&here).unwrap();
    }

    /// run.sh's bash reads the same logs into the same lines and verdicts as the Rust code.
    #[test]
    fn bash_and_rust_agree() {
        if no_bash() {
            return;
        }
        let dir = std::env::temp_dir().join(format!("xtask-sanitize-bash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            ("memcheck", MEMCHECK_CLEAN, 0),
            ("initcheck", MEMCHECK_THREE, 1),
            ("racecheck", RACECHECK_WARNINGS, 0),
            ("racecheck", RACECHECK_CLEAN, 0),
            ("synccheck", CUT_SHORT, 134),
            ("synccheck", MEMCHECK_CLEAN, 1),
            ("racecheck", "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n", 0),
            ("memcheck", NOTHING_RAN, 0),
        ];
        for (i, (tool, log, exit)) in cases.into_iter().enumerate() {
            let path = dir.join(format!("{i}.log"));
            std::fs::write(&path, log).unwrap();
            let script =
                format!("{}\nsanitizer_line {tool} '{}' {exit} 12.5 shown.log", bash(), path.display());
            let out = Command::new("bash").arg("-c").arg(&script).output().unwrap();
            let rust = Outcome::from_log(tool, log, exit, 12.5);
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), rust.line("shown.log"), "case {i}");
            assert_eq!(out.status.success(), rust.passed(), "case {i}: verdict");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
