//! The book: its Markdown, written from the course ([`crate::course`]), the device library
//! ([`crate::device`]) and the committed records ([`crate::records`]) into a work folder,
//! then rendered to HTML with mdBook's library. Every page works from `file://`.
//!
//! ```text
//! target/book-src/ (the work folder; the tests use one of their own)
//!   course.css               the book's own styles (wider code, diff lines, charts)
//!   src/SUMMARY.md           a part per family and ladder, a chapter per step's file
//!   src/index.md             what the book is, where its figures come from
//!   src/running.md           docs/running.md, or a stub that points at README.md
//!   src/<folder>/index.md    a family's own introduction (its kernel folder's mod.rs)
//!   src/<folder>/<step>.md   a step: card, figures, chart, diff, code, C++ twin
//!   src/<folder>/<shared>.md, <folder>/<shared>/*.md
//!                            a family's shared machinery (`gemm::hopper`): doc and code
//!   src/device.md, device/*.md  the device library and a page per module
//!   src/notes/*.md           the project's notes (docs/*.md), links made to work
//!   src/results/<gpu>.md     the results pages
//!   src/charts/<gpu>/*.svg   the committed charts
//! ```

use crate::course::{Chapter, Course, FamilyPart, LadderPart, Source};
use crate::device::Library;
use crate::markdown::{self, code_block, demote_headings, escape_html_outside_code, intra_doc_links};
use crate::records::{self, GpuResults, precision_rank};
use crate::results::{self, Links, StepOrder};
use crate::{Repo, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The book's title.
pub const TITLE: &str = "Fast GPU kernels in Rust";

/// The page of the device library's introduction, from the book's root.
const DEVICE_INDEX: &str = "device.md";

/// What `build` made.
#[derive(Debug)]
pub struct Built {
    /// The rendered book (its `index.html` opens it).
    pub out: PathBuf,
    /// The Markdown it was rendered from.
    pub source: PathBuf,
    /// Every chapter of a step, in book order: the page (`gemm/w01_wgmma.html`) and the
    /// step ids it holds.
    pub chapters: Vec<(String, Vec<String>)>,
}

/// Writes the book's Markdown into `work` and renders it into `out` (both emptied first),
/// then checks that every relative link of the result resolves.
pub fn build(repo: &Repo, out: &Path, work: &Path) -> Result<Built> {
    let built = build_unchecked(repo, out, work)?;
    let broken = crate::links::check(out)?;
    if !broken.is_empty() {
        return Err(format!(
            "the book in {} has {} broken links (a page of the generator names what is not there):\n  {}",
            out.display(),
            broken.len(),
            broken.join("\n  ")
        ));
    }
    Ok(built)
}

/// [`build`] without the check of its links (the tests check them on their own).
pub fn build_unchecked(repo: &Repo, out: &Path, work: &Path) -> Result<Built> {
    let book = Book::load(repo)?;
    book.write(work)?;
    render(work, out)?;
    let chapters = book
        .course
        .chapters()
        .map(|c| (c.page.replace(".md", ".html"), c.ids().iter().map(|s| s.to_string()).collect()))
        .collect();
    Ok(Built { out: out.to_path_buf(), source: work.to_path_buf(), chapters })
}

/// Renders the Markdown in `work` (written by [`Book::write`]) into `out` with mdBook.
fn render(work: &Path, out: &Path) -> Result<()> {
    use mdbook::config::Config;
    let mut config = Config::default();
    config.book.title = Some(TITLE.to_string());
    config.book.language = Some("en".to_string());
    config.book.src = PathBuf::from("src");
    config.build.build_dir = out.to_path_buf();
    config.build.create_missing = false;
    // No `{{#include}}` and no README → index: the pages are written as they are meant.
    config.build.use_default_preprocessors = false;
    let settings = [
        ("output.html.additional-css", serde_json::json!(["course.css"])),
        ("output.html.playground.runnable", serde_json::json!(false)),
        ("output.html.print.enable", serde_json::json!(false)),
        // The 404 page's links relative to itself, not to a site's root: it works from file://.
        ("output.html.site-url", serde_json::json!("")),
        ("output.html.default-theme", serde_json::json!("light")),
        ("output.html.preferred-dark-theme", serde_json::json!("navy")),
    ];
    for (key, value) in settings {
        config.set(key, value).map_err(|e| format!("configuring mdBook ({key}): {e:#}"))?;
    }
    let book = mdbook::MDBook::load_with_config(work, config)
        .map_err(|e| format!("mdBook cannot load the book written in {}: {e:#}", work.display()))?;
    book.build().map_err(|e| format!("mdBook cannot render the book into {}: {e:#}", out.display()))
}

/// Everything the book is made of, read once.
pub struct Book {
    repo: Repo,
    pub course: Course,
    library: Library,
    gpus: Vec<GpuResults>,
    order: StepOrder,
    /// The device wrappers a page can link to: name → (module, anchor).
    targets: BTreeMap<String, (String, String)>,
    /// The project's notes (`docs/*.md` but the running guide): (name, title), in book order.
    notes: Vec<(String, String)>,
}

impl Book {
    /// Reads the course, the device library and the committed records.
    pub fn load(repo: &Repo) -> Result<Book> {
        let course = Course::load(repo)?;
        let library = Library::load(repo)?;
        let gpus = match records::load_all(repo) {
            Ok(gpus) => gpus,
            // A checkout without committed records still gets its book, saying so.
            Err(_) if !repo.root.join(records::RESULTS_DIR).exists() => vec![],
            Err(e) => return Err(e),
        };
        let targets = library.link_targets();
        let notes = notes(repo)?;
        Ok(Book { repo: repo.clone(), course, library, gpus, order: StepOrder::new(), targets, notes })
    }

    /// Writes the book's Markdown, styles and charts into `work`, emptied first.
    pub fn write(&self, work: &Path) -> Result<()> {
        if work.exists() {
            std::fs::remove_dir_all(work).map_err(|e| format!("cannot empty {}: {e}", work.display()))?;
        }
        let mut pages: Vec<(String, String)> = vec![
            ("SUMMARY.md".into(), self.summary()),
            ("index.md".into(), self.introduction()),
            ("running.md".into(), self.running()?),
        ];
        for family in &self.course.families {
            pages.push((format!("{}/index.md", family.folder), self.family_page(family)));
            for ladder in &family.ladders {
                for chapter in &ladder.chapters {
                    pages.push((chapter.page.clone(), self.chapter_page(family, ladder, chapter)));
                }
            }
        }
        for family in &self.course.families {
            for shared in &family.shared {
                for file in &shared.files {
                    let page = shared_page(family, shared, file);
                    pages.push((page.clone(), self.shared_page(family, shared, file, &page)));
                }
            }
        }
        pages.push((DEVICE_INDEX.into(), self.device_index()));
        for module in &self.library.modules {
            pages.push((format!("device/{}.md", module.name), self.device_page(module)));
        }
        for gpu in &self.gpus {
            pages.push((format!("results/{}.md", gpu.kind), self.results_page(gpu)));
        }
        for (name, _) in &self.notes {
            let source = format!("{DOCS}/{name}.md");
            let page = format!("notes/{name}.md");
            let text = self.included(&self.repo.read(&source)?, &source, &page);
            pages.push((page, text));
        }
        let src = work.join("src");
        for (page, text) in &pages {
            write_file(&src.join(page), text)?;
        }
        write_file(&work.join("course.css"), STYLES)?;
        for gpu in &self.gpus {
            for chart in &gpu.charts {
                let from = self.repo.root.join(gpu.dir()).join("charts").join(chart);
                let to = src.join("charts").join(&gpu.kind).join(chart);
                copy_file(&from, &to)?;
            }
        }
        Ok(())
    }

    /// `SUMMARY.md`: the introduction and how to run, a part per family and ladder, the
    /// appendix.
    fn summary(&self) -> String {
        let mut out = String::from(
            "# Summary\n\n[Introduction](index.md)\n[Running the suite on your GPU](running.md)\n",
        );
        for family in &self.course.families {
            let name = family_name(family);
            for (index, ladder) in family.ladders.iter().enumerate() {
                let _ = write!(out, "\n# {}\n\n", toc_text(&format!("{name}: {}", ladder.title)));
                if index == 0 {
                    let _ = writeln!(out, "- [{}](<{}/index.md>)", toc_text(&name), family.folder);
                }
                for chapter in &ladder.chapters {
                    let _ = writeln!(out, "- [{}](<{}>)", toc_text(&chapter_label(chapter)), chapter.page);
                }
            }
        }
        out += "\n# Appendix\n\n";
        for family in &self.course.families {
            for shared in &family.shared {
                for (index, file) in shared.files.iter().enumerate() {
                    let indent = if index == 0 { "" } else { "  " };
                    let _ = writeln!(
                        out,
                        "{indent}- [{}::{}](<{}>)",
                        family.folder,
                        if index == 0 {
                            shared.name.clone()
                        } else {
                            format!("{}::{}", shared.name, shared.module_of(file))
                        },
                        shared_page(family, shared, file)
                    );
                }
            }
        }
        let _ = writeln!(out, "- [The device library]({DEVICE_INDEX})");
        for module in &self.library.modules {
            let _ = writeln!(out, "  - [device::{}](device/{}.md)", module.name, module.name);
        }
        for gpu in &self.gpus {
            let _ = writeln!(out, "- [Results on the {}](results/{}.md)", toc_text(gpu.device()), gpu.kind);
        }
        if !self.notes.is_empty() {
            out += "\n# The project's notes\n\n";
            for (name, title) in &self.notes {
                let _ = writeln!(out, "- [{}](notes/{name}.md)", toc_text(title));
            }
        }
        out
    }

    /// The introduction: what the book is, its parts, where its figures come from.
    fn introduction(&self) -> String {
        let mut out = format!("# {TITLE}\n\n");
        out += "Every kernel in this course is plain Rust, compiled to PTX by rustc's own NVPTX backend. \
                A Rust host program launches each one, checks its result against the CPU, and times it \
                beside the hardware's limit, the vendor library (cuBLAS) and its own CUDA C++ twin. \
                The kernels climb ladders: each step is one file and one idea, and reading the \
                steps in order shows how a kernel gets fast.\n\n";
        out += "Each chapter is one step: its header card (the idea it adds, what changed, the bottleneck \
                it attacks, what it costs and what it measured), its figures from the committed runs, \
                the ladder's chart, the diff from the step it builds on, its code, and its C++ twin. \
                The probes make one property of the hardware visible each; the appendix holds the \
                device library, one thin wrapper per PTX instruction, and the results of every \
                committed run.\n\n";
        out += "This book is generated from the repository by `cargo xtask book`; none of it is written \
                by hand, so it always shows the code as it is.\n\n## The parts\n\n";
        let mut table = markdown::Table::new(&[
            ("part", markdown::Align::Left),
            ("steps", markdown::Align::Left),
            ("chapters", markdown::Align::Right),
        ]);
        for family in &self.course.families {
            for ladder in &family.ladders {
                let first = ladder.chapters.first().map(Chapter::short_id).unwrap_or_default();
                let last = ladder.chapters.last().map(Chapter::short_id).unwrap_or_default();
                let first_link = ladder.chapters.first().map(|c| c.page.clone()).unwrap_or_default();
                table.row(vec![
                    format!("{}: {}", family_name(family), ladder.title),
                    format!("[{first}–{last}](<{first_link}>)"),
                    ladder.chapters.len().to_string(),
                ]);
            }
        }
        out += &table.render();
        out += "\n## Where the figures come from\n\n";
        if self.gpus.is_empty() {
            out += "No runs are committed yet (`docs/results/<gpu>/`): the chapters show no figures.\n";
        }
        for gpu in &self.gpus {
            let runs: Vec<String> = gpu.runs.iter().map(|r| format!("`{}` ({})", r.file, r.date())).collect();
            let _ = writeln!(
                out,
                "- [{}](results/{}.md): {} in `{}/`.",
                gpu.device(),
                gpu.kind,
                runs.join(", "),
                gpu.dir()
            );
        }
        out
    }

    /// How to run the suite: `docs/running.md` where it exists, else a short page that
    /// points at the README.
    fn running(&self) -> Result<String> {
        if self.repo.has(RUNNING) {
            let text = self.repo.read(RUNNING)?;
            return Ok(self.included(&text, RUNNING, "running.md"));
        }
        Ok("# Running the suite on your GPU\n\n\
            The repository's `README.md` says what you need (rustup and the pinned nightly toolchain; \
            an NVIDIA GPU of compute capability 8.0 or newer and its driver, and no CUDA toolkit) and \
            what every option does. In the repository root:\n\n\
            ```sh\n\
            rustup toolchain install      # once: the pinned nightly, with rust-src and llvm-tools\n\
            cargo run -p host --release   # the whole suite, on a GPU\n\
            cargo test                    # the tests: CPU tests everywhere, GPU tests on a GPU\n\
            ```\n\n\
            `cargo run -p host --release -- --json run.json --plots charts/` also keeps the run's \
            records and charts, the files this book's figures are made from.\n"
            .into())
    }

    /// A family's introduction: its kernel folder's doc, and its chapters.
    fn family_page(&self, family: &FamilyPart) -> String {
        let page = format!("{}/index.md", family.folder);
        let mut out = format!("# {}\n\n", family_name(family));
        if let Some(overview) = &family.overview {
            let doc = markdown::module_doc(&overview.text);
            let body = doc.split_once(':').map_or(doc.as_str(), |(_, rest)| rest).trim_start();
            let body = capitalise(body);
            out += &self.prose(&demote_headings(&body, 1), &overview.path, &page);
            let _ = write!(out, "\n\n*From `{}`.*\n\n", overview.path);
        } else {
            let _ = write!(out, "{}.\n\n", capitalise(family.title));
        }
        for ladder in &family.ladders {
            let _ = write!(out, "## {}\n\n", escape_html_outside_code(&ladder.title));
            for chapter in &ladder.chapters {
                let _ = writeln!(
                    out,
                    "- [{}](<{}>)",
                    toc_text(&chapter_label(chapter)),
                    relative(&page, &chapter.page)
                );
            }
            out += "\n";
        }
        out
    }

    /// A step's chapter.
    fn chapter_page(&self, family: &FamilyPart, ladder: &LadderPart, chapter: &Chapter) -> String {
        let page = &chapter.page;
        let header = &chapter.header;
        let mut out = format!("# {} — {}\n\n", chapter.short_id(), self.inline(&header.title, page));

        // Where it stands.
        let first = ladder.chapters.first().map(Chapter::short_id).unwrap_or_default();
        let last = ladder.chapters.last().map(Chapter::short_id).unwrap_or_default();
        let _ = writeln!(
            out,
            "- **Ladder:** {}: {} ({first}–{last})",
            family_name(family),
            escape_html_outside_code(&ladder.title)
        );
        let ids: Vec<String> = chapter.steps.iter().map(|s| format!("`{}`", s.id)).collect();
        let needs: Vec<String> =
            chapter.steps.iter().filter(|s| s.arch.specific).map(|s| s.arch.to_string()).collect::<Vec<_>>();
        let needs = needs.first().map(|a| format!(" (needs {a})")).unwrap_or_default();
        let _ = writeln!(out, "- **Registered as:** {}{needs}", ids.join(", "));
        if let Some(base) = chapter.builds_on.as_deref().and_then(|b| self.course.chapter(b)) {
            let _ = writeln!(
                out,
                "- **Builds on:** [{}](<{}>)",
                toc_text(&chapter_label(base)),
                relative(page, &base.page)
            );
        }
        let twin = chapter.twin.as_ref().map(|t| format!(", its C++ twin `{}`", t.path)).unwrap_or_default();
        let _ = writeln!(out, "- **Files:** `{}`{twin}\n", chapter.source.path);

        // The card, as prose.
        for field in &header.fields {
            let _ = write!(
                out,
                "**{}:** {}\n\n",
                escape_html_outside_code(&field.name),
                self.prose(&field.text, &chapter.source.path, page)
            );
        }
        if !header.prose.is_empty() {
            out += &self.prose(&demote_headings(&header.prose, 2), &chapter.source.path, page);
            out += "\n\n";
        }

        // Its figures, per GPU kind.
        out += "## Measured\n\n";
        let kernels: Vec<&str> = chapter.ids();
        let links = Links { chart: &|_, _| String::new(), step: &|_| None };
        let mut any = false;
        for gpu in &self.gpus {
            match results::step_tables(gpu, &kernels, &self.order, &links) {
                Some(text) => {
                    any = true;
                    out += &text;
                    let _ = write!(
                        out,
                        "Every step on this GPU: [results on the {}](<{}>).\n\n",
                        gpu.device(),
                        relative(page, &format!("results/{}.md", gpu.kind))
                    );
                }
                None => {
                    let _ = write!(out, "No committed run on the {} has this step.\n\n", gpu.device());
                }
            }
        }
        if !any && self.gpus.is_empty() {
            out += "No runs are committed yet (`docs/results/<gpu>/`).\n\n";
        }

        // The ladder's chart.
        out += &self.charts(chapter, page);

        // What changed.
        if let Some(base) = chapter.builds_on.as_deref().and_then(|b| self.course.chapter(b)) {
            let _ = write!(out, "## What changed from {}\n\n", base.short_id());
            let _ = write!(
                out,
                "The diff of the code of [{}](<{}>) (`{}`, below its header card) to this step's: `+` lines \
                 are new here, `-` lines are gone.\n\n",
                base.short_id(),
                relative(page, &base.page),
                base.source.path
            );
            out += &code_block("diff", &diff(&base.source, &chapter.source));
            out += "\n";
        } else if chapter.is_kernel && family.name != "probe" {
            let _ = write!(
                out,
                "## What changed\n\n{} opens its ladder: it builds on no earlier step.\n\n",
                chapter.short_id()
            );
        }

        // The code, and its twin beside it where the window is wide enough for both.
        let twin_column = chapter.twin.is_some();
        if twin_column {
            out += "<div class=\"code-and-twin\">\n<div class=\"code-column\">\n\n";
        }
        out += "## The code\n\n";
        let what = if chapter.is_kernel {
            "The kernel file"
        } else {
            "This probe has no kernel of its own; its host file"
        };
        let _ = write!(out, "{what}, `{}`:\n\n", chapter.source.path);
        out += &code_block("rust", &markdown::escape_rust_for_mdbook(&chapter.source.text));
        out += "\n";
        let calls = self.device_calls(&chapter.source.text, page);
        if !calls.is_empty() {
            let _ = write!(out, "Device library wrappers it calls: {}.\n\n", calls.join(", "));
        }
        let machinery = shared_uses(family, &chapter.source.text, page);
        if !machinery.is_empty() {
            let _ = write!(out, "Shared machinery it uses: {}.\n\n", machinery.join(", "));
        }
        if let Some(twin) = &chapter.twin {
            out += "</div>\n<div class=\"code-column\">\n\n## The C++ twin\n\n";
            let _ = write!(
                out,
                "`{}`: the same algorithm, launch, tiles and instructions in CUDA C++, compiled by NVRTC at \
                 run time and run beside the Rust on the same buffers (Rust ÷ C++ above).\n\n",
                twin.path
            );
            out += &code_block("cpp", &twin.text);
            out += "\n</div>\n</div>\n";
        }
        out
    }

    /// The charts of a chapter's ladder, per GPU kind that kept them: the first inline, the
    /// others linked.
    fn charts(&self, chapter: &Chapter, page: &str) -> String {
        let keys = ChartKeys {
            precisions: self.precisions(chapter),
            settings: self.scan_settings(chapter),
            attention: self.attention_charts(chapter),
        };
        let mut out = String::new();
        for gpu in &self.gpus {
            let mut mine: Vec<&String> =
                gpu.charts.iter().filter(|c| chart_belongs(c, chapter, &keys)).collect();
            mine.sort_by_key(|c| chart_rank(c, &keys));
            let Some((first, rest)) = mine.split_first() else { continue };
            if out.is_empty() {
                out += "## The ladder's chart\n\n";
            }
            let drawn_by = results::chart_run(gpu, first)
                .map(|r| format!(", drawn by the run of `{}` on {}", r.file, r.date()))
                .unwrap_or_default();
            let path = relative(page, &format!("charts/{}/{first}", gpu.kind));
            let title = results::chart_title(first);
            let _ = write!(
                out,
                "![{title} on the {}](<{path}>)\n\n*{} on the {}{drawn_by} (`{}/charts/{first}`).*\n\n",
                gpu.device(),
                if title.starts_with("the ") { capitalise(&title) } else { title.clone() },
                gpu.device(),
                gpu.dir()
            );
            if !rest.is_empty() {
                let others: Vec<String> = rest
                    .iter()
                    .map(|c| {
                        format!(
                            "[{}](<{}>)",
                            results::chart_title(c),
                            relative(page, &format!("charts/{}/{c}", gpu.kind))
                        )
                    })
                    .collect();
                let _ = write!(out, "Its other charts on the {}: {}.\n\n", gpu.device(), others.join(", "));
            }
        }
        out
    }

    /// The input types a chapter's kernels ran with (from the records), else from their ids.
    fn precisions(&self, chapter: &Chapter) -> Vec<String> {
        let ids = chapter.ids();
        let mut found: Vec<String> = self
            .gpus
            .iter()
            .flat_map(|g| g.runs.iter().flat_map(|r| r.records.iter()))
            .filter(|r| ids.contains(&r.kernel.as_str()))
            .filter_map(|r| r.precision.clone())
            .collect();
        if found.is_empty() {
            found = ids.iter().filter_map(|id| id.rsplit('_').next()).map(str::to_string).collect();
        }
        found.sort_by_key(|p| precision_rank(p));
        found.dedup();
        found
    }

    /// The scan settings (operation and type) of a chapter's kernels, from the records of
    /// every GPU kind, else from the host's registry ([`results::scan::settings_of`]); none
    /// for another family's chapter.
    fn scan_settings(&self, chapter: &Chapter) -> Vec<results::scan::Setting> {
        if chapter.family != host::families::scan::NAME {
            return vec![];
        }
        let records = self.gpus.iter().flat_map(|g| g.runs.iter().flat_map(|r| r.records.iter()));
        results::scan::settings_of(records, &chapter.ids())
    }

    /// The attention charts of a chapter's kernels: those of the panels they ran on any GPU
    /// kind ([`results::attention::charts_of`]); none for another family's chapter.
    fn attention_charts(&self, chapter: &Chapter) -> Vec<String> {
        if chapter.family != host::families::attention::NAME {
            return vec![];
        }
        results::attention::charts_of(&self.gpus, &chapter.ids(), &self.order)
    }

    /// The device library's wrappers `code` calls, each linked to its section.
    fn device_calls(&self, code: &str, page: &str) -> Vec<String> {
        let code = crate::device::code_only(code);
        let mut seen: Vec<&str> = vec![];
        let bytes = code.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if !(bytes[at].is_ascii_alphabetic() || bytes[at] == b'_') {
                at += 1;
                continue;
            }
            let end = (at..bytes.len())
                .find(|&i| !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_'))
                .unwrap_or(bytes.len());
            let word = &code[at..end];
            let after = code[end..].trim_start();
            let called = after.starts_with('(') || after.starts_with('!') || after.starts_with("::<");
            let pathed = code[..at].ends_with("::");
            let constant = word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if let Some((name, _)) = self.targets.get_key_value(word)
                && (called || pathed || constant)
                && !seen.contains(&name.as_str())
            {
                seen.push(name.as_str());
            }
            at = end;
        }
        seen.iter()
            .map(|name| {
                let (module, anchor) = &self.targets[*name];
                format!("[`{name}`](<{}>)", relative(page, &format!("device/{module}.md#{anchor}")))
            })
            .collect()
    }

    /// One file of a family's shared machinery: its doc and its code.
    fn shared_page(
        &self,
        family: &FamilyPart,
        shared: &crate::course::Shared,
        file: &Source,
        page: &str,
    ) -> String {
        let module = shared.module_of(file);
        let path = if module == shared.name {
            format!("{}::{}", family.folder, shared.name)
        } else {
            format!("{}::{}::{module}", family.folder, shared.name)
        };
        let mut out = format!("# {path}\n\n");
        let doc = markdown::module_doc(&file.text);
        if !doc.is_empty() {
            out += &self.prose(&demote_headings(&doc, 1), &file.path, page);
            out += "\n\n";
        }
        if module == shared.name && shared.files.len() > 1 {
            out += "Its files:\n\n";
            for other in &shared.files[1..] {
                let _ = writeln!(
                    out,
                    "- [`{}`](<{}>)",
                    shared.module_of(other),
                    relative(page, &shared_page(family, shared, other))
                );
            }
            out += "\n";
        }
        let _ = write!(out, "## The code\n\n`{}`:\n\n", file.path);
        out += &code_block("rust", &markdown::escape_rust_for_mdbook(&file.text));
        let calls = self.device_calls(&file.text, page);
        if !calls.is_empty() {
            let _ = write!(out, "\nDevice library wrappers it calls: {}.\n", calls.join(", "));
        }
        out
    }

    /// The device library's introduction and its modules.
    fn device_index(&self) -> String {
        let mut out = String::from("# The device library\n\n");
        out +=
            &self.prose(&demote_headings(&self.library.intro, 1), "kernels/src/device/mod.rs", DEVICE_INDEX);
        let _ = write!(out, "\n\n*From `{}/mod.rs`.*\n\n## Its modules\n\n", crate::device::DEVICE_DIR);
        for module in &self.library.modules {
            let first = first_sentence(&module.doc);
            let _ = writeln!(
                out,
                "- [`device::{}`](device/{}.md): {}",
                module.name,
                module.name,
                self.inline(&first, DEVICE_INDEX)
            );
        }
        out
    }

    /// One module of the device library: its doc, then each public wrapper.
    fn device_page(&self, module: &crate::device::Module) -> String {
        let page = format!("device/{}.md", module.name);
        let mut out = format!("# device::{}\n\n", module.name);
        out += &self.prose(&demote_headings(&module.doc, 1), &module.path, &page);
        let _ = write!(out, "\n\n*From `{}`.*\n\n## Its wrappers\n\n", module.path);
        for item in &module.items {
            let _ = write!(out, "### `{}`\n\n", item.name);
            out += &code_block("rust", &markdown::escape_rust_for_mdbook(&item.signature));
            out += "\n";
            if let Some(by) = &item.generated_by {
                let _ = write!(out, "*Written once as the template `{by}` in this module.*\n\n");
            }
            if !item.doc.trim().is_empty() {
                out += &self.prose(&demote_headings(&item.doc, 3), &module.path, &page);
                out += "\n\n";
            }
        }
        out
    }

    /// A results page, its steps linked to their chapters and its charts to the book's
    /// copies.
    fn results_page(&self, gpu: &GpuResults) -> String {
        let page = format!("results/{}.md", gpu.kind);
        let chart = |kind: &str, file: &str| relative(&page, &format!("charts/{kind}/{file}"));
        let step = |id: &str| {
            self.course.chapter_of(id).map(|c| format!("[`{id}`](<{}>)", relative(&page, &c.page)))
        };
        results::page(gpu, &self.order, &Links { chart: &chart, step: &step })
    }

    /// Doc-comment Markdown from `source` made a page's prose: intra-doc links resolved
    /// from `page`, raw HTML escaped, relative links to files outside the book made text.
    fn prose(&self, text: &str, source: &str, page: &str) -> String {
        let resolve = |name: &str| self.resolve(name, page);
        // Escaped first: the links made next carry their targets in angle brackets.
        let text = escape_html_outside_code(text);
        let text = intra_doc_links(&text, &resolve);
        let text = self.rewrite_links(&text, source, page);
        self.link_bare_paths(&text, page)
    }

    /// One line of prose (a title, a sentence).
    fn inline(&self, text: &str, page: &str) -> String {
        intra_doc_links(&escape_html_outside_code(text), &|name| self.resolve(name, page))
    }

    /// Where an intra-doc link to `name` points from `page`: a step's chapter, a device
    /// wrapper or module, the device library, a file of a family's shared machinery.
    fn resolve(&self, name: &str, page: &str) -> Option<String> {
        if let Some(chapter) = self.course.chapter(name) {
            return Some(relative(page, &chapter.page));
        }
        for family in &self.course.families {
            for shared in &family.shared {
                if let Some(file) = shared.files.iter().find(|f| shared.module_of(f) == name) {
                    return Some(relative(page, &shared_page(family, shared, file)));
                }
            }
        }
        if let Some((module, anchor)) = self.targets.get(name) {
            return Some(relative(page, &format!("device/{module}.md#{anchor}")));
        }
        if self.library.modules.iter().any(|m| m.name == name) {
            return Some(relative(page, &format!("device/{name}.md")));
        }
        (name == "device").then(|| relative(page, DEVICE_INDEX))
    }

    /// Markdown links of a file included from `source` (a path from the repository root),
    /// made to work from `page`: links to a file the book shows point at its page, links to
    /// anything else in the repository become the path as text, web links stay.
    fn rewrite_links(&self, text: &str, source: &str, page: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("](") {
            let (before, after) = rest.split_at(at);
            let Some(end) = after[2..].find(')') else { break };
            let target = &after[2..2 + end];
            let label_start = before.rfind('[');
            let keep = target.contains("://")
                || target.starts_with('#')
                || target.starts_with("mailto:")
                || target.starts_with('<')
                || target.contains(' ')
                || label_start.is_none();
            if keep {
                out.push_str(&rest[..at + 2 + end + 1]);
                rest = &after[2 + end + 1..];
                continue;
            }
            let label_start = label_start.unwrap_or(0);
            let label = &before[label_start + 1..];
            out.push_str(&before[..label_start]);
            let (path, anchor) = target.split_once('#').map_or((target, None), |(p, a)| (p, Some(a)));
            let resolved = normalise(&format!("{}/{path}", parent(source)));
            match self.page_of(&resolved) {
                Some(book_page) => {
                    let anchor = anchor.map(|a| format!("#{a}")).unwrap_or_default();
                    let _ = write!(out, "[{label}](<{}{anchor}>)", relative(page, &book_page));
                }
                None if label.trim_matches('`') == resolved || label.trim_matches('`') == path => {
                    let _ = write!(out, "`{resolved}`");
                }
                None => {
                    let _ = write!(out, "{label} (`{resolved}`)");
                }
            }
            rest = &after[2 + end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The book's page for a repository file, where it shows one.
    fn page_of(&self, path: &str) -> Option<String> {
        if let Some(chapter) = self.course.chapters().find(|c| c.source.path == path) {
            return Some(chapter.page.clone());
        }
        if let Some(family) =
            self.course.families.iter().find(|f| f.overview.as_ref().is_some_and(|o| o.path == path))
        {
            return Some(format!("{}/index.md", family.folder));
        }
        if let Some(module) = self.library.modules.iter().find(|m| m.path == path) {
            return Some(format!("device/{}.md", module.name));
        }
        for family in &self.course.families {
            for shared in &family.shared {
                if let Some(file) = shared.files.iter().find(|f| f.path == path) {
                    return Some(shared_page(family, shared, file));
                }
            }
        }
        if path == RUNNING {
            return Some("running.md".into());
        }
        if let Some(name) = path.strip_prefix(&format!("{DOCS}/")).and_then(|p| p.strip_suffix(".md"))
            && self.notes.iter().any(|(n, _)| n == name)
        {
            return Some(format!("notes/{name}.md"));
        }
        let kind = path.strip_prefix("docs/results/")?.strip_suffix(".md")?;
        self.gpus.iter().any(|g| g.kind == kind).then(|| format!("results/{kind}.md"))
    }

    /// A document of the repository included as a page (Markdown written for it, raw HTML
    /// and all), its links made to work: each heading also answers to its id without the
    /// characters outside ASCII (`what-holds-4096` for “What holds 4096³”), as the
    /// documents' own links write them.
    fn included(&self, text: &str, source: &str, page: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut fence = false;
        for line in text.split_inclusive('\n') {
            if line.trim_start().starts_with("```") {
                fence = !fence;
            }
            let hashes = line.chars().take_while(|&c| c == '#').count();
            if !fence && (2..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
                let id = markdown::heading_id(strip_markup(line[hashes..].trim()).as_str());
                let ascii: String = id.chars().filter(char::is_ascii).collect();
                if ascii != id && !ascii.is_empty() {
                    let _ = write!(out, "<a id=\"{ascii}\"></a>\n\n");
                }
            }
            out.push_str(line);
        }
        let out = self.rewrite_links(&out, source, page);
        self.link_bare_paths(&out, page)
    }

    /// Bare paths of documents the book shows (`docs/lessons.md#p1`, as the step cards point
    /// at their lessons) made links, outside code.
    fn link_bare_paths(&self, text: &str, page: &str) -> String {
        let prefix = format!("{DOCS}/");
        let mut out = String::with_capacity(text.len());
        let mut in_code = false;
        let mut rest = text;
        while !rest.is_empty() {
            let next_tick = rest.find('`').unwrap_or(rest.len());
            let next_path = if in_code { None } else { rest[..next_tick].find(&prefix) };
            let Some(at) = next_path else {
                out.push_str(&rest[..next_tick]);
                if next_tick < rest.len() {
                    out.push('`');
                    in_code = !in_code;
                    rest = &rest[next_tick + 1..];
                } else {
                    rest = "";
                }
                continue;
            };
            let end = rest[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-_./#".contains(c)))
                .map_or(rest.len(), |e| at + e);
            let candidate = rest[at..end].trim_end_matches('.');
            let end = at + candidate.len();
            let (path, anchor) = candidate.split_once('#').map_or((candidate, None), |(p, a)| (p, Some(a)));
            let linked_already = rest[..at].ends_with(['(', '<', '/', '[']);
            out.push_str(&rest[..at]);
            match self.page_of(path).filter(|_| !linked_already) {
                Some(target) => {
                    let anchor = anchor.map(|a| format!("#{a}")).unwrap_or_default();
                    let _ = write!(out, "[{candidate}](<{}{anchor}>)", relative(page, &target));
                }
                None => out.push_str(candidate),
            }
            rest = &rest[end..];
        }
        out
    }
}

/// The project's documents, from the repository root.
const DOCS: &str = "docs";

/// The guide to running the suite: the book's second chapter where it exists.
const RUNNING: &str = "docs/running.md";

/// The project's notes the book shows (every `docs/*.md` but the running guide), with the
/// titles their first heading gives: the lessons first (every step card points there), the
/// dated history last, the others by name.
fn notes(repo: &Repo) -> Result<Vec<(String, String)>> {
    let dir = repo.root.join(DOCS);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(vec![]) };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".md").map(str::to_string))
        .filter(|n| format!("{DOCS}/{n}.md") != RUNNING)
        .collect();
    names.sort_by_key(|n| (n != "lessons", n == "history", n.clone()));
    names
        .into_iter()
        .map(|name| {
            let text = repo.read(&format!("{DOCS}/{name}.md"))?;
            let title = text
                .lines()
                .find_map(|l| l.strip_prefix("# "))
                .map_or_else(|| capitalise(&name), |t| strip_markup(t.trim()));
            Ok((name, title))
        })
        .collect()
}

/// A heading's text without its inline markup (code ticks, emphasis, link brackets).
fn strip_markup(text: &str) -> String {
    text.chars().filter(|c| !"`*[]".contains(*c)).collect()
}

/// The page of a file of a family's shared machinery: `gemm/hopper.md` for its `mod.rs`,
/// `gemm/hopper/mainloop.md` for the others.
fn shared_page(family: &FamilyPart, shared: &crate::course::Shared, file: &Source) -> String {
    let module = shared.module_of(file);
    if module == shared.name {
        format!("{}/{}.md", family.folder, shared.name)
    } else {
        format!("{}/{}/{module}.md", family.folder, shared.name)
    }
}

/// The files of the family's shared machinery `code` names (`hopper::mainloop`, or the
/// module alone), each linked.
fn shared_uses(family: &FamilyPart, code: &str, page: &str) -> Vec<String> {
    let mut out = vec![];
    for shared in &family.shared {
        if !code.contains(&format!("{}::", shared.name)) {
            continue;
        }
        for file in &shared.files {
            let module = shared.module_of(file);
            let named = module == shared.name || code.contains(&format!("{}::{module}", shared.name));
            if named {
                let shown = if module == shared.name {
                    module.to_string()
                } else {
                    format!("{}::{module}", shared.name)
                };
                out.push(format!("[`{shown}`](<{}>)", relative(page, &shared_page(family, shared, file))));
            }
        }
    }
    out
}

/// The folder of a path (`docs` of `docs/running.md`).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `a/b/../c/./d` → `a/c/d`.
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = vec![];
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// The link from page `from` to page `to`, both from the book's root.
pub fn relative(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    format!("{}{to}", "../".repeat(depth))
}

/// A family's name in the book: its introduction's words before the first colon (“The
/// reduction ladder”), else its name.
fn family_name(family: &FamilyPart) -> String {
    family
        .overview
        .as_ref()
        .and_then(|o| markdown::module_doc(&o.text).split_once(':').map(|(name, _)| name.trim().to_string()))
        .filter(|name| !name.is_empty() && name.split_whitespace().count() <= 4)
        .unwrap_or_else(|| capitalise(family.name))
}

/// A chapter in a table of contents: `w01 — Hopper wgmma 64 × 256 × 16 from shared memory`.
fn chapter_label(chapter: &Chapter) -> String {
    let summary = chapter.steps.first().map_or("", |s| s.summary);
    format!("{} — {summary}", chapter.short_id())
}

/// Text for a link of the table of contents: no brackets or markup of its own.
fn toc_text(text: &str) -> String {
    text.replace('[', "(").replace(']', ")").replace('<', "&lt;")
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

/// A doc's first sentence (up to the first full stop that ends a word), on one line.
fn first_sentence(doc: &str) -> String {
    let paragraph = doc.split("\n\n").next().unwrap_or("").replace('\n', " ");
    match paragraph.find(". ") {
        Some(at) => paragraph[..=at].to_string(),
        None => paragraph,
    }
}

/// What picks a chapter's charts from its records: the input types its kernels ran with,
/// for a scan step the settings (operation and type) they ran, for an attention step the
/// charts of the panels it ran, in page order ([`results::attention::charts_of`]).
struct ChartKeys {
    precisions: Vec<String>,
    settings: Vec<results::scan::Setting>,
    attention: Vec<String>,
}

/// Whether chart `file` is of `chapter`'s ladder: a probe's charts by its id (`p6-…`), a
/// scan step's by the settings it ran (`scan-compaction-i32-…` for a compaction step, the
/// scans' for the others), an attention step's by the panels it ran, another family's by
/// its name and, for GEMM, the input type (`gemm-f16-…`).
fn chart_belongs(file: &str, chapter: &Chapter, keys: &ChartKeys) -> bool {
    if let Some((setting, _)) = results::scan::Setting::from_chart(file) {
        return chapter.family == host::families::scan::NAME && keys.settings.contains(&setting);
    }
    if results::attention::is_chart(file) {
        return chapter.family == host::families::attention::NAME && keys.attention.iter().any(|c| c == file);
    }
    let parts: Vec<&str> = file.trim_end_matches(".svg").split('-').collect();
    match parts.as_slice() {
        [first, ..] if *first == chapter.short_id() => true,
        [first, second, ..] if *first == chapter.family => {
            let is_precision = ["i32", "f32", "f16", "bf16"].contains(second);
            !is_precision || keys.precisions.iter().any(|p| p == second)
        }
        [first, ..] => *first == chapter.family,
        [] => false,
    }
}

/// Which chart of a chapter shows first: its first setting (a scan step: i32 inclusive
/// first), attention panel (in page order) or input type, then the largest problem.
fn chart_rank(file: &str, keys: &ChartKeys) -> (usize, std::cmp::Reverse<u128>, String) {
    if let Some((setting, n)) = results::scan::Setting::from_chart(file) {
        let first = keys.settings.iter().position(|s| *s == setting).unwrap_or(usize::MAX);
        return (first, std::cmp::Reverse(u128::from(n)), file.to_string());
    }
    if results::attention::is_chart(file) {
        let first = keys.attention.iter().position(|c| c == file).unwrap_or(usize::MAX);
        return (first, std::cmp::Reverse(0), file.to_string());
    }
    let parts: Vec<&str> = file.trim_end_matches(".svg").split('-').collect();
    let precision =
        parts.get(1).and_then(|p| keys.precisions.iter().position(|q| q == p)).unwrap_or(usize::MAX);
    let volume: u128 = parts
        .last()
        .map(|shape| shape.split('x').filter_map(|d| d.parse::<u128>().ok()).product())
        .unwrap_or(0);
    (precision, std::cmp::Reverse(volume), file.to_string())
}

/// A unified diff of two steps' code, three lines of context: the code below each file's
/// header card (the card is the chapter's prose already), with the files' own line numbers.
pub fn diff(old: &crate::course::Source, new: &crate::course::Source) -> String {
    let (old_skip, old_code) = below_header(&old.text);
    let (new_skip, new_code) = below_header(&new.text);
    let diff = similar::TextDiff::from_lines(old_code, new_code);
    let mut out = format!("--- a/{}\n+++ b/{}\n", old.path, new.path);
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let _ = writeln!(
            out,
            "@@ -{},{} +{},{} @@",
            old_range.start + old_skip + 1,
            old_range.len(),
            new_range.start + new_skip + 1,
            new_range.len()
        );
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                let line = change.value();
                let _ = write!(out, "{sign}{line}");
                if !line.ends_with('\n') {
                    out += "\n\\ No newline at end of file\n";
                }
            }
        }
    }
    out
}

