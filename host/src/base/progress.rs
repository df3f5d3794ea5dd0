//! Progress on stderr, so that a long run never goes quiet: what is running (`timing
//! g10_fewer_instructions, f32 16384×16384×16384`), how many repetitions it has, and about
//! how long it has left. The tables on stdout stay clean.
//!
//! On a terminal this is one line redrawn in place (indicatif), with the elapsed time of
//! the current step ticking even while one long launch runs. When stderr is a file or a
//! pipe it is plain lines: one when a step starts, and one every [`PLAIN_EVERY`] while it
//! runs, so a log shows a long step's progress without filling up with a line per
//! repetition.
//!
//! The state is global, as stderr is: the runner announces steps ([`begin`]), the timer
//! reports repetitions ([`update`]), and both go through here.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often plain (non-terminal) progress prints a line while one step runs.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// How often the terminal line is redrawn.
const TICK: Duration = Duration::from_millis(200);

struct State {
    /// The redrawn line, on a terminal.
    bar: Option<ProgressBar>,
    label: String,
    /// When the current step began, and when plain mode last printed a line about it.
    started: Instant,
    last_line: Instant,
    /// Units of work (kernel and size) finished, of `total` (0: not counted).
    done: usize,
    total: usize,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut guard = STATE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let state = guard.get_or_insert_with(|| State {
        bar: None,
        label: String::new(),
        started: Instant::now(),
        last_line: Instant::now(),
        done: 0,
        total: 0,
    });
    f(state)
}

/// Starts progress for a run of `total` units of work: a redrawn line when stderr is a
/// terminal, plain lines otherwise.
pub fn start(total: usize) {
    with_state(|state| {
        state.done = 0;
        state.total = total;
        if std::io::stderr().is_terminal() && state.bar.is_none() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix} {elapsed:>4} {wide_msg}")
                    .expect("a valid progress template"),
            );
            bar.enable_steady_tick(TICK);
            state.bar = Some(bar);
        }
    });
}

/// `[done/total] ` while a run is counted.
fn counter(state: &State) -> String {
    if state.total == 0 { String::new() } else { format!("[{}/{}]", state.done, state.total) }
}

/// A new step: `checking g10_fewer_instructions, f32 4096×4096×4096`.
pub fn begin(label: impl Into<String>) {
    with_state(|state| {
        state.label = label.into();
        state.started = Instant::now();
        state.last_line = state.started;
        match &state.bar {
            Some(bar) => {
                bar.set_prefix(counter(state));
                bar.reset_elapsed();
                bar.set_message(state.label.clone());
            }
            None => eprintln!("{} ...", state.label),
        }
    });
}

/// The current step's label (empty before the first).
pub fn current() -> String {
    with_state(|state| state.label.clone())
}

/// How the current step is going, e.g. `14 repetitions, about 3 s left`: redrawn on a
/// terminal, printed every [`PLAIN_EVERY`] otherwise.
pub fn update(status: &str) {
    with_state(|state| match &state.bar {
        Some(bar) => bar.set_message(format!("{}: {status}", state.label)),
        None => {
            if state.last_line.elapsed() >= PLAIN_EVERY {
                state.last_line = Instant::now();
                eprintln!("  {}: {status} ({} so far)", state.label, duration(state.started.elapsed()));
            }
        }
    });
}

/// The GPU has been busy for `waited` in one wait (a launch of seconds): nothing new to
/// say on a terminal, where the elapsed time ticks; in plain mode, during a step, a line
/// every [`PLAIN_EVERY`].
pub fn waiting(waited: Duration) {
    with_state(|state| {
        if state.bar.is_none()
            && !state.label.is_empty()
            && waited >= PLAIN_EVERY
            && state.last_line.elapsed() >= PLAIN_EVERY
        {
            state.last_line = Instant::now();
            eprintln!(
                "  {}: the GPU is still busy ({} so far)",
                state.label,
                duration(state.started.elapsed())
            );
        }
    });
}

/// One unit of work (a kernel at one size) is finished.
pub fn done_one() {
    with_state(|state| {
        state.done += 1;
        if let Some(bar) = &state.bar {
            bar.set_prefix(counter(state));
        }
    });
}

/// A line on stderr that stays (above the redrawn line on a terminal).
pub fn line(text: &str) {
    with_state(|state| match &state.bar {
        Some(bar) => bar.println(text),
        None => eprintln!("{text}"),
    });
}

/// Runs `print` (which writes to stdout) with the redrawn line out of its way.
pub fn suspend(print: impl FnOnce()) {
    use std::io::Write;
    let bar = with_state(|state| state.bar.clone());
    match bar {
        Some(bar) => bar.suspend(|| {
            print();
            let _ = std::io::stdout().flush();
        }),
        None => print(),
    }
}

/// Clears the redrawn line (before the run's last words, or an error).
pub fn finish() {
    with_state(|state| {
        if let Some(bar) = state.bar.take() {
            bar.finish_and_clear();
        }
        state.total = 0;
    });
}

/// A duration for people: `850 ms`, `12 s`, `3 min 20 s`, `1 h 05 min`.
pub fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 1.0 {
        format!("{:.0} ms", secs * 1e3)
    } else if secs < 60.0 {
        format!("{secs:.0} s")
    } else if secs < 3600.0 {
        format!("{} min {:02} s", (secs / 60.0) as u64, secs as u64 % 60)
    } else {
        format!("{} h {:02} min", (secs / 3600.0) as u64, secs as u64 % 3600 / 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration(Duration::from_millis(850)), "850 ms");
        assert_eq!(duration(Duration::from_secs(12)), "12 s");
        assert_eq!(duration(Duration::from_secs(200)), "3 min 20 s");
        assert_eq!(duration(Duration::from_secs(3900)), "1 h 05 min");
    }
}
