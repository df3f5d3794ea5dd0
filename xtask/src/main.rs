//! Developer commands, run as `cargo xtask COMMAND` (an alias in `.cargo/config.toml`).
//!
//! - `build-ptx [--arch sm_80,sm_90,sm_90a]`: compiles the `kernels` crate to PTX, one file per
//!   arch, at `target/ptx/<arch>/kernels.ptx`, with the source fingerprint beside them. The
//!   host's build script runs the same build (the `ptx-builder` crate) by itself for the
//!   default archs; this command is for building explicitly and for other archs.
//! - `bundle [--out DIR]`: a folder that runs the whole suite on a machine with an NVIDIA
//!   driver and no Rust toolchain (the host binary, the GPU test binaries, the PTX and a
//!   `run.sh`; `run.sh --sanitize` runs the GPU tests under compute-sanitizer there).
//! - `sanitize [--tool LIST] [FILTER] [-- TEST-ARGS...]`: the GPU tests under
//!   compute-sanitizer's memcheck, racecheck, synccheck and initcheck, one line per tool
//!   (`host sanitize`, built and run in release, after the GPU tests' build: [`sanitize`]).
//! - `sass STEP [--arch sm_90a] [--top N]`: the SASS instruction mix of a ladder step and of
//!   its CUDA C++ twin side by side (`host sass`, built and run in release).
//! - `results [--check]`: the results pages `docs/results/<gpu>.md`, from the committed
//!   records in `docs/results/<gpu>/` ([`book`]).
//! - `book [--out DIR] [--screenshot [PNG]]`: the course as a book (mdBook), generated from
//!   the sources into `target/book`; `--screenshot` keeps a PNG of a chapter
//!   (`docs/book-chapter.png`), taken by headless Chromium ([`book`]).

mod book;
mod sanitize;

use ptx_builder::Workspace;
use ptx_builder::nested::capture;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("build-ptx") => Workspace::locate().and_then(|ws| {
            parse_archs(&args[1..]).and_then(|archs| ptx_builder::build(&ws, &archs)).map(|_| ())
        }),
        Some("bundle") => {
            Workspace::locate().and_then(|ws| parse_out(&ws, &args[1..]).and_then(|out| bundle(&ws, &out)))
        }
        Some("sanitize") => match Workspace::locate().and_then(|ws| sanitize::sanitize(&ws, &args[1..])) {
            // `host sanitize` has said what went wrong: its exit status is the answer.
            Ok(status) => return status,
            Err(e) => Err(e),
        },
        Some("sass") => Workspace::locate().and_then(|ws| sass(&ws, &args[1..])),
        Some("results") => Workspace::locate().and_then(|ws| book::results(&ws, &args[1..])),
        Some("book") => Workspace::locate().and_then(|ws| book::book(&ws, &args[1..])),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <command>

commands:
  build-ptx [--arch LIST]          compile kernels/ to target/ptx/<arch>/kernels.ptx
  bundle [--out DIR]               host + GPU tests + PTX + run.sh in DIR (default dist/gpu-bundle)
  sanitize [--tool LIST] [FILTER] [--exact] [-- TEST-ARGS...]
                                   the GPU tests under compute-sanitizer (memcheck, racecheck,
                                   synccheck, initcheck): one line per tool, logs in target/sanitize
                                   (`host sanitize`; see `cargo xtask sanitize --help`)
  sass STEP [--arch A] [--top N]   SASS instruction counts of a step and its C++ twin, side by side
                                   (needs ptxas, cuobjdump and NVRTC; no GPU)
  results [--check]                docs/results/<gpu>.md from the records in docs/results/<gpu>/
                                   (--check: write nothing, fail if a page is not up to date)
  book [--out DIR] [--screenshot [PNG]]
                                   the course as a book in DIR (default target/book); --screenshot:
                                   a PNG of a chapter (default docs/book-chapter.png), by Chromium";

