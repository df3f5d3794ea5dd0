//! `cargo run -p host --release -- [OPTIONS]`: the whole suite; see `--help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let options = host::cli::Options::parse();
    match host::run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: at least one kernel computed a wrong sum (marked WRONG above)");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
