//! `host compare OLD.json NEW.json`: the time of every kernel and size in NEW over OLD,
//! with a verdict that takes each run's noise into account, as nvbench's compare script
//! does. Reads only the two files: no GPU is opened.
//!
//! Records are matched on their [`Key`] (family, kernel, variant, precision, size). A
//! difference is significant only when the relative change of the median,
//! `|new / old − 1|`, exceeds the larger of the two runs' spreads (interquartile range
//! over the median) and the threshold (default 2 %, since two GPUs of one kind differ by a
//! few per cent): beyond the noise of both runs, and beyond what a change of machine alone
//! explains. Within it the verdict is `same`.

use crate::base::error::{Error, Result};
use crate::report::records::{Key, Record};
use crate::report::table::{Cell, Table};
use serde_json::Value;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

/// One results file, as much of it as a comparison needs.
#[derive(Clone, Debug)]
pub struct Results {
    pub device: String,
    pub date_utc: String,
    pub records: Vec<Record>,
    /// How many records carried an id renamed since ([`super::records::RENAMED`]).
    pub renamed: usize,
}

/// Reads a results file written by `host --json`; every error names the file.
pub fn load(path: &Path) -> Result<Results> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    parse(&text).map_err(|why| Error::new(format!("{}: {why}", path.display())))
}

/// Parses the text of a results file; the error says what is wrong, without the file name.
pub fn parse(text: &str) -> std::result::Result<Results, String> {
    if text.starts_with(&super::records::CSV_COLUMNS[..3].join(",")) {
        return Err("a CSV file (`--csv`): compare reads the JSON file of a run (`host --json FILE`)".into());
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Some(list) = value.get("records") else {
        return Err(if value.get("reductions").is_some() || value.get("gemm").is_some() {
            "no `records` list: written by an older host, whose JSON held tables; rerun with `host --json`"
                .into()
        } else {
            "no `records` list: not a results file of `host --json`".into()
        });
    };
    let list = list.as_array().ok_or("`records` is not a list")?;
    let records = list
        .iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value::<Record>(item.clone()).map_err(|e| {
                let kernel =
                    item.get("kernel").and_then(Value::as_str).map_or(String::new(), |k| format!(" (`{k}`)"));
                format!("record {i}{kernel}: {e}")
            })
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let mut renamed = 0;
    let records = records
        .into_iter()
        .map(|mut record| {
            if let std::borrow::Cow::Owned(id) = super::records::current_id(&record.kernel) {
                record.kernel = id;
                renamed += 1;
            }
            record
        })
        .collect();
    let text_at =
        |pointer: &str| value.pointer(pointer).and_then(Value::as_str).unwrap_or("unknown").to_string();
    Ok(Results { device: text_at("/device/name"), date_utc: text_at("/date_utc"), records, renamed })
}

/// What happened to one record between the runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within the noise.
    Same,
    Faster,
    Slower,
    /// In both runs, but without a time in at least one (verification only, a probe that
    /// counts cycles, a kernel wrong in OLD).
    Untimed,
    /// Wrong in NEW: no time to compare, and worse than any slowdown.
    Wrong,
    /// Only in NEW.
    Added,
    /// Only in OLD.
    Removed,
}

impl Verdict {
    /// Every verdict.
    pub const ALL: [Verdict; 7] = [
        Verdict::Same,
        Verdict::Faster,
        Verdict::Slower,
        Verdict::Untimed,
        Verdict::Wrong,
        Verdict::Added,
        Verdict::Removed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Untimed => "untimed",
            Verdict::Wrong => "WRONG",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
        }
    }

    /// Whether `--fail-on-slowdown` fails on it.
    pub fn fails_guard(self) -> bool {
        matches!(self, Verdict::Slower | Verdict::Wrong)
    }
}

/// One line of the comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub key: Key,
    pub old_us: Option<f64>,
    pub new_us: Option<f64>,
    /// NEW's median over OLD's.
    pub ratio: Option<f64>,
    /// The relative difference that counts, in percent: the larger spread, or the threshold.
    pub noise_percent: Option<f64>,
    pub verdict: Verdict,
}

