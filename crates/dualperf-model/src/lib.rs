//! The vocabulary that crosses dualperf's stage boundaries.
//!
//! dualperf is a pipeline: a *plan* (what to measure) goes to the *engine*
//! (sockets, generators, meters), which records raw *observations*; the
//! *stats* stage turns observations into summaries and IPv4-versus-IPv6
//! comparisons; the *store* keeps everything and the *report* draws it.
//! Each stage is its own crate and none depends on another: they exchange the
//! values defined here, and the `dualperf` binary wires them together.
//!
//! Invariants of this crate: no I/O, no clock, no dependency but serde and
//! thiserror. Units live in types ([`BitRate`]) or in field names
//! (`duration_ms`, `rtt_ns`, `loss_ratio`), never in comments alone.
//!
//! The central shape is [`PerFamily<T>`]: one value for IPv4 and one for
//! IPv6, because a side-by-side comparison is what the product does.

pub mod analysis;
pub mod family;
pub mod host;
pub mod observation;
pub mod result;
pub mod spec;
pub mod testbed;
pub mod units;

pub use analysis::{Analysis, AnalysisMethod, Comparison, Metric, MetricSummary, Summary};
pub use family::{IpFamily, PerFamily};
pub use host::{HostFacts, InterfaceFacts};
pub use observation::{
    CpuObservations, FlowCounters, HistogramBucket, IntervalSample, LatencySamples, Observations,
    ProbeObservations, ProcessCpu, SocketFacts, SystemCpu, TcpCounters, Trial, TrialOutcome,
    UdpReceiveCounters,
};
pub use result::{RunResult, RESULT_SCHEMA, RESULT_SCHEMA_VERSION};
pub use spec::{RepetitionOrder, RunConfig, TestKind, TestSpec};
pub use testbed::TestbedFacts;
pub use units::{BitRate, ParseUnitError};
