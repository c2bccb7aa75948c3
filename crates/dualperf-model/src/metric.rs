//! Every metric dualperf reports, as a typed id: [`MetricId`].
//!
//! The identity of a metric — its machine name (which carries the unit, and
//! is the JSON key, the CSV `metric` column and the SQL `metric` column), its
//! unit for people, which direction is better, the kind of quantity (which
//! decides how the report formats it), a short label for tables and charts,
//! and the definition it follows (RFC and section, or the formula) — lives
//! in one table here. No other crate writes a metric name as a string: a
//! test in `dualperf` scans the workspace for literals that match a name.
//! docs/metrics.md explains every definition in full.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::spec::TestKind;

/// What kind of number a metric is; the report formats values by it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Quantity {
    /// Bits per second.
    BitRate,
    /// Nanoseconds.
    Nanoseconds,
    /// A ratio in 0..=1 (printed as a percentage).
    Ratio,
    /// Events per second; the string is the unit suffix ("pps", "tps", "conn/s").
    PerSecond(&'static str),
    /// A count; the string is the noun ("episodes", "packets", "MOS").
    Count(&'static str),
    /// CPU seconds per second of wall time (cores kept busy).
    Cores,
    /// CPU microseconds per MiB of payload delivered.
    MicrosecondsPerMib,
}

macro_rules! metrics {
    ($($variant:ident => $name:literal, $unit:literal, $higher:literal, $quantity:expr, $label:literal, $definition:literal;)*) => {
        /// A metric dualperf reports. Serialised as its [`name`](MetricId::name).
        #[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
        #[non_exhaustive]
        pub enum MetricId {
            $(
                #[doc = concat!("`", $name, "` (", $unit, "): ", $definition)]
                $variant,
            )*
        }

        impl MetricId {
            /// Every metric, in the order tables list them.
            pub const ALL: &'static [MetricId] = &[$(MetricId::$variant),*];

            /// Machine key with its unit, e.g. `goodput_bps`, `rtt_p50_ns`, `loss_ratio`.
            pub const fn name(self) -> &'static str {
                match self { $(MetricId::$variant => $name),* }
            }

            /// Unit for people, e.g. "bit/s", "ns", "ratio".
            pub const fn unit(self) -> &'static str {
                match self { $(MetricId::$variant => $unit),* }
            }

            /// True when a larger value is better (throughput), false otherwise (latency, loss, CPU).
            pub const fn higher_is_better(self) -> bool {
                match self { $(MetricId::$variant => $higher),* }
            }

            /// What kind of number it is (decides formatting).
            pub const fn quantity(self) -> Quantity {
                match self { $(MetricId::$variant => $quantity),* }
            }

            /// A short label for tables and charts, e.g. "RTT p50".
            pub const fn label(self) -> &'static str {
                match self { $(MetricId::$variant => $label),* }
            }

            /// The definition followed (RFC and section, or the formula).
            pub const fn definition(self) -> &'static str {
                match self { $(MetricId::$variant => $definition),* }
            }
        }
    };
}

