//! The step headers, checked: every step's file opens with a card, not a notebook.
//!
//! A ladder step's header (`kernels/src/<family>/<step>.rs`) is
//!
//! ```text
//! //! Step w01 — <the idea in a phrase>.
//! //!
//! //! Idea: …                 at most 5 lines
//! //! Changes from t04: …     at most 3 lines; may be left out by a ladder's first step
//! //! Bottleneck: …           at most 3 lines
//! //! Cost: …                 at most 2 lines
//! //! Requires: …             at most 2 lines; only where the step has shape limits
//! //! Result: …               one line: a GPU model and a date, or "not measured"
//! //!
//! //! <optional prose about the code; `More: docs/lessons.md#w01` where there is more>
//! ```
//!
//! and a probe's is `Probe p1 — <title>.`, then `Shows:` (at most 3 lines), `How:` (at most 5)
//! and `Result:`. A field's continuation lines are indented by 6 spaces (`//!       …`); no line
//! is wider than 100 columns; no line of a field but its last stops before column 70 in the
//! middle of a sentence (a broken wrap); no header names a seed or an issue by number, or a lent
//! machine. What was tried, ncu readings and run histories belong in `docs/lessons.md`, which
//! holds an anchor for every step and every anchor a header points to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use host::families::FAMILIES;
use host::families::family::Step;

/// The widest a header line may be, in columns.
const WIDTH: usize = 100;

/// A line of a field shorter than this that is not the field's last must end a sentence.
const SHORT: usize = 70;

/// The lessons page the headers point to.
const LESSONS: &str = "docs/lessons.md";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The short id the header names: ladder letters and number (`w01` of `w01_wgmma_f16`).
fn short_id(step: &Step) -> &'static str {
    let rest = &step.id[step.ladder().len()..];
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    &step.id[..step.ladder().len() + digits]
}

/// The kernel file of a step: the `.rs` file under a family folder of `kernels/src` whose name
/// is the id or starts it (`gemm/w01_wgmma.rs` for `w01_wgmma_f16`). The node probes (m1–m3)
/// have none.
fn kernel_file(step: &Step) -> Option<PathBuf> {
    let src = root().join("kernels/src");
    let mut found = None;
    for folder in std::fs::read_dir(&src).expect("kernels/src is readable") {
        let folder = folder.expect("a directory entry").path();
        if !folder.is_dir() || folder.ends_with("device") {
            continue;
        }
        for file in std::fs::read_dir(&folder).expect("a family folder is readable") {
            let file = file.expect("a directory entry").path();
            let Some(stem) = file.file_stem().and_then(|s| s.to_str()) else { continue };
            let named = step.id == stem || step.id.starts_with(&format!("{stem}_"));
            if named && file.extension().is_some_and(|e| e == "rs") {
                assert!(found.is_none(), "{}: two kernel files", step.id);
                found = Some(file);
            }
        }
    }
    found
}

/// Every step with a kernel file, once per file (`w01_wgmma_f16` and `_bf16` share one), with
/// whether it is the first step of its ladder.
fn steps_with_files() -> (Vec<(Step, PathBuf, bool)>, Vec<String>) {
    let (mut out, mut missing) = (Vec::new(), Vec::new());
    for family in FAMILIES {
        let steps = family.steps();
        let mut first: BTreeMap<&str, u32> = BTreeMap::new();
        for step in &steps {
            let n = step.number().unwrap_or(0);
            first.entry(step.ladder()).and_modify(|f| *f = (*f).min(n)).or_insert(n);
        }
        for step in steps {
            match kernel_file(&step) {
                Some(file) if out.iter().any(|(_, f, _)| *f == file) => {}
                Some(file) => {
                    let is_first = step.number().unwrap_or(0) == first[step.ladder()];
                    out.push((step, file, is_first));
                }
                // The node probes run host code and library calls, no kernel file of their own.
                None if step.ladder() == "m" => {}
                None => missing.push(format!("{}: no kernel file under kernels/src", step.id)),
            }
        }
    }
    (out, missing)
}

/// The leading `//!` block of a file, each line without its `//!` (and the space after it).
fn header(text: &str) -> Vec<String> {
    text.lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).to_string())
        .collect()
}

/// The field a line starts (`Changes from t04` of `Changes from t04: …`), if it starts one.
fn field_name(line: &str) -> Option<&str> {
    if line.starts_with(' ') || line.starts_with('-') {
        return None;
    }
    let (name, _) = line.split_once(": ")?;
    let words: Vec<&str> = name.split(' ').collect();
    let plain = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '\'');
    (words.len() <= 4 && words.iter().all(|w| plain(w)) && name.chars().next()?.is_uppercase())
        .then_some(name)
}

