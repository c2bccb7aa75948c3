//! `dualperf scan` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf scan`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf scan`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf scan` is not built yet"))
}
