//! Raw observations: what the engine recorded for one trial (one point, one
//! family, one repetition). Nothing here is summarised beyond counting; the
//! stats stage computes every metric from these values.

pub mod stamp;

use serde::{Deserialize, Serialize};

use crate::arm::{ArmId, Marking};
use crate::family::IpFamily;
use crate::spec::TestSpec;

/// One repetition of one point on one arm, with its outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Trial {
    /// Index of the point in [`crate::RunConfig::points`].
    pub point: usize,
    /// The point's parameters (a copy, so a trial stands alone).
    pub spec: TestSpec,
    /// The arm measured. Empty only in a schema v1 trial before
    /// [`crate::RunResult`] upgrades it (to the family's native arm).
    #[serde(default)]
    pub arm: ArmId,
    /// The family of the arm (a copy, so a trial stands alone).
    pub family: IpFamily,
    /// Repetition number, from 0.
    pub repetition: u32,
    /// Wall-clock start, milliseconds since the Unix epoch.
    pub started_at_unix_ms: u64,
    /// Local socket address of the (first) data connection, as `ip:port`.
    pub local_address: Option<String>,
    /// Remote socket address of the (first) data connection, as `ip:port`.
    pub remote_address: Option<String>,
    /// The family the server says the session really used (an IPv4-mapped
    /// peer on a dual-stack socket counts as IPv4).
    pub server_seen_family: Option<IpFamily>,
    /// What happened.
    pub outcome: TrialOutcome,
}

/// The result of a trial: observations, or why there are none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum TrialOutcome {
    /// The trial ran to the end.
    Ok(Box<Observations>),
    /// The trial failed; the error says what failed.
    Failed {
        /// A human-readable error chain.
        error: String,
    },
}

/// Everything measured in one trial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Observations {
    /// Length of the measured interval (warm-up excluded), nanoseconds.
    pub measured_ns: u64,
    /// What the sending side put into its sockets during the measured interval.
    pub sender: FlowCounters,
    /// What the receiving side took out of its sockets during the measured interval.
    pub receiver: FlowCounters,
    /// Per-interval deltas, in time order.
    pub intervals: Vec<IntervalSample>,
    /// Transaction times (rr: round trips; tcp-connect: setup times).
    pub latency: Option<LatencySamples>,
    /// UDP receive-side counters (udp-stream, udp-probe).
    pub udp: Option<UdpReceiveCounters>,
    /// TCP counters from `TCP_INFO` of the sending sockets, summed over streams.
    pub tcp: Option<TcpCounters>,
    /// CPU used at both ends and system-wide.
    pub cpu: CpuObservations,
    /// Socket settings actually in force.
    pub socket: SocketFacts,
    /// IP fragments per datagram on the first hop, 1 when not fragmented
    /// (UDP payloads above the path MTU).
    pub fragments_per_datagram: u32,
    /// Notes on how this was measured (e.g. "receive timestamps: SO_TIMESTAMPNS").
    pub notes: Vec<String>,
    /// Socket settings in force on the server's data sockets, as it reported them.
    #[serde(default)]
    pub server_socket: Option<SocketFacts>,
    /// The server's own line for this trial, as its log prints it ("test
    /// from [::1]:51736 (IPv6): received … B, sent … B in 0.30 s measured
    /// (…)"; printed by `run --get-server-output`); `None` from older
    /// servers and other peers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_output: Option<String>,
    /// UDP datagrams the receiving socket dropped because its buffer was
    /// full (Linux `SO_RXQ_OVFL`) in the measured interval: loss inside the receiving host,
    /// not on the path. `None` for TCP kinds or where the kernel does not tell.
    #[serde(default)]
    pub receive_buffer_drops: Option<u64>,
    /// A udp-probe stream that ran alongside this trial's traffic (a
    /// latency-under-load probe, `dualperf run --probe`); `None` when none ran.
    #[serde(default)]
    pub probe: Option<Box<ProbeObservations>>,
    /// Minimum round-trip time of the control connection over the trial
    /// (Linux `TCP_INFO` `tcpi_min_rtt`), nanoseconds. Bounds the error of a
    /// one-way delay between synchronised (not shared) clocks: a clock
    /// offset estimated over this path is uncertain by up to half of it.
    #[serde(default)]
    pub control_min_rtt_ns: Option<u64>,
    /// Where the two ends ran relative to each other (one process, one
    /// kernel, two kernels): decides whose CPU time is the tool's own and
    /// whether one-way delay rests on one clock or on a declaration.
    /// `None` in results written before this field existed.
    #[serde(default)]
    pub placement: Option<EndsPlacement>,
    /// What the flows of the competing load saw (arms under a load only),
    /// in the order of the load's flows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<LoadObservations>,
    /// What a packet capture showed of this trial's data flow
    /// (`--verify-wire`); `None` when nothing was captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<crate::wire::WireCheck>,
    /// CPU each router of a lab testbed spent in softirq context during
    /// the trial (DiffServ experiments; empty elsewhere).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routers: Vec<crate::diffserv::RouterCpu>,
    /// What an iperf3 server at the far end reported about this trial
    /// (`--peer iperf3`): its own byte counts, UDP loss and jitter, beside
    /// dualperf's view above; `None` against other peers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iperf3: Option<crate::iperf3::Iperf3Report>,
    /// What a STAMP session told beyond the round-trip view (trials against
    /// a STAMP Session-Reflector, `--peer stamp`); `None` elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Box<stamp::StampObservations>>,
    /// How a paced sender (udp-stream at a rate) kept its schedule: its
    /// longest stall and the datagrams it still owed at the end; `None`
    /// for unpaced flows and in results written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacer: Option<PacerSchedule>,
}

