//! The kernels' PTX build, in one place.
//!
//! Two callers run it: `cargo xtask build-ptx` (explicitly, for any arch) and the host's
//! build script (by itself, for the default archs, whenever `cargo test` or `cargo run`
//! builds the host), so a fresh clone needs no command before those two. Both go through
//! [`build`]; the build script goes through [`ensure`] first, which builds nothing when
//! the PTX already matches the sources. The steps:
//!
//! 1. [`toolchain::check`]: the nightly rustc, `rust-src` and `llvm-tools`, each named with
//!    the command that installs it when missing;
//! 2. [`link_step::build`]: the `ptx-link` binary (the nvptx link step) in a target dir of
//!    its own, so that a build script never waits on the lock of the build that runs it;
//! 3. [`kernels::build_all`]: `kernels/` once per arch, in parallel, each in
//!    `target/kernels/<arch>`, by a nested cargo whose environment is cleaned of the outer
//!    build's ([`nested`]);
//! 4. [`stamp`]: each arch's PTX copied to `target/ptx/<arch>/kernels.ptx` with the source
//!    fingerprint it was built from, then the fingerprint the host checks,
//!    `target/ptx/fingerprint`.

pub mod arch;
pub mod kernels;
pub mod link_step;
pub mod nested;
pub mod stamp;
pub mod toolchain;

pub use arch::{DEFAULT_ARCHS, check_arch};
pub use stamp::Freshness;

use std::path::{Path, PathBuf};
use std::time::Instant;

/// Every failure is a message for the person who ran the build.
pub type Result<T> = std::result::Result<T, String>;

/// Where the build reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    /// The repository root (`kernels/`, `common/` and `ptx-builder/` are under it).
    pub root: PathBuf,
    /// Cargo's target dir: `$CARGO_TARGET_DIR` (relative to the root when relative), or
    /// `<root>/target`. The host's build script bakes the resulting PTX folder into the
    /// host (`host::ptx::BUILT_DIR`), so the host looks where this build wrote.
    pub target: PathBuf,
}

impl Workspace {
    /// This repository, found from where this crate lies (it is a workspace member), and
    /// its target dir.
    pub fn locate() -> Result<Self> {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = here
            .parent()
            .ok_or("ptx-builder has no parent folder")?
            .canonicalize()
            .map_err(|e| format!("finding the repository root from {}: {e}", here.display()))?;
        let target = match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) if !dir.is_empty() => root.join(dir),
            _ => root.join("target"),
        };
        Ok(Self { root, target })
    }

    /// `target/ptx`: one folder per arch, and the fingerprint the host checks.
    pub fn ptx_dir(&self) -> PathBuf {
        self.target.join("ptx")
    }
}

/// Builds the PTX of `archs` (each checked by [`check_arch`]) and stamps it with the
/// fingerprint of the sources it was built from; returns that fingerprint. Cargo's own
/// incremental builds make a build of unchanged sources quick (seconds), but it always runs.
pub fn build(ws: &Workspace, archs: &[String]) -> Result<String> {
    for arch in archs {
        check_arch(arch)?;
    }
    let toolchain = toolchain::check(&ws.root)?;
    // Hashed before the build: a source edited while it runs leaves a stamp that no longer
    // matches, so the next build runs again instead of trusting PTX of older sources.
    let print = stamp::current(&ws.root)?;
    let linker = link_step::build(ws, &toolchain)?;
    kernels::build_all(ws, &toolchain, &linker, archs, &print)?;
    stamp::write_fingerprint(&ws.ptx_dir(), &print)?;
    eprintln!("PTX written to {}", ws.ptx_dir().display());
    Ok(print)
}

/// What [`ensure`] did.
#[derive(Debug, PartialEq)]
pub enum Ensured {
    /// The PTX already matched the sources; nothing ran.
    Fresh { fingerprint: String },
    /// The PTX was missing or stale (`reason`) and was built.
    Built { fingerprint: String, reason: String, seconds: f64 },
}

impl Ensured {
    /// The fingerprint of the sources the PTX now comes from.
    pub fn fingerprint(&self) -> &str {
        match self {
            Ensured::Fresh { fingerprint } | Ensured::Built { fingerprint, .. } => fingerprint,
        }
    }
}

/// Builds the PTX of `archs` only if it is missing or was built from other sources than
/// the ones in the tree; only the stale archs are rebuilt. The host's build script calls
/// this on every run it gets.
pub fn ensure(ws: &Workspace, archs: &[String]) -> Result<Ensured> {
    let ptx = ws.ptx_dir();
    let print = stamp::current(&ws.root)?;
    let reason = match stamp::freshness(&ptx, archs, &print) {
        Freshness::Fresh => return Ok(Ensured::Fresh { fingerprint: print }),
        Freshness::Stale(reason) => reason,
    };
    let start = Instant::now();
    let stale: Vec<String> = archs
        .iter()
        .filter(|arch| stamp::arch_freshness(&ptx, arch, &print) != Freshness::Fresh)
        .cloned()
        .collect();
    let fingerprint = if stale.is_empty() {
        // Every arch is fresh and only the shared fingerprint is not (a build stopped
        // just before writing it): writing it is all that is left.
        stamp::write_fingerprint(&ptx, &print)?;
        print
    } else {
        build(ws, &stale)?
    };
    Ok(Ensured::Built { fingerprint, reason, seconds: start.elapsed().as_secs_f64() })
}