metrics! {
    GoodputBps => "goodput_bps", "bit/s", true, Quantity::BitRate, "goodput", "receiver application bytes × 8 / measured interval (RFC 6349 §3 for TCP)";
    SenderThroughputBps => "sender_throughput_bps", "bit/s", true, Quantity::BitRate, "sender rate", "sender application bytes written × 8 / measured interval";
    WireThroughputBps => "wire_throughput_bps", "bit/s", true, Quantity::BitRate, "wire rate", "goodput × link bytes per payload byte (header model: Ethernet with on-wire extras, the trial's path MTU)";
    SentPps => "sent_pps", "packets/s", true, Quantity::PerSecond("pps"), "packets sent/s", "datagrams sent / measured interval";
    ReceivedPps => "received_pps", "packets/s", true, Quantity::PerSecond("pps"), "packets received/s", "datagrams received / measured interval";
    TransactionsPerSecond => "transactions_per_second", "transactions/s", true, Quantity::PerSecond("tps"), "transactions/s", "request/response transactions completed / measured interval";
    ConnectionsPerSecond => "connections_per_second", "connections/s", true, Quantity::PerSecond("conn/s"), "connections/s", "TCP connections established / measured interval";
    RttMeanNs => "rtt_mean_ns", "ns", false, Quantity::Nanoseconds, "RTT mean", "mean round-trip time per transaction (exact sum / count)";
    RttSdNs => "rtt_sd_ns", "ns", false, Quantity::Nanoseconds, "RTT sd", "standard deviation of per-transaction round-trip times";
    RttMinNs => "rtt_min_ns", "ns", false, Quantity::Nanoseconds, "RTT min", "smallest round-trip time";
    RttP50Ns => "rtt_p50_ns", "ns", false, Quantity::Nanoseconds, "RTT p50", "median round-trip time (HDR histogram, nearest rank)";
    RttP90Ns => "rtt_p90_ns", "ns", false, Quantity::Nanoseconds, "RTT p90", "90th percentile round-trip time (HDR histogram, nearest rank)";
    RttP99Ns => "rtt_p99_ns", "ns", false, Quantity::Nanoseconds, "RTT p99", "99th percentile round-trip time (HDR histogram, nearest rank)";
    RttP999Ns => "rtt_p999_ns", "ns", false, Quantity::Nanoseconds, "RTT p99.9", "99.9th percentile round-trip time (HDR histogram, nearest rank)";
    ConnectMeanNs => "connect_mean_ns", "ns", false, Quantity::Nanoseconds, "connect mean", "mean connect() start to established";
    ConnectMinNs => "connect_min_ns", "ns", false, Quantity::Nanoseconds, "connect min", "smallest connection setup time";
    ConnectP50Ns => "connect_p50_ns", "ns", false, Quantity::Nanoseconds, "connect p50", "median connection setup time (HDR histogram, nearest rank)";
    ConnectP90Ns => "connect_p90_ns", "ns", false, Quantity::Nanoseconds, "connect p90", "90th percentile connection setup time";
    ConnectP99Ns => "connect_p99_ns", "ns", false, Quantity::Nanoseconds, "connect p99", "99th percentile connection setup time";
    OwdMinNs => "owd_min_ns", "ns", false, Quantity::Nanoseconds, "one-way delay min", "RFC 7679 one-way delay, minimum";
    OwdMeanNs => "owd_mean_ns", "ns", false, Quantity::Nanoseconds, "one-way delay mean", "RFC 7679 one-way delay, mean";
    OwdP50Ns => "owd_p50_ns", "ns", false, Quantity::Nanoseconds, "one-way delay p50", "RFC 7679 one-way delay, median";
    OwdP99Ns => "owd_p99_ns", "ns", false, Quantity::Nanoseconds, "one-way delay p99", "RFC 7679 one-way delay, 99th percentile";
    PdvP50Ns => "pdv_p50_ns", "ns", false, Quantity::Nanoseconds, "PDV p50", "RFC 5481 PDV D(i) − D(min), median";
    PdvP99Ns => "pdv_p99_ns", "ns", false, Quantity::Nanoseconds, "PDV p99", "RFC 5481 PDV D(i) − D(min), 99th percentile";
    Pdv999Ns => "pdv_999_ns", "ns", false, Quantity::Nanoseconds, "PDV p99.9", "RFC 8219 §5: D(99.9th percentile) − D(min)";
    IpdvMeanAbsNs => "ipdv_mean_abs_ns", "ns", false, Quantity::Nanoseconds, "IPDV mean |·|", "RFC 3393 IPDV |D(i) − D(i−1)|, mean";
    IpdvP99AbsNs => "ipdv_p99_abs_ns", "ns", false, Quantity::Nanoseconds, "IPDV p99 |·|", "RFC 3393 IPDV |D(i) − D(i−1)|, 99th percentile";
    JitterNs => "jitter_ns", "ns", false, Quantity::Nanoseconds, "jitter", "RFC 3550 §6.4.1 interarrival jitter, J += (|D(i−1,i)| − J)/16";
    LoadedOwdP50Ns => "loaded_owd_p50_ns", "ns", false, Quantity::Nanoseconds, "one-way delay p50 under load", "RFC 7679 one-way delay of the probe stream beside the load, median";
    LoadedOwdP99Ns => "loaded_owd_p99_ns", "ns", false, Quantity::Nanoseconds, "one-way delay p99 under load", "RFC 7679 one-way delay of the probe stream beside the load, 99th percentile";
    LoadedPdvP99Ns => "loaded_pdv_p99_ns", "ns", false, Quantity::Nanoseconds, "PDV p99 under load", "RFC 5481 PDV D(i) − D(min) of the probe stream beside the load, 99th percentile";
    LoadedJitterNs => "loaded_jitter_ns", "ns", false, Quantity::Nanoseconds, "jitter under load", "RFC 3550 §6.4.1 interarrival jitter of the probe stream beside the load";
    LoadedReorderedRatio => "loaded_reordered_ratio", "ratio", false, Quantity::Ratio, "reordering under load", "RFC 4737 reordered ratio of the probe stream beside the load";
    LoadedLossRatio => "loaded_loss_ratio", "ratio", false, Quantity::Ratio, "loss under load", "RFC 7680 loss ratio of the probe stream beside the load";
    LossRatio => "loss_ratio", "ratio", false, Quantity::Ratio, "loss", "RFC 7680: lost / sent, a datagram not received within the waiting time is lost";
    LossEpisodes => "loss_episodes", "episodes", false, Quantity::Count("episodes"), "loss episodes", "runs of consecutive lost datagrams (RFC 7680 losses, RFC 3357 loss periods)";
    ReorderedRatio => "reordered_ratio", "ratio", false, Quantity::Ratio, "reordering", "RFC 4737 §4.1: reordered / received, reordered when sequence < NextExp";
    MaxReorderExtentPackets => "max_reorder_extent_packets", "packets", false, Quantity::Count("packets"), "max reorder extent", "RFC 4737 §4.2.1: largest reordering extent";
    DuplicatePackets => "duplicate_packets", "packets", false, Quantity::Count("packets"), "duplicates", "copies received after the first (RFC 5560; excluded from reordering, RFC 4737 §3.3)";
    ForwardLossRatio => "forward_loss_ratio", "ratio", false, Quantity::Ratio, "forward loss", "STAMP (RFC 8762 §4.3.1, stateful reflector): test packets lost on the way to the reflector / sent, up to the last answered packet";
    ReverseLossRatio => "reverse_loss_ratio", "ratio", false, Quantity::Ratio, "reverse loss", "STAMP (RFC 8762 §4.3.1, stateful reflector): replies lost on the way back / replies the reflector sent";
    ReverseOwdP50Ns => "reverse_owd_p50_ns", "ns", false, Quantity::Nanoseconds, "reverse one-way delay p50", "STAMP: RFC 7679 one-way delay reflector → sender (t4 − t3), median; shared or synchronised clocks only";
    DscpRemarkedRatio => "dscp_remarked_ratio", "ratio", false, Quantity::Ratio, "DSCP re-marked", "STAMP Class-of-Service TLV (RFC 8972 §4.4): packets the reflector received with a DSCP other than the one sent / packets it reported";
    EcnChangedRatio => "ecn_changed_ratio", "ratio", false, Quantity::Ratio, "ECN changed", "STAMP Class-of-Service TLV (RFC 8972 §4.4): packets the reflector received with an ECN codepoint other than the one sent / packets it reported";
    RetransmittedSegments => "retransmitted_segments", "segments", false, Quantity::Count("segments"), "retransmissions", "TCP segments retransmitted, TCP_INFO tcpi_total_retrans";
    TcpEfficiencyRatio => "tcp_efficiency_ratio", "ratio", true, Quantity::Ratio, "TCP efficiency", "RFC 6349 §3.3.2: (bytes sent − bytes retransmitted) / bytes sent";
    VoiceMos => "voice_mos", "MOS", true, Quantity::Count("MOS"), "voice MOS", "ITU-T G.107 E-model (Cole-Rosenbluth) for G.711 with PLC: Ta = OWD p50 + PDV p99.9 buffer + probe interval";
    MediaMos => "media_mos", "MOS", true, Quantity::Count("MOS"), "MOS", "ITU-T G.107 E-model with the codec's Ie/Bpl (G.113 App. I) behind an adaptive jitter buffer: Ta = one-way delay + buffer + packetisation, Ppl = lost + late packets";
    MediaFixedBufferMos => "media_fixed_buffer_mos", "MOS", true, Quantity::Count("MOS"), "MOS, fixed buffer", "as media_mos behind a fixed jitter buffer (first packet's delay + 40 ms)";
    MediaWorstWindowMos => "media_worst_window_mos", "MOS", true, Quantity::Count("MOS"), "MOS, worst 10 s", "media_mos of the worst 10-second window of the measured interval";
    PlayoutLossRatio => "playout_loss_ratio", "ratio", false, Quantity::Ratio, "playout loss", "(packets lost + packets later than the adaptive jitter buffer's playout time) / packets sent";
    JitterBufferNs => "jitter_buffer_ns", "ns", false, Quantity::Nanoseconds, "jitter buffer", "mean delay the adaptive jitter buffer adds: playout offset − one-way delay, over played packets";
    MouthToEarNs => "mouth_to_ear_ns", "ns", false, Quantity::Nanoseconds, "mouth-to-ear delay", "G.107 Ta: mean playout offset (one-way delay + jitter buffer) + packetisation interval";
    LossBurstMaxPackets => "loss_burst_max_packets", "packets", false, Quantity::Count("packets"), "longest loss burst", "longest run of consecutive lost datagrams (RFC 3357 loss period)";
    MediaEthernetBps => "media_ethernet_bps", "bit/s", false, Quantity::BitRate, "on the link", "the media stream as a capture on Ethernet counts it: per packet received, its UDP payload + UDP (8) + IP (20 or 40) + Ethernet (14) bytes, × 8 / interval (no preamble, FCS or gap; the header model, dualperf_stats::overhead::message_cost)";
    MediaEthernetFrameBytes => "media_ethernet_frame_bytes", "bytes", false, Quantity::Count("B"), "Ethernet frame", "mean Ethernet frame of the media packets received: UDP payload + UDP + IP + Ethernet header bytes (G.711 20 ms: 214 on IPv4, 234 on IPv6)";
    FrameDeliveryRatio => "frame_delivery_ratio", "ratio", true, Quantity::Ratio, "frames delivered", "video frames whose every packet arrived / frames sent";
    FrameDelayP50Ns => "frame_delay_p50_ns", "ns", false, Quantity::Nanoseconds, "frame delay p50", "median over delivered frames of (arrival of the frame's last packet − send time of its first)";
    FrameDelayP99Ns => "frame_delay_p99_ns", "ns", false, Quantity::Nanoseconds, "frame delay p99", "99th percentile over delivered frames of (arrival of the frame's last packet − send time of its first)";
    ClientCpuCores => "client_cpu_cores", "cores", false, Quantity::Cores, "client CPU", "client process (user + system CPU time) / wall time (getrusage)";
    ServerCpuCores => "server_cpu_cores", "cores", false, Quantity::Cores, "server CPU", "server process (user + system CPU time) / wall time, as the server reports";
    SystemBusyRatio => "system_busy_ratio", "ratio", false, Quantity::Ratio, "system CPU busy", "/proc/stat: (user + nice + system + irq + softirq + steal) / all jiffies";
    SoftirqRatio => "softirq_ratio", "ratio", false, Quantity::Ratio, "softirq share", "/proc/stat: softirq / all jiffies (network stack work outside processes)";
    RouterCpuCores => "router_cpu_cores", "cores", false, Quantity::Cores, "router CPU", "softirq time of the CPUs a router's receive processing is steered to (RPS), over the trial's wall time";
    ClientServiceDemandUsPerMib => "client_service_demand_us_per_mib", "µs/MiB", false, Quantity::MicrosecondsPerMib, "client CPU per MiB", "netperf service demand: client CPU µs per MiB delivered";
    ServerServiceDemandUsPerMib => "server_service_demand_us_per_mib", "µs/MiB", false, Quantity::MicrosecondsPerMib, "server CPU per MiB", "netperf service demand: server CPU µs per MiB delivered";
    ClientCpuPerPacketNs => "client_cpu_per_packet_ns", "ns", false, Quantity::Nanoseconds, "client CPU per packet", "client CPU time (user + system) per IP packet of the stream: TCP segments sent (tcpi_segs_out), UDP datagrams × fragments";
    ServerCpuPerPacketNs => "server_cpu_per_packet_ns", "ns", false, Quantity::Nanoseconds, "server CPU per packet", "server CPU time (user + system) per IP packet of the stream: TCP segments sent (tcpi_segs_out), UDP datagrams × fragments";
}

