//! What an iperf3 server reported about a trial it took part in.
//!
//! Against an iperf3 peer ([`crate::PeerKind::Iperf3`]) dualperf speaks
//! iperf3's control protocol as a client. At the end of every test the
//! server sends its own counters (iperf3's "results exchange"): its
//! receiver bytes when dualperf sends, its sender bytes in reverse mode, and
//! for UDP the loss and jitter it computed from iperf3's datagram header.
//! They are kept here, beside dualperf's own view of the same trial in
//! [`crate::Observations`], so that both can be read and compared; nothing
//! here is summarised beyond what the server sent.
//!
//! An iperf3 server reports no per-packet timestamps: no one-way delay, no
//! delay distribution, no reordering extent.

use serde::{Deserialize, Serialize};

/// The iperf3 server's account of one trial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Iperf3Report {
    /// The server received (dualperf sent) in this trial; false in reverse
    /// mode (`-R`), where the server sent.
    pub server_received: bool,
    /// Payload bytes the server counted over all streams after its omit
    /// (warm-up) period: received bytes, or sent bytes in reverse mode.
    pub bytes: u64,
    /// The longest stream interval the server counted over
    /// (`end_time − start_time`), nanoseconds.
    pub interval_ns: u64,
    /// Warm-up the server was asked to omit (iperf3 `omit`), whole seconds.
    pub omit_s: u32,
    /// UDP only, server receiving: the highest datagram sequence number the
    /// server saw, summed over streams (iperf3's `packets`), after the omit
    /// period when the server reports omitted counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_packets: Option<u64>,
    /// UDP only, server receiving: datagrams the server counted as lost
    /// (iperf3's `errors`: sequence gaps, minus late arrivals it recognised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_lost: Option<u64>,
    /// UDP only, server receiving: RFC 3550 interarrival jitter the server
    /// computed, the largest over streams, nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_jitter_ns: Option<u64>,
    /// True when the server's UDP counts include the omit period (servers
    /// before iperf3 3.13 do not report omitted counts separately).
    #[serde(default)]
    pub udp_counts_include_omit: bool,
    /// TCP retransmissions the server counted as sender (reverse mode),
    /// summed over streams; `None` when it does not count them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retransmits: Option<u64>,
    /// The server's CPU use over the test (iperf3 `cpu_util_total`), percent.
    pub cpu_util_total_percent: f64,
    /// The congestion control the server's sockets used, if it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion_used: Option<String>,
    /// Each stream as the server reported it.
    pub streams: Vec<Iperf3StreamReport>,
}

/// One stream of an iperf3 server's results.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Iperf3StreamReport {
    /// iperf3's stream id (1, 3, 4, … as iperf3 numbers them).
    pub id: i64,
    /// Payload bytes counted by the server on this stream.
    pub bytes: u64,
    /// Highest UDP sequence number seen (UDP, server receiving), else 0.
    pub packets: u64,
    /// UDP datagrams counted lost on this stream (server receiving), else 0.
    pub errors: u64,
    /// UDP jitter on this stream, nanoseconds (server receiving), else 0.
    pub jitter_ns: u64,
    /// Stream interval the server counted over, nanoseconds.
    pub interval_ns: u64,
}