/// Whether `word` is a GPU model as the prose names it (`H100`, `H200`, `A100`, `B200`).
fn is_gpu_model(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && (3..=4).contains(&word.len())
        && chars.all(|c| c.is_ascii_digit())
}

/// Whether `text` holds a date `20YY-MM-DD`.
fn has_date(text: &str) -> bool {
    text.as_bytes().windows(10).any(|w| {
        w.starts_with(b"20")
            && w[4] == b'-'
            && w[7] == b'-'
            && [2, 3, 5, 6, 8, 9].iter().all(|&i| w[i].is_ascii_digit())
    })
}

/// What the prose must not say: seed numbers (`seed 003`), issue numbers (`issue 9`), lent
/// machines (`the lent H100`).
fn forbidden(line: &str) -> Option<&'static str> {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric() && c != '#').collect();
    for pair in words.windows(2) {
        let numbered = pair[1].starts_with(|c: char| c.is_ascii_digit() || c == '#');
        match pair[0] {
            "seed" if numbered => return Some("a seed number"),
            "issue" if numbered => return Some("an issue number"),
            _ => {}
        }
    }
    words.contains(&"lent").then_some("a lent machine")
}

/// The problems of one header, each as `line number: message` (1-based, as editors count).
fn check(text: &str, short: &str, probe: bool, first_of_ladder: bool) -> Vec<(usize, String)> {
    let lines = header(text);
    let mut problems = Vec::new();
    let mut say = |line: usize, message: String| problems.push((line + 1, message));
    if lines.is_empty() {
        say(0, "no `//!` header".into());
        return problems;
    }

    let kind = if probe { "Probe" } else { "Step" };
    let title = &lines[0];
    let lead = format!("{kind} {short} — ");
    if !title.starts_with(&lead) || title.len() <= lead.len() + 1 || !title.ends_with('.') {
        say(0, format!("the first line is not `//! {lead}<the idea in a phrase>.`"));
    }
    if lines.get(1).is_some_and(|l| !l.is_empty()) {
        say(1, "the title is one line, then an empty `//!` line".into());
    }

    for (i, line) in lines.iter().enumerate() {
        let width = line.chars().count() + if line.is_empty() { 3 } else { 4 };
        if width > WIDTH {
            say(i, format!("{width} columns, wider than {WIDTH}"));
        }
        if let Some(what) = forbidden(line) {
            say(i, format!("names {what}: speak of the project, GPUs by model, articles by title"));
        }
    }

    // The card: from line 3 to the next empty line, a field per start and its continuations.
    let end = lines.iter().skip(2).position(String::is_empty).map_or(lines.len(), |p| p + 2);
    let mut fields: Vec<(String, usize, usize)> = Vec::new(); // name, first line, line count
    for (i, line) in lines.iter().enumerate().take(end).skip(2) {
        if let Some(name) = field_name(line) {
            fields.push((name.to_string(), i, 1));
        } else if line.starts_with("      ") && !line[6..].starts_with(' ') || line.starts_with("        ") {
            match fields.last_mut() {
                Some(field) => field.2 += 1,
                None => say(i, "a continuation line before any field".into()),
            }
        } else {
            say(i, "neither a field (`Name: …`) nor a continuation indented by 6 spaces".into());
        }
    }

    // The fields, in order, each within its length.
    let expected: &[(&str, usize, bool)] = if probe {
        &[("Shows", 3, true), ("How", 5, true), ("Result", 1, true)]
    } else {
        &[
            ("Idea", 5, true),
            ("Changes from", 3, !first_of_ladder),
            ("Bottleneck", 3, true),
            ("Cost", 2, true),
            ("Requires", 2, false),
            ("Result", 1, true),
        ]
    };
    let mut next = 0;
    for (name, at, count) in &fields {
        let base = if name.starts_with("Changes from ") { "Changes from" } else { name.as_str() };
        let Some(offset) = expected[next..].iter().position(|(n, _, _)| *n == base) else {
            let names: Vec<&str> = expected.iter().map(|(n, _, _)| *n).collect();
            say(*at, format!("field `{name}` out of place: the fields are {names:?}, in this order"));
            continue;
        };
        for (missing, _, required) in &expected[next..next + offset] {
            if *required {
                say(*at, format!("`{missing}` is missing before `{name}`"));
            }
        }
        let (_, most, _) = expected[next + offset];
        if *count > most {
            say(*at, format!("`{base}` has {count} lines; at most {most}"));
        }
        if base == "Changes from" {
            let id = &name["Changes from ".len()..];
            let letters = id.chars().take_while(char::is_ascii_lowercase).count();
            if letters == 0 || letters == id.len() || !id[letters..].chars().all(|c| c.is_ascii_digit()) {
                say(*at, format!("`{name}`: name the step it builds on by its id (`Changes from t04`)"));
            }
        }
        next += offset + 1;
    }
    for (missing, _, required) in &expected[next..] {
        if *required {
            say(end.min(lines.len().saturating_sub(1)), format!("`{missing}` is missing"));
        }
    }

    // The Result: one line with a GPU model and a date, or saying it was not measured.
    if let Some((_, at, _)) = fields.iter().find(|(n, _, _)| n == "Result") {
        let result = &lines[*at];
        let gpu = result.split(|c: char| !c.is_ascii_alphanumeric()).any(is_gpu_model);
        if !(gpu && has_date(result) || result.contains("not measured")) {
            say(*at, "the Result names no GPU model and date (or says it was not measured)".into());
        }
    }

    // Broken wraps: a short line in the middle of a field whose sentence goes on.
    for (_, at, count) in &fields {
        for i in *at..*at + count - 1 {
            let (line, next_line) = (lines[i].trim_end(), lines[i + 1].trim_start());
            let ends = line.ends_with(['.', ':', '!', '?']) || line.ends_with(".)");
            let width = line.chars().count() + 4;
            if width < SHORT && !ends && !next_line.starts_with("- ") {
                say(i, format!("a broken wrap: the sentence goes on, but the line stops at {width} columns"));
            }
        }
    }
    problems.sort();
    problems
}

