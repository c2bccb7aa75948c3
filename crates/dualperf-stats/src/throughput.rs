//! Throughput, packet rates, loss ratio and TCP efficiency of one trial.
//!
//! * **Goodput**: application bytes the *receiver* took off its sockets
//!   during the measured interval (warm-up excluded) × 8 / interval length.
//! * **Sender throughput**: the same for bytes the sender wrote. The papers
//!   measured at the sender; the two differ when the receiver drops (UDP).
//! * **Packet rates**: datagrams (UDP) or messages per second at each end.
//! * **TCP efficiency** (RFC 6349 §3.3.2): (bytes sent − bytes
//!   retransmitted) / bytes sent, from `TCP_INFO` (`tcpi_bytes_sent`,
//!   `tcpi_bytes_retrans`).

use dualperf_model::observation::{FlowCounters, Observations, TcpCounters};

/// Nanoseconds per second.
const NS_PER_SECOND: f64 = 1e9;

/// The measured interval in seconds; `None` when it is zero.
fn measured_seconds(observations: &Observations) -> Option<f64> {
    (observations.measured_ns > 0).then(|| observations.measured_ns as f64 / NS_PER_SECOND)
}

/// Bits per second of `counters.bytes` over the measured interval.
fn bit_rate(counters: &FlowCounters, observations: &Observations) -> Option<f64> {
    measured_seconds(observations).map(|seconds| counters.bytes as f64 * 8.0 / seconds)
}

/// Receiver goodput, bit/s; `None` for an empty interval.
pub fn goodput_bps(observations: &Observations) -> Option<f64> {
    bit_rate(&observations.receiver, observations)
}

/// Sender throughput (bytes written), bit/s; `None` for an empty interval.
pub fn sender_throughput_bps(observations: &Observations) -> Option<f64> {
    bit_rate(&observations.sender, observations)
}

/// Datagrams or messages sent per second.
pub fn sent_pps(observations: &Observations) -> Option<f64> {
    measured_seconds(observations).map(|s| observations.sender.packets as f64 / s)
}

/// Datagrams or messages received per second.
pub fn received_pps(observations: &Observations) -> Option<f64> {
    measured_seconds(observations).map(|s| observations.receiver.packets as f64 / s)
}

/// RFC 6349 TCP efficiency, 0..=1; `None` when nothing was sent.
pub fn tcp_efficiency_ratio(tcp: &TcpCounters) -> Option<f64> {
    (tcp.bytes_sent > 0).then(|| {
        let retransmitted = tcp.bytes_retransmitted.min(tcp.bytes_sent);
        (tcp.bytes_sent - retransmitted) as f64 / tcp.bytes_sent as f64
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observations(sent_bytes: u64, received_bytes: u64, measured_ns: u64) -> Observations {
        Observations {
            measured_ns,
            sender: FlowCounters {
                bytes: sent_bytes,
                packets: sent_bytes / 1000,
            },
            receiver: FlowCounters {
                bytes: received_bytes,
                packets: received_bytes / 1000,
            },
            ..Observations::default()
        }
    }

    #[test]
    fn goodput_is_receiver_bytes_times_eight_over_time() {
        // 125 MB in 1 s = 1 Gbit/s; sent 130 MB = 1.04 Gbit/s.
        let o = observations(130_000_000, 125_000_000, 1_000_000_000);
        assert_eq!(goodput_bps(&o), Some(1e9));
        assert_eq!(sender_throughput_bps(&o), Some(1.04e9));
    }

    #[test]
    fn packet_rates_count_datagrams_per_second() {
        let o = observations(2_000_000, 1_000_000, 500_000_000);
        assert_eq!(sent_pps(&o), Some(4_000.0));
        assert_eq!(received_pps(&o), Some(2_000.0));
    }

    #[test]
    fn an_empty_interval_has_no_rate() {
        assert_eq!(goodput_bps(&observations(1, 1, 0)), None);
    }

    #[test]
    fn tcp_efficiency_follows_rfc_6349() {
        // RFC 6349 §3.3.2 example: 102,400 bytes sent, 2,048 retransmitted → 98 %.
        let tcp = TcpCounters {
            bytes_sent: 102_400,
            bytes_retransmitted: 2_048,
            ..Default::default()
        };
        assert_eq!(tcp_efficiency_ratio(&tcp), Some(0.98));
        assert_eq!(tcp_efficiency_ratio(&TcpCounters::default()), None);
    }
}
