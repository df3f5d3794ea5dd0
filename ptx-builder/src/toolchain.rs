//! The toolchain pieces the PTX build needs, checked up front so that a missing one is
//! named with the command that installs it (instead of surfacing as an obscure failure
//! deep inside a nested cargo).

use crate::Result;
use crate::nested::capture;
use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL: &str = "run `rustup toolchain install` in the repository root (it reads rust-toolchain.toml)";

/// What the rest of the build takes from the toolchain.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The checked rustc, by absolute path (`<sysroot>/bin/rustc`): the nested cargo gets
    /// this one, so that the kernels are built by the compiler that was checked, whichever
    /// way the build was started.
    pub rustc: PathBuf,
    /// The `llvm-tools` binaries (`llvm-link`, `opt`, `llc`, `llvm-ar`) for the link step.
    pub llvm_bin: PathBuf,
}

/// Checks `$RUSTC` (or `rustc`) as seen from `root`, where rust-toolchain.toml pins it.
pub fn check(root: &Path) -> Result<Toolchain> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = capture(Command::new(&rustc).arg("-vV").current_dir(root), "rustc")
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
        Command::new(&rustc).args(["--print", "sysroot"]).current_dir(root),
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
    let rustc = sysroot.join("bin").join(format!("rustc{}", std::env::consts::EXE_SUFFIX));
    Ok(Toolchain { rustc, llvm_bin })
}