/// The anchors of the lessons page (`<a id="w01"></a>`).
fn lesson_anchors() -> Vec<String> {
    let text = std::fs::read_to_string(root().join(LESSONS)).expect("docs/lessons.md is readable");
    text.split("<a id=\"").skip(1).filter_map(|s| s.split_once('"')).map(|(id, _)| id.to_string()).collect()
}

/// Every `docs/lessons.md#anchor` a text points to.
fn pointers(text: &str) -> Vec<String> {
    let tail =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    text.split("docs/lessons.md#").skip(1).map(tail).collect()
}

#[test]
fn every_step_header_is_a_card() {
    let (steps, mut problems) = steps_with_files();
    assert!(steps.len() > 40, "only {} step files found under kernels/src", steps.len());
    let anchors = lesson_anchors();
    for (step, file, first) in &steps {
        let short = short_id(step);
        let text = std::fs::read_to_string(file).expect("a kernel file is readable");
        let path = file.strip_prefix(root()).unwrap_or(file).display().to_string();
        for (line, message) in check(&text, short, !step.twinned, *first) {
            problems.push(format!("{path}:{line}: {message}"));
        }
        for anchor in pointers(&header(&text).join("\n")) {
            if !anchors.contains(&anchor) {
                problems.push(format!("{path}: points to {LESSONS}#{anchor}, which has no such anchor"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems in the step headers (the card: tests/headers.rs says it):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_check_catches_what_it_should() {
    let card = "//! Step w01 — an idea.\n//!\n//! Idea: one.\n//! Changes from t04: two.\n\
                //! Bottleneck: three.\n//! Cost: four.\n//! Result: 1 TFLOP/s, H200, 2026-11-23.\n";
    assert_eq!(check(card, "w01", false, false), []);
    let first = card.replace("//! Changes from t04: two.\n", "");
    assert_eq!(check(&first, "w01", false, true), [], "a ladder's first step needs no Changes");
    assert!(!check(&first, "w01", false, false).is_empty(), "a later step does");
    let wrong = [
        card.replace("Step w01", "Step w1"),
        card.replace("an idea.", "an idea"),
        card.replace("H200, ", ""),
        card.replace("2026-11-23", "yesterday"),
        card.replace("Cost: four.\n", "Cost: four.\n//! Measured: five.\n"),
        card.replace("Bottleneck: three.\n//! Cost: four.\n", "Cost: four.\n//! Bottleneck: three.\n"),
        card.replace("2026-11-23.\n", "2026-11-23,\n//!       and more.\n"),
        card.replace("Idea: one.", "Idea: one that\n//!       goes on."),
        card.replace("Idea: one.", "Idea: one, from seed 003."),
        card.replace("Idea: one.", "Idea: one, on the lent H100."),
        card.replace("Idea: one.", &format!("Idea: {}.", "x".repeat(100))),
    ];
    for text in &wrong {
        assert!(!check(text, "w01", false, false).is_empty(), "passed:\n{text}");
    }
    let probe = "//! Probe p1 — a title.\n//!\n//! Shows: one.\n//! How: two.\n//! Result: not measured.\n";
    assert_eq!(check(probe, "p1", true, true), []);
    let issue_slot = card.replace("Idea: one.", "Idea: an FFMA in every issue slot (see issue 9).");
    assert_eq!(check(&issue_slot, "w01", false, false).len(), 1, "issue slots are fine, issue numbers not");
}
