//! The kernel-source fingerprint: one hash over every file the PTX is built from.
//!
//! `cargo xtask build-ptx` writes it beside the PTX (`target/ptx/fingerprint`); the host's
//! build script computes it again and builds it into the binary. When they differ the host
//! refuses to run and says to rebuild the PTX, instead of timing kernels whose source is no
//! longer what the reader sees.

use std::path::{Path, PathBuf};

/// The source folders and files of the PTX, relative to the repository root.
pub const KERNEL_SOURCES: &[&str] =
    &["kernels/Cargo.toml", "kernels/src", "kernels/macros/Cargo.toml", "kernels/macros/src", "common/src"];

/// File name of the fingerprint written beside the per-arch PTX folders.
pub const FINGERPRINT_FILE: &str = "fingerprint";

/// FNV-1a (64-bit) over each source file's path relative to `root` and its bytes, files
/// in sorted order. Not cryptographic: it guards against forgetting a rebuild, not against
/// an adversary.
pub fn fingerprint(root: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    for source in KERNEL_SOURCES {
        collect(&root.join(source), &mut files)?;
    }
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        let relative = file.strip_prefix(root).unwrap_or(file);
        let name = relative.to_string_lossy().replace('\\', "/");
        for byte in name.bytes().chain([0]).chain(std::fs::read(file)?) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    Ok(format!("{hash:016x}"))
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            collect(&entry?.path(), out)?;
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}
