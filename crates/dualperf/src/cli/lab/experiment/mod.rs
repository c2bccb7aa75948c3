//! Experiment presets: a topology whose run is a designed experiment
//! (arms under competing loads, chosen media points) rather than the
//! standard battery. [`plan`] picks the planner by the topology's name;
//! every other topology gets the battery (`super::job`).

mod realtime;

use dualperf_lab::Topology;
use dualperf_model::RunConfig;

use super::job::JobArgs;

/// The plan of an experiment preset, `None` for a plain topology.
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
        _ => Ok(None),
    }
}
