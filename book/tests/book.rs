//! The results pages and the book, checked.
//!
//! - `results/…`: the committed pages `docs/results/<gpu>.md` and the attention charts in
//!   `docs/results/<gpu>/charts/` are what `cargo xtask results` makes of the committed
//!   records today (regenerated and compared byte for byte), and the pages' tables fit 120
//!   columns.
//! - `book/…`: the book builds from the sources; every registered step (every `Step` of
//!   every family in `FAMILIES`) has a chapter in its table of contents; no link of its HTML
//!   is broken; a chapter's HTML holds its card, figures, chart, diff, code and twin.
//! - `browser/…`: the book in headless Chromium, as a reader sees it, scripts and all: a
//!   chapter's code, diff and C++ twin highlighted and its chart drawn; the table of contents
//!   the scripts build reaches every step; no link of any rendered page is broken.
//!
//! A custom harness (libtest-mimic), so that without Chromium the browser tests are
//! reported as ignored, with the reason, never as passed. Everything else runs everywhere.

use book::book::Built;
use book::browser::{self, Chromium};
use book::{Repo, links};
use host::families::FAMILIES;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The chapters whose rendering the tests look at closely: a reduction step and a Hopper
/// GEMM step, each with a diff, a chart, figures and a twin.
const CLOSE_LOOK: &[&str] = &["x4_packed_tally", "w08_latency_trims_f16"];

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        Trial::test("results/pages_are_up_to_date_with_the_records", pages_are_up_to_date),
        Trial::test("results/tables_fit_120_columns", tables_fit),
        Trial::test("book/builds_from_the_sources", builds),
        Trial::test("book/every_step_has_a_chapter_in_the_table_of_contents", every_step_in_summary),
        Trial::test("book/no_link_is_broken", no_broken_links),
        Trial::test("book/chapters_hold_card_figures_chart_diff_code_and_twin", chapters_hold_everything),
    ];
    let chromium = Chromium::find();
    let browser_trials = [
        Trial::test(
            "browser/chapters_show_code_diff_twin_and_chart",
            browser_chapters as fn() -> Result<(), Failed>,
        ),
        Trial::test("browser/table_of_contents_reaches_every_step", browser_toc),
        Trial::test("browser/no_link_of_a_rendered_page_is_broken", browser_links),
    ];
    for trial in browser_trials {
        match &chromium {
            Ok(_) => trials.push(trial),
            Err(reason) => {
                eprintln!("{} ignored: {reason}", trial.name());
                trials.push(trial.with_ignored_flag(true));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Where the tests build: the target's folder for integration tests.
fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("book-tests")
}

/// The book, built once for every test that needs it.
fn built() -> Result<&'static Built, Failed> {
    static BUILT: OnceLock<Result<Built, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            book::book::build_unchecked(&Repo::locate(), &scratch().join("book"), &scratch().join("book-src"))
        })
        .as_ref()
        .map_err(|e| Failed::from(format!("the book does not build: {e}")))
}

fn read(path: &Path) -> Result<String, Failed> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()).into())
}

// ----- results -----

fn pages_are_up_to_date() -> Result<(), Failed> {
    let repo = Repo::locate();
    let committed = repo.root.join(book::records::RESULTS_DIR);
    // Every page and chart, as `cargo xtask results` would write them today.
    let mut stale: Vec<String> =
        book::results::stale(&repo, &committed)?.into_iter().map(|s| format!("docs/results/{s}")).collect();
    // A page of a GPU kind whose records are gone.
    let names: BTreeSet<String> = book::results::pages(&repo)?.into_iter().map(|(name, _)| name).collect();
    for entry in std::fs::read_dir(&committed).map_err(|e| format!("{}: {e}", committed.display()))? {
        let name = entry.map_err(|e| e.to_string())?.file_name().to_string_lossy().to_string();
        if name.ends_with(".md") && !names.contains(&name) {
            stale.push(format!(
                "docs/results/{name} has no records folder docs/results/{}/",
                name.trim_end_matches(".md")
            ));
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!("{}; run `cargo xtask results` and commit the pages and charts", stale.join("; ")).into())
    }
}

fn tables_fit() -> Result<(), Failed> {
    let mut wide = vec![];
    for (name, text) in book::results::pages(&Repo::locate())? {
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('|') && line.chars().count() >= book::markdown::MAX_TABLE_WIDTH {
                wide.push(format!("{name}:{} is {} columns", number + 1, line.chars().count()));
            }
        }
    }
    if wide.is_empty() {
        Ok(())
    } else {
        Err(format!("table lines of 120 columns or more: {}", wide.join(", ")).into())
    }
}

