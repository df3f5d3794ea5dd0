//! `host sanitize [--tool LIST] [FILTER] [--exact] [--tests PATH] [--logs DIR] [-- TEST-ARGS...]`:
//! the GPU tests under each of NVIDIA's compute-sanitizer tools (memcheck, racecheck,
//! synccheck, initcheck), one line per tool, exit status 1 when any of them finds something
//! (2 when nothing could run).
//!
//! This is the project's one sanitizer driver. `cargo xtask sanitize` builds the PTX and the
//! GPU test binary, then runs it with their paths and the logs in `target/sanitize`; the
//! bundle's `run.sh --sanitize` runs it with the bundle's (`tests/gpu`, `ptx/`, logs in
//! `sanitize/` or `$SANITIZE_LOGS`). It runs `compute-sanitizer --tool TOOL <gpu tests>
//! --test-threads=1 --skip n_past …` once per tool, with `GPU_KERNELS_PTX_DIR` set to the
//! PTX, keeps each full log in `<logs>/<tool>.log`, reads the logs with the patterns below
//! and prints one line per run:
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
//! the 128 GiB of host memory of the GPU machines it ran on. The tests named in [`RACECHECK_ALONE`]
//! (those that nearly fill racecheck's hazard buffer, [`RACECHECK_HAZARD_BUFFER`]) each
//! get a part of their own.
//!
//! This module depends on nothing of the host but [`crate::base::error`]: the bundle's `host`
//! carries it to machines without Rust.

mod log;
mod plan;

pub use log::{Outcome, Summary, TestResult, parse_summary, parse_test_result};
pub use plan::{binary_args, find_sanitizer, listed_tests, parts, sanitizer_args, search_dirs};

use crate::base::error::{Error, Result};
use std::ffi::OsString;
use std::io::Write;
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
/// 2026-11-23), while the same tests in two processes were clean. The Hopper GEMM tests
/// weigh most: 4 of them in one process peaked at 52 GiB of host memory, and a part of 24
/// (w06–w11, Rust and twins) was killed at 130 GiB after 21 (H100, 2026-11-24). Parts of 6
/// keep the heaviest under 80 GiB.
pub const RACECHECK_PART_TESTS: usize = 6;

/// Racecheck's buffer of raw hazard records, as compute-sanitizer reads it from the
/// environment, and the size every run here gives it unless the caller set one. The
/// default buffer overflows on the stream-K steps whose owners read a partial tile out of a
/// pipeline stage with ordinary loads before the copy engine refills it (w12, w13): every
/// byte read and then rewritten is a raw record, as racecheck does not follow the ordering
/// through the stage's cluster-scope `mbarrier`. The tool then prints "Maximum number of
/// hazards reached", counted as a warning, with no race found (H100, 2026-11-23). With this
/// buffer each of those tests alone reports 0 hazards, 0 warnings (H200, the same day); the
/// records are kept in host memory for the whole process, so a larger buffer does not
/// scale: 200 M records over the t-steps in one process was killed for memory at w13.
pub const RACECHECK_HAZARD_BUFFER: (&str, &str) = ("NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS", "20000000");

/// Tests (substrings of their names) that racecheck runs in a process of their own: those
/// that fill [`RACECHECK_HAZARD_BUFFER`] nearly alone, so that no test before them in the
/// same process leaves too little of it.
pub const RACECHECK_ALONE: [&str; 2] = ["w12_pipelined_fixup", "w13_shares_first"];

/// The environment variable that names a file of test names, one per line: the GPU test
/// binary (`tests/gpu.rs`) then runs only those, and fails if one of them does not exist.
pub const ONLY_TESTS_ENV: &str = "GPU_TESTS_ONLY";

/// The environment variable that tells the GPU tests where the PTX is.
pub const PTX_DIR_ENV: &str = "GPU_KERNELS_PTX_DIR";

/// Where the sanitizer is looked for after `$PATH`, in order: `$CUDA_HOME/bin`, then this.
pub const DEFAULT_CUDA_BIN: &str = "/usr/local/cuda/bin";

