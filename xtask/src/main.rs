//! Developer commands, run as `cargo xtask COMMAND` (an alias in `.cargo/config.toml`).
//!
//! - `build-ptx [--arch sm_80,sm_90,sm_90a]`: compiles the `kernels` crate to PTX, one file per
//!   arch, at `target/ptx/<arch>/kernels.ptx`, with the source fingerprint beside them.
//! - `bundle [--out DIR]`: a folder that runs the whole suite on a machine with an NVIDIA
//!   driver and no Rust toolchain (the host binary, the GPU test binaries, the PTX and a
//!   `run.sh`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The GPU architectures `build-ptx` targets by default: Ampere (A100, sm_80), Hopper
/// (H100/H200, sm_90), and Hopper's arch-specific sm_90a, which alone may hold `wgmma`
/// (its PTX runs only on compute capability 9.0; the host prefers it there). The host
/// loads the newest one that the device can run; the driver compiles PTX forward for newer
/// GPUs.
const DEFAULT_ARCHS: &[&str] = &["sm_80", "sm_90", "sm_90a"];

/// PTX ISA version written into each file. 7.8 is the oldest that knows sm_90, and every
/// driver since CUDA 11.8 (R520) loads it; a newer ISA would lock out older drivers for
/// nothing. sm_90a and its `wgmma` need 8.0 (CUDA 12.0 drivers and newer).
fn ptx_isa(arch: &str) -> &'static str {
    if arch.ends_with('a') { "ptx80" } else { "ptx78" }
}

const NVPTX_TARGET: &str = "nvptx64-nvidia-cuda";

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("build-ptx") => parse_archs(&args[1..]).and_then(|archs| build_ptx(&archs).map(|_| ())),
        Some("bundle") => parse_out(&args[1..]).and_then(|out| bundle(&out)),
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
  bundle [--out DIR]               host + GPU tests + PTX + run.sh in DIR (default dist/gpu-bundle)";

fn parse_archs(args: &[String]) -> Result<Vec<String>> {
    match args {
        [] => Ok(DEFAULT_ARCHS.iter().map(|a| a.to_string()).collect()),
        [flag, list] if flag == "--arch" => {
            let archs: Vec<String> = list.split(',').map(|a| a.trim().to_string()).collect();
            for arch in &archs {
                let number = arch.strip_prefix("sm_").unwrap_or("");
                let number = number.strip_suffix('a').unwrap_or(number);
                if number.len() < 2 || !number.chars().all(|c| c.is_ascii_digit()) || number < "80" {
                    return Err(format!(
                        "`{arch}` is not an arch these kernels support (they use cp.async and mma.sync): \
                         give sm_80 or newer, e.g. --arch sm_80,sm_90,sm_90a"
                    ));
                }
            }
            Ok(archs)
        }
        _ => Err(format!("build-ptx takes `--arch LIST` only\n\n{USAGE}")),
    }
}

fn parse_out(args: &[String]) -> Result<PathBuf> {
    match args {
        [] => Ok(repo_root().join("dist/gpu-bundle")),
        [flag, dir] if flag == "--out" => Ok(PathBuf::from(dir)),
        _ => Err(format!("bundle takes `--out DIR` only\n\n{USAGE}")),
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("repository root")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target"))
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(repo_root());
    cmd
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().map_err(|e| format!("could not start {what}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{what} failed ({status})")) }
}

