//! Headless Chromium, to see the book as a reader does: the DOM after its scripts ran
//! (`--dump-dom`), and a screenshot. Debian's `chromium` package; `BOOK_CHROMIUM` names
//! another executable. Each run gets a fresh profile folder, no network of its own (no
//! first-run pages, updates, sync or QUIC), and a time limit.

use crate::Result;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable that names a Chromium executable to use instead of Debian's.
pub const CHROMIUM_ENV: &str = "BOOK_CHROMIUM";

/// Where Debian installs it (`apt-get install chromium`).
pub const DEBIAN_CHROMIUM: &str = "/usr/bin/chromium";

/// How long one run of Chromium may take.
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Milliseconds of the page's own time Chromium lets pass before it dumps or shoots: the
/// scripts that build the table of contents and highlight the code run in that time.
const SCRIPT_TIME_MS: u32 = 5000;

/// A Chromium to run headless.
#[derive(Clone, Debug)]
pub struct Chromium {
    pub path: PathBuf,
}

impl Chromium {
    /// The Chromium of `BOOK_CHROMIUM`, else Debian's, else `chromium` on the `PATH`; the
    /// error says what is missing and how to install it.
    pub fn find() -> std::result::Result<Chromium, String> {
        if let Some(path) = std::env::var_os(CHROMIUM_ENV) {
            let path = PathBuf::from(path);
            return if path.is_file() {
                Ok(Chromium { path })
            } else {
                Err(format!("{CHROMIUM_ENV} names {}, which is not a file", path.display()))
            };
        }
        if Path::new(DEBIAN_CHROMIUM).is_file() {
            return Ok(Chromium { path: DEBIAN_CHROMIUM.into() });
        }
        let on_path = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
                .find(|candidate| candidate.is_file())
        });
        on_path.map(|path| Chromium { path }).ok_or_else(|| {
            format!(
                "no Chromium: {DEBIAN_CHROMIUM} is missing and no `chromium` is on the PATH (install it with \
                 `apt-get install chromium`, or name one in {CHROMIUM_ENV})"
            )
        })
    }

    /// The DOM of the page at `url` after its scripts ran. `file_access`: pages from
    /// `file://` may read other files (for a page that inspects another in a frame).
    pub fn dump_dom(&self, url: &str, file_access: bool) -> Result<String> {
        let mut args = vec![format!("--virtual-time-budget={SCRIPT_TIME_MS}")];
        if file_access {
            args.push("--allow-file-access-from-files".into());
        }
        args.push("--dump-dom".into());
        args.push(url.into());
        let out = self.run(&args)?;
        if out.trim().is_empty() {
            return Err(format!("Chromium printed no DOM for {url}"));
        }
        Ok(out)
    }

    /// A PNG of the page at `url` in a window of `width` × `height` pixels.
    pub fn screenshot(&self, url: &str, png: &Path, width: u32, height: u32) -> Result<()> {
        let _ = std::fs::remove_file(png);
        self.run(&[
            format!("--virtual-time-budget={SCRIPT_TIME_MS}"),
            "--hide-scrollbars".into(),
            format!("--window-size={width},{height}"),
            format!("--screenshot={}", png.display()),
            url.into(),
        ])?;
        if png.is_file() {
            Ok(())
        } else {
            Err(format!("Chromium wrote no screenshot of {url} to {}", png.display()))
        }
    }

    /// Runs Chromium headless with `args` after the fixed flags; its standard output.
    fn run(&self, args: &[String]) -> Result<String> {
        let profile = fresh_folder("book-chromium")?;
        let mut child = Command::new(&self.path)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                // Containers often give /dev/shm a few MiB: use the temporary folder instead.
                "--disable-dev-shm-usage",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.path.display()))?;
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if start.elapsed() > TIME_LIMIT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(format!("Chromium ran past {} s and was stopped", TIME_LIMIT.as_secs()));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => break Err(format!("waiting for Chromium: {e}")),
            }
        };
        let out = reader.join().unwrap_or_default();
        let err = errors.join().unwrap_or_default();
        let _ = std::fs::remove_dir_all(&profile);
        let status = status?;
        if !status.success() {
            let tail: Vec<&str> = err.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
            return Err(format!("Chromium failed ({status}):\n  {}", tail.join("\n  ")));
        }
        Ok(out)
    }
}

/// An empty folder of its own under the system's temporary folder.
pub fn fresh_folder(prefix: &str) -> Result<PathBuf> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "{prefix}-{}-{}-{nanos}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The `file://` URL of an absolute path.
pub fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(byte as char)
            }
            other => url += &format!("%{other:02X}"),
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls() {
        assert_eq!(file_url(Path::new("/tmp/a b/index.html")), "file:///tmp/a%20b/index.html");
    }
}
