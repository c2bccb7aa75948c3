//! `dualperf serve` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf serve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf serve`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf serve` is not built yet"))
}
