//! The course as a book, and the results pages: both generated from the sources and the
//! committed records, never edited by hand.
//!
//! - [`results`]: `docs/results/<gpu>.md`, one page per GPU kind, from the JSON records
//!   of `docs/results/<gpu>/` (`cargo xtask results`).
//! - [`course`]: the course's structure, read from the host's families (`FAMILIES`): a part
//!   per ladder, a chapter per step's file, the step each builds on, its header card
//!   ([`header`]), its C++ twin.
//! - [`device`]: the device library's wrappers, for the book's appendix.
//! - [`book`]: writes the book's Markdown and renders it with mdBook (`cargo xtask book`).
//! - [`links`]: checks that every relative link of the rendered book resolves.
//! - [`browser`]: headless Chromium, for the tests and the screenshot.

pub mod book;
pub mod browser;
pub mod course;
pub mod device;
pub mod header;
pub mod links;
pub mod markdown;
pub mod records;
pub mod results;

use std::path::{Path, PathBuf};

/// Every error here is a sentence that says what is missing and what to do.
pub type Result<T> = std::result::Result<T, String>;

/// The repository the book is made from.
#[derive(Clone, Debug)]
pub struct Repo {
    pub root: PathBuf,
}

impl Repo {
    /// The repository this crate was built in (the parent of `book/`).
    pub fn locate() -> Repo {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        Repo { root: manifest.parent().unwrap_or(manifest).to_path_buf() }
    }

    /// A repository at `root` (tests make small ones).
    pub fn at(root: impl Into<PathBuf>) -> Repo {
        Repo { root: root.into() }
    }

    /// The text of the file at `path` (from the root); the error names it.
    pub fn read(&self, path: &str) -> Result<String> {
        std::fs::read_to_string(self.root.join(path))
            .map_err(|e| format!("cannot read {}: {e}", self.root.join(path).display()))
    }

    /// Whether `path` (from the root) is a file.
    pub fn has(&self, path: &str) -> bool {
        self.root.join(path).is_file()
    }
}
