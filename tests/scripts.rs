//! The bench scripts' own checks: each Python script the GPU machine's runs call
//! (`bench/attention-sdpa.py`, `bench/allreduce-torch.py`, `bench/power-trace.py`,
//! `bench/ncu-diff.py`, `bench/gemm-triton.py`) has a `--self-test` of the parts that need
//! neither torch nor a GPU (records in and out, percentages, tables, headers, an nvidia-smi
//! trace read against the kernels' windows, ncu's raw pages side by side, a tile search's
//! grid and a PTX's instructions counted). Run
//! here with the machine's `python3`; where there is none, each is reported as ignored with
//! the reason (the harness is libtest-mimic, so that this is decided at run time).

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The scripts with a `--self-test`, relative to the repository's root.
const SCRIPTS: &[&str] = &[
    "bench/attention-sdpa.py",
    "bench/allreduce-torch.py",
    "bench/power-trace.py",
    "bench/ncu-diff.py",
    "bench/gemm-triton.py",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Why the scripts cannot run here, if they cannot: no `python3` on the PATH.
fn python_absent_reason() -> Option<String> {
    match Command::new("python3").arg("--version").output() {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!("`python3 --version` exited with {}", out.status)),
        Err(e) => Some(format!("no python3 on the PATH ({e})")),
    }
}

/// Runs `script --self-test`; fails with its output unless it exits 0 and says it passed.
fn self_test(script: &str) -> Result<(), Failed> {
    let out = Command::new("python3")
        .arg(root().join(script))
        .arg("--self-test")
        .current_dir(root())
        .output()
        .map_err(|e| format!("running python3 {script} --self-test: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() && text.contains("self-test") {
        Ok(())
    } else {
        Err(format!("python3 {script} --self-test exited with {}:\n{text}", out.status).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let absent = python_absent_reason();
    if let Some(reason) = &absent {
        eprintln!("bench script self-tests ignored: {reason}");
    }
    let trials = SCRIPTS
        .iter()
        .map(|&script| {
            let name = format!("{}/self_test", script.trim_start_matches("bench/").trim_end_matches(".py"));
            Trial::test(name, move || self_test(script)).with_ignored_flag(absent.is_some())
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
