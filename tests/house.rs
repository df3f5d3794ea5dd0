//! The host's house, checked: what may use what (`docs/house.md` draws it).
//!
//! Every `crate::…` and `super::…` path in `host/src` is an edge from the file it is written
//! in to the module it names. The floors are ordered — `base`, then `measure`, then `report`,
//! then `ceilings`, `twins`, `testing` and `cli`, then the family interface — and a file may use its own
//! floor and the ones below, never one above; a family may use every floor, never another
//! family; and no files use each other in a circle. (A path inside an inline module, such as
//! a file's `mod tests { … }`, is read as the file's: write `crate::` paths there.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The host's sources.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/src")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("host/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines, as a path from the crate root (`lib.rs` is `crate`,
/// `families/gemm/mod.rs` is `crate::families::gemm`).
fn module_of(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src()).expect("under host/src");
    let mut parts: Vec<String> =
        relative.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// `text` without comments and string literals (a path in either is no use).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
                out.push_str("\"\"");
            }
            // A char literal such as '"' or '{' must not open a string or a group.
            '\'' if chars.clone().nth(1) == Some('\'') => {
                chars.next();
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// The paths a use of `crate::` or `super::` at `at` names, use-tree groups expanded:
/// `crate::a::{b, c::d}` gives `crate::a::b` and `crate::a::c::d`.
fn paths_at(code: &str, at: usize) -> Vec<Vec<String>> {
    fn tree(code: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        loop {
            let start = *i;
            while *i < code.len() && (code[*i].is_ascii_alphanumeric() || code[*i] == b'_') {
                *i += 1;
            }
            if *i > start {
                path.push(String::from_utf8_lossy(&code[start..*i]).into_owned());
            }
            if code[*i..].starts_with(b"::") {
                *i += 2;
                if code.get(*i) == Some(&b'{') {
                    *i += 1;
                    loop {
                        while code.get(*i).is_some_and(u8::is_ascii_whitespace) {
                            *i += 1;
                        }
                        if code.get(*i) == Some(&b'}') {
                            *i += 1;
                            return;
                        }
                        tree(code, i, path.clone(), out);
                        while code.get(*i).is_some_and(|c| c.is_ascii_whitespace() || *c == b',') {
                            *i += 1;
                        }
                        if *i >= code.len() {
                            return;
                        }
                    }
                }
                continue;
            }
            out.push(path);
            // Skip `as name` and anything else up to the end of this item.
            return;
        }
    }
    let mut out = Vec::new();
    let mut i = at;
    tree(code.as_bytes(), &mut i, Vec::new(), &mut out);
    out
}

/// Where `path` (starting `crate` or `super`, written in the file of module `from`) leads:
/// the longest prefix that is a module of `known`.
fn resolve(path: &[String], from: &[String], known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut absolute: Vec<String> = Vec::new();
    let mut rest;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("super") => {
            // `super` in `a/b.rs` (module a::b) is `a`; in `a/mod.rs` (module a) it is the root.
            absolute = from.to_vec();
            absolute.pop();
            rest = &path[1..];
            while rest.first().map(String::as_str) == Some("super") {
                absolute.pop();
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    absolute.extend(rest.iter().cloned());
    (0..=absolute.len()).rev().map(|n| absolute[..n].to_vec()).find(|m| known.contains(m))
}

/// A module's floor: which modules it may use is decided by this (a higher floor may use a
/// lower one), and families by their name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Floor {
    Base,
    Measure,
    Report,
    /// `ceilings`, `twins`, `testing`, `cli`, `sanitize`: what the families stand on beside the three
    /// below.
    Shared,
    /// `families::family`: the interface.
    Interface,
    Family(String),
    /// `families` itself (the list of families and selection).
    Families,
    /// The crate root, the suite's run, `host sass`, `host sanitize`.
    Top,
}

fn floor(module: &[String]) -> Floor {
    let name = |i: usize| module.get(i).map(String::as_str);
    match (name(0), name(1)) {
        (Some("base"), _) => Floor::Base,
        (Some("measure"), _) => Floor::Measure,
        (Some("report"), _) => Floor::Report,
        (Some("ceilings" | "twins" | "testing" | "cli" | "sanitize"), _) => Floor::Shared,
        (Some("families"), Some("family")) => Floor::Interface,
        (Some("families"), Some(family)) => Floor::Family(family.to_string()),
        (Some("families"), None) => Floor::Families,
        _ => Floor::Top,
    }
}

/// Whether a file on floor `from` may use a module on floor `to`.
fn may_use(from: &Floor, to: &Floor) -> bool {
    match (from, to) {
        (Floor::Family(a), Floor::Family(b)) => a == b,
        (Floor::Family(_), to) => *to <= Floor::Interface,
        (Floor::Families | Floor::Top, _) => true,
        (from, to) => to <= from,
    }
}

/// Every file's module and the modules its code names.
fn edges() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut all = Vec::new();
    files(&src(), &mut all);
    all.retain(|f| f.file_name().is_some_and(|n| n != "main.rs"));
    let known: BTreeSet<Vec<String>> = all.iter().map(|f| module_of(f)).collect();
    let mut edges = BTreeMap::new();
    for file in &all {
        let from = module_of(file);
        let code = code_only(&std::fs::read_to_string(file).expect("a source file"));
        let mut to = BTreeSet::new();
        for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue; // `$crate::`, `foo_super::`, or the inner part of a longer path
            }
            for path in paths_at(&code, at) {
                if let Some(module) = resolve(&path, &from, &known)
                    && module != from
                {
                    to.insert(module);
                }
            }
        }
        edges.insert(from, to);
    }
    edges
}