/// The lines of a file's header card (its leading `//!` lines and the blank lines after
/// them), and the text after them.
fn below_header(text: &str) -> (usize, &str) {
    let mut lines = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if !(line.starts_with("//!") || line.trim().is_empty()) {
            break;
        }
        lines += 1;
        offset += line.len();
    }
    (lines, &text[offset..])
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn copy_file(from: &Path, to: &Path) -> Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

/// The book's styles beside mdBook's theme: room for 100-column code, diff lines coloured
/// across the whole line, charts on white in every theme.
const STYLES: &str = r#"/* Generated by `cargo xtask book`. */
:root { --content-max-width: 1000px; }
main pre > code { font-size: 0.8em; }
code.language-diff .hljs-addition { display: inline-block; width: 100%; background-color: rgba(46, 160, 67, 0.18); }
code.language-diff .hljs-deletion { display: inline-block; width: 100%; background-color: rgba(248, 81, 73, 0.18); }
code.language-diff .hljs-meta { color: #6f42c1; }
main img { max-width: 100%; height: auto; background: #ffffff; border: 1px solid #ddd; border-radius: 4px; }
main table { font-size: 0.9em; }
main table td, main table th { padding: 2px 8px; }
/* A step's Rust and its C++ twin side by side where the window holds both, centred on the page. */
@media (min-width: 1800px) {
  .code-and-twin {
    display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; align-items: start;
    position: relative; left: 50%; transform: translateX(-50%); width: min(1800px, calc(100vw - 120px));
  }
  html.sidebar-visible .code-and-twin { width: min(1800px, calc(100vw - var(--sidebar-width) - 120px)); }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_and_paths() {
        assert_eq!(relative("index.md", "gemm/w01_wgmma.md"), "gemm/w01_wgmma.md");
        assert_eq!(relative("gemm/w02_tma.md", "gemm/w01_wgmma.md"), "../gemm/w01_wgmma.md");
        assert_eq!(normalise("docs/../kernels/src/./gemm/mod.rs"), "kernels/src/gemm/mod.rs");
        assert_eq!(parent("docs/running.md"), "docs");
    }

    /// A chapter of the one step `step` of `family`, with no code or card.
    fn chapter(
        family: &'static dyn host::families::family::Family,
        step: host::families::family::Step,
    ) -> Chapter {
        let ladder = step.ladder();
        Chapter {
            name: step.id.to_string(),
            family: family.name(),
            ladder,
            page: format!("{}/{}.md", family.name(), step.id),
            steps: vec![step],
            source: Source { path: String::new(), text: String::new() },
            is_kernel: true,
            twin: None,
            builds_on: None,
            header: crate::header::Header {
                kind: String::new(),
                id: String::new(),
                title: String::new(),
                fields: vec![],
                prose: String::new(),
            },
        }
    }

    /// The chapters of the scan family's last scan step and its first compaction step, by
    /// their schemes in the host's registry (the ladder changes; the test follows it).
    fn scan_and_compaction() -> (Chapter, Chapter) {
        use host::families::scan::registry::{SCAN_STEPS, Scheme};
        let family = host::families::family(host::families::scan::NAME).unwrap();
        let of = |id: &str| chapter(family, family.steps().into_iter().find(|s| s.id == id).unwrap());
        let scan = SCAN_STEPS.iter().rfind(|s| s.scheme != Scheme::Compaction).unwrap();
        let compaction = SCAN_STEPS.iter().find(|s| s.scheme == Scheme::Compaction).unwrap();
        (of(scan.id), of(compaction.id))
    }

    /// The charts a chapter shows on one GPU kind, the first inline: what `Book::charts`
    /// picks from `charts`.
    fn picked<'a>(charts: &[&'a str], chapter: &Chapter, keys: &ChartKeys) -> Vec<&'a str> {
        let mut mine: Vec<&str> =
            charts.iter().copied().filter(|c| chart_belongs(c, chapter, keys)).collect();
        mine.sort_by_key(|c| chart_rank(c, keys));
        mine
    }

    /// The charts folder of `docs/results/h200/` (names sorted, as `records::load` gives them).
    const CHARTS: &[&str] = &[
        "gemm-f16-4096x4096x4096.svg",
        "p1-stride-copy.svg",
        "reduce-ladder-n2p30.svg",
        "scan-compaction-i32-n2p16.svg",
        "scan-compaction-i32-n2p24.svg",
        "scan-compaction-i32-n2p30.svg",
        "scan-exclusive-i32-n2p30.svg",
        "scan-inclusive-f32-n2p30.svg",
        "scan-inclusive-i32-n2p16.svg",
        "scan-inclusive-i32-n2p24.svg",
        "scan-inclusive-i32-n2p30.svg",
    ];

    #[test]
    fn scan_chapters_show_their_operation_at_the_largest_size() {
        let (scan, compaction) = scan_and_compaction();
        // No records: the settings come from the host's registry.
        let keys = |chapter: &Chapter| ChartKeys {
            precisions: vec![],
            settings: results::scan::settings_of(std::iter::empty(), &chapter.ids()),
            attention: vec![],
        };
        let shown = picked(CHARTS, &scan, &keys(&scan));
        assert_eq!(shown.first(), Some(&"scan-inclusive-i32-n2p30.svg"), "{shown:?}");
        assert_eq!(
            shown[1..],
            [
                "scan-inclusive-i32-n2p24.svg",
                "scan-inclusive-i32-n2p16.svg",
                "scan-exclusive-i32-n2p30.svg",
                "scan-inclusive-f32-n2p30.svg"
            ]
        );
        let shown = picked(CHARTS, &compaction, &keys(&compaction));
        assert_eq!(
            shown,
            [
                "scan-compaction-i32-n2p30.svg",
                "scan-compaction-i32-n2p24.svg",
                "scan-compaction-i32-n2p16.svg"
            ]
        );
        // Without the largest size, the largest there is.
        let smaller: Vec<&str> = CHARTS.iter().copied().filter(|c| !c.contains("n2p30")).collect();
        assert_eq!(picked(&smaller, &scan, &keys(&scan)).first(), Some(&"scan-inclusive-i32-n2p24.svg"));
        assert_eq!(
            picked(&smaller, &compaction, &keys(&compaction)).first(),
            Some(&"scan-compaction-i32-n2p24.svg")
        );
    }

    #[test]
    fn a_scan_chapters_charts_are_of_the_settings_its_records_ran() {
        use host::report::records::Record;
        let (scan, _) = scan_and_compaction();
        let record = |kernel: &str, variant: &str, precision: &str| {
            let mut record = Record::new(host::families::scan::NAME, kernel);
            (record.variant, record.precision, record.n) =
                (Some(variant.into()), Some(precision.into()), Some(1 << 30));
            record
        };
        let records = [
            record(&scan.name, "inclusive, block 256", "f32"),
            record(&scan.name, "inclusive, block 256", "i32"),
            // Another step's, and CUB's: not the chapter's.
            record("cub", "exclusive", "i32"),
        ];
        let keys = ChartKeys {
            precisions: vec![],
            settings: results::scan::settings_of(records.iter(), &scan.ids()),
            attention: vec![],
        };
        assert_eq!(
            picked(CHARTS, &scan, &keys),
            [
                "scan-inclusive-i32-n2p30.svg",
                "scan-inclusive-i32-n2p24.svg",
                "scan-inclusive-i32-n2p16.svg",
                "scan-inclusive-f32-n2p30.svg"
            ]
        );
    }

    #[test]
    fn other_chapters_show_no_scan_chart() {
        let keys = ChartKeys { precisions: vec!["f16".into()], settings: vec![], attention: vec![] };
        for family in host::families::FAMILIES.iter().filter(|f| f.name() != host::families::scan::NAME) {
            let step = family.steps().into_iter().next().unwrap();
            let shown = picked(CHARTS, &chapter(*family, step), &keys);
            assert!(shown.iter().all(|c| !c.starts_with("scan-")), "{}: {shown:?}", family.name());
        }
        let gemm = host::families::family("gemm").unwrap();
        let step = gemm.steps().into_iter().find(|s| s.id.ends_with("_f16")).unwrap();
        assert_eq!(picked(CHARTS, &chapter(gemm, step), &keys), ["gemm-f16-4096x4096x4096.svg"]);
    }

    #[test]
    fn first_sentences_and_capitals() {
        assert_eq!(
            first_sentence("Warp-wide exchanges: shuffles. More.\n\nNext"),
            "Warp-wide exchanges: shuffles."
        );
        assert_eq!(capitalise("the sum"), "The sum");
    }
}