/// `cargo xtask sass …`: `host sass …`, through cargo so that the host and its PTX are
/// current.
fn sass(ws: &Workspace, args: &[String]) -> Result<()> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&ws.root)
        .args(["run", "--quiet", "-p", "host", "--release", "--", "sass"])
        .args(args)
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if status.success() { Ok(()) } else { Err("`host sass` failed (its error is above)".into()) }
}

fn parse_archs(args: &[String]) -> Result<Vec<String>> {
    match args {
        [] => Ok(ptx_builder::arch::default_archs()),
        // Each arch is checked by the build.
        [flag, list] if flag == "--arch" => Ok(list.split(',').map(|a| a.trim().to_string()).collect()),
        _ => Err(format!("build-ptx takes `--arch LIST` only\n\n{USAGE}")),
    }
}

fn parse_out(ws: &Workspace, args: &[String]) -> Result<PathBuf> {
    match args {
        [] => Ok(ws.root.join("dist/gpu-bundle")),
        [flag, dir] if flag == "--out" => Ok(PathBuf::from(dir)),
        _ => Err(format!("bundle takes `--out DIR` only\n\n{USAGE}")),
    }
}

pub(crate) fn cargo(ws: &Workspace) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(&ws.root);
    cmd
}

pub(crate) fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().map_err(|e| format!("could not start {what}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{what} failed ({status})")) }
}

