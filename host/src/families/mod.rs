//! Every family of kernels, behind one interface ([`family::Family`]), and the selection
//! that `-k` makes among their steps.
//!
//! Adding a family: its folders (`kernels/src/<name>/`, `host/src/families/<name>/`,
//! `twins/<name>/`), a `pub mod` line in `kernels/src/lib.rs`, and two lines here (its
//! `pub mod` and its entry in [`FAMILIES`]). Nothing else in the host names a family.

pub mod attention;
pub mod family;
pub mod gemm;
pub mod probe;
pub mod reduce;
pub mod scan;

use crate::base::error::{Error, Result};
use family::{Family, Step};

/// Every family, in the order a run takes them.
pub const FAMILIES: &[&dyn Family] =
    &[&reduce::Reduce, &scan::Scan, &probe::Probes, &gemm::Gemm, &attention::Attention];

/// The family called `name`.
pub fn family(name: &str) -> Option<&'static dyn Family> {
    FAMILIES.iter().copied().find(|f| f.name() == name)
}

/// Every step of every family, with its family, in run order.
pub fn all_steps() -> Vec<(&'static dyn Family, Step)> {
    FAMILIES.iter().flat_map(|&f| f.steps().into_iter().map(move |s| (f, s))).collect()
}

/// One parsed `-k` pattern.
#[derive(Debug, PartialEq)]
enum Pattern {
    Family(String),
    /// A ladder's prefix alone (`t`).
    Ladder(String),
    /// Steps `first..=last` of a ladder; `rest`, when given, must start the id after the
    /// number (`_wgmma_f16`).
    Steps {
        ladder: String,
        first: u32,
        last: u32,
        rest: String,
    },
}

impl Pattern {
    fn parse(text: &str) -> Option<Pattern> {
        let text = text.trim().to_ascii_lowercase();
        if text.is_empty() {
            return None;
        }
        if let Some(f) = FAMILIES.iter().find(|f| text == f.name() || text == format!("{}s", f.name())) {
            return Some(Pattern::Family(f.name().into()));
        }
        let ladder_end = text.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(text.len());
        let (ladder, rest) = text.split_at(ladder_end);
        if ladder.is_empty() {
            return None;
        }
        if rest.is_empty() {
            return Some(Pattern::Ladder(ladder.into()));
        }
        let number = |s: &str| -> Option<(u32, usize)> {
            let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            (end > 0).then(|| s[..end].parse().ok().map(|n| (n, end))).flatten()
        };
        let (first, used) = number(rest)?;
        let after = &rest[used..];
        if let Some(range) = after.strip_prefix('-').or_else(|| after.strip_prefix("..")) {
            let range = range.strip_prefix(ladder).unwrap_or(range);
            let (last, used) = number(range)?;
            return (used == range.len() && last >= first).then(|| Pattern::Steps {
                ladder: ladder.into(),
                first,
                last,
                rest: String::new(),
            });
        }
        Some(Pattern::Steps { ladder: ladder.into(), first, last: first, rest: after.into() })
    }

    fn picks(&self, family: &dyn Family, step: &Step) -> bool {
        match self {
            Pattern::Family(name) => family.name() == name,
            Pattern::Ladder(ladder) => step.ladder() == ladder && step.number().is_some(),
            Pattern::Steps { ladder, first, last, rest } => {
                step.ladder() == ladder
                    && step.number().is_some_and(|n| (*first..=*last).contains(&n))
                    && step.id[ladder.len()..]
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .starts_with(rest.as_str())
            }
        }
    }
}

/// The steps `patterns` pick ([`SELECTION_HELP`]), family by family in run order, each
/// family's in ladder order; every step of every family for no pattern. A pattern that picks
/// nothing is an error that names the closest ids.
pub fn select(patterns: &[String]) -> Result<Vec<(&'static dyn Family, Vec<Step>)>> {
    // A step's id from before a rename picks the step under its name of today.
    let parsed: Vec<(&String, Option<Pattern>)> = patterns
        .iter()
        .map(|p| (p, Pattern::parse(&crate::report::records::current_id(&p.trim().to_ascii_lowercase()))))
        .collect();
    let steps = all_steps();
    for (text, pattern) in &parsed {
        let picks_one = pattern.as_ref().is_some_and(|p| steps.iter().any(|(f, s)| p.picks(*f, s)));
        if !picks_one {
            return Err(Error::new(format!(
                "-k: nothing matches `{text}`; the closest are {}{} (`--list` prints every step; \
                 `--help` says what -k takes)",
                closest(text, &steps).join(", "),
                hopper_hint(text)
            )));
        }
    }
    Ok(FAMILIES
        .iter()
        .map(|&f| {
            let picked = f
                .steps()
                .into_iter()
                .filter(|s| {
                    parsed.is_empty() || parsed.iter().any(|(_, p)| p.as_ref().is_some_and(|p| p.picks(f, s)))
                })
                .collect();
            (f, picked)
        })
        .collect())
}

/// For a pattern that names a tensor-core step past t04 by its number (`t12`, `t10-t17`):
/// where those steps went.
fn hopper_hint(text: &str) -> &'static str {
    let text = text.to_ascii_lowercase();
    let number: String =
        text.strip_prefix('t').unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
    match number.parse::<u32>() {
        Ok(5..=17) => "; the Hopper steps t05–t17 are w01–w13 since 2026-11-27 (t05 is w01: subtract four)",
        _ => "",
    }
}

/// How many names the error of a pattern that matches nothing suggests.
const CLOSEST_SHOWN: usize = 5;

/// The step ids and family names nearest to `text` (edit distance, ties in run order).
fn closest(text: &str, steps: &[(&'static dyn Family, Step)]) -> Vec<String> {
    let text = text.to_ascii_lowercase();
    let mut names: Vec<&str> = FAMILIES.iter().map(|f| f.name()).collect();
    names.extend(steps.iter().map(|(_, s)| s.id));
    let mut scored: Vec<(usize, usize, &str)> = names
        .iter()
        .enumerate()
        .map(|(order, name)| {
            // Compare with as much of the name as the pattern is long, so that a short
            // pattern is near the ids it starts like.
            let cut: String = name.chars().take(text.chars().count().max(2)).collect();
            let distance = if name.contains(text.as_str()) {
                0
            } else {
                edit_distance(&text, &cut).min(edit_distance(&text, name))
            };
            (distance, order, *name)
        })
        .collect();
    scored.sort();
    scored.into_iter().take(CLOSEST_SHOWN).map(|(_, _, name)| name.to_string()).collect()
}

/// Levenshtein distance between `a` and `b`, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// `--list`: every family's steps under its title, with what each needs beyond sm_80.
pub fn list() -> String {
    let mut out = String::new();
    for family in FAMILIES {
        out += &format!("{} — {}\n", family.name(), family.title());
        for step in family.steps() {
            let needs = if step.arch.specific { format!("  (needs {})", step.arch) } else { String::new() };
            out += &format!("  {:<26} {}{needs}\n", step.id, step.summary);
        }
    }
    out
}
