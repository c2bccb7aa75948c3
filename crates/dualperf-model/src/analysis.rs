//! What the stats stage makes of observations: per-arm summaries over
//! repetitions and the comparison of every arm with the baseline arm at
//! every point and metric. Numbers only: the report crate words them.
//! Values here are computed, never measured; a metric that cannot be
//! computed is listed in [`Analysis::missing`] with the reason instead of
//! carrying NaN (JSON has no NaN).

use serde::{Deserialize, Serialize};

use crate::arm::ArmId;
use crate::metric::MetricId;
pub use crate::summary::Summary;

/// One metric of one point on one arm, summarised over repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricSummary {
    /// Index of the point in the run's config.
    pub point: usize,
    /// The arm.
    pub arm: ArmId,
    /// The metric.
    pub metric: MetricId,
    /// The summary over the arm's successful repetitions.
    pub summary: Summary,
}

/// The comparison of one metric at one point between an arm and its
/// baseline: `arm − baseline`, paired by repetition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Index of the point in the run's config.
    pub point: usize,
    /// The metric.
    pub metric: MetricId,
    /// The arm compared.
    pub arm: ArmId,
    /// The arm it is compared with.
    pub baseline: ArmId,
    /// The arm's summary over repetitions.
    pub arm_summary: Summary,
    /// The baseline's summary over repetitions.
    pub baseline_summary: Summary,
    /// Number of (arm, baseline) pairs the paired difference uses.
    pub pairs: u64,
    /// Mean of the paired differences arm − baseline, in the metric's unit.
    pub difference_mean: f64,
    /// 95 % CI of the paired difference; `None` with fewer than 2 pairs.
    pub difference_ci95: Option<(f64, f64)>,
    /// difference_mean / baseline mean; `None` when the baseline mean is 0.
    pub relative_difference: Option<f64>,
    /// 95 % CI of the relative difference (the difference CI over the baseline mean).
    pub relative_difference_ci95: Option<(f64, f64)>,
    /// True when the difference CI excludes 0.
    pub significant: bool,
    /// What the header-overhead model predicts for (arm − baseline) / baseline, if it applies.
    pub theoretical_relative_difference: Option<f64>,
    /// What weakens this comparison (typed; the report words them).
    pub warnings: Vec<ComparisonWarning>,
    /// Two-sided p-value of the paired t-test of the differences (no mean
    /// difference as null hypothesis); `None` with fewer than 2 pairs or no
    /// spread between them (the test is not defined there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// The p-value after multiple-comparison control across the run's
    /// headline comparisons ([`AnalysisMethod::multiple_comparisons`]);
    /// `None` outside that family. `significant` uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjusted_p_value: Option<f64>,
    /// What explains the relative difference, part by part; `None` for
    /// metrics the parts do not apply to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
}

/// The parts of a comparison's relative difference (arm − baseline) /
/// baseline that known causes explain, each the change that cause alone
/// would make to the metric, to first order (docs/metrics.md,
/// "Attribution"). What they leave is `unexplained`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Attribution {
    /// The measured relative difference the parts explain.
    pub measured: f64,
    /// The header model with both arms' packets as native ones (IPv6's
    /// larger header); `None` where the model makes no prediction.
    pub header: Option<f64>,
    /// The model's further change from the arm's path: a tunnel's outer
    /// header, a NAT64's translation.
    pub encapsulation: Option<f64>,
    /// The model's further change from fragmentation (datagrams above the
    /// path MTU).
    pub fragmentation: Option<FragmentationPart>,
    /// The CPU cost per unit of work at the end that limited the rate.
    pub cpu: Option<CpuPart>,
    /// `measured` minus the parts.
    pub unexplained: f64,
    /// A saturated user-space forwarder on the arm's path (TAYGA for
    /// NAT64): the bottleneck, explaining what the other parts leave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarder: Option<crate::forwarder::ForwarderPart>,
}

/// Fragmentation's share of an [`Attribution`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FragmentationPart {
    /// IP fragments per datagram on the arm.
    pub arm_fragments: u32,
    /// IP fragments per datagram on the baseline.
    pub baseline_fragments: u32,
    /// The change it makes to the metric (relative).
    pub explained: f64,
}

