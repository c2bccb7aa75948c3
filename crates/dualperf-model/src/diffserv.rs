//! What the DiffServ experiments (issue 12; `dualperf lab diffserv`) record
//! beyond the engine's observations: the CPU each router spent forwarding
//! during a trial, what the edge router's conditioner did to EF offered
//! above its allowance and to EF from an unauthorised source, and the
//! analysis of the competing loads' flows per traffic class.
//!
//! Namespaces share one kernel, so a router's forwarding has no process to
//! bill: it runs in softirq context on whatever CPU receives the packet.
//! The lab steers each router's receive processing (RPS, `rps_cpus` on every
//! interface of the router) to its own CPU, and [`RouterCpu`] counts the
//! softirq time of that CPU over the trial:
//! everything the kernel did in softirq context on that CPU, which is the
//! router's forwarding and whatever else happened to run there (docs/metrics.md,
//! "Router CPU").

use serde::{Deserialize, Serialize};

use crate::arm::{ArmId, Marking};
use crate::family::IpFamily;
use crate::metric::MetricId;
use crate::summary::Summary;

/// CPU time the kernel spent in softirq context on the CPUs a router's
/// receive processing was steered to, over one trial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RouterCpu {
    /// The router node.
    pub node: String,
    /// The CPUs its interfaces' receive processing was steered to (RPS).
    pub cpus: Vec<u32>,
    /// Softirq time of those CPUs (`/proc/stat`, tick-sampled), nanoseconds.
    pub softirq_ns: u64,
    /// Of `softirq_ns`, what ran in those CPUs' `ksoftirqd/N` threads
    /// (softirq work deferred to a thread under load; their
    /// `/proc/PID/stat` utime + stime: the kernel charges softirq time to
    /// the softirq bucket *and* to the task it interrupted, so this is a
    /// part of `softirq_ns`, not an addition), nanoseconds.
    pub ksoftirqd_ns: u64,
    /// Wall time the two were counted over (the whole trial, handshakes and
    /// warm-ups included), nanoseconds.
    pub wall_ns: u64,
}

impl RouterCpu {
    /// CPU cores busy with softirq work on the router's CPUs: softirq time
    /// / wall time; `None` for an empty window.
    pub fn cores(&self) -> Option<f64> {
        (self.wall_ns > 0).then(|| self.softirq_ns as f64 / self.wall_ns as f64)
    }
}

/// Which conditioner action a [`RemarkCheck`] exercised.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RemarkCase {
    /// EF from a premium source at more than its allowance: the excess is
    /// remarked to DSCP 0 by the policer.
    Policing,
    /// EF from a source that is not premium: all of it remarked to DSCP 0.
    Unauthorised,
}

/// EF traffic offered by one source over one family, and what the edge
/// router's conditioner counted (its named nftables counters, read before
/// and after the traffic).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RemarkCheck {
    /// What was exercised.
    pub case: RemarkCase,
    /// The family of the traffic.
    pub family: IpFamily,
    /// The node that sent it.
    pub source: String,
    /// Offered EF rate, payload bits per second.
    pub offered_bps: u64,
    /// Length of the traffic (warm-up included), milliseconds.
    pub duration_ms: u64,
    /// Datagrams the source sent in its measured interval.
    pub sent_packets: u64,
    /// Datagrams the sink received in its measured interval.
    pub received_packets: u64,
    /// EF packets the conditioner let through as EF (`ef_ok_*`).
    pub kept_ef_packets: u64,
    /// EF packets above the allowance remarked to DSCP 0 (`excess_*`).
    pub excess_remarked_packets: u64,
    /// EF packets from an unauthorised source remarked to DSCP 0 (`unauth_*`).
    pub unauthorised_remarked_packets: u64,
    /// The policer's allowance, packets per second.
    pub allowance_pps: u64,
}

/// What a DiffServ testbed's own instruments recorded for a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiffServFindings {
    /// The policing and unauthorised-source checks, in the order run.
    pub checks: Vec<RemarkCheck>,
    /// Where each router's receive processing was steered, e.g.
    /// "edge: CPU 1 (rps_cpus on 3 interfaces)".
    pub steering: Vec<String>,
    /// What could not be done, and why.
    pub notes: Vec<String>,
}

/// One metric of one competing-load flow, at one point on one arm,
/// summarised over the arm's repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadFlowSummary {
    /// Index of the point.
    pub point: usize,
    /// The arm whose trials ran under the load.
    pub arm: ArmId,
    /// Index of the flow in its load.
    pub flow: usize,
    /// The flow's label, e.g. "BE UDP at 115 % of the link".
    pub label: String,
    /// The flow's family.
    pub family: IpFamily,
    /// The flow's marking.
    #[serde(default, skip_serializing_if = "Marking::is_empty")]
    pub marking: Marking,
    /// The metric.
    pub metric: MetricId,
    /// Over the arm's repetitions.
    pub summary: Summary,
}

/// A load flow on an arm against the same flow on the arm's baseline
/// (the counterpart of the other family under the same load), paired by
/// repetition: `arm − baseline`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadFlowComparison {
    /// Index of the point.
    pub point: usize,
    /// Index of the flow in its load.
    pub flow: usize,
    /// The flow's label.
    pub label: String,
    /// The metric.
    pub metric: MetricId,
    /// The arm compared.
    pub arm: ArmId,
    /// The arm it is compared with.
    pub baseline: ArmId,
    /// The flow on the arm.
    pub arm_summary: Summary,
    /// The flow on the baseline.
    pub baseline_summary: Summary,
    /// Pairs of repetitions.
    pub pairs: u64,
    /// Mean of the paired differences, in the metric's unit.
    pub difference_mean: f64,
    /// Student-t 95 % CI of the paired differences; `None` with < 2 pairs.
    pub difference_ci95: Option<(f64, f64)>,
    /// True when the CI excludes 0.
    pub significant: bool,
}

/// Router CPU ([`RouterCpu::cores`]) of one router at one point on one arm,
/// over the arm's repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RouterCpuSummary {
    /// Index of the point.
    pub point: usize,
    /// The arm.
    pub arm: ArmId,
    /// The router node.
    pub node: String,
    /// Cores busy in softirq context, over repetitions.
    pub summary: Summary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn router_cpu_is_softirq_time_over_wall_time() {
        let cpu = RouterCpu {
            node: "edge".into(),
            cpus: vec![1],
            softirq_ns: 200_000_000,
            ksoftirqd_ns: 50_000_000,
            wall_ns: 1_000_000_000,
        };
        assert_eq!(cpu.cores(), Some(0.2));
        assert_eq!(RouterCpu::default().cores(), None);
        let text = serde_json::to_string(&cpu).unwrap();
        assert_eq!(serde_json::from_str::<RouterCpu>(&text).unwrap(), cpu);
    }
}
