//! `cargo run -p host --release -- [OPTIONS]`: the whole suite, or `compare OLD.json
//! NEW.json`; see `--help`.

use clap::Parser;
use host::cli::{Command, Options};
use std::process::ExitCode;

fn main() -> ExitCode {
    let options = Options::parse();
    let (outcome, failed) = match &options.command {
        Some(Command::Compare(compare)) => (
            host::report::compare::run(
                &compare.old,
                &compare.new,
                compare.threshold,
                compare.fail_on_slowdown,
                host::report::compare::Show { untimed: compare.all, wide: compare.wide },
            ),
            "at least one record is slower beyond the noise, or wrong (see the verdicts above)",
        ),
        Some(Command::Sass(sass)) => (host::sass::run(sass), "unreachable: `sass` succeeds or fails"),
        Some(Command::Sanitize(sanitize)) => {
            (host::sanitize::run(sanitize), "a sanitizer run failed (marked FAIL above; its log says why)")
        }
        None => (host::run(&options), "at least one kernel computed a wrong result (marked WRONG above)"),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: {failed}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.kind().exit_status())
        }
    }
}
