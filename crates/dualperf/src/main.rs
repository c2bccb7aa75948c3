//! `dualperf`: the command-line tool. It parses arguments, wires the stages
//! (engine, lab, stats, store, report, scan, check) together, prints, and
//! maps errors to exit codes:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | everything ran |
//! | 1 | a finding (scan), a failed check or trial, a threshold regression |
//! | 2 | usage or configuration error |
//! | 3 | missing privileges or kernel features |
//!
//! This is the only crate that prints or knows every stage.

mod cli;
mod pipeline;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let parsed = cli::Cli::parse_from(cli::iperf3_words(std::env::args_os().collect()));
    match cli::dispatch(parsed) {
        Ok(code) => code,
        Err(error) => cli::report_error(&error),
    }
}
