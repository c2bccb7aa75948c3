//! What a packet capture showed of one trial's data flow (`--verify-wire`),
//! beside what the engine reported for it, and the disagreements found.
//!
//! The capture runs on one interface (the receiving side's in a lab, the
//! client host's towards the server with `run`); every packet of the
//! trial's data flow is counted by family, DSCP, IPv6 flow label, IP
//! fragment and encapsulation. For udp-stream the datagrams of the measured
//! interval are told from warm-up ones by the dualperf header in their
//! payload, so the capture and the engine count the same datagrams
//! (docs/metrics.md, "Wire verification"). No I/O here: values only.

use serde::{Deserialize, Serialize};

use crate::IpFamily;

/// Largest relative difference between captured and reported datagram (and
/// payload byte) counts of a udp-stream trial that still agrees: 0.1 %.
pub const WIRE_TOLERANCE_RATIO: f64 = 0.001;

/// Where the capture sat relative to the trial's data direction.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum WireSide {
    /// On the receiving end's interface: compared with what the receiver
    /// took in (plus what its socket buffer dropped).
    #[default]
    Receiver,
    /// On the sending end's interface: compared with what the sender sent.
    Sender,
}

/// One end of a trial's data flow, as the sender of packets.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WireEnd {
    /// `dualperf run`'s end: packets towards the server's data port.
    Client,
    /// The server's end: packets from its data port.
    Server,
}

/// One trial's wire check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireCheck {
    /// The interface captured on, e.g. `dsp1-srv-eth0` or `lo`.
    pub interface: String,
    /// Receiving or sending end of the data.
    pub side: WireSide,
    /// What the capture counted.
    pub seen: WireCounts,
    /// What the engine reported and the arm asked for.
    pub expected: WireExpected,
    /// Packets the capture itself lost over the whole run (tcpdump's
    /// "dropped by kernel"); `None` when it did not say.
    pub capture_dropped: Option<u64>,
    /// Disagreements; empty when the wire agrees with the engine.
    pub findings: Vec<WireFinding>,
}

impl WireCheck {
    /// True when a finding says the wire disagrees with what was measured
    /// or asked (an incomplete capture alone is not a failure).
    pub fn failed(&self) -> bool {
        self.findings.iter().any(WireFinding::fails)
    }
}

/// Packets of one trial's data flow as captured, warm-up included unless
/// the field says otherwise.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireCounts {
    /// IP packets in the data direction (sender to receiver), every
    /// fragment counted.
    pub packets: u64,
    /// IP bytes of those packets (IP header included, outer header of an
    /// encapsulated packet included), bytes.
    pub ip_bytes: u64,
    /// IP packets in the other direction (ACKs, responses).
    pub reverse_packets: u64,
    /// IP bytes in the other direction, bytes.
    pub reverse_ip_bytes: u64,
    /// Packets (both directions) whose (inner) header is IPv4.
    pub ipv4_packets: u64,
    /// Packets (both directions) whose (inner) header is IPv6.
    pub ipv6_packets: u64,
    /// Packets (both directions) per DSCP of the (inner) header.
    pub dscp: Vec<WireValueCount>,
    /// IPv6 packets (both directions) per flow label (TCP resets and
    /// SYN/SYN-ACKs excluded: Linux sends a reset, and a listener's
    /// SYN-ACK, with a label of its own choosing, not the connection's).
    pub flow_labels: Vec<WireValueCount>,
    /// The IPv6 packets of [`WireCounts::flow_labels`] the client sent
    /// (towards the server's data port), per flow label. Empty in results
    /// older than the per-end count.
    #[serde(default)]
    pub client_flow_labels: Vec<WireValueCount>,
    /// The IPv6 packets of [`WireCounts::flow_labels`] the server sent
    /// (from its data port), per flow label. Empty in results older than
    /// the per-end count.
    #[serde(default)]
    pub server_flow_labels: Vec<WireValueCount>,
    /// Packets that were IP fragments (first ones included).
    pub fragments: u64,
    /// Packets carried as IPv6 in IPv4 (protocol 41).
    pub six_in_four: u64,
    /// Packets carried as IPv4 in IPv6 (next header 4).
    pub four_in_six: u64,
    /// udp-stream: datagrams of the measured interval (warm-up flag clear)
    /// in the data direction; `None` for other kinds.
    pub measured_datagrams: Option<u64>,
    /// udp-stream: their UDP payload bytes, bytes.
    pub measured_payload_bytes: Option<u64>,
    /// udp-stream: warm-up datagrams in the data direction.
    pub warmup_datagrams: Option<u64>,
}

