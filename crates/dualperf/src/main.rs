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
mod exit;
mod guard;
mod pipeline;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let parsed = cli::Cli::parse_from(cli::iperf3_words(std::env::args_os().collect()));
    match cli::dispatch(parsed) {
        Ok(code) => code,
        Err(error) => cli::report_error(&error),
    }
}

/// `dualperf … | head` closes standard output early. Measuring commands
/// save before they print and write through `cli::say`, which ignores a
/// closed pipe; any other `println!` would panic with a backtrace. This hook
/// turns that one panic into the shell's usual quiet exit, 141 (128 +
/// SIGPIPE). SIGPIPE itself stays ignored: the engine's sockets must see
/// EPIPE as an error, not die of a signal.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
