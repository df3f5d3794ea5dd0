//! Finding the PTX that fits the device, and refusing a stale one.
//!
//! The PTX build (run by the host's build script, or by `cargo xtask build-ptx`) writes
//! `target/ptx/<arch>/kernels.ptx` for each arch and a `fingerprint` of the kernel sources
//! beside them. The host was built with the fingerprint of the sources it was compiled next
//! to; if the two differ, the PTX is older (or newer) than the kernels a reader sees, and
//! the host stops.

use crate::base::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Environment variable that overrides where the PTX folders are (the GPU bundle sets it).
pub const PTX_DIR_ENV: &str = "GPU_KERNELS_PTX_DIR";

/// The fingerprint of the kernel sources this host binary was built with.
pub const SOURCE_FINGERPRINT: &str = env!("KERNEL_SOURCE_FINGERPRINT");

/// The folder the build script built the PTX in (`target/ptx`, under `$CARGO_TARGET_DIR`
/// when that is set).
pub const BUILT_DIR: &str = env!("KERNEL_PTX_DIR");

/// Where to look for the PTX: `--ptx-dir`, then `$GPU_KERNELS_PTX_DIR`, then `ptx/` beside
/// the executable (a bundle), then where the build script built it ([`BUILT_DIR`]).
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(PTX_DIR_ENV) {
        return PathBuf::from(dir);
    }
    if let Some(beside) = std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.join("ptx")))
        && beside.is_dir()
    {
        return beside;
    }
    PathBuf::from(BUILT_DIR)
}

/// A PTX target: `sm_XY`, which the driver compiles forward for any GPU of compute
/// capability ≥ X.Y, or the arch-specific `sm_XYa`, which runs on X.Y only and may hold
/// that generation's own instructions (sm_90a: `wgmma`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Arch {
    /// Compute capability ×10 (sm_90 → 90).
    pub number: u32,
    /// The `a` suffix.
    pub specific: bool,
}

impl Arch {
    pub const fn new(number: u32, specific: bool) -> Self {
        Self { number, specific }
    }

    /// `sm_90` → 90, `sm_90a` → 90 specific; `None` for anything else.
    pub fn parse(name: &str) -> Option<Self> {
        let digits = name.strip_prefix("sm_")?;
        let (digits, specific) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        Some(Self::new(digits.parse().ok()?, specific))
    }

    /// Whether a device of compute capability `major.minor` runs this PTX.
    pub fn runs_on(self, major: u32, minor: u32) -> bool {
        let device = major * 10 + minor;
        if self.specific { self.number == device } else { self.number <= device }
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sm_{}{}", self.number, if self.specific { "a" } else { "" })
    }
}

/// The archs with a built PTX in `dir`, oldest first (sm_90 before sm_90a).
pub fn available_archs(dir: &Path) -> Vec<Arch> {
    let mut archs: Vec<Arch> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let arch = Arch::parse(&entry.file_name().into_string().ok()?)?;
            entry.path().join("kernels.ptx").is_file().then_some(arch)
        })
        .collect();
    archs.sort_unstable();
    archs
}

/// The newest built arch that a device of compute capability `major.minor` can run; of
/// two with the same number, the arch-specific one (it holds every kernel of the other
/// and those that need the generation's own instructions).
pub fn pick_arch(available: &[Arch], major: u32, minor: u32) -> Option<Arch> {
    available.iter().copied().filter(|a| a.runs_on(major, minor)).max()
}

/// Reads the PTX for a device of compute capability `major.minor` from `dir`, after
/// checking that it exists, fits the device and matches the kernel sources.
pub fn load(dir: &Path, major: u32, minor: u32) -> Result<(Arch, String)> {
    let archs = available_archs(dir);
    if archs.is_empty() {
        return Err(Error::new(format!(
            "no PTX found in {}: build it with `cargo xtask build-ptx` (building the host also builds it, in {BUILT_DIR}), or point --ptx-dir / {PTX_DIR_ENV} at it",
            dir.display()
        )));
    }
    let Some(arch) = pick_arch(&archs, major, minor) else {
        let built: Vec<String> = archs.iter().map(Arch::to_string).collect();
        return Err(Error::new(format!(
            "the device is sm_{major}{minor} but the PTX was built for {} only; the kernels need sm_80 or newer \
             (they use cp.async and mma.sync); for a newer device, `cargo xtask build-ptx --arch sm_{major}{minor}`",
            built.join(", ")
        )));
    };
    check_fingerprint(dir)?;
    let path = dir.join(arch.to_string()).join("kernels.ptx");
    let text =
        std::fs::read_to_string(&path).map_err(|e| Error::new(format!("reading {}: {e}", path.display())))?;
    Ok((arch, text))
}

fn check_fingerprint(dir: &Path) -> Result<()> {
    let path = dir.join(fingerprint::FINGERPRINT_FILE);
    let found = std::fs::read_to_string(&path).map(|s| s.trim().to_string()).unwrap_or_default();
    if found != SOURCE_FINGERPRINT {
        return Err(Error::new(format!(
            "the PTX in {} was not built from the kernel sources this program was built with \
             (fingerprint {:?}, expected {SOURCE_FINGERPRINT}): rebuild the host (`cargo build -p host --release` \
             rebuilds the PTX in target/ptx when it is stale), or build this folder's PTX with `cargo xtask build-ptx`",
            dir.display(),
            found
        )));
    }
    Ok(())
}

/// Why a step whose entry points live in the PTX for `arch` cannot run on a device of
/// compute capability `major.minor` that loaded the PTX for `loaded`, or `None` when it can.
pub fn unavailable(id: &str, arch: Arch, (major, minor): (u32, u32), loaded: Arch) -> Option<String> {
    if !arch.runs_on(major, minor) {
        let range = if arch.specific { "exactly" } else { "or newer" };
        return Some(format!(
            "{id} needs {arch} (compute capability {}.{} {range}); this device is {major}.{minor}",
            arch.number / 10,
            arch.number % 10
        ));
    }
    (arch.specific && loaded != arch).then(|| not_in_folder(id, arch, loaded))
}

/// Why `what`, which lives only in the PTX for `arch`, cannot run although the device runs
/// `arch`: the PTX folder holds no `arch` PTX (had it, [`pick_arch`] would have loaded it), and
/// this run loaded `loaded` instead.
pub fn not_in_folder(what: &str, arch: Arch, loaded: Arch) -> String {
    format!(
        "{what} is only in the {arch} PTX, and the PTX folder holds none (this run loaded its {loaded} PTX): point \
         --ptx-dir / {PTX_DIR_ENV} at a folder with {arch} PTX, or build one with `cargo xtask build-ptx --arch {arch}`"
    )
}

/// The names of the `.entry` points in a PTX text.
pub fn entry_points(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|line| line.trim_start().strip_prefix(".visible .entry "))
        .filter_map(|rest| rest.split('(').next())
        .map(str::trim)
        .collect()
}
