//! Every relative link of a rendered book resolves: each `href` and `src` of every HTML page
//! names a file that exists, and a `#fragment` into an HTML page names an `id` (or a `name`)
//! of that page. Web links (`https:`, `mailto:`, …) are not followed: the book works from
//! `file://`, with no server and no network.
//!
//! The HTML is read with a small tag scanner (attributes of tags outside `<script>` and
//! `<style>`), enough for what mdBook writes.

use crate::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What one page holds: its ids and its links.
#[derive(Debug, Default)]
pub struct Page {
    /// Every `id` and `name` of its elements.
    pub ids: BTreeSet<String>,
    /// Every `href` and `src`, in order: (attribute, value).
    pub links: Vec<(String, String)>,
    /// Its `<base href>`, where it has one.
    pub base: Option<String>,
}

/// Reads the tags of `html`.
pub fn scan(html: &str) -> Page {
    let mut page = Page::default();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        if rest.starts_with("!--") {
            rest = rest.find("-->").map_or("", |end| &rest[end + 3..]);
            continue;
        }
        let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(rest.len());
        let name = rest[..name_end].to_ascii_lowercase();
        if name.is_empty() {
            continue;
        }
        let (attributes, after) = tag_attributes(&rest[name_end..]);
        for (attribute, value) in attributes {
            match attribute.as_str() {
                "id" | "name" if name != "meta" => {
                    page.ids.insert(value);
                }
                "href" if name == "base" => page.base = Some(value),
                "href" | "src" => page.links.push((attribute, value)),
                _ => {}
            }
        }
        rest = after;
        if name == "script" || name == "style" {
            let close = format!("</{name}");
            rest = rest.find(&close).map_or("", |end| &rest[end..]);
        }
    }
    page
}

/// The attributes of a tag whose name has been read, and the text after its `>`.
fn tag_attributes(text: &str) -> (Vec<(String, String)>, &str) {
    let mut attributes = vec![];
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'>' => return (attributes, &text[at + 1..]),
            c if c.is_ascii_whitespace() || c == b'/' => at += 1,
            _ => {
                let start = at;
                while at < bytes.len() && !matches!(bytes[at], b'=' | b'>' | b' ' | b'\n' | b'\t' | b'/') {
                    at += 1;
                }
                let name = text[start..at].to_ascii_lowercase();
                if bytes.get(at) != Some(&b'=') {
                    attributes.push((name, String::new()));
                    continue;
                }
                at += 1;
                let value = match bytes.get(at) {
                    Some(&quote @ (b'"' | b'\'')) => {
                        let end = text[at + 1..].find(quote as char).map_or(text.len(), |e| at + 1 + e);
                        let value = &text[at + 1..end];
                        at = (end + 1).min(text.len());
                        value
                    }
                    _ => {
                        let end = text[at..]
                            .find(|c: char| c.is_ascii_whitespace() || c == '>')
                            .map_or(text.len(), |e| at + e);
                        let value = &text[at..end];
                        at = end;
                        value
                    }
                };
                attributes.push((name, unescape(value)));
            }
        }
    }
    (attributes, "")
}

/// An attribute's text with the character references mdBook writes decoded.
fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// `%20` and the like decoded.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%'
            && let Some(value) = text.get(at + 1..at + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(value);
            at += 3;
            continue;
        }
        out.push(bytes[at]);
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a link leaves the book (a web address, mail, inline data or script).
pub fn is_external(link: &str) -> bool {
    let scheme_end = link.find(':');
    let first_other = link.find(['/', '?', '#']);
    match (scheme_end, first_other) {
        (Some(colon), Some(other)) => colon < other,
        (Some(_), None) => true,
        _ => link.starts_with("//"),
    }
}

