//! Ctrl-C: the first one asks the run to stop after the measurement in flight (every
//! result so far is already on disk, and the run ends with a note of what it did not
//! run, exit status 130); a second one stops the process at once.
//!
//! The handler only sets a flag: the runner polls it ([`check`]) between kernels and the
//! timer between repetitions, so no kernel is abandoned half-queued and no file is left
//! half-written.

use crate::base::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Exit status of a process stopped by SIGINT, as shells report it (128 + 2).
pub const EXIT_STATUS: i32 = 130;

/// Installs the Ctrl-C handler (once per process; later calls do nothing).
pub fn install() {
    // An error here means a handler is already installed (a second `run` in one process,
    // as in tests): the first one serves.
    let _ = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            eprintln!("\nsecond Ctrl-C: stopping now (the records written so far are kept)");
            std::process::exit(EXIT_STATUS);
        }
        eprintln!("\nCtrl-C: stopping after the current measurement (press again to stop at once)");
    });
}

/// Whether Ctrl-C was pressed.
fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// `Err(interrupted)` once Ctrl-C was pressed: `?` it between units of work.
pub fn check() -> Result<()> {
    if requested() { Err(Error::interrupted()) } else { Ok(()) }
}