/// How a paced sender kept its schedule (the engine's token-bucket pacer):
/// the evidence that the sending thread was delayed (docs/metrics.md,
/// "Contention"). Summed over the trial's paced streams: the longest
/// stall of any stream, the datagrams owed by all.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct PacerSchedule {
    /// The longest gap between two consecutive wake-ups of a sending
    /// thread, warm-up included, nanoseconds: a thread that was not run
    /// (or slept too long) for that long sent nothing meanwhile.
    pub longest_stall_ns: u64,
    /// Datagrams the senders still owed at the end: stalls they could not
    /// make up at the pacer's catch-up rate (10 % above the asked rate).
    pub owed_datagrams: u64,
    /// Datagrams the senders sent in the measured interval, the scale of
    /// `owed_datagrams`.
    pub sent_datagrams: u64,
}

/// Where the client and the server of a trial ran relative to each other.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EndsPlacement {
    /// Both ends in one process (`dualperf run --loopback`): the client's
    /// and the server's process CPU figures are the same process's.
    SameProcess,
    /// Separate processes on one kernel (equal boot ids): one clock and one
    /// `/proc/stat` for both ends.
    SameKernel,
    /// Different kernels (two hosts or VMs): separate clocks; the system
    /// CPU figures are the client host's.
    SeparateKernels,
}

impl EndsPlacement {
    /// True when both ends share one kernel (and so one clock).
    pub fn shares_kernel(self) -> bool {
        !matches!(self, EndsPlacement::SeparateKernels)
    }
}

/// What an isochronous probe stream saw while another test loaded the path.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProbeObservations {
    /// Interval between probes, microseconds.
    pub interval_us: u64,
    /// Probe payload, bytes.
    pub size_bytes: u32,
    /// The probe stream's receive-side counters and raw arrivals (one-way
    /// delay needs `clocks_shared`).
    pub udp: UdpReceiveCounters,
    /// Per-interval samples of the probe stream (loss and mean one-way delay).
    pub intervals: Vec<IntervalSample>,
    /// How the probe was measured, or why it failed.
    pub notes: Vec<String>,
}