fn show(module: &[String]) -> String {
    if module.is_empty() { "crate".into() } else { module.join("::") }
}

#[test]
fn every_file_uses_only_its_floor_and_those_below() {
    let mut wrong = Vec::new();
    for (from, to) in edges() {
        for module in to {
            if !may_use(&floor(&from), &floor(&module)) {
                wrong.push(format!("{} uses {}", show(&from), show(&module)));
            }
        }
    }
    assert!(wrong.is_empty(), "uses across the floors (see docs/house.md):\n{}", wrong.join("\n"));
}

#[test]
fn no_files_use_each_other_in_a_circle() {
    let edges = edges();
    // Depth-first search; a module met again while on the stack closes a circle.
    fn visit(
        module: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        stack: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|m| m == module) {
            return Some(stack[at..].iter().chain([module]).map(|m| show(m)).collect());
        }
        if !done.insert(module.clone()) {
            return None;
        }
        stack.push(module.clone());
        for next in edges.get(module).into_iter().flatten() {
            if let Some(circle) = visit(next, edges, stack, done) {
                return Some(circle);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in edges.keys() {
        if let Some(circle) = visit(module, &edges, &mut Vec::new(), &mut done) {
            panic!("a circle of uses: {}", circle.join(" → "));
        }
    }
}

#[test]
fn the_checker_sees_uses() {
    // The parser itself, on the shapes the sources use.
    let code =
        code_only("use crate::a::{b, c::{d, e}};\n// crate::x::y\nlet s = \"crate::z\"; super::f::g();");
    let at: Vec<usize> = code.match_indices("crate::").map(|(i, _)| i).collect();
    assert_eq!(at.len(), 1, "comments and strings are not code: {code}");
    let paths: Vec<String> = paths_at(&code, at[0]).iter().map(|p| p.join("::")).collect();
    assert_eq!(paths, ["crate::a::b", "crate::a::c::d", "crate::a::c::e"]);
    let known: BTreeSet<Vec<String>> =
        [vec![], vec!["a".into()], vec!["a".into(), "f".into()]].into_iter().collect();
    let from = vec!["a".to_string(), "b".to_string()];
    let path: Vec<String> = ["super", "f", "g"].iter().map(|s| s.to_string()).collect();
    assert_eq!(resolve(&path, &from, &known), Some(vec!["a".into(), "f".into()]));
    assert!(may_use(&Floor::Family("gemm".into()), &Floor::Base));
    assert!(!may_use(&Floor::Family("gemm".into()), &Floor::Family("probe".into())));
    assert!(!may_use(&Floor::Base, &Floor::Report));
    assert!(!may_use(&Floor::Report, &Floor::Interface));
    // Every file is found, and some use something.
    let edges = edges();
    assert!(edges.len() > 40 && edges.values().filter(|to| !to.is_empty()).count() > 30);
    assert!(edges.contains_key(&vec!["families".to_string(), "gemm".to_string(), "suite".to_string()]));
}
