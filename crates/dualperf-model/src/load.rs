//! Competing loads: traffic that runs beside an arm's measured traffic.
//!
//! An arm with [`crate::LoadCondition::Under`] names one [`LoadSpec`] of the
//! run's configuration. Before each trial of that arm the client starts every
//! [`LoadFlow`] of the load as its own session with the server (its own
//! control connection, data sockets, marking, family and meters), waits until
//! all of them run, lets them warm up for [`LoadSpec::warmup_ms`], and only
//! then starts the measured trial. The loads keep running until the measured
//! trial has ended, so the measured interval lies wholly inside the loaded
//! one. What each load flow saw is kept in
//! [`crate::Observations::loads`]: the DiffServ experiments read the
//! best-effort class's loss there, the real-time ones the competing
//! throughput.
//!
//! A trial whose load could not be started fails: a measurement labelled
//! "under load" that ran on an idle path would be a wrong answer.

use serde::{Deserialize, Serialize};

use crate::arm::Marking;
use crate::family::IpFamily;
use crate::observation::Observations;
use crate::spec::TestSpec;

/// A named competing load: one or more flows (a traffic mix).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadSpec {
    /// Name an arm's [`crate::LoadCondition::Under`] refers to, e.g.
    /// `udp-115pct-be` or `tcp-1x` (a machine key: lower case, digits, `-`).
    pub name: String,
    /// What people read, e.g. "BE UDP at 115 % of the link".
    pub label: String,
    /// The flows, started together.
    pub flows: Vec<LoadFlow>,
    /// How long the load runs before the measured traffic starts, in
    /// milliseconds (TCP reaches its window, queues fill).
    pub warmup_ms: u64,
}

/// One flow of a load: a test spec (its duration and warm-up are set by the
/// engine so that it spans the measured trial), a family and a marking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadFlow {
    /// What people read, e.g. "LBE bulk TCP".
    pub label: String,
    /// Kind, size, rate, streams, direction and congestion control of the
    /// flow. `duration_ms` and `warmup_ms` are ignored: the engine derives
    /// them from the measured trial.
    pub spec: TestSpec,
    /// The family of the flow; `None`: the measured arm's family (a mixed
    /// IPv4/IPv6 load names both explicitly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<IpFamily>,
    /// DSCP and flow label of the flow's data sockets (both ends).
    #[serde(default, skip_serializing_if = "Marking::is_empty")]
    pub marking: Marking,
}

/// What one load flow of a trial saw over its own measured interval, which
/// spans the trial's measured interval (it starts after the load's warm-up
/// and ends after the measured trial ends).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadObservations {
    /// Index of the flow in its [`LoadSpec::flows`].
    pub flow: usize,
    /// The flow's label (a copy, so a trial stands alone).
    pub label: String,
    /// The flow's family.
    pub family: IpFamily,
    /// The flow's marking.
    #[serde(default, skip_serializing_if = "Marking::is_empty")]
    pub marking: Marking,
    /// The spec the flow ran with (duration and warm-up as the engine set them).
    pub spec: TestSpec,
    /// Its observations (its own meters).
    pub observations: Box<Observations>,
}
