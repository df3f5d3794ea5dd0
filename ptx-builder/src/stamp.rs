//! What the PTX was built from: the source fingerprint beside each file, and the check
//! that decides whether a build is needed.
//!
//! Two kinds of stamp, both holding the `fingerprint` crate's hash of the kernel sources:
//!
//! - `target/ptx/<arch>/fingerprint`, written right after that arch's `kernels.ptx`: the
//!   sources that one file came from. A build of other archs (`--arch sm_86`), or one
//!   stopped half-way, cannot make an older file look current;
//! - `target/ptx/fingerprint`, written when a whole build succeeded: the one the host
//!   compares with the hash it was built with, and refuses to run on a mismatch.

use crate::Result;
use std::path::Path;

/// File name of a stamp, in `target/ptx` and in each `target/ptx/<arch>`.
pub use fingerprint::FINGERPRINT_FILE;

/// Whether the PTX can be used as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    Fresh,
    /// Why not, in words (`no PTX for sm_80`, …).
    Stale(String),
}

/// The fingerprint of the kernel sources under `root` now.
pub fn current(root: &Path) -> Result<String> {
    fingerprint::fingerprint(root)
        .map_err(|e| format!("reading the kernel sources under {}: {e}", root.display()))
}

/// Whether `<ptx_dir>/<arch>` holds a PTX built from the sources of fingerprint `print`.
pub fn arch_freshness(ptx_dir: &Path, arch: &str, print: &str) -> Freshness {
    let dir = ptx_dir.join(arch);
    if !dir.join("kernels.ptx").is_file() {
        return Freshness::Stale(format!("no PTX for {arch}"));
    }
    match read_stamp(&dir) {
        Some(found) if found == print => Freshness::Fresh,
        Some(_) => Freshness::Stale(format!("the {arch} PTX was built from other kernel sources")),
        None => Freshness::Stale(format!("the {arch} PTX has no fingerprint")),
    }
}

/// Whether the PTX of every arch in `archs`, and the fingerprint the host checks, match
/// the sources of fingerprint `print`; the first reason they do not otherwise.
pub fn freshness(ptx_dir: &Path, archs: &[String], print: &str) -> Freshness {
    for arch in archs {
        if let stale @ Freshness::Stale(_) = arch_freshness(ptx_dir, arch, print) {
            return stale;
        }
    }
    match read_stamp(ptx_dir) {
        Some(found) if found == print => Freshness::Fresh,
        _ => Freshness::Stale(format!(
            "{} does not match the kernel sources",
            ptx_dir.join(FINGERPRINT_FILE).display()
        )),
    }
}

/// Copies a built PTX to `<ptx_dir>/<arch>/kernels.ptx`, then stamps it.
pub fn install(ptx_dir: &Path, arch: &str, built: &Path, print: &str) -> Result<()> {
    let dest = ptx_dir.join(arch);
    std::fs::create_dir_all(&dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    std::fs::copy(built, dest.join("kernels.ptx")).map_err(|e| format!("{}: {e}", built.display()))?;
    write_stamp(&dest, print)
}

/// Writes `<ptx_dir>/fingerprint`, the stamp the host checks.
pub fn write_fingerprint(ptx_dir: &Path, print: &str) -> Result<()> {
    std::fs::create_dir_all(ptx_dir).map_err(|e| format!("{}: {e}", ptx_dir.display()))?;
    write_stamp(ptx_dir, print)
}

fn write_stamp(dir: &Path, print: &str) -> Result<()> {
    let path = dir.join(FINGERPRINT_FILE);
    std::fs::write(&path, format!("{print}\n")).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn read_stamp(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join(FINGERPRINT_FILE)).ok().map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A throw-away tree with kernel sources and an empty PTX folder.
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str) -> Self {
            let root = std::env::temp_dir().join(format!("ptx-builder-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for source in fingerprint::KERNEL_SOURCES {
                let path = root.join(source);
                let file = if source.ends_with(".toml") { path } else { path.join("lib.rs") };
                std::fs::create_dir_all(file.parent().expect("a parent")).expect("create the source folders");
                std::fs::write(&file, "// source\n").expect("write a source");
            }
            Self(root)
        }

        fn ptx(&self) -> PathBuf {
            self.0.join("target/ptx")
        }

        /// What a successful build of `archs` leaves.
        fn build(&self, archs: &[String]) -> String {
            let print = current(&self.0).expect("fingerprint");
            let built = self.0.join("built.ptx");
            std::fs::write(&built, ".version 7.8\n").expect("write a PTX");
            for arch in archs {
                install(&self.ptx(), arch, &built, &print).expect("install");
            }
            write_fingerprint(&self.ptx(), &print).expect("stamp");
            print
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn archs() -> Vec<String> {
        vec!["sm_80".into(), "sm_90a".into()]
    }

    #[test]
    fn nothing_built_is_stale() {
        let tree = Tree::new("empty");
        let print = current(&tree.0).expect("fingerprint");
        assert_eq!(freshness(&tree.ptx(), &archs(), &print), Freshness::Stale("no PTX for sm_80".into()));
    }

    #[test]
    fn a_build_of_unchanged_sources_is_fresh() {
        let tree = Tree::new("fresh");
        let print = tree.build(&archs());
        assert_eq!(freshness(&tree.ptx(), &archs(), &print), Freshness::Fresh);
        assert_eq!(current(&tree.0).expect("fingerprint"), print, "the hash is stable");
    }

    #[test]
    fn an_edited_source_makes_every_arch_stale() {
        let tree = Tree::new("edited");
        tree.build(&archs());
        std::fs::write(tree.0.join("kernels/src/lib.rs"), "// edited\n").expect("edit");
        let print = current(&tree.0).expect("fingerprint");
        for arch in archs() {
            assert!(matches!(arch_freshness(&tree.ptx(), &arch, &print), Freshness::Stale(_)), "{arch}");
        }
        assert!(matches!(freshness(&tree.ptx(), &archs(), &print), Freshness::Stale(_)));
    }

    #[test]
    fn a_deleted_ptx_is_stale_and_the_others_stay_fresh() {
        let tree = Tree::new("deleted");
        let print = tree.build(&archs());
        std::fs::remove_file(tree.ptx().join("sm_90a/kernels.ptx")).expect("delete");
        assert_eq!(arch_freshness(&tree.ptx(), "sm_80", &print), Freshness::Fresh);
        assert_eq!(freshness(&tree.ptx(), &archs(), &print), Freshness::Stale("no PTX for sm_90a".into()));
    }

    #[test]
    fn a_build_of_other_archs_does_not_refresh_an_old_one() {
        // sm_80 built, a source edited, then only sm_90a rebuilt (`--arch sm_90a`): the
        // shared fingerprint is current, sm_80's own stamp is not.
        let tree = Tree::new("subset");
        tree.build(&archs());
        std::fs::write(tree.0.join("common/src/lib.rs"), "// edited\n").expect("edit");
        let print = tree.build(&["sm_90a".to_string()]);
        assert_eq!(arch_freshness(&tree.ptx(), "sm_90a", &print), Freshness::Fresh);
        assert_eq!(
            freshness(&tree.ptx(), &archs(), &print),
            Freshness::Stale("the sm_80 PTX was built from other kernel sources".into())
        );
    }
}