/// Bytes and packets (datagrams, or write/read calls for TCP) counted at one end.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct FlowCounters {
    /// Application payload bytes.
    pub bytes: u64,
    /// Datagrams (UDP) or messages/transactions (rr); for tcp-stream, write/read calls.
    pub packets: u64,
}

/// Counter deltas over one sampling interval.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct IntervalSample {
    /// End of the interval, nanoseconds after the measured interval began.
    pub end_ns: u64,
    /// Length of the interval, nanoseconds.
    pub length_ns: u64,
    /// Payload bytes sent in the interval.
    pub sent_bytes: u64,
    /// Datagrams / messages sent in the interval.
    pub sent_packets: u64,
    /// Payload bytes received in the interval.
    pub received_bytes: u64,
    /// Datagrams / messages received in the interval.
    pub received_packets: u64,
    /// Datagrams lost in the interval (UDP, if known).
    pub lost_packets: Option<u64>,
    /// Mean one-way delay or RTT in the interval, nanoseconds (if measured).
    pub mean_delay_ns: Option<u64>,
}

/// Per-transaction times: an HDR histogram plus the raw series up to a bound.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencySamples {
    /// Number of transactions timed.
    pub count: u64,
    /// Histogram as (value, count) buckets, values in nanoseconds, ascending.
    /// Bucket values carry 3 significant digits (HDR histogram).
    pub histogram: Vec<HistogramBucket>,
    /// The first samples in time order, nanoseconds, at most `raw_limit`.
    pub raw_ns: Vec<u64>,
    /// Bound on `raw_ns`; when `count` exceeds it, `raw_ns` is a prefix.
    pub raw_limit: u64,
    /// Exact minimum, nanoseconds.
    pub min_ns: u64,
    /// Exact maximum, nanoseconds.
    pub max_ns: u64,
    /// Exact sum of all samples, nanoseconds (for an exact mean). Written
    /// as a JSON number while it fits in u64 (584 years), as a decimal
    /// string beyond: serde cannot read u128 inside the internally tagged
    /// [`TrialOutcome`], so a plain u128 made results unreadable.
    #[serde(with = "u128_as_u64_or_string")]
    #[schemars(with = "crate::schema::U128Wire")]
    pub sum_ns: u128,
    /// Exact sum of squares, ns², as f64 (for the standard deviation).
    pub sum_squares_ns2: f64,
}

/// One bucket of a histogram.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct HistogramBucket {
    /// Highest value equivalent to this bucket, nanoseconds.
    pub value_ns: u64,
    /// Samples in this bucket.
    pub count: u64,
}

/// Receive-side UDP counters, kept incrementally by the receiver.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UdpReceiveCounters {
    /// Datagrams the sender reports having sent in the measured interval.
    pub sent: u64,
    /// Distinct datagrams received.
    pub received: u64,
    /// Datagrams received more than once (RFC 7680 §?; excluded from reordering).
    pub duplicates: u64,
    /// Datagrams that arrived with a sequence number below NextExp (RFC 4737 §3.3).
    pub reordered: u64,
    /// Largest reordering extent seen (RFC 4737 §4.2.1), packets.
    pub max_reorder_extent: u64,
    /// Datagrams never received (sent − received), RFC 7680 with the waiting time below.
    pub lost: u64,
    /// Runs of consecutive lost sequence numbers (loss episodes).
    pub loss_episodes: u64,
    /// Waiting time after the last send before a datagram counts as lost, milliseconds.
    pub loss_wait_ms: u64,
    /// RFC 3550 §6.4.1 interarrival jitter at the end of the interval, nanoseconds.
    pub jitter_ns: u64,
    /// Bounded raw arrivals for later analysis (sequence, send time, receive time).
    pub arrivals: Vec<Arrival>,
    /// Bound on `arrivals`.
    pub arrivals_limit: u64,
    /// How receive times were taken: "SO_TIMESTAMPNS" (kernel) or "clock_gettime" (user).
    pub receive_timestamp_source: String,
    /// True when both ends share one clock (same host or same kernel), so
    /// one-way delay (receive − send) is exact.
    pub clocks_shared: bool,
}

