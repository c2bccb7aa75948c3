//! What one application message of a given size costs on a path: how many
//! packets (TCP segments, or IP fragments of a UDP datagram) and how many
//! bytes on the link.
//!
//! UDP: a datagram larger than the path MTU allows is fragmented by the
//! sender. Each fragment repeats the IP header; IPv6 adds an 8-byte fragment
//! header to each (RFC 8200 §4.5); fragment data is a multiple of 8 bytes
//! except in the last fragment (RFC 791, RFC 8200). A NAT64 keeps fragment
//! boundaries, so both of its sides carry what fits on the IPv6 side.
//! TCP: the message is cut into MSS-size segments; the last one is shorter.
//! Acknowledgements in the reverse direction are not counted. Ethernet
//! frames shorter than 60 bytes are padded.

use dualperf_model::IpFamily;
use serde::Serialize;

use super::{
    packet_overhead, Encapsulation, OverheadSettings, PathKind, Transport,
    IPV6_FRAGMENT_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::error::StatsError;

/// Largest IP packet, bytes (16-bit total length / payload length).
const MAX_IP_LENGTH: u32 = 65_535;

/// The cost of one message of `size_bytes` on a path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MessageCost {
    /// The path.
    pub path: PathKind,
    /// Application bytes in the message.
    pub size_bytes: u32,
    /// Packets on the link: TCP segments, or IP fragments (1 when unfragmented).
    pub packets: u32,
    /// True when a UDP datagram had to be fragmented.
    pub fragmented: bool,
    /// Frame bytes of every packet (without on-wire extras), in sending order.
    pub frame_bytes: Vec<u32>,
    /// Total bytes on the link, on-wire extras included when counted.
    pub wire_bytes: u64,
    /// Bytes on the link that are not application payload (headers, padding, extras).
    pub header_bytes: u64,
    /// header bytes / size: the papers' overhead ratio for this size.
    pub overhead_ratio: f64,
    /// size / wire bytes.
    pub efficiency_ratio: f64,
}

impl MessageCost {
    /// Best goodput on a link of `link_rate_bps` with such messages back to back, bit/s.
    pub fn expected_goodput_bps(&self, link_rate_bps: f64) -> f64 {
        link_rate_bps * self.efficiency_ratio
    }
}

/// Computes what a message of `size_bytes` (≥ 1) costs on `path`.
///
/// # Errors
/// [`StatsError::MtuTooSmall`] when the MTU cannot hold the headers;
/// [`StatsError::DatagramTooLarge`] for a UDP datagram above the family's
/// maximum (65 507 bytes over IPv4, 65 527 over IPv6 without jumbograms).
pub fn message_cost(
    path: PathKind,
    settings: &OverheadSettings,
    size_bytes: u32,
) -> Result<MessageCost, StatsError> {
    let full = packet_overhead(path, settings)?;
    let size = size_bytes.max(1);
    let link = settings.link_header_bytes();
    let outer = link + full.encapsulation_bytes;
    let (fragmented, frames) = match path.transport {
        Transport::Tcp => {
            let segments = size.div_ceil(full.payload_bytes);
            let frames = (0..segments)
                .map(|k| {
                    let payload = (size - k * full.payload_bytes).min(full.payload_bytes);
                    outer + full.ip_header_bytes + full.transport_header_bytes + payload
                })
                .collect();
            (false, frames)
        }
        Transport::Udp => {
            let limit = match path.family {
                IpFamily::V4 => MAX_IP_LENGTH - IpFamily::V4.ip_header_bytes() - UDP_HEADER_BYTES,
                IpFamily::V6 => MAX_IP_LENGTH - UDP_HEADER_BYTES,
            };
            if size > limit {
                return Err(StatsError::DatagramTooLarge {
                    size_bytes: size,
                    path: path.to_string(),
                    limit_bytes: limit,
                });
            }
            let datagram = size + UDP_HEADER_BYTES;
            if size <= full.payload_bytes {
                (false, vec![outer + full.ip_header_bytes + datagram])
            } else {
                udp_fragments(path, settings, datagram, outer, full.ip_header_bytes)
            }
        }
    };
    let frames: Vec<u32> = frames
        .into_iter()
        .map(|f| settings.padded_frame_bytes(f))
        .collect();
    let extras = u64::from(settings.wire_extra_bytes());
    let wire_bytes: u64 = frames.iter().map(|&f| u64::from(f) + extras).sum();
    let header_bytes = wire_bytes - u64::from(size);
    Ok(MessageCost {
        path,
        size_bytes: size,
        packets: frames.len() as u32,
        fragmented,
        frame_bytes: frames,
        wire_bytes,
        header_bytes,
        overhead_ratio: header_bytes as f64 / f64::from(size),
        efficiency_ratio: f64::from(size) / wire_bytes as f64,
    })
}