fn capture(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd.output().map_err(|e| format!("could not start {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{what} failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The toolchain pieces the PTX build needs, checked up front so that a missing one is
/// named with the command that installs it.
struct Toolchain {
    llvm_bin: PathBuf,
}

fn check_toolchain() -> Result<Toolchain> {
    const INSTALL: &str =
        "run `rustup toolchain install` in the repository root (it reads rust-toolchain.toml)";
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = capture(Command::new(&rustc).arg("-vV").current_dir(repo_root()), "rustc")
        .map_err(|e| format!("{e}\nThe pinned nightly toolchain is missing: {INSTALL}."))?;
    if !version.contains("-nightly") {
        return Err(format!(
            "the kernels need a nightly rustc (abi_ptx, asm_experimental_arch), found:\n{version}\n{INSTALL}."
        ));
    }
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .ok_or("rustc -vV printed no host triple")?
        .to_string();
    let sysroot = PathBuf::from(capture(
        Command::new(&rustc).args(["--print", "sysroot"]).current_dir(repo_root()),
        "rustc --print sysroot",
    )?);
    if !sysroot.join("lib/rustlib/src/rust/library/core").is_dir() {
        return Err(format!(
            "the `rust-src` component is missing (the kernels build `core` from source for nvptx): \
             {INSTALL}, or `rustup component add rust-src`."
        ));
    }
    let llvm_bin = sysroot.join("lib/rustlib").join(&host).join("bin");
    for tool in ["llvm-link", "opt", "llc", "llvm-ar"] {
        if !llvm_bin.join(tool).is_file() {
            return Err(format!(
                "`{tool}` from the `llvm-tools` component is missing (the PTX link step uses it): \
                 {INSTALL}, or `rustup component add llvm-tools`."
            ));
        }
    }
    Ok(Toolchain { llvm_bin })
}

/// Builds the PTX for each arch; returns the folder holding `<arch>/kernels.ptx`.
fn build_ptx(archs: &[String]) -> Result<PathBuf> {
    let toolchain = check_toolchain()?;
    let root = repo_root();
    let target = target_dir();

    run(
        cargo().args(["build", "--quiet", "--release", "-p", "xtask", "--bin", "ptx-link"]),
        "building ptx-link",
    )?;
    let linker = target.join("release").join(format!("ptx-link{}", std::env::consts::EXE_SUFFIX));

    let ptx_root = target.join("ptx");
    for arch in archs {
        eprintln!("building PTX for {arch} ({})", ptx_isa(arch));
        let arch_target = target.join("kernels").join(arch);
        run(
            cargo()
                .args(["build", "--release", "--manifest-path"])
                .arg(root.join("kernels/Cargo.toml"))
                .args(["--target", NVPTX_TARGET, "-Zbuild-std=core", "--target-dir"])
                .arg(&arch_target)
                .env("RUSTFLAGS", format!("-C target-cpu={arch}"))
                // The ISA goes to the link step (llc), not to rustc: rustc warns that
                // `-C target-feature=+ptxNN` is unstable, and only llc writes `.version`.
                .env("PTX_LINK_ISA", ptx_isa(arch))
                .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER", &linker)
                .env("PTX_LINK_LLVM_BIN", &toolchain.llvm_bin),
            &format!("building the kernels for {arch}"),
        )?;
        let built = arch_target.join(NVPTX_TARGET).join("release/kernels.ptx");
        let dest = ptx_root.join(arch);
        std::fs::create_dir_all(&dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        std::fs::copy(&built, dest.join("kernels.ptx")).map_err(|e| format!("{}: {e}", built.display()))?;
    }
    let print = fingerprint::fingerprint(&root).map_err(|e| format!("reading the kernel sources: {e}"))?;
    std::fs::write(ptx_root.join(fingerprint::FINGERPRINT_FILE), format!("{print}\n"))
        .map_err(|e| format!("writing the fingerprint: {e}"))?;
    eprintln!("PTX written to {}", ptx_root.display());
    Ok(ptx_root)
}

/// Everything a GPU machine without Rust needs: PTX, host binary, GPU test binaries and a
/// script that runs them.
fn bundle(out: &Path) -> Result<()> {
    let ptx_root = build_ptx(&DEFAULT_ARCHS.iter().map(|a| a.to_string()).collect::<Vec<_>>())?;
    run(cargo().args(["build", "--release", "-p", "host"]), "building the host")?;
    let tests = test_binaries()?;

    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out.join("tests")).map_err(|e| format!("{}: {e}", out.display()))?;
    copy_dir(&ptx_root, &out.join("ptx"))?;
    let host = target_dir().join("release").join(format!("host{}", std::env::consts::EXE_SUFFIX));
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

const RUN_SCRIPT: &str = r#"#!/usr/bin/env bash
# Runs the GPU tests, then the whole benchmark suite, from this bundle.
#   ./run.sh                 tests, then `host` with default options
#   ./run.sh --tests-only    only the tests
#   ./run.sh -- ARGS...      tests, then `host ARGS...`
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export GPU_KERNELS_PTX_DIR="$here/ptx"
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

/// The GPU test executable (`cargo test --no-run --test gpu`), found from cargo's JSON
/// messages. (The CPU tests read the source tree and belong where it is.)
fn test_binaries() -> Result<Vec<(String, PathBuf)>> {
    let json = capture(
        cargo().args([
            "test",
            "--release",
            "-p",
            "tests",
            "--test",
            "gpu",
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
