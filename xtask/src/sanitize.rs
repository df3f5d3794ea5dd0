//! `cargo xtask sanitize [--tool LIST] [FILTER] [--exact] [-- TEST-ARGS...]`: the GPU tests
//! under compute-sanitizer's tools, one line per tool, through the project's one sanitizer
//! driver, `host sanitize` (`host/src/sanitize/`: the runs, the patterns read from the logs,
//! the pass rules, and why racecheck runs in parts). The bundle's `run.sh --sanitize` runs
//! the same `host sanitize` with the bundle's paths.
//!
//! Here: build the host (release), let `host sanitize --check-only` check the options and
//! find compute-sanitizer before the long build, build the PTX (if stale) and the GPU test
//! binary as `cargo xtask bundle` does, then run `host sanitize --tests <gpu tests>
//! --ptx-dir target/ptx --logs target/sanitize` with the caller's arguments. The exit status
//! is `host sanitize`'s: 0 when every run is clean, 1 when one is not, 2 when nothing could
//! run (1 also when a build fails).

use crate::{Result, cargo, run};
use ptx_builder::Workspace;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// `cargo xtask sanitize ARGS`.
pub fn sanitize(ws: &Workspace, args: &[String]) -> Result<ExitCode> {
    sanitize_status(ws, args).map(ExitCode::from)
}

/// [`sanitize`]'s exit status.
fn sanitize_status(ws: &Workspace, args: &[String]) -> Result<u8> {
    run(cargo(ws).args(["build", "--quiet", "--release", "-p", "host"]), "building the host")?;
    let host = ws.target.join("release").join(format!("host{}", std::env::consts::EXE_SUFFIX));
    let help = args.iter().take_while(|a| *a != "--").any(|a| a == "-h" || a == "--help");
    if help {
        return host_sanitize(ws, &host, &[], args);
    }
    let checked = host_sanitize(ws, &host, &["--check-only".into()], args)?;
    if checked != 0 {
        return Ok(checked);
    }

    ptx_builder::ensure(ws, &ptx_builder::arch::default_archs())?;
    let tests = crate::test_binaries(ws)?;
    let (_, test_binary) = tests
        .iter()
        .find(|(name, _)| name == "gpu")
        .ok_or("cargo test --no-run built no `gpu` test binary")?;
    host_sanitize(ws, &host, &paths(ws, test_binary), args)
}

/// The paths `host sanitize` is given: the GPU test binary, the PTX and the logs'
/// folder (`target/sanitize`, relative to the workspace root when it is under it, so that the
/// lines name the logs short).
fn paths(ws: &Workspace, test_binary: &Path) -> Vec<OsString> {
    let logs = ws.target.join("sanitize");
    let logs = logs.strip_prefix(&ws.root).map(Path::to_path_buf).unwrap_or(logs);
    let pairs: [(&str, PathBuf); 3] =
        [("--tests", test_binary.to_path_buf()), ("--ptx-dir", ws.ptx_dir()), ("--logs", logs)];
    pairs.into_iter().flat_map(|(flag, path)| [OsString::from(flag), path.into_os_string()]).collect()
}

/// `host sanitize OURS ARGS` from the workspace root; its exit status.
fn host_sanitize(ws: &Workspace, host: &Path, ours: &[OsString], args: &[String]) -> Result<u8> {
    let status = Command::new(host)
        .current_dir(&ws.root)
        .arg("sanitize")
        .args(ours)
        .args(args)
        .status()
        .map_err(|e| format!("could not start {}: {e}", host.display()))?;
    // Killed by a signal (no code): a failure.
    Ok(status.code().map_or(1, |code| u8::try_from(code).unwrap_or(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The caller's arguments come after the paths, so that its own `--logs` would win.
    #[test]
    fn host_gets_the_workspace_paths() {
        let ws = Workspace { root: "/r".into(), target: "/r/target".into() };
        let args = paths(&ws, Path::new("/r/target/release/deps/gpu-0123"));
        let expected =
            "--tests /r/target/release/deps/gpu-0123 --ptx-dir /r/target/ptx --logs target/sanitize";
        assert_eq!(args, expected.split(' ').map(OsString::from).collect::<Vec<_>>());
        let elsewhere = Workspace { root: "/r".into(), target: "/t".into() };
        assert_eq!(paths(&elsewhere, Path::new("g"))[5], OsString::from("/t/sanitize"));
    }
}
