//! Experiment presets: a topology whose run is a designed experiment
//! (arms under competing loads, chosen media points) rather than the
//! standard battery (`dualperf lab diffserv` runs the DiffServ paper's
//! experiments, `dualperf lab realtime` the real-time media ones).
//!
//! A preset whose experiment is only a plan answers [`plan`] (every other
//! topology gets the battery, `super::job`). An [`Experiment`] plans the main measurement (one [`RunConfig`], run by
//! the main job exactly as the battery is), may prepare the built testbed
//! before it, run extra steps on the testbed after it, and print its own
//! answer after the one pipeline has analysed and saved the result. The
//! dispatch is one match on the preset name.

use std::sync::atomic::AtomicBool;

use dualperf_lab::{RunId, Testbed, Topology};
use dualperf_model::{Arm, IpFamily, RunConfig, RunResult, TestbedFacts};

use super::args::JobArgs;
use super::measure::Traffic;

mod calibrate;
pub(crate) mod diffserv;
mod diffserv_checks;
pub(crate) mod gigabit;
mod path_checks;
pub(crate) mod path_faults;
mod realtime;

/// What an experiment's steps after the main measurement get.
pub(crate) struct Step<'a> {
    /// The built testbed.
    pub testbed: &'a Testbed,
    /// The server node.
    pub server: &'a str,
    /// The main measurement's traffic step (binary, port, results folder).
    pub traffic: &'a Traffic,
    /// Ctrl-C / SIGTERM.
    pub interrupt: &'a AtomicBool,
}

/// A preset's own experiments.
pub(crate) trait Experiment {
    /// The plan of the main measurement.
    fn config(&self) -> &RunConfig;

    /// `--router-cpus` entries for the measuring child (`NODE:CPU`).
    fn child_routers(&self) -> Vec<String> {
        Vec::new()
    }

    /// Prepares the built testbed before the main measurement.
    ///
    /// # Errors
    /// When the testbed cannot be prepared (the job then stops).
    fn prepare(&mut self, _testbed: &Testbed) -> anyhow::Result<()> {
        Ok(())
    }

    /// Extra steps after the main measurement, the testbed still up; what
    /// they find goes into `facts`.
    fn after(&mut self, _step: &Step, _facts: &mut TestbedFacts) {}

    /// True when [`Experiment::print`] replaces the generic verdicts.
    fn replaces_verdicts(&self) -> bool {
        false
    }

    /// Prints the experiment's answer from the analysed result.
    fn print(&self, _result: &RunResult) {}
}

/// Refuses `-b`, `-n` and `-k` on an experiment whose rates and timing are
/// its design (the DiffServ load steps, the real-time loads, rrul's bulk
/// flows, calibration's paced classes, path faults' probes): the flags
/// would silently do nothing there. The battery and `gigabit` take them.
///
/// # Errors
/// A usage error naming the flag and the experiment.
pub(crate) fn check_rate_flags(args: &JobArgs, preset: &str) -> anyhow::Result<()> {
    let designed = matches!(
        preset,
        "diffserv" | "calibrate" | "realtime" | "path-faults"
    ) || dualperf_design::Design::from_name(preset).is_some();
    let flag = match (args.bitrate, args.send_budget()) {
        (Some(_), _) => "-b",
        (None, Some(_)) => "-n/-k",
        (None, None) => return Ok(()),
    };
    if designed {
        return Err(crate::cli::Failure::usage(format!(
            "the `{preset}` experiment sets its own rates and trial lengths; {flag} applies to \
             the battery (plain presets) and `lab gigabit`"
        )));
    }
    Ok(())
}

/// The experiment of `topology`'s preset, if it has one.
///
/// # Errors
/// A plan that does not validate.
pub(crate) fn for_topology(
    args: &JobArgs,
    topology: &Topology,
    server: &str,
    run: &RunId,
) -> anyhow::Result<Option<Box<dyn Experiment>>> {
    Ok(match topology.name() {
        "diffserv" => Some(Box::new(diffserv::DiffServExperiment::plan(
            args, topology, server, run,
        )?)),
        "calibrate" => Some(Box::new(calibrate::CalibrateExperiment::plan(
            args, topology, server, run,
        )?)),
        "gigabit" => Some(Box::new(gigabit::GigabitExperiment::plan(
            args, topology, server,
        )?)),
        _ => None,
    })
}

/// The plan of an experiment preset that is only a plan, `None` for any
/// other topology.
///
/// # Errors
/// Usage errors of the planner (flags out of range, missing arms).
pub(crate) fn plan(
    args: &JobArgs,
    topology: &Topology,
    server: &str,
) -> anyhow::Result<Option<RunConfig>> {
    match topology.name() {
        "realtime" => realtime::plan(args, topology, server).map(Some),
        name => match dualperf_design::Design::from_name(name) {
            Some(design) => designed(design, args, topology, server).map(Some),
            None => Ok(None),
        },
    }
}

/// The plan of a design of dualperf-design on the preset of its name: the
/// testbed's native arms towards `server`, the lab's flags.
///
/// # Errors
/// A topology without native arms, or a plan that does not validate.
fn designed(
    design: dualperf_design::Design,
    args: &JobArgs,
    topology: &Topology,
    server: &str,
) -> anyhow::Result<RunConfig> {
    let base = native_arms(topology, server)?;
    let config = design.plan(&dualperf_design::PlanInputs {
        base,
        quick: args.quick,
        time_seconds: args.time_seconds,
        repeat: match args.repeat {
            Some(crate::cli::run::Repeat::Count(count)) => Some(count),
            Some(crate::cli::run::Repeat::Auto) => {
                Some(crate::pipeline::plan::auto_target().min_repetitions)
            }
            None => None,
        },
        port: args.port,
        command_line: std::env::args().collect(),
    });
    crate::pipeline::plan::validate(&config)?;
    Ok(config)
}

/// The topology's plain native arms towards `server` (the arms an
/// experiment builds its own from).
///
/// # Errors
/// A usage error when the topology offers none; the topology's own errors.
fn native_arms(topology: &Topology, server: &str) -> anyhow::Result<Vec<Arm>> {
    let base = plain_native(topology, server)?;
    if base.is_empty() {
        return Err(crate::cli::Failure::usage(format!(
            "topology `{}` offers no native arm towards `{server}`",
            topology.name()
        )));
    }
    Ok(base)
}

/// The native IPv4 and IPv6 arms towards `server`, for an experiment
/// (`who`: "the Gigabit UDP study") that compares exactly these two.
///
/// # Errors
/// A usage error naming `who` when either is missing.
fn native_pair(topology: &Topology, server: &str, who: &str) -> anyhow::Result<(Arm, Arm)> {
    let native = plain_native(topology, server)?;
    let of = |family: IpFamily| native.iter().find(|a| a.family == family).cloned();
    match (of(IpFamily::V4), of(IpFamily::V6)) {
        (Some(v4), Some(v6)) => Ok((v4, v6)),
        _ => Err(crate::cli::Failure::usage(format!(
            "{who} needs native IPv4 and IPv6 towards the server"
        ))),
    }
}

/// The topology's arms towards `server` that are plain native ones.
fn plain_native(topology: &Topology, server: &str) -> anyhow::Result<Vec<Arm>> {
    Ok(topology
        .arms(server)
        .map_err(super::errors::to_cli_error)?
        .into_iter()
        .filter(Arm::is_plain_native)
        .collect())
}
