//! Builds `kernels/` to PTX for each arch, in parallel.
//!
//! Each arch is a separate nested cargo with its own target dir (`target/kernels/<arch>`):
//! the archs share nothing, so they run side by side (on many cores the first build takes
//! about as long as one arch), and none touches the outer build's target dir and its lock.
//! Their output is captured and shown only when one fails, so three builds do not
//! interleave their lines.

use crate::arch::ptx_isa;
use crate::nested;
use crate::stamp;
use crate::toolchain::Toolchain;
use crate::{Result, Workspace};
use std::path::Path;
use std::time::Instant;

const NVPTX_TARGET: &str = "nvptx64-nvidia-cuda";

/// Builds every arch of `archs` with `linker` as the link step, copies each PTX to
/// `target/ptx/<arch>/kernels.ptx` and stamps it with `fingerprint`. The first failure
/// (in `archs` order) is returned with its build's full output.
pub fn build_all(
    ws: &Workspace,
    toolchain: &Toolchain,
    linker: &Path,
    archs: &[String],
    fingerprint: &str,
) -> Result<()> {
    if archs.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = archs.iter().map(|a| format!("{a} ({})", ptx_isa(a))).collect();
    eprintln!("building PTX for {} (first build: a minute or two)", names.join(", "));
    let outcomes: Vec<Result<()>> = std::thread::scope(|scope| {
        let builds: Vec<_> = archs
            .iter()
            .map(|arch| scope.spawn(move || build_one(ws, toolchain, linker, arch, fingerprint)))
            .collect();
        builds
            .into_iter()
            .zip(archs)
            .map(|(build, arch)| {
                build.join().unwrap_or_else(|_| Err(format!("the build thread for {arch} panicked")))
            })
            .collect()
    });
    let failed: Vec<&String> =
        archs.iter().zip(&outcomes).filter(|(_, o)| o.is_err()).map(|(a, _)| a).collect();
    match outcomes.into_iter().find_map(Result::err) {
        None => Ok(()),
        Some(first) if failed.len() == 1 => Err(first),
        Some(first) => Err(format!(
            "{first}\n(the build failed for {} too; the output above is {}'s)",
            failed[1..].iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", "),
            failed[0]
        )),
    }
}

/// One arch: the nested cargo build, the copy to `target/ptx/<arch>`, the stamp.
fn build_one(
    ws: &Workspace,
    toolchain: &Toolchain,
    linker: &Path,
    arch: &str,
    fingerprint: &str,
) -> Result<()> {
    let start = Instant::now();
    let arch_target = ws.target.join("kernels").join(arch);
    let out = nested::cargo(ws, toolchain)
        .args(["build", "--release", "--manifest-path"])
        .arg(ws.root.join("kernels/Cargo.toml"))
        .args(["--target", NVPTX_TARGET, "-Zbuild-std=core", "--target-dir"])
        .arg(&arch_target)
        .env("RUSTFLAGS", format!("-C target-cpu={arch}"))
        // The ISA goes to the link step (llc), not to rustc: rustc warns that
        // `-C target-feature=+ptxNN` is unstable, and only llc writes `.version`.
        .env("PTX_LINK_ISA", ptx_isa(arch))
        .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER", linker)
        .env("PTX_LINK_LLVM_BIN", &toolchain.llvm_bin)
        .output()
        .map_err(|e| format!("could not start cargo to build the kernels for {arch}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the kernels for {arch} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    // A build that succeeds with warnings says so: kept quiet, they would pile up unseen.
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("warning:") {
        eprintln!("the kernels for {arch} built with warnings:\n{}", stderr.trim_end());
    }
    let built = arch_target.join(NVPTX_TARGET).join("release/kernels.ptx");
    stamp::install(&ws.ptx_dir(), arch, &built, fingerprint)?;
    eprintln!("  {arch}: {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
