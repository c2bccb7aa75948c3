//! Serialisation delay on rate-limited hops: what a larger header adds to a
//! latency (RTT, connect time, one-way delay) where a link is shaped.
//!
//! A packet of `frame` bytes leaves a hop shaped to `R` bit/s in
//! `frame · 8 / R` seconds. htb on a veth counts the frame as the kernel
//! sees it: payload + TCP/UDP + IP header + 14 B Ethernet header. IPv6's
//! header is 20 B larger than IPv4's (RFC 8200 §3 vs RFC 791 §3.1), so each
//! packet on the timed path takes `20 · 8 / R` longer per shaped hop: 16 µs
//! at 10 Mbit/s. A request/response transaction puts one packet each way on
//! the timed path (ACKs ride on the response or are delayed, off the path).
//!
//! Not yet wired into `attribution` (issue 24 item 1, partial).

/// One shaped direction of a hop on an arm's path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapedHop {
    /// The hop's rate ceiling, bits per second.
    pub rate_bits_per_second: u64,
    /// True when the hop carries the request (client → server) direction.
    pub forward: bool,
}

/// Serialisation time of `frame_bytes` at `rate_bits_per_second`, ns;
/// `None` for a zero rate.
pub fn serialisation_ns(frame_bytes: u32, rate_bits_per_second: u64) -> Option<f64> {
    (rate_bits_per_second > 0)
        .then(|| f64::from(frame_bytes) * 8.0 * 1e9 / rate_bits_per_second as f64)
}

/// Predicted extra latency, ns, of one transaction whose packets are
/// `extra_header_bytes` larger: `forward_packets` per forward shaped hop and
/// `reverse_packets` per reverse one (1 and 1 for a request/response RTT,
/// 1 and 0 for a one-way delay).
pub fn extra_delay_ns(
    hops: &[ShapedHop],
    extra_header_bytes: u32,
    forward_packets: u32,
    reverse_packets: u32,
) -> f64 {
    hops.iter()
        .filter_map(|hop| {
            let packets = if hop.forward {
                forward_packets
            } else {
                reverse_packets
            };
            serialisation_ns(extra_header_bytes, hop.rate_bits_per_second)
                .map(|ns| ns * f64::from(packets))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN_MBIT: u64 = 10_000_000;

    #[test]
    fn the_issue_frames_serialise_as_measured() {
        // 64 B tcp-rr: 64 + 32 (TCP with timestamps) + 20/40 + 14 = 130/150 B.
        assert_eq!(serialisation_ns(130, TEN_MBIT), Some(104_000.0));
        assert_eq!(serialisation_ns(150, TEN_MBIT), Some(120_000.0));
        assert_eq!(serialisation_ns(150, 0), None);
    }

    #[test]
    fn a_request_response_pays_the_header_each_way_per_shaped_hop() {
        let one_link = [
            ShapedHop {
                rate_bits_per_second: TEN_MBIT,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: TEN_MBIT,
                forward: false,
            },
        ];
        // 2 × 20 B × 8 / 10 Mbit/s = 32 µs per transaction.
        assert_eq!(extra_delay_ns(&one_link, 20, 1, 1), 32_000.0);
        // One way: 16 µs.
        assert_eq!(extra_delay_ns(&one_link, 20, 1, 0), 16_000.0);
        // An unshaped 100 Mbit/s hop in series adds 1.6 µs per direction.
        let two = [
            one_link[0],
            one_link[1],
            ShapedHop {
                rate_bits_per_second: 100_000_000,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: 100_000_000,
                forward: false,
            },
        ];
        assert!((extra_delay_ns(&two, 20, 1, 1) - 35_200.0).abs() < 1e-6);
    }
}