/// CPU cost's share of an [`Attribution`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuPart {
    /// Whose CPU.
    pub end: CpuEnd,
    /// Per what.
    pub per: CostUnit,
    /// CPU time per unit on the arm / on the baseline − 1 (+0.05: 5 % more).
    pub cost_difference: f64,
    /// The change in the metric that cost makes at a CPU-bound end.
    pub explained: f64,
}

/// The end of a trial whose CPU cost a [`CpuPart`] counts.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CpuEnd {
    /// The end that sends the bulk data.
    Sender,
    /// The end that receives it.
    Receiver,
    /// Both ends together (request/response; one process for both).
    BothEnds,
}

/// The unit of work CPU cost is counted per.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CostUnit {
    /// An IP packet (TCP segment, or UDP datagram fragment).
    Packet,
    /// A request/response transaction.
    Transaction,
    /// A TCP connection set up.
    Connection,
}

/// Something that weakens a [`Comparison`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ComparisonWarning {
    /// No repetition succeeded on both arms: the difference is of the
    /// means, unpaired.
    Unpaired,
    /// Fewer than 2 pairs: no confidence interval.
    FewPairs {
        /// Pairs available.
        pairs: u64,
    },
    /// An arm's coefficient of variation exceeds the threshold.
    Unstable {
        /// The arm.
        arm: ArmId,
        /// Its CV over repetitions.
        coefficient_of_variation: f64,
        /// The threshold ([`AnalysisMethod::cv_warning_ratio`]).
        threshold: f64,
    },
    /// Some of an arm's trials failed.
    FailedTrials {
        /// The arm.
        arm: ArmId,
        /// Trials that failed.
        failed: u64,
        /// Trials planned.
        trials: u64,
    },
    /// The two arms have different numbers of successful repetitions.
    UnequalRepetitions {
        /// Successful repetitions of the arm.
        arm_count: u64,
        /// Successful repetitions of the baseline.
        baseline_count: u64,
        /// Pairs used.
        pairs: u64,
    },
    /// Some of an arm's trials ran while other programs competed for the
    /// CPUs the tool needed (docs/metrics.md, "Contention"): the comparison
    /// is never significant.
    Contended {
        /// The arm.
        arm: ArmId,
        /// Its trials at this point classified contended.
        contended: u64,
        /// Its trials at this point that ran to the end.
        trials: u64,
        /// The strongest evidence among the contended trials.
        evidence: ContentionEvidence,
    },
    /// Some of an arm's paced trials did not send at the rate asked
    /// (docs/metrics.md, "Pacing"): the load differed from the plan.
    OffRate {
        /// The arm.
        arm: ArmId,
        /// Its trials at this point that missed the rate.
        off: u64,
        /// Its paced trials at this point that ran to the end.
        trials: u64,
        /// The rate asked, all streams together, payload bits per second.
        asked_bps: f64,
        /// The trial furthest off: achieved / asked − 1 over the trial.
        worst_trial_ratio: f64,
        /// The interval furthest off among the arm's trials:
        /// achieved / asked − 1 over one sampling interval.
        worst_interval_ratio: Option<f64>,
    },
    /// Some of an arm's trials disagreed with the wire (`--verify-wire`,
    /// docs/metrics.md "Wire verification"): counts off by more than 0.1 %,
    /// or family, DSCP or flow label not as asked. Never significant.
    WireMismatch {
        /// The arm.
        arm: ArmId,
        /// Its trials at this point whose wire check failed.
        failed: u64,
        /// Its trials at this point with a wire check.
        checked: u64,
        /// The first finding of the first failed trial.
        finding: crate::wire::WireFinding,
    },
    /// An arm's trials at this point delivered more than the bottleneck
    /// can carry (carried rate above 103 % of the slowest shaped hop's,
    /// docs/metrics.md "Regime"): the path's queue held the end of the
    /// measured interval and what it delivered afterwards was counted, so
    /// the rates and the loss are the sender's, not the link's (a queue
    /// still filling: paced a few percent above the link, a 100-packet
    /// queue at 10 Mbit/s fills in about 2 s). Never significant.
    BeyondLink {
        /// The arm.
        arm: ArmId,
        /// Carried rate / bottleneck rate, median over its repetitions.
        link_share: f64,
        /// The bottleneck's rate, bits per second.
        link_bits_per_second: u64,
    },
    /// Significant on its own, not after multiple-comparison control over
    /// the run's headline comparisons ([`MultipleComparisonControl`]).
    MultipleComparisons {
        /// Comparisons in the family.
        comparisons: u64,
        /// The comparison's own p-value.
        p_value: f64,
        /// Its adjusted p-value (at least the significance level).
        adjusted_p_value: f64,
    },
}

