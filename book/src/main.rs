//! `book results [--check]` and `book build [--out DIR] [--screenshot [PNG]]`: what
//! `cargo xtask results` and `cargo xtask book` run (see the library's doc).

use book::{Repo, book as course_book, browser, results};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: book <command>

commands:
  results [--check]               docs/results/<gpu>.md and the attention charts in
                                  docs/results/<gpu>/charts/ from the records in docs/results/<gpu>/;
                                  --check: write nothing, fail if a page or chart is not up to date
  build [--out DIR] [--screenshot [PNG]]
                                  the course as a book in DIR (default target/book; its Markdown
                                  in target/book-src); --screenshot: a PNG of a chapter
                                  (default docs/book-chapter.png), taken by headless Chromium";

/// The chapter the screenshot shows: a step with code, a diff, a chart and figures.
const SCREENSHOT_CHAPTER: &str = "x4_packed_tally";

/// The screenshot's window, in pixels: wide enough for the Rust and its C++ twin side by
/// side, tall enough for the card, the figures, the chart, the diff and the code.
const SCREENSHOT_SIZE: (u32, u32) = (1920, 4600);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repo = Repo::locate();
    let outcome = match args.first().map(String::as_str) {
        Some("results") => results_command(&repo, &args[1..]),
        Some("build") => build_command(&repo, &args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn results_command(repo: &Repo, args: &[String]) -> Result<(), String> {
    let dir = repo.root.join(book::records::RESULTS_DIR);
    match args {
        [] => {
            for path in results::write(repo, &dir)? {
                println!("wrote {}", path.strip_prefix(&repo.root).unwrap_or(&path).display());
            }
            Ok(())
        }
        [flag] if flag == "--check" => {
            let stale = results::stale(repo, &dir)?;
            if stale.is_empty() {
                println!("the results pages and charts are up to date with the records");
                Ok(())
            } else {
                Err(format!(
                    "not up to date with the records in {}/: {} (run `cargo xtask results`)",
                    book::records::RESULTS_DIR,
                    stale.join("; ")
                ))
            }
        }
        _ => Err(format!("results takes `--check` only\n\n{USAGE}")),
    }
}

fn build_command(repo: &Repo, args: &[String]) -> Result<(), String> {
    let mut out = repo.root.join("target/book");
    let mut screenshot: Option<PathBuf> = None;
    let mut rest = args.iter().peekable();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--out" => out = rest.next().map(PathBuf::from).ok_or("--out needs a folder")?,
            "--screenshot" => {
                let path = match rest.peek() {
                    Some(next) if !next.starts_with("--") => rest.next().map(PathBuf::from),
                    _ => None,
                };
                screenshot = Some(path.unwrap_or_else(|| repo.root.join("docs/book-chapter.png")));
            }
            other => return Err(format!("build: unknown option `{other}`\n\n{USAGE}")),
        }
    }
    let out = absolute(&out)?;
    // mdBook empties the folder it renders into: never one that holds something else.
    let holds_other = std::fs::read_dir(&out).is_ok_and(|mut entries| entries.next().is_some())
        && !out.join("book.js").is_file();
    if holds_other {
        return Err(format!(
            "{} holds files and no earlier book: rendering empties the folder, so choose an empty or new one",
            out.display()
        ));
    }
    let work = repo.root.join("target/book-src");
    let built = course_book::build(repo, &out, &work)?;
    println!(
        "wrote the book ({} chapters of steps) to {}; open {}",
        built.chapters.len(),
        out.display(),
        browser::file_url(&out.join("index.html"))
    );
    if let Some(png) = screenshot {
        let chromium = browser::Chromium::find()?;
        let (page, _) =
            built.chapters.iter().find(|(_, ids)| ids.iter().any(|id| id == SCREENSHOT_CHAPTER)).ok_or_else(
                || format!("no chapter holds {SCREENSHOT_CHAPTER}, the step the screenshot shows"),
            )?;
        let png = absolute(&png)?;
        chromium.screenshot(
            &browser::file_url(&out.join(page)),
            &png,
            SCREENSHOT_SIZE.0,
            SCREENSHOT_SIZE.1,
        )?;
        println!("wrote a screenshot of {page} to {}", png.display());
    }
    Ok(())
}

/// `path` from the current folder when relative, without `..` and `.`.
fn absolute(path: &Path) -> Result<PathBuf, String> {
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))?;
    Ok(book::links::normalise(&here.join(path)))
}
