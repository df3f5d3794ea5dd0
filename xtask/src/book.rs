//! `cargo xtask results` and `cargo xtask book`: the `book` crate's binary, run through
//! cargo so that it is current. Paths given relative to where the command was typed are
//! made absolute first (cargo runs the binary from the repository root).

use crate::{Result, cargo};
use ptx_builder::Workspace;
use std::path::Path;

/// `cargo xtask results [--check]`: `docs/results/<gpu>.md` from the committed records.
pub fn results(ws: &Workspace, args: &[String]) -> Result<()> {
    match args {
        [] => run_book(ws, &["results".to_string()]),
        [flag] if flag == "--check" => run_book(ws, &["results".to_string(), flag.clone()]),
        _ => Err("results takes `--check` only (compare the pages with the records, write nothing)".into()),
    }
}

/// `cargo xtask book [--out DIR] [--screenshot [PNG]]`: the course as a book, in
/// `target/book` by default.
pub fn book(ws: &Workspace, args: &[String]) -> Result<()> {
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))?;
    let mut forwarded = vec!["build".to_string()];
    let mut rest = args.iter().peekable();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--out" => {
                let dir = rest.next().ok_or("--out needs a folder")?;
                forwarded.push(arg.clone());
                forwarded.push(here.join(Path::new(dir)).display().to_string());
            }
            "--screenshot" => {
                forwarded.push(arg.clone());
                if let Some(png) = rest.next_if(|next| !next.starts_with("--")) {
                    forwarded.push(here.join(Path::new(png)).display().to_string());
                }
            }
            other => {
                return Err(format!(
                    "book: unknown option `{other}` (it takes `--out DIR` and `--screenshot [PNG]`)"
                ));
            }
        }
    }
    run_book(ws, &forwarded)
}

fn run_book(ws: &Workspace, args: &[String]) -> Result<()> {
    let status = cargo(ws)
        .args(["run", "--quiet", "-p", "book", "--"])
        .args(args)
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`book {}` failed (its error is above)", args[0])) }
}