/// How significance is controlled across many comparisons.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AdjustmentMethod {
    /// Holm's step-down method (family-wise error rate).
    Holm,
}

/// The multiple-comparison control of an analysis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MultipleComparisonControl {
    /// The method.
    pub method: AdjustmentMethod,
    /// Which comparisons form the family, e.g. "headline comparisons".
    pub family: String,
    /// Comparisons in the family (those with a p-value).
    pub comparisons: u64,
    /// Family-wise significance level, e.g. 0.05.
    pub alpha: f64,
}

/// What made a trial count as contended, with the figures measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ContentionEvidence {
    /// The criterion that classified the trial.
    pub cause: ContentionCause,
    /// Share of the CPUs the tool could run on that other programs used
    /// (user + system time not the tool's own), 0..=1; `None` when unknown.
    pub foreign_cpu_ratio: Option<f64>,
    /// The CPUs that share is of: the pinned CPUs, or empty for every CPU
    /// of the machine.
    pub cpus: Vec<u32>,
    /// The machine's CPUs.
    pub machine_cpus: u32,
    /// Share of wall time in which some task waited for a CPU (PSI "some").
    pub pressure_ratio: Option<f64>,
    /// Share of CPU time a hypervisor stole.
    pub steal_ratio: Option<f64>,
    /// Involuntary context switches per second of the measuring process.
    pub involuntary_switches_per_second: Option<f64>,
    /// Time the tool's own threads waited for a CPU over the trial: the
    /// client's, plus the server's when it is a separate process (on this
    /// kernel or another), summed over threads, nanoseconds
    /// ([`crate::ProcessCpu::run_queue_wait_ns`]). `None` when unknown (no
    /// schedstat, or a result from before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_queue_wait_ns: Option<u64>,
    /// `run_queue_wait_ns` over the trial's wall time (may exceed 1 when
    /// several threads waited at once): the throughput criterion, with …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_queue_wait_ratio: Option<f64>,
    /// … the demand of the tool's busiest thread (running + waiting) over
    /// the wall time, the larger of the two ends: near 1 the tool was
    /// CPU-bound and every wait cost throughput; well below 1 the thread
    /// spent the rest blocked on its socket, ahead of the network, and
    /// the socket buffers absorbed its waits
    /// ([`crate::ProcessCpu::busiest_thread_demand_ns`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busiest_thread_demand_ratio: Option<f64>,
    /// The part of `run_queue_wait_ns` beyond the tool's own CPU time
    /// (user + system of its processes), per transaction, over the mean
    /// transaction time (rr, tcp-connect): the latency criterion. `None`
    /// for other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_per_transaction_ratio: Option<f64>,
    /// The longest stall of a paced sender over the measured interval's
    /// length (paced udp-stream): the schedule criterion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacer_stall_ratio: Option<f64>,
    /// Datagrams a paced sender still owed at the end over those it sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacer_owed_ratio: Option<f64>,
}

/// The criterion a contended trial met (thresholds in [`ContentionThresholds`]).
///
/// The first three judge by the tool's own delay (its effect); the last
/// three by other programs' presence, which analyses use only where the
/// tool's run-queue wait is unknown (old results, kernels without
/// schedstat).
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ContentionCause {
    /// Other programs used at least the threshold share of the tool's CPUs.
    #[default]
    ForeignCpu,
    /// A hypervisor stole at least the threshold share of CPU time.
    Steal,
    /// Tasks waited for a CPU most of the time while other programs ran.
    Pressure,
    /// The tool's threads waited for a CPU at least the threshold share of
    /// the trial's wall time (throughput kinds).
    RunQueueWait,
    /// The tool's threads waited for a CPU, per transaction, at least the
    /// threshold share of the mean transaction time (rr, tcp-connect).
    TransactionWait,
    /// A paced sender stalled or fell behind its schedule beyond the
    /// thresholds (paced udp-stream).
    MissedSchedule,
}

