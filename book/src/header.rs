//! A step's header card, read from the module doc that opens its file:
//!
//! ```text
//! //! Step <id> — <title>.                      (a probe: `Probe <id> — <title>.`)
//! //!
//! //! Idea: …                                   (a probe: `Shows:`, `How:`, `Result:`)
//! //!       continuation lines, indented
//! //! Changes from <step>: …
//! //! Bottleneck: …
//! //! Cost: …
//! //! Result: …
//! //!
//! //! Free prose, in Markdown, as long as it needs.
//! ```
//!
//! The parse is lenient, since headers are written by hand: the title may run over several
//! lines, a field is any line that starts (unindented) with a short capitalised name and a
//! colon (`Why it is fast:`, `Result (final run, 2026-11-23):` are fields too, rendered as
//! they come), and a header without the `Step <id> —` opening or without fields is still a
//! title and prose. Fields are read from the paragraph right after the title (when its
//! first line is one); every paragraph after it is prose, whatever it opens with.

/// One field of a card: `Idea`, `Changes from x3`, `Result (final run, …)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The name as written, without the colon.
    pub name: String,
    /// The text, Markdown, its lines joined by newlines and the continuation indent gone.
    pub text: String,
}

/// A step's header card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// `Step`, `Probe`, or empty when the title does not open with one.
    pub kind: String,
    /// The id the title names (`w08`, `p1`), or empty.
    pub id: String,
    /// The title after the dash, without its final full stop (Markdown).
    pub title: String,
    pub fields: Vec<Field>,
    /// What follows the fields (Markdown), or empty.
    pub prose: String,
}

/// The longest field name, in characters, before any parenthesis.
const MAX_FIELD_NAME: usize = 40;
/// The most words a field name has before any parenthesis (`Variants that did not pay`).
const MAX_FIELD_WORDS: usize = 5;

/// Reads the header of a step's file from its module doc (the `//!` lines at its top,
/// without the markers: [`crate::markdown::module_doc`]). `None` when there is no doc.
pub fn parse(doc: &str) -> Option<Header> {
    let lines: Vec<&str> = doc.lines().collect();
    let paragraphs = paragraphs(&lines);
    let (first, rest) = paragraphs.split_first()?;
    let title_text = first.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    let (kind, id, title, more) = split_title(&title_text);

    // Fields: the paragraph right after the title, when it opens with one.
    let (fields, prose) = match rest.split_first() {
        Some((paragraph, after)) if field_start(paragraph[0]).is_some() => (fields(paragraph), after),
        _ => (vec![], rest),
    };
    let prose: Vec<String> = more.into_iter().chain(prose.iter().map(|p| p.join("\n"))).collect();
    Some(Header { kind, id, title, fields, prose: prose.join("\n\n") })
}

/// The fields of a paragraph that opens with one: each runs to the next field's line.
fn fields(paragraph: &[&str]) -> Vec<Field> {
    let mut fields: Vec<Field> = vec![];
    for line in paragraph {
        match (field_start(line), fields.last_mut()) {
            (Some((name, text)), _) => fields.push(Field { name: name.into(), text: text.trim().into() }),
            (None, Some(field)) => {
                if !field.text.is_empty() {
                    field.text.push('\n');
                }
                field.text.push_str(line.trim());
            }
            (None, None) => unreachable!("the paragraph opens with a field"),
        }
    }
    fields
}

/// The doc's paragraphs: runs of lines between blank lines. A fenced code block is kept
/// whole, blank lines and all.
fn paragraphs<'a>(lines: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&str>> = vec![];
    let mut current: Vec<&str> = vec![];
    let mut in_fence = false;
    for &line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if line.trim().is_empty() && !in_fence {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `Step w08 — the title.` → (`Step`, `w08`, `the title`, nothing more). A first paragraph
/// without that opening (a host file's doc) gives its first sentence as the title, after an
/// id that opens it (`m1: the interconnect. …` → id `m1`), and the rest of the paragraph as
/// the first of the prose.
fn split_title(text: &str) -> (String, String, String, Option<String>) {
    let text = text.trim();
    let mut words = text.splitn(3, ' ');
    if let (Some(kind), Some(id), Some(rest)) = (words.next(), words.next(), words.next())
        && let Some(title) =
            rest.strip_prefix("— ").or_else(|| rest.strip_prefix("-- ")).or_else(|| rest.strip_prefix("- "))
        && kind.chars().next().is_some_and(char::is_uppercase)
        && id.chars().any(|c| c.is_ascii_digit())
    {
        return (kind.to_string(), id.to_string(), title.trim().trim_end_matches('.').to_string(), None);
    }
    // `m1: the interconnect. Bandwidth and …`
    let (id, text) = match text.split_once(": ") {
        Some((id, rest))
            if id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && id.chars().any(|c| c.is_ascii_digit())
                && id.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            (id.to_string(), rest)
        }
        _ => (String::new(), text),
    };
    match text.find(". ") {
        Some(end) => (String::new(), id, text[..end].to_string(), Some(text[end + 2..].trim().to_string())),
        None => (String::new(), id, text.trim_end_matches('.').to_string(), None),
    }
}