// ----- the book, as files -----

fn builds() -> Result<(), Failed> {
    let built = built()?;
    for (page, _) in &built.chapters {
        if !built.out.join(page).is_file() {
            return Err(format!("the chapter {page} was not rendered").into());
        }
    }
    if !built.out.join("index.html").is_file() {
        return Err("the book has no index.html".into());
    }
    Ok(())
}

/// Every registered step, with the page of its chapter (from the build).
fn steps_and_pages(built: &Built) -> Result<Vec<(String, String)>, Failed> {
    let mut out = vec![];
    for family in FAMILIES {
        for step in family.steps() {
            let page = built
                .chapters
                .iter()
                .find(|(_, ids)| ids.iter().any(|id| id == step.id))
                .map(|(page, _)| page.clone())
                .ok_or_else(|| format!("step {} of family {} has no chapter", step.id, family.name()))?;
            out.push((step.id.to_string(), page));
        }
    }
    Ok(out)
}

fn every_step_in_summary() -> Result<(), Failed> {
    let built = built()?;
    let summary = read(&built.source.join("src/SUMMARY.md"))?;
    let toc = read(&built.out.join("toc.html"))?;
    let mut missing = vec![];
    for (id, page) in steps_and_pages(built)? {
        let md = page.replace(".html", ".md");
        if !summary.contains(&format!("(<{md}>)")) {
            missing.push(format!("{id}: {md} is not in SUMMARY.md"));
        }
        if !toc.contains(&format!("href=\"{page}\"")) {
            missing.push(format!("{id}: {page} is not in the rendered table of contents (toc.html)"));
        }
        let html = read(&built.out.join(&page))?;
        if !html.contains(&format!("<code>{id}</code>")) {
            missing.push(format!("{id}: its chapter {page} does not name it"));
        }
    }
    if missing.is_empty() { Ok(()) } else { Err(missing.join("\n").into()) }
}

fn no_broken_links() -> Result<(), Failed> {
    let built = built()?;
    let broken = links::check(&built.out)?;
    if broken.is_empty() { Ok(()) } else { Err(format!("broken links:\n{}", broken.join("\n")).into()) }
}

/// The chapter page of step `id`.
fn page_of(built: &Built, id: &str) -> Result<String, Failed> {
    built
        .chapters
        .iter()
        .find(|(_, ids)| ids.iter().any(|i| i == id))
        .map(|(page, _)| page.clone())
        .ok_or_else(|| format!("no chapter holds {id}").into())
}

fn chapters_hold_everything() -> Result<(), Failed> {
    let built = built()?;
    // A family's introduction (its kernel folder's doc) links its steps' chapters, and the
    // device library's its modules and wrappers, through their intra-doc links.
    let wanted = [
        ("reduce/index.html", "x4_packed_tally.html\"><code>x4_packed_tally</code></a>"),
        ("device.html", "device/warp.html\"><code>warp</code></a>"),
    ];
    for (page, link) in wanted {
        let html = read(&built.out.join(page))?;
        if !html.contains(link) {
            return Err(format!("{page} does not link its intra-doc link {link}").into());
        }
    }
    let mma = read(&built.out.join("device/mma.html"))?;
    if !mma.contains("href=\"../device/mma.html#ldmatrix_x4\"") {
        return Err("device/mma.html does not link its own ldmatrix_x4 from the wrappers' docs".into());
    }
    for id in CLOSE_LOOK {
        let page = page_of(built, id)?;
        let html = read(&built.out.join(&page))?;
        let wanted = [
            ("its card", "<strong>Idea:</strong>"),
            ("its figures", "<table>"),
            ("its chart", ".svg\""),
            ("its diff", "class=\"language-diff\""),
            ("its code", "class=\"language-rust\""),
            ("its C++ twin", "class=\"language-cpp\""),
            ("a link into the device library", "device/"),
        ];
        let missing: Vec<&str> =
            wanted.iter().filter(|(_, text)| !html.contains(text)).map(|(what, _)| *what).collect();
        if !missing.is_empty() {
            return Err(format!("{page} lacks {}", missing.join(", ")).into());
        }
    }
    Ok(())
}

// ----- the book in Chromium -----

/// What a page looks like after its scripts ran, as the harness page reports it.
type Report = BTreeMap<String, Value>;