/// One received datagram.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Arrival {
    /// Sequence number the sender wrote, from 0.
    pub sequence: u64,
    /// Sender's timestamp, nanoseconds of the sender's CLOCK_REALTIME or shared clock.
    pub sent_ns: i64,
    /// Receiver's timestamp, nanoseconds of the receiver's clock.
    pub received_ns: i64,
}

/// TCP counters from `TCP_INFO` (Linux `struct tcp_info`), summed over streams.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct TcpCounters {
    /// Segments sent (`tcpi_segs_out`).
    pub segments_sent: u64,
    /// Segments retransmitted (`tcpi_total_retrans`).
    pub segments_retransmitted: u64,
    /// Bytes retransmitted (`tcpi_bytes_retrans`).
    pub bytes_retransmitted: u64,
    /// Bytes sent including retransmissions (`tcpi_bytes_sent`).
    pub bytes_sent: u64,
    /// Smoothed RTT at the end, microseconds (`tcpi_rtt`).
    pub smoothed_rtt_us: u32,
    /// Maximum segment size sent (`tcpi_snd_mss`), bytes.
    pub send_mss_bytes: u32,
    /// Congestion window at the end, segments (`tcpi_snd_cwnd`).
    pub congestion_window_segments: u32,
}

/// CPU use during the measured interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuObservations {
    /// The measuring client process.
    pub client: ProcessCpu,
    /// The server process, as it reported over the control channel.
    pub server: Option<ProcessCpu>,
    /// System-wide, from `/proc/stat` deltas (client's host).
    pub system: Option<SystemCpu>,
    /// The same `/proc/stat` deltas over only the CPUs the measuring threads
    /// were pinned to (the client's, and the server's when both ends share
    /// a kernel); `cpus` counts them. `None` when unpinned or not recorded.
    #[serde(default)]
    pub pinned: Option<SystemCpu>,
    /// CPU of user-space processes that are part of the measured path on
    /// the client's host (a lab's own forwarders, e.g. TAYGA for NAT64),
    /// scaled to the measured interval: the path's work, not foreign load.
    /// `None` when the path has no such process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<ProcessCpu>,
}

/// CPU time used by one process over a wall-clock interval (getrusage).
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct ProcessCpu {
    /// User-mode CPU time, nanoseconds.
    pub user_ns: u64,
    /// Kernel-mode CPU time, nanoseconds.
    pub system_ns: u64,
    /// Wall-clock time over which the above was measured, nanoseconds.
    pub wall_ns: u64,
    /// Involuntary context switches of the process over the same interval
    /// (`ru_nivcsw`): how often the scheduler took the CPU away from the
    /// measuring threads. Many per second mean the tool was competing for
    /// CPU; 0 in results written before this field existed.
    #[serde(default)]
    pub involuntary_switches: u64,
    /// Time the process's threads spent runnable but waiting for a CPU
    /// over the same interval, summed over its threads, nanoseconds: field
    /// 2 of `/proc/<pid>/task/<tid>/schedstat` ("time spent waiting on a
    /// runqueue"), end minus start per thread. Two threads waiting at once
    /// count twice, so `/ wall_ns` may exceed 1. The direct measure of
    /// whether the tool itself was delayed by the scheduler
    /// (docs/metrics.md, "Contention"). `None` where the kernel has no
    /// schedstat (`CONFIG_SCHED_INFO`), for a peer that does not report it,
    /// and in results written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_queue_wait_ns: Option<u64>,
    /// Running + run-queue wait of the process's busiest thread over the
    /// same interval, nanoseconds (fields 1 and 2 of its `schedstat`): how
    /// much of `wall_ns` the most CPU-hungry thread wanted a CPU. Near
    /// `wall_ns` it was CPU-bound; well below, it spent the rest blocked
    /// (on its socket: ahead of the network). `None` where
    /// `run_queue_wait_ns` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busiest_thread_demand_ns: Option<u64>,
}