/// Frames (without padding) of the fragments of a UDP datagram of
/// `datagram` bytes (UDP header included).
fn udp_fragments(
    path: PathKind,
    settings: &OverheadSettings,
    datagram: u32,
    outer: u32,
    ip_header: u32,
) -> (bool, Vec<u32>) {
    let is_nat64 = matches!(
        path.encapsulation,
        Encapsulation::Nat64Ipv4Side | Encapsulation::Nat64Ipv6Side
    );
    // Fragment data per fragment, set by the side that has the least room.
    let limiting = if is_nat64 || path.family == IpFamily::V6 {
        IpFamily::V6.ip_header_bytes() + IPV6_FRAGMENT_HEADER_BYTES
    } else {
        IpFamily::V4.ip_header_bytes()
    };
    let room = settings.mtu_bytes - path.encapsulation.added_bytes() - limiting;
    let per_fragment = room / 8 * 8;
    let fragment_header = match path.family {
        IpFamily::V6 => IPV6_FRAGMENT_HEADER_BYTES,
        IpFamily::V4 => 0,
    };
    let count = datagram.div_ceil(per_fragment);
    let frames = (0..count)
        .map(|k| {
            let data = (datagram - k * per_fragment).min(per_fragment);
            outer + ip_header + fragment_header + data
        })
        .collect();
    (true, frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn textbook() -> OverheadSettings {
        OverheadSettings::textbook()
    }

    #[test]
    fn a_full_size_datagram_is_one_unfragmented_packet() {
        let cost = message_cost(
            PathKind::plain(IpFamily::V4, Transport::Udp),
            &textbook(),
            1472,
        )
        .unwrap();
        assert_eq!((cost.packets, cost.fragmented), (1, false));
        assert_eq!(cost.frame_bytes, vec![1514]);
    }

    #[test]
    fn one_byte_more_splits_an_ipv4_datagram_into_two_fragments() {
        // 1473 + 8 = 1481 bytes of IP payload: 1480 + 1.
        let cost = message_cost(
            PathKind::plain(IpFamily::V4, Transport::Udp),
            &textbook(),
            1473,
        )
        .unwrap();
        assert_eq!(cost.packets, 2);
        assert_eq!(cost.frame_bytes, vec![1514, 60]); // 14 + 20 + 1 = 35, padded to 60
    }

    #[test]
    fn ipv6_fragments_carry_1448_bytes_and_a_fragment_header() {
        // 8 KiB datagram: 8200 bytes of IP payload over IPv6 → 1448 per
        // fragment (1500 − 40 − 8 rounded down to 8), 6 fragments (5·1448 =
        // 7240, last 960).
        let cost = message_cost(
            PathKind::plain(IpFamily::V6, Transport::Udp),
            &textbook(),
            8192,
        )
        .unwrap();
        assert_eq!(cost.packets, 6);
        assert_eq!(cost.frame_bytes[0], 14 + 40 + 8 + 1448);
        assert_eq!(cost.frame_bytes[5], 14 + 40 + 8 + 960);
        // IPv4: 1480 per fragment, 6 fragments (5·1480 = 7400, last 800).
        let v4 = message_cost(
            PathKind::plain(IpFamily::V4, Transport::Udp),
            &textbook(),
            8192,
        )
        .unwrap();
        assert_eq!(v4.packets, 6);
        assert_eq!(v4.frame_bytes[5], 14 + 20 + 800);
    }

    #[test]
    fn small_datagrams_are_padded_to_the_ethernet_minimum() {
        let cost = message_cost(
            PathKind::plain(IpFamily::V4, Transport::Udp),
            &textbook(),
            1,
        )
        .unwrap();
        assert_eq!(cost.frame_bytes, vec![60]);
        assert_eq!(cost.header_bytes, 59);
    }

    #[test]
    fn a_tcp_message_is_cut_into_mss_segments() {
        let cost = message_cost(
            PathKind::plain(IpFamily::V6, Transport::Tcp),
            &textbook(),
            3000,
        )
        .unwrap();
        assert_eq!(cost.packets, 3); // 1440 + 1440 + 120
        assert_eq!(cost.frame_bytes, vec![1514, 1514, 14 + 40 + 20 + 120]);
    }

    #[test]
    fn a_udp_datagram_above_the_family_maximum_is_an_error() {
        let path = PathKind::plain(IpFamily::V4, Transport::Udp);
        assert!(message_cost(path, &textbook(), 65_507).is_ok());
        let error = message_cost(path, &textbook(), 65_508)
            .unwrap_err()
            .to_string();
        assert!(error.contains("65507"), "{error}");
    }
}