/// Every broken relative link of the HTML pages under `dir`, as `page: attribute="link"
/// (why)`, sorted; empty when all resolve.
pub fn check(dir: &Path) -> Result<Vec<String>> {
    let dir = &std::fs::canonicalize(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut pages: BTreeMap<PathBuf, Page> = BTreeMap::new();
    for file in files(dir)? {
        if file.extension().is_some_and(|e| e == "html") {
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            pages.insert(file, scan(&text));
        }
    }
    let mut broken = vec![];
    for (file, page) in &pages {
        let shown = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        for (attribute, link) in &page.links {
            if let Some(why) = resolve(dir, file, page, link, &pages) {
                broken.push(format!("{shown}: {attribute}=\"{link}\" ({why})"));
            }
        }
    }
    broken.sort();
    Ok(broken)
}

/// Why `link` of `page` (the file `file` under `dir`) does not resolve, or `None` when it
/// does.
pub fn resolve(
    dir: &Path,
    file: &Path,
    page: &Page,
    link: &str,
    pages: &BTreeMap<PathBuf, Page>,
) -> Option<String> {
    if link.is_empty() || is_external(link) {
        return None;
    }
    let (path, fragment) = link.split_once('#').map_or((link, None), |(p, f)| (p, Some(f)));
    let path = path.split('?').next().unwrap_or(path);
    let folder = file.parent().unwrap_or(dir);
    let base = page.base.as_deref().filter(|b| !b.is_empty() && !is_external(b));
    let folder = match base {
        Some(base) if base.starts_with('/') => {
            return Some(format!("the page's <base href=\"{base}\"> is absolute"));
        }
        Some(base) => folder.join(percent_decode(base)),
        None => folder.to_path_buf(),
    };
    if path.starts_with('/') {
        return Some("an absolute path: it leaves the book under file://".into());
    }
    let target =
        if path.is_empty() { file.to_path_buf() } else { normalise(&folder.join(percent_decode(path))) };
    if !target.starts_with(dir) {
        return Some("points outside the book".into());
    }
    let target = if target.is_dir() { target.join("index.html") } else { target };
    if !target.is_file() {
        return Some(format!("no file {}", target.strip_prefix(dir).unwrap_or(&target).display()));
    }
    let fragment = fragment.map(percent_decode).filter(|f| !f.is_empty())?;
    let ids = match pages.get(&target) {
        Some(page) => &page.ids,
        None if target.extension().is_some_and(|e| e == "html") => {
            return Some("the page cannot be read".into());
        }
        None => return None,
    };
    (!ids.contains(&fragment))
        .then(|| format!("no id \"{fragment}\" in {}", target.strip_prefix(dir).unwrap_or(&target).display()))
}

/// `a/b/../c` → `a/c`, without touching the file system.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every file under `dir`, sorted.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("cannot read {}: {e}", folder.display()))?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_ids_and_links() {
        let page = scan(
            "<html><head><base href=\"\"><script>var a = '<a href=\"x.html\">';</script></head>\
             <body><h2 id=\"t\"><a class=\"header\" href=\"#t\">T</a></h2><img src='c.svg' alt=\"a > b\">\
             <!-- <a href=\"gone.html\"> --><a name=x href=other.html#y>o</a></body></html>",
        );
        assert_eq!(page.base.as_deref(), Some(""));
        assert_eq!(page.ids, ["t", "x"].iter().map(|s| s.to_string()).collect());
        let links: Vec<&str> = page.links.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(links, ["#t", "c.svg", "other.html#y"]);
    }

    #[test]
    fn external_links() {
        assert!(is_external("https://example.org/a"));
        assert!(is_external("mailto:a@b"));
        assert!(is_external("//cdn/x.js"));
        assert!(!is_external("gemm/w01.html#a:b"));
        assert!(!is_external("../index.html"));
        assert_eq!(percent_decode("a%20b"), "a b");
    }

    #[test]
    fn a_small_book() {
        let dir = std::env::temp_dir().join(format!("book-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join("index.html"),
            "<a href=\"sub/a.html#here\">a</a><a href=\"sub/a.html#gone\">b</a>",
        )
        .unwrap();
        std::fs::write(
            dir.join("sub/a.html"),
            "<p id=\"here\"></p><img src=\"../missing.svg\"><a href=\"/abs\">x</a>",
        )
        .unwrap();
        let broken = check(&dir).unwrap();
        assert_eq!(
            broken,
            [
                "index.html: href=\"sub/a.html#gone\" (no id \"gone\" in sub/a.html)",
                "sub/a.html: href=\"/abs\" (an absolute path: it leaves the book under file://)",
                "sub/a.html: src=\"../missing.svg\" (no file missing.svg)",
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
