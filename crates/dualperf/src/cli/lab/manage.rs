//! `lab list | up | down | exec | status | clean`: testbeds that outlive
//! one command. `up` builds and records the testbed in a state file
//! ([`dualperf_lab::state`]); the others find it there.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use dualperf_lab::naming::{run_namespace_prefix, NAMESPACE_PREFIX};
use dualperf_lab::state::{self, LabState};
use dualperf_lab::{cleanup, preset, BuildOptions, RunId, Runner, Testbed};

use super::errors::to_cli_error;
use super::signal::interrupt_flag;
use crate::cli::Failure;

/// Options of `lab up`.
#[derive(clap::Args, Debug)]
pub(crate) struct UpArgs {
    /// Built-in topology (see `dualperf lab list`) or path to a topology TOML file.
    #[arg(default_value = preset::DEFAULT_PRESET)]
    pub topology: String,
    /// Print the commands that would build the testbed; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Echo every kernel command before it runs.
    #[arg(short, long)]
    pub verbose: bool,
}

/// Options of `lab down`.
#[derive(clap::Args, Debug)]
pub(crate) struct DownArgs {
    /// Run id of the testbed (needed only when several are up; see `lab status`).
    #[arg(long = "run", value_name = "ID")]
    pub run_id: Option<String>,
}

/// Options of `lab exec`.
#[derive(clap::Args, Debug)]
pub(crate) struct ExecArgs {
    /// Node to run in, e.g. `client`.
    pub node: String,
    /// The command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
    /// Run id of the testbed (needed only when several are up).
    #[arg(long = "run", value_name = "ID")]
    pub run_id: Option<String>,
}

/// Options of `lab clean`.
#[derive(clap::Args, Debug)]
pub(crate) struct CleanArgs {
    /// Echo every kernel command before it runs.
    #[arg(short, long)]
    pub verbose: bool,
    /// Also remove runs whose owner process still runs, and testbeds left
    /// up by `lab up`.
    #[arg(long)]
    pub force: bool,
    /// Only the run with this id (as `lab status` shows it).
    #[arg(long = "run", value_name = "ID")]
    pub run_id: Option<String>,
}

/// `lab list`: every preset with its description.
pub(crate) fn list() -> anyhow::Result<ExitCode> {
    for topology in preset::all() {
        let marker = if topology.name() == preset::DEFAULT_PRESET {
            " (default)"
        } else {
            ""
        };
        println!("{:<12} {}{marker}", topology.name(), topology.description());
    }
    Ok(ExitCode::SUCCESS)
}