/// Opens `pages` (from the book's root) one after another in a frame of a harness page and
/// reports, for each, what its DOM holds once loaded: its links (attribute and resolved
/// URL), ids, code blocks and their highlighting, images and whether they were drawn, the
/// table of contents' links, and its inline code.
fn inspect(pages: &[String]) -> Result<Report, Failed> {
    let built = built()?;
    let chromium = Chromium::find()?;
    let dir = browser::fresh_folder("book-harness")?;
    let list = serde_json::to_string(
        &pages.iter().map(|p| browser::file_url(&built.out.join(p))).collect::<Vec<_>>(),
    )
    .expect("a list of strings serializes");
    let harness = HARNESS.replace("PAGES", &list);
    let path = dir.join("harness.html");
    std::fs::write(&path, harness).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let dom = chromium.dump_dom(&browser::file_url(&path), true)?;
    let _ = std::fs::remove_dir_all(&dir);
    let start = dom.find("<pre id=\"report\">").ok_or("the harness page reported nothing")?
        + "<pre id=\"report\">".len();
    let end = dom[start..].find("</pre>").ok_or("the harness page's report is not closed")? + start;
    let text = dom[start..end].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    if text.starts_with("pending") || text.starts_with("error") {
        return Err(format!("the harness page did not finish: {text}").into());
    }
    let report: Value =
        serde_json::from_str(&text).map_err(|e| format!("the harness's report is not JSON: {e}"))?;
    let Value::Object(map) = report else { return Err("the harness's report is not an object".into()) };
    let by_page: Report = map
        .into_iter()
        .map(|(url, value)| {
            let page =
                pages.iter().find(|p| url == browser::file_url(&built.out.join(p))).cloned().unwrap_or(url);
            (page, value)
        })
        .collect();
    for page in pages {
        if !by_page.contains_key(page) {
            return Err(format!("the harness page did not load {page}").into());
        }
    }
    Ok(by_page)
}

/// The harness: loads each page in turn in a frame and writes a JSON report into
/// `#report`. Chromium runs it with file access between `file://` pages.
const HARNESS: &str = r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>book harness</title></head>
<body><pre id="report">pending</pre><iframe id="frame" width="1400" height="900"></iframe>
<script>
const pages = PAGES;
const report = {};
const frame = document.getElementById('frame');
const all = (d, selector) => Array.from(d.querySelectorAll(selector));
function look(d) {
  const linked = all(d, '[href], [src]').filter(e => e.tagName !== 'BASE');
  return {
    title: d.title,
    links: linked.map(e => [e.hasAttribute('href') ? e.getAttribute('href') : e.getAttribute('src'),
                            e.hasAttribute('href') ? (e.href || '') : (e.src || '')]),
    ids: all(d, '[id], [name]').map(e => e.id || e.getAttribute('name')),
    code: all(d, 'pre code').map(c => ({
      classes: c.className, spans: c.querySelectorAll('span').length,
      additions: c.querySelectorAll('.hljs-addition').length, deletions: c.querySelectorAll('.hljs-deletion').length,
      length: c.textContent.length })),
    images: all(d, 'main img').map(i => ({ src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth })),
    tables: all(d, 'main table').length,
    toc: all(d, '#sidebar a[href]').map(a => a.href),
    inline_code: all(d, 'main li code, main p code').map(c => c.textContent),
  };
}
function next(i) {
  if (i >= pages.length) {
    document.getElementById('report').textContent = JSON.stringify(report);
    return;
  }
  frame.onload = () => {
    try { report[pages[i]] = look(frame.contentDocument); }
    catch (e) { document.getElementById('report').textContent = 'error ' + e; return; }
    next(i + 1);
  };
  frame.src = pages[i];
}
next(0);
</script></body></html>
"#;