/// What to do when no compute-sanitizer is found.
pub const MISSING: &str = "compute-sanitizer not found (looked on PATH, in $CUDA_HOME/bin and /usr/local/cuda/bin). \
It ships with the CUDA toolkit (bin/compute-sanitizer): install the toolkit, or only the sanitizer \
(NVIDIA's cuda-sanitizer-<version> package, or `pip install nvidia-cuda-sanitizer-api` for CUDA 13, \
`nvidia-cuda-sanitizer-api-cu12` for CUDA 12, whose binary is site-packages/nvidia/cuda_sanitizer_api/bin/compute-sanitizer), \
then put its folder on PATH or set CUDA_HOME";

/// The end of `host sanitize --help`: what it prints, when a run passes, the skips, the parts.
const AFTER_HELP: &str = "\
Prints one line per tool: its count (errors; for racecheck, hazards with their errors and
warnings), the tests' result line, compute-sanitizer's exit status, the time and the log, e.g.

  memcheck  ok   errors 0; tests ok: 88 passed, 0 failed, 6 ignored; exit 0; 212.4 s; log target/sanitize/memcheck.log

A run passes when the tool's summary line is in its log and counts 0 (racecheck's warnings
count), the tests' result is ok with at least one test passed, and compute-sanitizer exited 0;
a log without a summary line (the tool did not finish) fails.

Every tool skips n_past (all_kernels/n_past_2^32: 16 GiB of input, hours under a sanitizer);
racecheck also skips cublas/ (only cuBLAS's kernels, vendor code). Racecheck's hazard buffer
NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS is set to 20000000 unless you set it.

Racecheck runs a selection of more than 6 tests in parts of 6, a process each (a line and
a log each): it lists the tests (--list, with the same filters) and tells each process its
tests in a file named by GPU_TESTS_ONLY (<logs>/racecheck-<part>.tests);
w12_pipelined_fixup and w13_shares_first each run in a process of their own. One racecheck
process over the whole suite outgrew the 128 GiB of host memory of the GPU machines it ran on.

Logs: <logs>/<tool>.log, racecheck in parts <logs>/racecheck-<part>.log. compute-sanitizer is
looked for on PATH, in $CUDA_HOME/bin and in /usr/local/cuda/bin.

Exit status: 0 when every run is clean, 1 when one is not, 2 when nothing could run.
`cargo xtask sanitize` and the bundle's `run.sh --sanitize` run this.";

/// Options of `host sanitize`.
#[derive(clap::Args, Debug, Clone)]
#[command(after_long_help = AFTER_HELP)]
pub struct SanitizeOptions {
    /// The tools to run, comma separated, in this order.
    #[arg(long, visible_alias = "tools", value_name = "LIST", value_parser = parse_tools,
          default_value = "memcheck,racecheck,synccheck,initcheck", overrides_with = "tool")]
    pub tool: Tools,

    /// Run only the tests whose name contains FILTER (given to the test binary).
    #[arg(value_name = "FILTER")]
    pub filters: Vec<String>,

    /// Run only the tests named FILTER exactly (given to the test binary).
    #[arg(long)]
    pub exact: bool,

    /// The GPU test binary (`tests/gpu.rs`, built) [default: `tests/gpu` beside this
    /// executable, as in the bundle].
    #[arg(long, value_name = "PATH", overrides_with = "tests")]
    pub tests: Option<PathBuf>,

    /// Folder for the full logs: `<tool>.log`, racecheck in parts `racecheck-<part>.log` and
    /// the part's test names in `racecheck-<part>.tests` [default: `sanitize/` beside this
    /// executable; `cargo xtask sanitize` gives target/sanitize].
    #[arg(long, value_name = "DIR", overrides_with = "logs")]
    pub logs: Option<PathBuf>,

    /// Folder with `sm_XX/kernels.ptx`, given to the tests as GPU_KERNELS_PTX_DIR [default:
    /// $GPU_KERNELS_PTX_DIR, else `ptx/` beside this executable].
    #[arg(long, value_name = "DIR", overrides_with = "ptx_dir")]
    pub ptx_dir: Option<PathBuf>,

    /// Check the options and find compute-sanitizer, then exit (0, or 2 with the reason);
    /// nothing runs. `cargo xtask sanitize` does this before its build.
    #[arg(long)]
    pub check_only: bool,

    /// Arguments for the test binary after its fixed ones (e.g. `-- --skip awkward`).
    #[arg(last = true, value_name = "TEST-ARGS")]
    pub test_args: Vec<String>,
}

