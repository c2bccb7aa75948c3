//! `dualperf check` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf check`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf check`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf check` is not built yet"))
}
