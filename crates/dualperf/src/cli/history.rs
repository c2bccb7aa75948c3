//! `dualperf history` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf history`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf history`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf history` is not built yet"))
}
