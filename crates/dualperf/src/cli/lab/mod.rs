//! `dualperf lab`: emulated dual-stack testbeds in network namespaces.
//!
//! Without a subcommand it is the product's main job ([`job`]): build a
//! testbed (default `router`), measure IPv4 against IPv6 across it, write
//! the results, tear everything down. The subcommands ([`manage`]) build
//! a testbed and leave it up (`up`), use it (`exec`, `status`), and remove it
//! (`down`, `clean`).

use std::process::ExitCode;

// The lab's CLI files sit beside this one as `cli/lab_*.rs`.
mod args;
mod delay_line;
mod dry_run;
mod errors;
mod experiment;
pub(crate) mod job;
pub(crate) mod manage;
mod measure;
mod plan;
mod routers;
mod signal;
mod stack_cost;
mod wire;

/// Build emulated testbeds in network namespaces and measure IPv4 against IPv6 across them.
///
/// With no subcommand: build the testbed (default: the `router` preset),
/// start `dualperf serve` in its server node and `dualperf run` in its client
/// node, write results/<run>/result.json, print the side-by-side table and
/// remove the testbed (also on error and Ctrl-C).
#[derive(clap::Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    verbatim_doc_comment,
    after_help = "Examples:
  dualperf lab                     the standard battery on `router`: 100 Mbit/s links, repeated to a 3 % goal (at most 5 minutes)
  dualperf lab --quick             a first look in under a minute
  dualperf lab bottleneck --probe  10 Mbit/s link between two routers, delay under load
  dualperf lab realtime --quick    voice and video alone and under UDP/TCP load: MOS per family
  dualperf lab stack-cost          unshaped, ends pinned: CPU time per byte and per packet per stack
  dualperf lab --link-rate 1G      links at 1 Gbit/s instead of the default 100 Mbit/s
  dualperf lab path-faults         inject PMTU black holes, EH/fragment drops, 6in4; find each (under a minute)
  dualperf lab calibrate --quick   what this host resolves: an A/A replica and a known 5 % effect
  dualperf lab gigabit             the Gigabit UDP study: 128–1408 B, 10 × 100000 datagrams per size and family, means over sizes
  dualperf lab gigabit -k 1000000  the same with the paper's 1 M packets per trial (about 40 minutes on two cores)
  dualperf lab bottleneck -b 5M    UDP paced at 5 Mbit/s into the 10 Mbit/s bottleneck (default: the link rate)
  dualperf lab my-topology.toml    your own testbed
  dualperf lab --dry-run           the ip/tc commands, to build it by hand
  dualperf lab up two-routers && dualperf lab exec client -- ping -c1 -6 fd00:dead:beef:3::2"
)]
pub(crate) struct Args {
    /// What to do instead of the main job.
    #[command(subcommand)]
    pub command: Option<LabCommand>,
    /// The main job's options.
    #[command(flatten)]
    pub job: Box<args::JobArgs>,
}

/// The lab's subcommands.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum LabCommand {
    /// List the built-in topologies with a one-line description each.
    List,
    /// Build a testbed and leave it up (remove it with `lab down`).
    Up(manage::UpArgs),
    /// Remove a testbed left up by `lab up`.
    Down(manage::DownArgs),
    /// Run a command inside a node of a testbed left up, e.g. `lab exec client -- ping -6 fd00:dead:beef:2::2`.
    Exec(manage::ExecArgs),
    /// Show testbeds left up, and leftovers of crashed runs.
    Status,
    /// Remove what runs whose process is gone left behind: `dsp-*` namespaces, the processes inside them (--force: also of live runs).
    Clean(manage::CleanArgs),
    /// Host one delay line of a testbed left up (started by `lab up`).
    #[command(hide = true)]
    DelayLine(delay_line::DelayLineArgs),
}

/// Runs `dualperf lab`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        None => job::run(*args.job),
        Some(LabCommand::List) => manage::list(),
        Some(LabCommand::Up(up)) => manage::up(up),
        Some(LabCommand::Down(down)) => manage::down(down),
        Some(LabCommand::Exec(exec)) => manage::exec(exec),
        Some(LabCommand::Status) => manage::status(),
        Some(LabCommand::Clean(clean)) => manage::clean(clean),
        Some(LabCommand::DelayLine(line)) => delay_line::run(line),
    }
}