/// The verdict on one record present in both runs, with its ratio and noise.
pub fn judge(old: &Record, new: &Record, threshold_percent: f64) -> Comparison {
    let mut line = Comparison {
        key: new.key(),
        old_us: old.median_us,
        new_us: new.median_us,
        ratio: None,
        noise_percent: None,
        verdict: Verdict::Untimed,
    };
    if new.passed == Some(false) {
        line.verdict = Verdict::Wrong;
        return line;
    }
    let (Some(old_us), Some(new_us)) = (old.median_us, new.median_us) else { return line };
    if old_us <= 0.0 {
        return line;
    }
    let ratio = new_us / old_us;
    let noise =
        [old.spread_percent, new.spread_percent].into_iter().flatten().fold(threshold_percent, f64::max);
    let change = 100.0 * (ratio - 1.0);
    line.ratio = Some(ratio);
    line.noise_percent = Some(noise);
    line.verdict = if change.abs() <= noise {
        Verdict::Same
    } else if change < 0.0 {
        Verdict::Faster
    } else {
        Verdict::Slower
    };
    line
}

/// Every record of NEW in its order (matched with OLD's where it has one), then those only
/// in OLD. Where one file holds a key twice, the first record counts, and `warnings` says so.
pub fn compare(old: &[Record], new: &[Record], threshold_percent: f64) -> (Vec<Comparison>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut index = |records: &[Record], which: &str| {
        let mut by_key: HashMap<Key, usize> = HashMap::new();
        for (i, record) in records.iter().enumerate() {
            let key = record.key();
            match by_key.entry(key) {
                Entry::Occupied(first) => warnings
                    .push(format!("{which} holds {} more than once: the first one is compared", first.key())),
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
        by_key
    };
    let (old_index, new_index) = (index(old, "OLD"), index(new, "NEW"));
    let only = |record: &Record, verdict| Comparison {
        key: record.key(),
        old_us: (verdict == Verdict::Removed).then_some(record.median_us).flatten(),
        new_us: (verdict == Verdict::Added).then_some(record.median_us).flatten(),
        ratio: None,
        noise_percent: None,
        verdict,
    };
    let mut lines = Vec::new();
    for (i, record) in new.iter().enumerate() {
        if new_index[&record.key()] != i {
            continue;
        }
        lines.push(match old_index.get(&record.key()) {
            Some(&j) => judge(&old[j], record, threshold_percent),
            None => only(record, Verdict::Added),
        });
    }
    for (j, record) in old.iter().enumerate() {
        if old_index[&record.key()] == j && !new_index.contains_key(&record.key()) {
            lines.push(only(record, Verdict::Removed));
        }
    }
    (lines, warnings)
}

/// What the comparison table lists beyond the records that changed and those that did not.
#[derive(Clone, Copy, Debug, Default)]
pub struct Show {
    /// The records without a time in one of the runs.
    pub untimed: bool,
    /// Variants in full (else cut to [`VARIANT_CHARACTERS`]).
    pub wide: bool,
}

/// How much of a variant the narrow table prints.
pub const VARIANT_CHARACTERS: usize = 24;

/// The order of the verdicts in the table and its summary: what needs a look first.
const VERDICT_ORDER: [Verdict; 7] = [
    Verdict::Wrong,
    Verdict::Slower,
    Verdict::Faster,
    Verdict::Added,
    Verdict::Removed,
    Verdict::Same,
    Verdict::Untimed,
];

/// How many records the summary names for each verdict other than `same` and `untimed`.
const NAMED_IN_SUMMARY: usize = 6;

/// The comparison as a table: the records that are not `same` first (wrong, slower, faster,
/// added, removed), then the same ones; untimed ones only when `show.untimed`. The notes
/// hold the rule and a summary that names the records that changed.
pub fn table(lines: &[Comparison], threshold_percent: f64, show: Show) -> Table {
    let mut table = Table::new(
        "NEW against OLD: median time per kernel and size",
        &[
            "kernel",
            "family",
            "precision",
            "size",
            "old µs",
            "new µs",
            "new / old",
            "noise %",
            "verdict",
            "variant",
        ],
    );
    // Step ids are unique across families and name their input type: family and precision
    // are detail.
    table.detail(&["family", "precision"]);
    let text = |t: &Option<String>| Cell::Text(t.clone().unwrap_or_default());
    let num = |v: Option<f64>, decimals| Cell::Num(v.unwrap_or(f64::NAN), decimals);
    let variant = |v: &Option<String>| -> Cell {
        let v = v.clone().unwrap_or_default();
        if show.wide || v.chars().count() <= VARIANT_CHARACTERS {
            return v.into();
        }
        // Too long: the labels' values without their names (`host → GPU 0, pageable` for
        // `path=host → GPU 0, pageable`), cut if still too long.
        let v = v
            .split(", ")
            .map(|part| part.split_once('=').map_or(part, |(_, value)| value))
            .collect::<Vec<_>>()
            .join(", ");
        if v.chars().count() <= VARIANT_CHARACTERS {
            v.into()
        } else {
            format!("{}…", v.chars().take(VARIANT_CHARACTERS - 1).collect::<String>()).into()
        }
    };
    for verdict in VERDICT_ORDER.into_iter().filter(|&v| v != Verdict::Untimed || show.untimed) {
        for line in lines.iter().filter(|l| l.verdict == verdict) {
            table.push(vec![
                line.key.kernel.as_str().into(),
                line.key.family.as_str().into(),
                text(&line.key.precision),
                line.key.size_text().into(),
                num(line.old_us, 1),
                num(line.new_us, 1),
                num(line.ratio, 3),
                num(line.noise_percent, 1),
                line.verdict.name().into(),
                variant(&line.key.variant),
            ]);
        }
    }
    table.notes.push(format!(
        "faster / slower: |new / old − 1| beyond noise % = the larger of the two runs' spreads (interquartile \
         range over the median) and the threshold ({threshold_percent} %); same otherwise"
    ));
    let count = |verdict: Verdict| lines.iter().filter(|l| l.verdict == verdict).count();
    let mut summary: Vec<String> =
        VERDICT_ORDER.iter().map(|&v| format!("{} {}", count(v), v.name())).collect();
    if count(Verdict::Untimed) > 0 && !show.untimed {
        summary.last_mut().expect("seven verdicts").push_str(" (not listed: --all lists them)");
    }
    table.notes.push(format!("summary: {}", summary.join(", ")));
    for verdict in [Verdict::Wrong, Verdict::Slower, Verdict::Faster, Verdict::Added, Verdict::Removed] {
        let named: Vec<String> = lines
            .iter()
            .filter(|l| l.verdict == verdict)
            .map(|l| {
                let change = l.ratio.map_or(String::new(), |r| format!(" ({:+.1} %)", 100.0 * (r - 1.0)));
                format!("{}{change}", l.key)
            })
            .collect();
        if named.is_empty() {
            continue;
        }
        let more = named.len().saturating_sub(NAMED_IN_SUMMARY);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        table.notes.push(format!(
            "{}: {}{more}",
            verdict.name(),
            named.into_iter().take(NAMED_IN_SUMMARY).collect::<Vec<_>>().join("; ")
        ));
    }
    table
}

/// `host compare`: prints the comparison; returns `false` when `--fail-on-slowdown` is given
/// and a record is slower beyond the noise or wrong in NEW.
pub fn run(
    old_path: &Path,
    new_path: &Path,
    threshold: f64,
    fail_on_slowdown: bool,
    show: Show,
) -> Result<bool> {
    let (old, new) = (load(old_path)?, load(new_path)?);
    println!("OLD {}: {}, {}", old_path.display(), old.device, old.date_utc);
    println!("NEW {}: {}, {}", new_path.display(), new.device, new.date_utc);
    for (name, results) in [("OLD", &old), ("NEW", &new)] {
        if results.renamed > 0 {
            println!(
                "{name}: {} records carry step ids renamed since (t1_mma_sync_f16 is now t01_mma_sync_f16, t12_… w08_…): \
                 compared under today's ids",
                results.renamed
            );
        }
    }
    if old.device != new.device {
        println!("the runs are on different GPUs: the ratios compare the machines as much as the code");
    }
    let (lines, warnings) = compare(&old.records, &new.records, threshold);
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let table = table(&lines, threshold, show);
    print!("{}", if show.wide { table.render_wide() } else { table.render() });
    let failing = lines.iter().filter(|l| l.verdict.fails_guard()).count();
    Ok(!(fail_on_slowdown && failing > 0))
}