/// `lab up`: build, leave up, record.
pub(crate) fn up(args: UpArgs) -> anyhow::Result<ExitCode> {
    let topology = preset::load(&args.topology).map_err(to_cli_error)?;
    let run = if args.dry_run {
        RunId::unique()
    } else {
        cleanup::unused_run_id(&Runner::new(false)).map_err(to_cli_error)?
    };
    if args.dry_run {
        println!(
            "{}",
            dualperf_lab::shell::comment(&format!(
                "dualperf lab up {}: {}",
                topology.name(),
                topology.description()
            ))
        );
        let (implementations, note) =
            dualperf_lab::Implementations::for_dry_run(&topology, &Runner::new(false));
        if !note.is_empty() {
            println!("{}", dualperf_lab::shell::comment(&note));
        }
        for step in dualperf_lab::plan::build_plan(&topology, &run, &implementations) {
            println!("{step}");
        }
        println!("# then wait until every veth shows an fe80:: address (ip -n NETNS -6 addr show scope link)");
        println!("# tear down:");
        for command in dualperf_lab::plan::teardown_plan(&topology, &run, &implementations) {
            println!("{command}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = BuildOptions {
        verbose: args.verbose,
        interrupt: Some(interrupt_flag()?),
        // The testbed outlives this process: its delay lines must too.
        delay_lines: dualperf_lab::delay_line_process::DelayLineHost::Process {
            exe: std::env::current_exe()
                .map_err(|e| anyhow::anyhow!("finding the dualperf executable: {e}"))?,
        },
    };
    let testbed = Testbed::build(&topology, &run, &options).map_err(to_cli_error)?;
    let facts = testbed.facts();
    let created_unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let record = LabState {
        run_id: run.to_string(),
        created_unix_ms,
        facts,
    };
    // Record first, then disarm: if recording fails the testbed drops and is removed.
    let path = state::save(&state::state_dir(), &record).map_err(to_cli_error)?;
    testbed.keep();
    println!(
        "testbed `{}` is up as run {run} (state: {})",
        record.facts.name,
        path.display()
    );
    print_state(&record);
    if let Some(node) = record
        .facts
        .nodes
        .iter()
        .find(|n| n.name == record.facts.server_node)
    {
        if let (Some(v4), Some(v6)) = (node.addresses.first(), node.addresses.get(1)) {
            let strip = |a: &String| a.split('/').next().unwrap_or(a).to_string();
            println!(
                "try:  dualperf lab exec {} -- ping -c 3 {}",
                record.facts.client_node,
                strip(v4)
            );
            println!(
                "      dualperf lab exec {} -- ping -c 3 {}",
                record.facts.client_node,
                strip(v6)
            );
        }
    }
    println!("remove with: dualperf lab down");
    Ok(ExitCode::SUCCESS)
}

fn print_state(record: &LabState) {
    for node in &record.facts.nodes {
        println!(
            "  {:<10} {:<7} netns {:<24} {}",
            node.name,
            node.role,
            node.netns,
            node.addresses.join(" ")
        );
    }
    for link in &record.facts.links {
        let shaping = link
            .shaping
            .as_deref()
            .map(|s| format!(", {s}"))
            .unwrap_or_default();
        println!(
            "  link {} — {} (mtu {}{shaping})",
            link.between[0], link.between[1], link.mtu_bytes
        );
    }
}

/// Every `lab up` record, from every directory an owner may have written
/// to (see [`state::owner_dirs`]), oldest first.
fn all_records() -> anyhow::Result<Vec<LabState>> {
    let mut records = Vec::new();
    for dir in state::owner_dirs() {
        records.extend(state::load_all(&dir).map_err(to_cli_error)?);
    }
    records.sort_by_key(|r| r.created_unix_ms);
    records.dedup_by(|a, b| a.run_id == b.run_id);
    Ok(records)
}

/// The one testbed `run_id` names, or the only one up.
fn select(run_id: Option<&str>) -> anyhow::Result<LabState> {
    let states = all_records()?;
    match run_id {
        Some(id) => states.into_iter().find(|s| s.run_id == id).ok_or_else(|| {
            Failure::usage(format!(
                "no testbed with run id `{id}` is up (see `dualperf lab status`)"
            ))
        }),
        None => match states.len() {
            0 => Err(Failure::usage(
                "no testbed is up (start one with `dualperf lab up`)",
            )),
            1 => Ok(states.into_iter().next().expect("one element")),
            _ => Err(Failure::usage(format!(
                "{} testbeds are up ({}); choose one with --run ID",
                states.len(),
                states
                    .iter()
                    .map(|s| s.run_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        },
    }
}

/// `lab down`: remove a testbed left up, and its state file.
pub(crate) fn down(args: DownArgs) -> anyhow::Result<ExitCode> {
    let record = select(args.run_id.as_deref())?;
    let run = RunId::new(record.run_id.clone()).map_err(to_cli_error)?;
    let report =
        cleanup::clean(&Runner::new(false), &run_namespace_prefix(&run)).map_err(to_cli_error)?;
    for dir in state::owner_dirs() {
        state::remove(&dir, &record.run_id).map_err(to_cli_error)?;
    }
    println!(
        "removed testbed `{}` (run {run}): {} namespaces, {} processes stopped",
        record.facts.name,
        report.namespaces.len(),
        report.processes.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `lab exec NODE -- CMD…`: replaces this process with `ip netns exec NETNS CMD…`.
pub(crate) fn exec(args: ExecArgs) -> anyhow::Result<ExitCode> {
    let record = select(args.run_id.as_deref())?;
    let Some(node) = record.facts.nodes.iter().find(|n| n.name == args.node) else {
        let names: Vec<&str> = record.facts.nodes.iter().map(|n| n.name.as_str()).collect();
        return Err(Failure::usage(format!(
            "testbed `{}` has no node `{}`{} (nodes: {})",
            record.facts.name,
            args.node,
            dualperf_lab::topology::did_you_mean(&args.node, names.iter().copied()),
            names.join(", ")
        )));
    };
    let error = std::process::Command::new("ip")
        .args(["netns", "exec", &node.netns])
        .args(&args.command)
        .exec();
    Err(anyhow::Error::new(error).context("running `ip netns exec`"))
}

/// `lab status`: testbeds up, and `dsp-` namespaces no state file explains.
pub(crate) fn status() -> anyhow::Result<ExitCode> {
    let states = all_records()?;
    let namespaces = cleanup::list_namespaces(&Runner::new(false)).map_err(to_cli_error)?;
    if states.is_empty() {
        println!("no testbed is up");
    }
    for record in &states {
        let present = record
            .facts
            .nodes
            .iter()
            .filter(|n| namespaces.contains(&n.netns))
            .count();
        println!(
            "run {}: `{}` — {}/{} namespaces present",
            record.run_id,
            record.facts.name,
            present,
            record.facts.nodes.len()
        );
        print_state(record);
    }
    let explained = |netns: &String| {
        states
            .iter()
            .any(|s| s.facts.nodes.iter().any(|n| &n.netns == netns))
    };
    let leftovers: Vec<&String> = namespaces
        .iter()
        .filter(|n| n.starts_with(NAMESPACE_PREFIX) && !explained(n))
        .collect();
    if !leftovers.is_empty() {
        println!("namespaces of other or crashed runs (removed by `dualperf lab clean`):");
        for netns in leftovers {
            println!("  {netns}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `lab clean`: remove every run whose owner process is gone (`--force`:
/// every run) — its `dsp-` namespaces, the processes inside, stray veths,
/// its lock and state files.
pub(crate) fn clean(args: CleanArgs) -> anyhow::Result<ExitCode> {
    let runner = Runner::new(args.verbose);
    // Every directory an owner may have written to, whatever this
    // process's environment (`sudo` vs `sudo -E`).
    let dirs = state::owner_dirs();
    let prefix = match &args.run_id {
        Some(id) => run_namespace_prefix(
            &RunId::new(id.clone()).map_err(|e| Failure::usage(format!("--run {id}: {e}")))?,
        ),
        None => NAMESPACE_PREFIX.to_string(),
    };
    let report = cleanup::clean_runs(&runner, &dirs, &prefix, args.force).map_err(to_cli_error)?;
    let mut removed_states = 0;
    for dir in &dirs {
        for record in state::load_all(dir).map_err(to_cli_error)? {
            let chosen = args.run_id.as_ref().is_none_or(|id| *id == record.run_id);
            if !chosen || report.spared.iter().any(|s| s.run_id == record.run_id) {
                continue;
            }
            state::remove(dir, &record.run_id).map_err(to_cli_error)?;
            removed_states += 1;
        }
    }
    for spared in &report.spared {
        match (spared.owner, spared.pid) {
            (cleanup::Owner::Process, pid) => println!(
                "kept run {}: {} still runs (`dualperf lab clean --force` removes it anyway)",
                spared.run_id,
                pid.map(|pid| format!("process {pid}"))
                    .unwrap_or_else(|| "its owner".into())
            ),
            (cleanup::Owner::LabUp, _) => println!(
                "kept run {}: a testbed left up by `dualperf lab up` (`dualperf lab down --run {}` removes it)",
                spared.run_id, spared.run_id
            ),
        }
    }
    for netns in &report.namespaces {
        println!("removed namespace {netns}");
    }
    for interface in &report.interfaces {
        println!("removed interface {interface}");
    }
    println!(
        "clean: {} namespaces, {} processes stopped, {} stray interfaces, {} state files",
        report.namespaces.len(),
        report.processes.len(),
        report.interfaces.len(),
        removed_states
    );
    Ok(ExitCode::SUCCESS)
}
