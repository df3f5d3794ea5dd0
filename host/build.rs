//! Builds the kernels' PTX when it is missing or older than the kernel sources, and bakes
//! into the host what it needs to find and trust it: the source fingerprint (see the
//! `fingerprint` crate) and the folder the PTX was written to.
//!
//! This is what lets `cargo test` and `cargo run -p host` work on a fresh clone with no
//! command before them: the same build as `cargo xtask build-ptx` (the `ptx-builder`
//! crate), for the default archs, and nothing at all when the PTX already matches the
//! sources (a hash of them, a few milliseconds).

use ptx_builder::{Ensured, Workspace};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // `cargo::error` puts the first line at the top of cargo's report; the whole
            // message (a compiler error, the command that installs a component) follows
            // under `--- stderr`.
            let first = e.lines().next().unwrap_or("");
            println!("cargo::error=building the kernels' PTX: {first}");
            eprintln!("error: building the kernels' PTX: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> ptx_builder::Result<()> {
    let ws = Workspace::locate()?;
    let ptx_dir = ws.ptx_dir();
    // Rerun on any kernel source change, on a changed target dir, and when an output is
    // deleted or overwritten (a missing file always reruns). A rerun with nothing to do
    // costs only the hash.
    for source in fingerprint::KERNEL_SOURCES {
        println!("cargo::rerun-if-changed={}", ws.root.join(source).display());
    }
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_DIR");
    println!("cargo::rerun-if-changed={}", ptx_dir.join(fingerprint::FINGERPRINT_FILE).display());
    for arch in ptx_builder::DEFAULT_ARCHS {
        println!("cargo::rerun-if-changed={}", ptx_dir.join(arch).join("kernels.ptx").display());
        println!(
            "cargo::rerun-if-changed={}",
            ptx_dir.join(arch).join(fingerprint::FINGERPRINT_FILE).display()
        );
    }

    let ensured = ptx_builder::ensure(&ws, &ptx_builder::arch::default_archs())?;
    if let Ensured::Built { reason, seconds, .. } = &ensured {
        eprintln!("built the PTX ({reason}) in {seconds:.0} s");
    }
    println!("cargo::rustc-env=KERNEL_SOURCE_FINGERPRINT={}", ensured.fingerprint());
    println!("cargo::rustc-env=KERNEL_PTX_DIR={}", ptx_dir.display());
    embed_twins(&ws.root.join("twins"))
}

/// Writes `$OUT_DIR/twin_sources.rs`: every CUDA C++ twin (`twins/<family>/*.cu`, every
/// folder of `twins/`) and shared header (`twins/*.cuh`) as `include_str!` entries, so that
/// the host carries the twins' source and a twin (or a family's folder of them) is added by
/// adding its file.
fn embed_twins(dir: &std::path::Path) -> ptx_builder::Result<()> {
    println!("cargo::rerun-if-changed={}", dir.display());
    let listing = |dir: &std::path::Path, ext: &str| -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == ext));
        files.sort();
        files
    };
    let entry = |path: &std::path::Path| {
        let relative = path.strip_prefix(dir).expect("under twins/").to_string_lossy().replace('\\', "/");
        format!(
            "    Source {{ path: {relative:?}, text: include_str!({:?}) }},\n",
            path.display().to_string()
        )
    };
    let mut code =
        String::from("/// Every twin, by path under `twins/`.\npub const SOURCES: &[Source] = &[\n");
    let mut folders: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    folders.sort();
    for folder in &folders {
        println!("cargo::rerun-if-changed={}", folder.display());
        for file in listing(folder, "cu") {
            code += &entry(&file);
        }
    }
    code += "];\n/// The headers the twins include, by file name.\npub const HEADERS: &[Source] = &[\n";
    for file in listing(dir, "cuh") {
        code += &entry(&file);
    }
    code += "];\n";
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("twin_sources.rs"), code).map_err(|e| format!("writing twin_sources.rs: {e}"))
}