/// The tools of `--tool`, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Tools(pub Vec<String>);

/// `memcheck,racecheck` (commas or spaces between): each a tool of [`TOOLS`], at least one.
fn parse_tools(list: &str) -> std::result::Result<Tools, String> {
    let tools: Vec<String> = list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(String::from)
        .collect();
    if tools.is_empty() {
        return Err(format!("no tool in the list; the tools are {}", TOOLS.join(", ")));
    }
    if let Some(bad) = tools.iter().find(|t| !TOOLS.contains(&t.as_str())) {
        return Err(format!("unknown tool `{bad}`; the tools are {}", TOOLS.join(", ")));
    }
    Ok(Tools(tools))
}

impl SanitizeOptions {
    /// What the test binary gets after its fixed arguments: `--exact`, the filters, then
    /// whatever followed `--`.
    pub fn test_binary_args(&self) -> Vec<String> {
        let exact = self.exact.then(|| "--exact".to_string());
        exact.into_iter().chain(self.filters.iter().cloned()).chain(self.test_args.iter().cloned()).collect()
    }
}

/// What `host sanitize` reads from its environment, gathered in one place (tests give their
/// own).
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// `$PATH`, where compute-sanitizer is looked for first.
    pub path: Option<OsString>,
    /// `$CUDA_HOME`: its `bin` is looked in next.
    pub cuda_home: Option<OsString>,
    /// `$GPU_KERNELS_PTX_DIR`: the PTX, when `--ptx-dir` is not given.
    pub ptx_dir: Option<OsString>,
    /// Whether the caller set racecheck's hazard buffer ([`RACECHECK_HAZARD_BUFFER`]).
    pub hazard_buffer_set: bool,
    /// The folder this executable is in: the bundle's defaults lie beside it.
    pub exe_dir: Option<PathBuf>,
}

impl Environment {
    /// This process's.
    pub fn current() -> Self {
        Self {
            path: std::env::var_os("PATH"),
            cuda_home: std::env::var_os("CUDA_HOME"),
            ptx_dir: std::env::var_os(PTX_DIR_ENV).filter(|d| !d.is_empty()),
            hazard_buffer_set: std::env::var_os(RACECHECK_HAZARD_BUFFER.0).is_some(),
            exe_dir: std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)),
        }
    }

    /// `name` beside this executable, or an error that says which option to pass.
    fn beside(&self, name: &str, option: &str) -> Result<PathBuf> {
        self.exe_dir.as_ref().map(|d| d.join(name)).ok_or_else(|| {
            Error::new(format!("sanitize: cannot tell where this executable is: pass {option}"))
        })
    }
}

/// `host sanitize`: `Ok(true)` when every run is clean, `Ok(false)` when one is not; an
/// error (exit status 2) when nothing could run.
pub fn run(options: &SanitizeOptions) -> Result<bool> {
    sanitize(options, &Environment::current(), &mut std::io::stdout())
}