fn field<'a>(value: &'a Value, name: &str) -> &'a [Value] {
    value.get(name).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn browser_chapters() -> Result<(), Failed> {
    let built = built()?;
    let pages: Vec<String> = CLOSE_LOOK.iter().map(|id| page_of(built, id)).collect::<Result<_, _>>()?;
    let report = inspect(&pages)?;
    for page in &pages {
        let look = &report[page];
        let code = field(look, "code");
        let highlighted = |language: &str| {
            code.iter().any(|c| {
                let classes = c["classes"].as_str().unwrap_or("");
                classes.contains(&format!("language-{language}"))
                    && classes.contains("hljs")
                    && c["spans"].as_u64().unwrap_or(0) > 10
                    && c["length"].as_u64().unwrap_or(0) > 500
            })
        };
        for (language, what) in [("rust", "its code"), ("diff", "its diff"), ("cpp", "its C++ twin")] {
            if !highlighted(language) {
                return Err(format!(
                    "{page}: {what} is not shown highlighted (no {language} block that highlight.js coloured)"
                )
                .into());
            }
        }
        let diff_lines = code.iter().find(|c| c["classes"].as_str().unwrap_or("").contains("language-diff"));
        let marked = diff_lines
            .is_some_and(|c| c["additions"].as_u64() > Some(0) && c["deletions"].as_u64() > Some(0));
        if !marked {
            return Err(format!("{page}: the diff's added and removed lines are not marked").into());
        }
        let drawn = field(look, "images").iter().any(|i| {
            i["src"].as_str().is_some_and(|s| s.ends_with(".svg"))
                && i["complete"].as_bool() == Some(true)
                && i["width"].as_u64().unwrap_or(0) > 100
        });
        if !drawn {
            return Err(format!("{page}: its chart is not drawn (no SVG image loaded with a width)").into());
        }
        if look["tables"].as_u64().unwrap_or(0) == 0 {
            return Err(format!("{page}: its figures' table is not shown").into());
        }
    }
    Ok(())
}

/// A `file://` URL's path without its fragment, and the fragment, both decoded.
fn url_path(url: &str) -> Option<(PathBuf, Option<String>)> {
    let rest = url.strip_prefix("file://")?;
    let (path, fragment) = rest.split_once('#').map_or((rest, None), |(p, f)| (p, Some(f)));
    let path = path.split('?').next().unwrap_or(path);
    Some((PathBuf::from(percent_decode(path)), fragment.map(percent_decode)))
}

/// `%C2%B3` and the like decoded.
fn percent_decode(text: &str) -> String {
    let raw = text.as_bytes();
    let mut bytes = vec![];
    let mut at = 0;
    while at < raw.len() {
        if raw[at] == b'%'
            && let Some(value) = text.get(at + 1..at + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            bytes.push(value);
            at += 3;
            continue;
        }
        bytes.push(raw[at]);
        at += 1;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn browser_toc() -> Result<(), Failed> {
    let built = built()?;
    let report = inspect(&["index.html".to_string()])?;
    let toc: Vec<PathBuf> = field(&report["index.html"], "toc")
        .iter()
        .filter_map(Value::as_str)
        .filter_map(url_path)
        .map(|(path, _)| path)
        .collect();
    if toc.is_empty() {
        return Err("the table of contents the scripts build has no links".into());
    }
    let mut problems = vec![];
    for path in &toc {
        if !path.is_file() {
            problems.push(format!("the table of contents links {}, which is not a file", path.display()));
        }
    }
    for (id, page) in steps_and_pages(built)? {
        if !toc.contains(&built.out.join(&page)) {
            problems.push(format!("{id}: its chapter {page} is not reachable from the table of contents"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n").into()) }
}

fn browser_links() -> Result<(), Failed> {
    let built = built()?;
    let pages: Vec<String> = links::files(&built.out)?
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html") && !p.ends_with("toc.html"))
        .filter_map(|p| p.strip_prefix(&built.out).ok().map(|p| p.to_string_lossy().into_owned()))
        .collect();
    let report = inspect(&pages)?;
    let ids: BTreeMap<PathBuf, BTreeSet<String>> = report
        .iter()
        .map(|(page, look)| {
            let ids = field(look, "ids").iter().filter_map(Value::as_str).map(str::to_string).collect();
            (built.out.join(page), ids)
        })
        .collect();
    let mut broken = vec![];
    for (page, look) in &report {
        for link in field(look, "links") {
            let (Some(raw), Some(resolved)) = (link[0].as_str(), link[1].as_str()) else { continue };
            if raw.is_empty() || links::is_external(raw) {
                continue;
            }
            let Some((path, fragment)) = url_path(resolved) else {
                broken.push(format!("{page}: {raw} resolves to {resolved}, not a file of the book"));
                continue;
            };
            if !path.starts_with(&built.out) {
                broken.push(format!("{page}: {raw} leaves the book ({})", path.display()));
            } else if !path.is_file() {
                broken.push(format!("{page}: {raw} names no file ({})", path.display()));
            } else if let Some(fragment) = fragment.filter(|f| !f.is_empty())
                && let Some(targets) = ids.get(&path)
                && !targets.contains(&fragment)
            {
                broken.push(format!("{page}: {raw} names no id `{fragment}` of its page"));
            }
        }
    }
    if broken.is_empty() {
        Ok(())
    } else {
        broken.sort();
        broken.dedup();
        Err(format!("{} broken links in the rendered pages:\n{}", broken.len(), broken.join("\n")).into())
    }
}
