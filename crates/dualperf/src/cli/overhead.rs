//! `dualperf overhead` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf overhead`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf overhead`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf overhead` is not built yet"))
}
