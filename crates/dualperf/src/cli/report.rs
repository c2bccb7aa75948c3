//! `dualperf report` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf report`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf report`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf report` is not built yet"))
}
