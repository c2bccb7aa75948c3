//! `dualperf doctor` (skeleton: filled in by its issue).

use std::process::ExitCode;

/// Arguments of `dualperf doctor`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `dualperf doctor`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    Err(super::Failure::usage("`dualperf doctor` is not built yet"))
}