/// `Name: text` when `line` opens a field: unindented, a capitalised name of a few words
/// (a parenthesis after it may hold anything but a colon), then a colon and a space (or the
/// line's end).
fn field_start(line: &str) -> Option<(&str, &str)> {
    if line.starts_with(char::is_whitespace) || !line.starts_with(|c: char| c.is_uppercase()) {
        return None;
    }
    let colon = line.find(':')?;
    let (name, after) = (&line[..colon], &line[colon + 1..]);
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    let base = name.split('(').next().unwrap_or(name).trim_end();
    let plain = |c: char| c.is_alphanumeric() || " '’-–/".contains(c);
    let ok = !base.is_empty()
        && base.chars().count() <= MAX_FIELD_NAME
        && base.split_whitespace().count() <= MAX_FIELD_WORDS
        && base.chars().all(plain)
        && (name.len() == base.len() || name.trim_end().ends_with(')'));
    ok.then_some((name, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, text: &str) -> Field {
        Field { name: name.into(), text: text.into() }
    }

    #[test]
    fn a_step_card_with_prose() {
        let doc = "Step x4 — one 64-bit atomic carries both the arrival count and the sum.\n\n\
                   Idea: x3 proved that\n      one launch can finish.\n\
                   Changes from x3: the finish is thread 0 alone.\n\
                   Cost: 24 registers.\n\
                   Result: 940 µs (94.9 %) at\n      2^30 on an H200.\n\n\
                   More prose: with a colon.\n\nAnd a second paragraph.";
        let header = parse(doc).unwrap();
        assert_eq!(header.kind, "Step");
        assert_eq!(header.id, "x4");
        assert_eq!(header.title, "one 64-bit atomic carries both the arrival count and the sum");
        assert_eq!(
            header.fields,
            vec![
                field("Idea", "x3 proved that\none launch can finish."),
                field("Changes from x3", "the finish is thread 0 alone."),
                field("Cost", "24 registers."),
                field("Result", "940 µs (94.9 %) at\n2^30 on an H200."),
            ]
        );
        assert_eq!(header.prose, "More prose: with a colon.\n\nAnd a second paragraph.");
    }

    #[test]
    fn titles_over_several_lines_and_fields_with_parentheses() {
        let doc = "Step w08 — the start and the end of a launch: what a block waits for before its first\n\
                   `wgmma` and after its last store.\n\n\
                   Idea: a launch.\n\
                   Result (final run, 2026-11-23, % of cuBLAS f16 / bf16): H200 4096³ 100.2 / 99.7,\n\
                   \x20     2048³ 99.9.\n\
                   Variants that did not pay (H100, 4096³): the two consumer warpgroups.";
        let header = parse(doc).unwrap();
        assert_eq!(
            header.title,
            "the start and the end of a launch: what a block waits for before its first `wgmma` and after its last store"
        );
        let names: Vec<&str> = header.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Idea",
                "Result (final run, 2026-11-23, % of cuBLAS f16 / bf16)",
                "Variants that did not pay (H100, 4096³)"
            ]
        );
        assert_eq!(header.fields[1].text, "H200 4096³ 100.2 / 99.7,\n2048³ 99.9.");
        assert!(header.prose.is_empty());
    }

    #[test]
    fn a_probe_without_fields_is_title_and_prose() {
        let doc = "Probe p1 — strided copies: sectors, not bytes.\n\n`dst[i·S] = src[i·S]` for `i < count`.\n\n\
                   Measured (H200, 2026-11-22): stride 1 copies 2689 GB/s.";
        let header = parse(doc).unwrap();
        assert_eq!((header.kind.as_str(), header.id.as_str()), ("Probe", "p1"));
        assert!(header.fields.is_empty());
        assert!(header.prose.starts_with("`dst[i·S]"));
        assert!(header.prose.ends_with("2689 GB/s."));
    }

    #[test]
    fn probe_fields_and_unknown_fields() {
        let doc = "Probe p6 — load latency.\n\nShows: the ladder.\nHow: a pointer chase\n   of one thread.\n\
                   Result: 20 ns.\nSeen on: an H100.\n\nProse.";
        let header = parse(doc).unwrap();
        let names: Vec<&str> = header.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["Shows", "How", "Result", "Seen on"]);
        assert_eq!(header.fields[1].text, "a pointer chase\nof one thread.");
        assert_eq!(header.prose, "Prose.");
    }

    #[test]
    fn titles_without_the_opening_and_lines_that_are_no_fields() {
        let header = parse("The host half of m1: the interconnect.\n\nA paragraph.").unwrap();
        assert_eq!((header.kind.as_str(), header.id.as_str()), ("", ""));
        assert_eq!(header.title, "The host half of m1: the interconnect");
        assert_eq!(header.prose, "A paragraph.");
        let header =
            parse("m1: the interconnect. Bandwidth and latency\nof every path:\n\n- a list").unwrap();
        assert_eq!((header.id.as_str(), header.title.as_str()), ("m1", "the interconnect"));
        assert_eq!(header.prose, "Bandwidth and latency of every path:\n\n- a list");
        assert!(field_start("  Idea: indented").is_none());
        assert!(field_start("Note: `x`").is_some());
        assert!(field_start("A long sentence that happens to have a colon: here").is_none());
        assert!(field_start("See https://example").is_none());
        assert!(field_start("`code`: no").is_none());
        assert!(parse("").is_none());
    }

    #[test]
    fn code_blocks_in_prose_stay_whole() {
        let doc = "Step h0 — t.\n\nIdea: i.\n\n```text\na\n\nb\n```\nafter";
        let header = parse(doc).unwrap();
        assert_eq!(header.prose, "```text\na\n\nb\n```\nafter");
    }
}
