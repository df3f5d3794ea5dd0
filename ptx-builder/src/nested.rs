//! The nested cargo that builds the link step and the kernels, with a clean environment.
//!
//! When the host's build script runs this build, its environment is the one cargo gives a
//! build script: the outer build's flags (`CARGO_ENCODED_RUSTFLAGS`, which a nested cargo
//! would prefer to the `RUSTFLAGS` set here), its wrapper (`RUSTC_WRAPPER`), its target
//! (`TARGET`, `HOST`), its profile (`OPT_LEVEL`, `DEBUG`, `PROFILE`), and the host
//! package's `CARGO_PKG_*`, `CARGO_CFG_*` and `CARGO_FEATURE_*`, which the nested build's
//! own build scripts (`compiler_builtins` under `-Zbuild-std`) would read as theirs. None
//! of that belongs to the kernels' build, whose flags, profile and target dirs are set
//! here and in `kernels/Cargo.toml`. What stays: `PATH`, `CARGO_HOME`, `RUSTUP_*`, network
//! settings, and `CARGO_MAKEFLAGS`, so that a nested build started by a build script
//! takes its jobs from the outer build's jobserver instead of adding its own.

use crate::Result;
use crate::Workspace;
use crate::toolchain::Toolchain;
use std::ffi::OsStr;
use std::process::Command;

/// Variables that cargo sets for a build script, or that would change where or how the
/// kernels are built; removed from every nested cargo's environment.
const REMOVED: &[&str] = &[
    // Set by cargo for build scripts.
    "CARGO_CRATE_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_RUSTC_CURRENT_DIR",
    "CARGO_TARGET_TMPDIR",
    "DEBUG",
    "HOST",
    "NUM_JOBS",
    "OPT_LEVEL",
    "OUT_DIR",
    "PROFILE",
    "RUSTC",
    "RUSTC_LINKER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTC_WRAPPER",
    "RUSTDOC",
    "TARGET",
    // Flags and folders of the outer build (the kernels' own are set explicitly).
    "CARGO_BUILD_BUILD_DIR",
    "CARGO_BUILD_RUSTC",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_BUILD_TARGET",
    "CARGO_BUILD_TARGET_DIR",
    "CARGO_INCREMENTAL",
    "CARGO_TARGET_DIR",
    "CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER",
    "CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS",
    "RUSTDOCFLAGS",
    "RUSTFLAGS",
];

/// Prefixes of variables removed the same way: the outer package's metadata, cfgs and
/// features, encoded flags, profile overrides (the kernels' profile is in their manifest),
/// and cargo's private variables.
const REMOVED_PREFIXES: &[&str] = &[
    "CARGO_BIN_",
    "CARGO_CFG_",
    "CARGO_ENCODED_",
    "CARGO_FEATURE_",
    "CARGO_MANIFEST_",
    "CARGO_PKG_",
    "CARGO_PROFILE_",
    "__CARGO_",
];

/// Whether a variable of this name is kept out of the nested cargo.
pub fn is_removed(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else { return false };
    REMOVED.contains(&name) || REMOVED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// `cargo` (the one running this build, from `$CARGO`) in the repository root, with the
/// outer build's variables removed and the checked rustc named explicitly.
pub fn cargo(ws: &Workspace, toolchain: &Toolchain) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(&ws.root);
    for (name, _) in std::env::vars_os() {
        if is_removed(&name) {
            cmd.env_remove(name);
        }
    }
    cmd.env("RUSTC", &toolchain.rustc);
    cmd
}

/// Runs `cmd` and returns its stdout, or its stderr in the error.
pub fn capture(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd.output().map_err(|e| format!("could not start {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{what} failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outer_builds_flags_and_folders_stay_out() {
        for name in [
            "CARGO_ENCODED_RUSTFLAGS",
            "RUSTFLAGS",
            "RUSTC_WRAPPER",
            "CARGO_TARGET_DIR",
            "TARGET",
            "OUT_DIR",
            "CARGO_CFG_TARGET_OS",
            "CARGO_FEATURE_STD",
            "CARGO_PKG_NAME",
            "CARGO_MANIFEST_DIR",
            "CARGO_PROFILE_RELEASE_LTO",
        ] {
            assert!(is_removed(OsStr::new(name)), "{name} would leak into the kernels' build");
        }
    }

    #[test]
    fn the_jobserver_toolchain_and_network_settings_stay_in() {
        for name in
            ["CARGO_MAKEFLAGS", "CARGO_HOME", "CARGO", "RUSTUP_TOOLCHAIN", "PATH", "CARGO_NET_OFFLINE"]
        {
            assert!(!is_removed(OsStr::new(name)), "{name} is needed by the nested cargo");
        }
    }

    #[test]
    fn the_nested_cargo_gets_the_checked_rustc_and_no_outer_flags() {
        let ws = Workspace { root: ".".into(), target: "target".into() };
        let toolchain = Toolchain { rustc: "/checked/rustc".into(), llvm_bin: "/llvm".into() };
        let cmd = cargo(&ws, &toolchain);
        let envs: Vec<_> = cmd.get_envs().collect();
        assert!(envs.contains(&(OsStr::new("RUSTC"), Some(OsStr::new("/checked/rustc")))));
        // Whatever of the removed names this test process has is removed explicitly.
        for (name, value) in envs {
            if is_removed(name) && name != "RUSTC" {
                assert_eq!(value, None, "{name:?} is set in the nested cargo");
            }
        }
    }
}
