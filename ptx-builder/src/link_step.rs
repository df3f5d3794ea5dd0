//! Builds `ptx-link` (this crate's binary), the linker rustc runs for nvptx.
//!
//! It gets a target dir of its own, `target/ptx-link`: the host's build script runs while
//! the outer cargo holds the lock of `target/<profile>`, and a nested `cargo build` there
//! would wait on that lock for ever. Its own dir also keeps the binary out of the way of
//! the outer build's artifacts; cargo's incremental build makes it a no-op when its source
//! has not changed.

use crate::nested::{self, capture};
use crate::toolchain::Toolchain;
use crate::{Result, Workspace};
use std::path::PathBuf;

/// Builds the link step if needed; returns the path of the binary.
pub fn build(ws: &Workspace, toolchain: &Toolchain) -> Result<PathBuf> {
    let target_dir = ws.target.join("ptx-link");
    capture(
        nested::cargo(ws, toolchain)
            .args(["build", "--quiet", "--release", "--bin", "ptx-link", "--manifest-path"])
            .arg(ws.root.join("ptx-builder/Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir),
        "building ptx-link",
    )?;
    Ok(target_dir.join("release").join(format!("ptx-link{}", std::env::consts::EXE_SUFFIX)))
}
