//! The vocabulary that crosses dualperf's stage boundaries.
//!
//! dualperf is a pipeline: a *plan* (what to measure) goes to the *engine*
//! (sockets, generators, meters), which records raw *observations*; the
//! *stats* stage turns observations into summaries and IPv4-versus-IPv6
//! comparisons; the *store* keeps everything and the *report* draws it.
//! Each stage is its own crate and none depends on another: they exchange the
//! values defined here, and the `dualperf` binary wires them together.
//!
//! Invariants of this crate: no I/O, no clock, no dependency but serde,
//! thiserror and schemars (the published JSON Schemas are derived here). Units live in types ([`BitRate`]) or in field names
//! (`duration_ms`, `rtt_ns`, `loss_ratio`), never in comments alone.
//!
//! The central shape is the **arm** ([`Arm`]): one thing measured — address
//! family × path (native, 6in4, 4in6, NAT64) × marking (DSCP, flow label) ×
//! load — with a label people read. A run measures every point on every arm
//! and compares each arm with a baseline arm (native IPv4 by default); the
//! classic IPv4-against-IPv6 run is two native arms. Metrics are typed
//! ([`MetricId`]): their names, units, directions and definitions live in
//! one table, and no other crate spells a metric name.
//! [`PerFamily<T>`] remains for facts that really come one per family
//! (header sizes, datagram limits).

pub mod analysis;
pub mod arm;
pub mod calibration;
pub mod contrasts;
pub mod datagram;
pub mod design;
pub mod diffserv;
pub mod execution;
pub mod family;
pub mod forwarder;
pub mod goal;
pub mod host;
pub mod iperf3;
pub mod media;
pub mod metric;
pub mod observation;
pub mod peer;
pub mod regime;
pub mod result;
mod schema;
pub mod send_budget;
pub mod spec;
pub mod summary;
pub mod testbed;
pub mod time;
pub mod tuning;
pub mod units;
pub mod wire;

pub use analysis::{
    AdjustmentMethod, Analysis, AnalysisMethod, Attribution, Comparison, ComparisonWarning,
    ContentionCause, ContentionEvidence, ContentionThresholds, CostUnit, CpuEnd, CpuPart,
    FragmentationPart, MetricSummary, MissingMetric, MultipleComparisonControl, Summary,
};
pub use arm::{Arm, ArmId, ArmPath, Dscp, FlowLabel, LoadCondition, Marking, TunnelPlacement};
pub use calibration::{Calibration, CalibrationPoint, CalibrationSetup, Estimate, KnownEffect};
pub use design::{CarriedBy, Contrast, Factor, LoadTable, OfferedLoad};
pub use diffserv::{
    DiffServFindings, LoadFlowComparison, LoadFlowSummary, RemarkCase, RemarkCheck, RouterCpu,
    RouterCpuSummary,
};
pub use execution::{Execution, PlanFile, PrecisionTarget};
pub use family::{IpFamily, PerFamily};
pub use goal::Goal;
pub use host::{HostFacts, InterfaceFacts};
pub use iperf3::{Iperf3Report, Iperf3StreamReport};
pub use media::{MediaProfile, VideoProfile, VoiceCodec, VoiceProfile};
pub use metric::{MetricId, Quantity};
pub use observation::stamp::{StampClassOfService, StampObservations};
pub use observation::LoadObservations;
pub use observation::{
    CpuObservations, EndsPlacement, FlowCounters, HistogramBucket, IntervalSample, LatencySamples,
    Observations, PacerSchedule, ProbeObservations, ProcessCpu, SocketFacts, SystemCpu,
    TcpCounters, Trial, TrialOutcome, UdpReceiveCounters,
};
pub use peer::PeerKind;
pub use regime::{PointRegime, Regime, RegimeThresholds};
pub use result::{RunResult, RESULT_SCHEMA, RESULT_SCHEMA_VERSION};
pub use send_budget::SendBudget;
pub use spec::{LoadFlow, LoadSpec};
pub use spec::{RepetitionOrder, RunConfig, TestKind, TestSpec};
pub use testbed::{LinkRate, TestbedFacts};
pub use time::{run_id, UtcDateTime};
pub use tuning::SocketTuning;
pub use units::{BitRate, ParseUnitError};
pub use wire::{
    WireCheck, WireCounts, WireEnd, WireExpected, WireFinding, WireSide, WireValueCount,
    WIRE_TOLERANCE_RATIO,
};