/// How many packets carried one value (a DSCP or a flow label).
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct WireValueCount {
    /// The value.
    pub value: u32,
    /// Packets with it.
    pub packets: u64,
}

/// What the wire should show: the arm's family and marking at the capture
/// point, and the engine's counts of the measured interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireExpected {
    /// The (inner) family at the capture point (IPv4 behind a NAT64).
    pub family: Option<IpFamily>,
    /// The DSCP asked for (`-S`); `None`: nothing asked, not checked.
    pub dscp: Option<u8>,
    /// The flow label asked for (`-L`) where the capture sees IPv6,
    /// checked on the client's packets.
    pub flow_label: Option<u32>,
    /// The flow label the server reported its data socket sends (read back
    /// with `IPV6_FLOWLABEL_MGR`), checked on the server's packets. `None`
    /// when nothing was asked, when the server did not report its marking
    /// (tcp-connect, an iperf3 server), or when it reported the kernel's
    /// automatic label ([`WireExpected::server_label_automatic`]); its
    /// packets are then not checked.
    #[serde(default)]
    pub server_flow_label: Option<u32>,
    /// True when a label was asked and the server reported that its data
    /// socket sends the kernel's automatic label instead: it could not set
    /// the asked one (Linux labels an accepted TCP connection only by
    /// reflecting the client's label, see docs/metrics.md "Wire
    /// verification").
    #[serde(default)]
    pub server_label_automatic: bool,
    /// udp-stream: datagrams the engine counted at this end for the
    /// measured interval (receiver: received + duplicates + socket-buffer
    /// drops; sender: sent); `None` where not compared.
    pub datagrams: Option<u64>,
    /// udp-stream: their payload bytes, bytes.
    pub payload_bytes: Option<u64>,
}

/// A disagreement between the wire and the engine or the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WireFinding {
    /// No packet of the trial's data flow was captured.
    NothingCaptured,
    /// udp-stream datagram counts differ by more than [`WIRE_TOLERANCE_RATIO`].
    CountMismatch {
        /// Measured datagrams captured.
        seen: u64,
        /// Datagrams the engine reported.
        expected: u64,
    },
    /// udp-stream payload bytes differ by more than [`WIRE_TOLERANCE_RATIO`].
    BytesMismatch {
        /// Payload bytes captured.
        seen: u64,
        /// Payload bytes the engine reported.
        expected: u64,
    },
    /// Packets of another family than the arm's.
    WrongFamily {
        /// The family expected.
        expected: IpFamily,
        /// Packets of the other family.
        packets: u64,
    },
    /// Packets with another DSCP than asked.
    WrongDscp {
        /// The DSCP asked for.
        expected: u8,
        /// The most frequent other DSCP seen.
        seen: u8,
        /// Packets not carrying the asked DSCP.
        packets: u64,
    },
    /// IPv6 packets of one end with another flow label than that end
    /// should send.
    WrongFlowLabel {
        /// The label asked for.
        expected: u32,
        /// The most frequent other label seen.
        seen: u32,
        /// Packets not carrying the asked label.
        packets: u64,
        /// Whose packets; `None` in results older than the per-end check
        /// (both ends counted together).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sender: Option<WireEnd>,
    },
    /// The capture lost packets, so counts are not compared.
    CaptureIncomplete {
        /// Packets the capture dropped over the run.
        dropped: u64,
    },
}

impl WireFinding {
    /// True for a real disagreement; false for an incomplete capture.
    pub fn fails(&self) -> bool {
        !matches!(self, WireFinding::CaptureIncomplete { .. })
    }
}

/// Relative difference `|seen − expected| / expected` (0 when both are 0,
/// 1 when only `expected` is 0).
pub fn relative_difference(seen: u64, expected: u64) -> f64 {
    match expected {
        0 if seen == 0 => 0.0,
        0 => 1.0,
        e => seen.abs_diff(e) as f64 / e as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_incomplete_capture_alone_does_not_fail_the_check() {
        let mut check = WireCheck {
            findings: vec![WireFinding::CaptureIncomplete { dropped: 3 }],
            ..WireCheck::default()
        };
        assert!(!check.failed());
        check.findings.push(WireFinding::WrongDscp {
            expected: 46,
            seen: 8,
            packets: 10,
        });
        assert!(check.failed());
        let text = serde_json::to_string(&check).unwrap();
        assert_eq!(serde_json::from_str::<WireCheck>(&text).unwrap(), check);
    }

    #[test]
    fn relative_difference_is_defined_at_zero() {
        assert_eq!(relative_difference(0, 0), 0.0);
        assert_eq!(relative_difference(1, 0), 1.0);
        assert!((relative_difference(999, 1000) - 0.001).abs() < 1e-12);
    }
}