/// [`run`] in `env`, the lines written to `out`.
pub fn sanitize(options: &SanitizeOptions, env: &Environment, out: &mut dyn Write) -> Result<bool> {
    let dirs = search_dirs(env.path.as_deref(), env.cuda_home.as_deref());
    let sanitizer = find_sanitizer(&dirs).ok_or_else(|| Error::new(MISSING))?;
    if options.check_only {
        return Ok(true);
    }
    let test_binary = match &options.tests {
        Some(path) => path.clone(),
        None => env.beside("tests/gpu", "--tests PATH")?,
    };
    if !plan::is_executable(&test_binary) {
        return Err(Error::new(format!(
            "sanitize: no GPU test binary at {} (pass --tests PATH; `cargo xtask sanitize` builds it and \
             passes it, `cargo xtask bundle` puts it in the bundle's tests/)",
            test_binary.display()
        )));
    }
    let ptx_dir = match (&options.ptx_dir, &env.ptx_dir) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => PathBuf::from(dir),
        (None, None) => env.beside("ptx", "--ptx-dir DIR")?,
    };
    let logs = match &options.logs {
        Some(dir) => dir.clone(),
        None => env.beside("sanitize", "--logs DIR")?,
    };
    std::fs::create_dir_all(&logs).map_err(|e| Error::new(format!("{}: {e}", logs.display())))?;
    let test_args = options.test_binary_args();
    let tools = &options.tool.0;

    eprintln!("compute-sanitizer: {}", sanitizer.display());
    eprintln!(
        "skipping all_kernels/n_past_2^32 under the sanitizers (16 GiB of input: hours, and shadow memory on top)"
    );
    if tools.iter().any(|t| t == "racecheck") {
        eprintln!(
            "racecheck skips {}: it runs only cuBLAS's kernels (vendor code)",
            RACECHECK_SKIPPED.join(", ")
        );
    }
    let mut run = |tool: &str, log: &Path, only: Option<&Path>| -> Result<bool> {
        let file = std::fs::File::create(log).map_err(|e| Error::new(format!("{}: {e}", log.display())))?;
        let stderr = file.try_clone().map_err(|e| Error::new(format!("{}: {e}", log.display())))?;
        let mut command = Command::new(&sanitizer);
        command.args(sanitizer_args(tool, &test_binary, &test_args)).env(PTX_DIR_ENV, &ptx_dir);
        if !env.hazard_buffer_set {
            let (buffer, size) = RACECHECK_HAZARD_BUFFER;
            command.env(buffer, size);
        }
        if let Some(only) = only {
            // Absolute, so that it holds wherever the tests look from.
            command.env(ONLY_TESTS_ENV, std::path::absolute(only).unwrap_or_else(|_| only.to_path_buf()));
        }
        let start = Instant::now();
        let status = command
            .stdout(file)
            .stderr(stderr)
            .status()
            .map_err(|e| Error::new(format!("could not start {}: {e}", sanitizer.display())))?;
        let seconds = start.elapsed().as_secs_f64();
        let text = std::fs::read(log).map_err(|e| Error::new(format!("{}: {e}", log.display())))?;
        let outcome = Outcome::from_log(tool, &String::from_utf8_lossy(&text), shell_status(status), seconds);
        writeln!(out, "{}", outcome.line(&log.display().to_string()))
            .and_then(|()| out.flush())
            .map_err(|e| Error::new(format!("writing the results: {e}")))?;
        Ok(outcome.passed())
    };
    let mut failed = 0;
    for tool in tools {
        let listed = if tool == "racecheck" {
            list_tests(&test_binary, tool, &test_args, &ptx_dir)?
        } else {
            Vec::new()
        };
        match parts(tool, &listed) {
            None => {
                eprintln!("running {tool} over the GPU tests ...");
                failed += usize::from(!run(tool, &logs.join(format!("{tool}.log")), None)?);
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
                        .map_err(|e| Error::new(format!("{}: {e}", names.display())))?;
                    eprintln!(
                        "running {tool} part {} of {}: {} to {} ...",
                        i + 1,
                        parts.len(),
                        part[0],
                        part[part.len() - 1]
                    );
                    failed +=
                        usize::from(!run(tool, &logs.join(format!("{tool}-{}.log", i + 1)), Some(&names))?);
                }
            }
        }
    }
    Ok(failed == 0)
}

/// The tests the binary would run under `tool` with `test_args` (its `--list`).
fn list_tests(test_binary: &Path, tool: &str, test_args: &[String], ptx_dir: &Path) -> Result<Vec<String>> {
    let output = Command::new(test_binary)
        .arg("--list")
        .args(binary_args(tool, test_args))
        .env(PTX_DIR_ENV, ptx_dir)
        .output()
        .map_err(|e| Error::new(format!("could not start {}: {e}", test_binary.display())))?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "listing the GPU tests ({} --list) failed: {}\n{}",
            test_binary.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(listed_tests(&String::from_utf8_lossy(&output.stdout)))
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

#[cfg(test)]
mod tests;