impl ContentionCause {
    /// True for the criteria that judge by the tool's own delay rather
    /// than by other programs' presence.
    pub fn is_effect(self) -> bool {
        matches!(
            self,
            ContentionCause::RunQueueWait
                | ContentionCause::TransactionWait
                | ContentionCause::MissedSchedule
        )
    }
}

/// The thresholds of contention classification (docs/metrics.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ContentionThresholds {
    /// A trial is contended when other programs used at least this share
    /// of the CPUs the tool could run on.
    pub foreign_cpu_ratio: f64,
    /// … or a hypervisor stole at least this share of CPU time …
    pub steal_ratio: f64,
    /// … or some task waited for a CPU at least this share of the time
    /// (PSI "some") while other programs used at least
    /// `pressure_foreign_cpu_ratio` of the tool's CPUs.
    pub pressure_ratio: f64,
    /// See `pressure_ratio`.
    pub pressure_foreign_cpu_ratio: f64,
    /// Where the tool's run-queue wait is known, the criteria above are
    /// not used; instead a throughput trial is contended when the tool's
    /// threads waited for a CPU at least this share of the wall time …
    #[serde(default)]
    pub run_queue_wait_ratio: Option<f64>,
    /// … while its busiest thread wanted a CPU (ran or waited) at least
    /// this share of the wall time (CPU-bound) …
    #[serde(default)]
    pub busiest_thread_demand_ratio: Option<f64>,
    /// … a transaction trial (rr, tcp-connect) when the wait beyond the
    /// tool's CPU time, per transaction, is at least this share of the
    /// mean transaction time …
    #[serde(default)]
    pub wait_per_transaction_ratio: Option<f64>,
    /// … and a paced trial when the sender's longest stall is at least
    /// this share of the measured interval …
    #[serde(default)]
    pub pacer_stall_ratio: Option<f64>,
    /// … or it still owed at least this share of the datagrams it sent.
    #[serde(default)]
    pub pacer_owed_ratio: Option<f64>,
}

/// A metric that could not be computed for an arm at a point, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MissingMetric {
    /// Index of the point.
    pub point: usize,
    /// The arm.
    pub arm: ArmId,
    /// The metric.
    pub metric: MetricId,
    /// Why, e.g. "all 3 trials failed (first error: connection refused)".
    pub reason: String,
}

/// Everything the stats stage computed for a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Analysis {
    /// Summaries of every metric at every point on every arm that has one.
    pub summaries: Vec<MetricSummary>,
    /// Every arm but the baseline against the baseline, per point and metric.
    pub comparisons: Vec<Comparison>,
    /// Metrics that could not be computed, and why.
    pub missing: Vec<MissingMetric>,
    /// The choices the analysis made (confidence level, percentile method,
    /// loss waiting time, theory assumptions).
    #[serde(default)]
    pub method: Option<AnalysisMethod>,
    /// Every metric of every competing-load flow, per point and arm.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_flows: Vec<crate::diffserv::LoadFlowSummary>,
    /// Load flows of an arm against the same flows on its baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_comparisons: Vec<crate::diffserv::LoadFlowComparison>,
    /// Router CPU per router, point and arm.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routers: Vec<crate::diffserv::RouterCpuSummary>,
    /// What set the pace of every point on every arm: the link, a CPU or
    /// neither (issue 23; `dualperf_stats::regime`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regimes: Vec<crate::regime::PointRegime>,
}

/// The choices behind an [`Analysis`], stored with it so that a number can
/// be reproduced (docs/metrics.md explains each).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AnalysisMethod {
    /// Confidence level of every interval, e.g. 0.95.
    pub confidence_level: f64,
    /// A family whose coefficient of variation exceeds this gets a warning, e.g. 0.10.
    pub cv_warning_ratio: f64,
    /// How percentiles are computed.
    pub percentile_method: String,
    /// How an arm's repetitions are paired with the baseline's.
    pub pairing: String,
    /// Loss waiting time applied when the trial does not state one, milliseconds.
    pub default_loss_waiting_time_ms: u64,
    /// What the theoretical difference assumes.
    pub theory: String,
    /// When a trial counts as contended; `None` in analyses made before
    /// contention was classified.
    #[serde(default)]
    pub contention: Option<ContentionThresholds>,
    /// How significance is controlled across the run's headline
    /// comparisons; `None` in analyses made before it was.
    #[serde(default)]
    pub multiple_comparisons: Option<MultipleComparisonControl>,
}