/// Everything a GPU machine without Rust needs: PTX, host binary, GPU test binaries and a
/// script that runs them.
fn bundle(ws: &Workspace, out: &Path) -> Result<()> {
    ptx_builder::build(ws, &ptx_builder::arch::default_archs())?;
    let ptx_root = ws.ptx_dir();
    run(cargo(ws).args(["build", "--release", "-p", "host"]), "building the host")?;
    let tests = test_binaries(ws)?;

    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out.join("tests")).map_err(|e| format!("{}: {e}", out.display()))?;
    copy_dir(&ptx_root, &out.join("ptx"))?;
    let host = ws.target.join("release").join(format!("host{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&host, out.join("host")).map_err(|e| format!("{}: {e}", host.display()))?;
    for (name, path) in &tests {
        std::fs::copy(path, out.join("tests").join(name)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let script = out.join("run.sh");
    std::fs::write(&script, RUN_SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    set_executable(&script)?;
    eprintln!("bundle written to {} (run: {}/run.sh)", out.display(), out.display());
    Ok(())
}

/// The bundle's `run.sh`. `--sanitize` is `host sanitize` (`host/src/sanitize/`) with the
/// bundle's paths.
const RUN_SCRIPT: &str = r#"#!/usr/bin/env bash
# Runs the GPU tests, then the whole benchmark suite, from this bundle.
#   ./run.sh                 tests, then `host` with default options
#   ./run.sh --tests-only    only the tests
#   ./run.sh -- ARGS...      tests, then `host ARGS...`
#   ./run.sh --sanitize [--tool memcheck,racecheck] [FILTER] [--exact] [-- TEST-ARGS...]
#                            the GPU tests under compute-sanitizer (default: memcheck, racecheck,
#                            synccheck, initcheck), one line per tool: `host sanitize` (its
#                            --help says more), as `cargo xtask sanitize` runs it; full logs in
#                            sanitize/ here (or $SANITIZE_LOGS); exit 0 when every tool is
#                            clean, 1 when one is not, 2 when none could run
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export GPU_KERNELS_PTX_DIR="$here/ptx"
# NVLink multicast (NCCL's NVLS) stays off unless asked for: the host sets it for its own
# communicators too; this covers everything else the script starts.
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
# The tests of whole runs (tests/runs) start this bundle's host binary.
export HOST_BIN="$here/host"
if [ "${1:-}" = "--sanitize" ]; then
  shift
  exec "$here/host" sanitize --tests "$here/tests/gpu" --ptx-dir "$here/ptx" --logs "${SANITIZE_LOGS:-$here/sanitize}" "$@"
fi
status=0
for t in "$here"/tests/*; do
  echo "== $(basename "$t")"
  "$t" --test-threads=1 || status=1
done
if [ "${1:-}" = "--tests-only" ]; then exit $status; fi
[ "${1:-}" = "--" ] && shift
echo "== host $*"
"$here/host" "$@" || status=1
exit $status
"#;

/// The GPU test executables (`cargo test --no-run`: the kernels' `gpu` tests and the whole
/// runs of the host binary, `runs`), found from cargo's JSON messages. (The CPU tests read
/// the source tree and belong where it is.)
fn test_binaries(ws: &Workspace) -> Result<Vec<(String, PathBuf)>> {
    let json = capture(
        cargo(ws).args([
            "test",
            "--release",
            "-p",
            "tests",
            "-p",
            "host",
            "--test",
            "gpu",
            "--test",
            "runs",
            "--no-run",
            "--message-format=json",
        ]),
        "building the GPU tests",
    )?;
    let mut found = Vec::new();
    for line in json.lines() {
        if !line.contains("\"profile\"") || !line.contains("\"test\":true") {
            continue;
        }
        let (Some(name), Some(exe)) = (json_str(line, "\"name\":\""), json_str(line, "\"executable\":\""))
        else {
            continue;
        };
        if line.contains("\"kind\":[\"test\"]") {
            found.push((name, PathBuf::from(exe)));
        }
    }
    if found.is_empty() {
        return Err("cargo test --no-run produced no test binaries for the `tests` package".into());
    }
    Ok(found)
}

/// The string value after `key` in one line of cargo's JSON (paths and target names hold
/// no quotes or escapes here).
fn json_str(line: &str, key: &str) -> Option<String> {
    let start = line.find(key)? + key.len();
    let len = line[start..].find('"')?;
    Some(line[start..start + len].to_string())
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let dest = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest).map_err(|e| format!("{}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(|e| e.to_string())
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated run.sh is valid bash.
    #[test]
    fn run_script_parses() {
        let Ok(out) = Command::new("bash").arg("-n").arg("-c").arg(RUN_SCRIPT).output() else {
            eprintln!("no bash here: run.sh is not checked");
            return;
        };
        assert!(out.status.success(), "bash -n: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// `run.sh --sanitize ARGS` is `host sanitize` with the bundle's paths, then ARGS as they
    /// were given, and exits with its status; `$SANITIZE_LOGS` moves the logs.
    #[test]
    fn run_script_forwards_sanitize_to_the_host() {
        assert!(RUN_SCRIPT.contains("exec \"$here/host\" sanitize "));
        let dir = std::env::temp_dir().join(format!("xtask-run-sh-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("run.sh");
        std::fs::write(&script, RUN_SCRIPT).unwrap();
        // A fake host: prints its arguments, one a line, and exits 7.
        let host = dir.join("host");
        std::fs::write(&host, "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\"\nexit 7\n").unwrap();
        set_executable(&host).unwrap();
        let run = |logs: Option<&str>| {
            let mut cmd = Command::new("bash");
            cmd.arg(&script).args(["--sanitize", "--tool", "memcheck", "g10 x", "--", "--skip", "a b"]);
            match logs {
                Some(logs) => cmd.env("SANITIZE_LOGS", logs),
                None => cmd.env_remove("SANITIZE_LOGS"),
            };
            cmd.output()
        };
        let Ok(out) = run(None) else {
            eprintln!("no bash here: run.sh is not checked");
            return;
        };
        // bash's `pwd` gives the folder as the script was found in it.
        let here = dir.display().to_string();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let expected = [
            "sanitize".to_string(),
            "--tests".into(),
            format!("{here}/tests/gpu"),
            "--ptx-dir".into(),
            format!("{here}/ptx"),
            "--logs".into(),
            format!("{here}/sanitize"),
            "--tool".into(),
            "memcheck".into(),
            "g10 x".into(),
            "--".into(),
            "--skip".into(),
            "a b".into(),
        ];
        assert_eq!(stdout.lines().collect::<Vec<_>>(), expected, "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(7), "the host's status");
        let moved = run(Some("/var/tmp/logs")).unwrap();
        let moved = String::from_utf8_lossy(&moved.stdout);
        assert_eq!(moved.lines().nth(6), Some("/var/tmp/logs"), "{moved}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
