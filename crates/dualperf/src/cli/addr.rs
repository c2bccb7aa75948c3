//! `dualperf addr` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf addr`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf addr`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf addr` is not built yet"))
}
