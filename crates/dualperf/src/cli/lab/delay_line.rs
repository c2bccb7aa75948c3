//! `dualperf lab delay-line` (hidden): the process that hosts one delay
//! line of a testbed left up by `lab up`
//! ([`dualperf_lab::delay_line_process`]); the lab starts it, nobody else.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use dualperf_lab::delay_line::DelayLineConfig;

/// Options of `lab delay-line`: one delay line's settings.
#[derive(clap::Args, Debug)]
pub(crate) struct DelayLineArgs {
    /// Namespace of the sending end.
    #[arg(long)]
    netns: String,
    /// The sending end's interface.
    #[arg(long)]
    interface: String,
    /// The TAP device to create.
    #[arg(long)]
    tap: String,
    /// Link MTU, bytes.
    #[arg(long)]
    mtu: u32,
    /// Fixed delay, nanoseconds.
    #[arg(long)]
    delay_ns: u64,
    /// Delay variation, ± nanoseconds.
    #[arg(long, default_value_t = 0)]
    jitter_ns: u64,
    /// Most frames held at once.
    #[arg(long)]
    capacity: usize,
    /// Where to write this process's pid.
    #[arg(long)]
    pid_file: PathBuf,
}

/// Runs the delay line until SIGTERM.
pub(crate) fn run(args: DelayLineArgs) -> anyhow::Result<ExitCode> {
    let config = DelayLineConfig {
        netns: args.netns,
        interface: args.interface,
        tap: args.tap,
        mtu_bytes: args.mtu,
        delay: Duration::from_nanos(args.delay_ns),
        jitter: Duration::from_nanos(args.jitter_ns),
        capacity_packets: args.capacity,
    };
    dualperf_lab::delay_line_process::serve(config, &args.pid_file)
        .map_err(|e| anyhow::anyhow!("delay line: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
