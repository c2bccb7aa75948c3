//! `dualperf lab` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf lab`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf lab`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf lab` is not built yet"))
}
