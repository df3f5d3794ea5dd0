//! What runs: where compute-sanitizer is, its arguments and the test binary's for each tool,
//! and the parts racecheck cuts a selection into.

use super::{DEFAULT_CUDA_BIN, RACECHECK_ALONE, RACECHECK_PART_TESTS, RACECHECK_SKIPPED, SKIPPED};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The folders compute-sanitizer is looked for in, in order: each of `path`, then
/// `cuda_home/bin`, then [`DEFAULT_CUDA_BIN`].
pub fn search_dirs(path: Option<&OsStr>, cuda_home: Option<&OsStr>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    if let Some(home) = cuda_home.filter(|h| !h.is_empty()) {
        dirs.push(Path::new(home).join("bin"));
    }
    dirs.push(PathBuf::from(DEFAULT_CUDA_BIN));
    dirs
}

/// The first `compute-sanitizer` that is an executable file in `dirs`.
pub fn find_sanitizer(dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join("compute-sanitizer")).find(|p| is_executable(p))
}

#[cfg(unix)]
pub(super) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
pub(super) fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The arguments of compute-sanitizer for one tool over the GPU test binary: the tool, the
/// binary, one test thread (the tests share one device and one lock anyway), the skips, then
/// the user's test arguments. Each tool runs with its defaults (racecheck's detect level
/// `warn`, so warnings are reported and counted); racecheck also skips the cuBLAS test
/// ([`RACECHECK_SKIPPED`]).
pub fn sanitizer_args(tool: &str, test_binary: &Path, test_args: &[String]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--tool".into(), tool.into(), test_binary.into()];
    args.extend(binary_args(tool, test_args));
    args
}

/// The test binary's arguments under `tool`: one test thread, the skips, the user's.
pub fn binary_args(tool: &str, test_args: &[String]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--test-threads=1".into()];
    let racecheck_only: &[&str] = if tool == "racecheck" { &RACECHECK_SKIPPED } else { &[] };
    for skip in SKIPPED.iter().chain(racecheck_only) {
        args.push("--skip".into());
        args.push(skip.into());
    }
    args.extend(test_args.iter().map(OsString::from));
    args
}

/// The test names in the output of the test binary's `--list` (`name: test` lines).
pub fn listed_tests(list: &str) -> Vec<String> {
    list.lines().filter_map(|l| l.strip_suffix(": test")).map(String::from).collect()
}

/// The processes `tool` runs in: `None`, one process over the selection; or the selection
/// cut, in the listed order, into parts of at most [`RACECHECK_PART_TESTS`] tests, each test
/// named in [`RACECHECK_ALONE`] a part of its own (racecheck only, and only when that makes
/// more than one part).
pub fn parts(tool: &str, listed: &[String]) -> Option<Vec<Vec<String>>> {
    if tool != "racecheck" {
        return None;
    }
    let alone = |test: &str| RACECHECK_ALONE.iter().any(|pattern| test.contains(pattern));
    let (mut parts, mut part) = (Vec::new(), Vec::new());
    for test in listed {
        if alone(test) {
            if !part.is_empty() {
                parts.push(std::mem::take(&mut part));
            }
            parts.push(vec![test.clone()]);
            continue;
        }
        part.push(test.clone());
        if part.len() == RACECHECK_PART_TESTS {
            parts.push(std::mem::take(&mut part));
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    (parts.len() > 1).then_some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::{MISSING, TOOLS};

    #[test]
    fn command_line_for_each_tool() {
        let binary = Path::new("/r/target/release/deps/gpu-0123abcd");
        for tool in TOOLS {
            let args = sanitizer_args(tool, binary, &[]);
            let racecheck: &[&str] = if tool == "racecheck" { &["--skip", "cublas/"] } else { &[] };
            let expected: Vec<OsString> = [
                "--tool",
                tool,
                "/r/target/release/deps/gpu-0123abcd",
                "--test-threads=1",
                "--skip",
                "n_past",
                "--skip",
                "all_kernels/n_past_2^32",
            ]
            .iter()
            .chain(racecheck)
            .map(OsString::from)
            .collect();
            assert_eq!(args, expected, "{tool}");
        }
        let filtered = sanitizer_args("racecheck", binary, &["g10".into(), "--exact".into()]);
        assert_eq!(filtered[filtered.len() - 2..], [OsString::from("g10"), OsString::from("--exact")]);
        // `--list` gets the same selection as the run.
        assert_eq!(binary_args("racecheck", &["g10".into()])[..], filtered[3..filtered.len() - 1]);
    }

    #[test]
    fn sanitizer_search() {
        let dirs = search_dirs(Some(OsStr::new("/a/bin:/b/bin")), Some(OsStr::new("/opt/cuda")));
        assert_eq!(
            dirs,
            [PathBuf::from("/a/bin"), "/b/bin".into(), "/opt/cuda/bin".into(), DEFAULT_CUDA_BIN.into()]
        );
        assert_eq!(search_dirs(None, None), [PathBuf::from(DEFAULT_CUDA_BIN)]);
        assert_eq!(search_dirs(None, Some(OsStr::new(""))), [PathBuf::from(DEFAULT_CUDA_BIN)]);

        let home = std::env::temp_dir().join(format!("host-sanitize-search-{}", std::process::id()));
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let fake = bin.join("compute-sanitizer");
        std::fs::write(&fake, "#!/bin/sh\n").unwrap();
        let empty = home.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(find_sanitizer(std::slice::from_ref(&bin)), None, "not executable");
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(find_sanitizer(&[empty.clone(), bin.clone()]), Some(fake.clone()));
        assert_eq!(find_sanitizer(&[empty]), None);
        std::fs::remove_dir_all(&home).unwrap();
        assert!(MISSING.contains("CUDA toolkit") && MISSING.contains("nvidia-cuda-sanitizer-api"));
    }

    #[test]
    fn racecheck_runs_large_selections_in_parts() {
        let list = "fill: test\nh0/block_64/awkward_sizes: test\n\nnot a test line\n";
        assert_eq!(listed_tests(list), ["fill", "h0/block_64/awkward_sizes"]);
        let names = |n: usize| (0..n).map(|i| format!("t{i:03}/awkward_shapes")).collect::<Vec<_>>();
        let all = names(2 * RACECHECK_PART_TESTS + 1);
        assert_eq!(parts("memcheck", &all), None, "only racecheck is split");
        assert_eq!(
            parts("racecheck", &names(RACECHECK_PART_TESTS)),
            None,
            "one part: one process, as before"
        );
        let split = parts("racecheck", &all).expect("parts");
        assert_eq!(
            split.iter().map(Vec::len).collect::<Vec<_>>(),
            [RACECHECK_PART_TESTS, RACECHECK_PART_TESTS, 1]
        );
        assert_eq!(split.concat(), all, "every test once, in the listed order");
        // A test named in RACECHECK_ALONE closes the part before it and is a part of its own,
        // even in a selection that would otherwise be one part.
        let mut few = names(5);
        few.insert(2, format!("{}_f16/awkward_shapes", RACECHECK_ALONE[0]));
        let split = parts("racecheck", &few).expect("parts");
        assert_eq!(split.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1, 3]);
        assert_eq!(split[1], [few[2].clone()]);
        assert_eq!(split.concat(), few);
        assert_eq!(parts("racecheck", &few[2..3]), None, "alone already");
        assert_eq!(parts("memcheck", &few), None);
    }
}