impl MetricId {
    /// The metric whose [`name`](MetricId::name) is `name`.
    pub fn from_name(name: &str) -> Option<MetricId> {
        MetricId::ALL.iter().copied().find(|id| id.name() == name)
    }

    /// Position in table order.
    pub fn order(self) -> usize {
        MetricId::ALL
            .iter()
            .position(|id| *id == self)
            .expect("ALL lists every variant (built by the same macro)")
    }

    /// The one metric that sums up a point of this test kind: the terminal's
    /// verdict line, `history`, `report --compare` and the report's first
    /// screen all headline it.
    pub const fn headline(kind: TestKind) -> MetricId {
        match kind {
            TestKind::TcpStream | TestKind::UdpStream => MetricId::GoodputBps,
            TestKind::TcpRr | TestKind::UdpRr => MetricId::RttP50Ns,
            TestKind::TcpConnect => MetricId::ConnectP50Ns,
            TestKind::UdpProbe => MetricId::OwdP50Ns,
            TestKind::Media => MetricId::MediaMos,
        }
    }

    /// The headline of one point: [`MetricId::headline`] of its kind, but
    /// frame delivery for a video media point (the E-model rates voice only).
    pub fn headline_of(spec: &crate::spec::TestSpec) -> MetricId {
        match &spec.media {
            Some(media) if spec.kind == TestKind::Media && media.is_video() => {
                MetricId::FrameDeliveryRatio
            }
            _ => MetricId::headline(spec.kind),
        }
    }
}

