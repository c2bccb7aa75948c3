//! `dualperf run` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf run`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf run`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf run` is not built yet"))
}