/// System-wide CPU time from `/proc/stat`, as jiffy deltas over all CPUs.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SystemCpu {
    /// user + nice jiffies.
    pub user: u64,
    /// system jiffies.
    pub system: u64,
    /// irq jiffies.
    pub irq: u64,
    /// softirq jiffies (most of the network stack's receive work).
    pub softirq: u64,
    /// steal jiffies (a hypervisor took the CPU).
    pub steal: u64,
    /// idle + iowait jiffies.
    pub idle: u64,
    /// Number of CPUs the totals cover.
    pub cpus: u32,
    /// CPU pressure over the interval: microseconds in which at least one
    /// runnable task waited for a CPU (`/proc/pressure/cpu`, "some" total;
    /// Linux PSI). `None` where the kernel has no PSI.
    #[serde(default)]
    pub pressure_some_us: Option<u64>,
}

/// Socket settings in force for the data sockets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SocketFacts {
    /// `SO_SNDBUF` as the kernel reports it (already doubled by Linux), bytes.
    pub send_buffer_bytes: Option<u32>,
    /// `SO_RCVBUF` as the kernel reports it, bytes.
    pub receive_buffer_bytes: Option<u32>,
    /// CPUs the client's measuring threads ran on (pinned), empty if unpinned.
    pub client_cpus: Vec<u32>,
    /// CPUs the server's threads ran on (pinned), empty if unpinned.
    pub server_cpus: Vec<u32>,
    /// Path MTU / interface MTU the client saw, bytes.
    pub path_mtu_bytes: Option<u32>,
    /// The DSCP the first data socket reads back (`IP_TOS`/`IPV6_TCLASS`),
    /// recorded when the arm asks for a marking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dscp: Option<crate::arm::Dscp>,
    /// The IPv6 flow label the first data socket sends, read back with
    /// `getsockopt(IPV6_FLOWLABEL_MGR)`; `None` for the kernel's automatic label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_label: Option<crate::arm::FlowLabel>,
}

/// (De)serialises a u128 as a u64 JSON number when it fits, else as a
/// decimal string; reads both.
mod u128_as_u64_or_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(value: &u128, serializer: S) -> Result<S::Ok, S::Error> {
        match u64::try_from(*value) {
            Ok(small) => serializer.serialize_u64(small),
            Err(_) => serializer.serialize_str(&value.to_string()),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Text(String),
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<u128, D::Error> {
        match Either::deserialize(deserializer)? {
            Either::Number(value) => Ok(u128::from(value)),
            Either::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// What one load flow of a trial saw over its own measured interval, which
/// spans the trial's measured interval (it starts after the load's warm-up
/// and ends after the measured trial ends).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadObservations {
    /// Index of the flow in its [`crate::LoadSpec::flows`].
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

#[cfg(test)]
mod latency_sum_tests {
    use super::*;

    #[test]
    fn a_trial_with_latency_samples_reads_back_from_json() {
        let observations = Observations {
            latency: Some(LatencySamples {
                count: 1,
                sum_ns: 42,
                ..Default::default()
            }),
            ..Default::default()
        };
        let outcome = TrialOutcome::Ok(Box::new(observations));
        let text = serde_json::to_string(&outcome).unwrap();
        assert!(text.contains("\"sum_ns\":42"), "{text}");
        assert_eq!(
            serde_json::from_str::<TrialOutcome>(&text).unwrap(),
            outcome
        );
    }

    #[test]
    fn a_latency_sum_beyond_u64_survives_as_a_string() {
        let samples = LatencySamples {
            sum_ns: u128::from(u64::MAX) + 1,
            ..Default::default()
        };
        let text = serde_json::to_string(&samples).unwrap();
        assert_eq!(
            serde_json::from_str::<LatencySamples>(&text).unwrap(),
            samples
        );
    }
}