impl fmt::Display for MetricId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MetricId {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        MetricId::from_name(text).ok_or_else(|| format!("unknown metric `{text}`"))
    }
}

impl Serialize for MetricId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for MetricId {
    /// Reads the name (schema v2) or the v1 object `{"name": …, "unit": …}`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Name(String),
            Object { name: String },
        }
        let name = match Wire::deserialize(deserializer)? {
            Wire::Name(name) | Wire::Object { name } => name,
        };
        MetricId::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown metric `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn metric_names_are_unique() {
        let names: HashSet<&str> = MetricId::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(names.len(), MetricId::ALL.len());
    }

    #[test]
    fn every_name_carries_its_unit() {
        let suffixes = [
            "_bps",
            "_pps",
            "_per_second",
            "_ns",
            "_ratio",
            "_episodes",
            "_packets",
            "_segments",
            "_cores",
            "_us_per_mib",
            "_mos",
            "_bytes",
        ];
        for metric in MetricId::ALL {
            assert!(
                suffixes.iter().any(|s| metric.name().ends_with(s)),
                "{} has no unit suffix",
                metric.name()
            );
        }
    }

    #[test]
    fn a_metric_serialises_as_its_name_and_reads_back() {
        let text = serde_json::to_string(&MetricId::RttP50Ns).unwrap();
        assert_eq!(text, "\"rtt_p50_ns\"");
        assert_eq!(
            serde_json::from_str::<MetricId>(&text).unwrap(),
            MetricId::RttP50Ns
        );
    }

    #[test]
    fn a_version_1_metric_object_reads_as_its_id() {
        let v1 =
            r#"{"name":"goodput_bps","unit":"bit/s","higher_is_better":true,"definition":"x"}"#;
        assert_eq!(
            serde_json::from_str::<MetricId>(v1).unwrap(),
            MetricId::GoodputBps
        );
    }

    #[test]
    fn an_unknown_name_is_an_error_not_a_panic() {
        assert!(serde_json::from_str::<MetricId>("\"goodput\"").is_err());
        assert_eq!(MetricId::from_name("nope"), None);
    }
}
