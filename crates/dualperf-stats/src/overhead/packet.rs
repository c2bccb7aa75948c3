//! The overhead of one full-size packet on a path.

use dualperf_model::IpFamily;
use serde::Serialize;

use super::{Encapsulation, OverheadSettings, PathKind};
use crate::error::StatsError;

/// Byte budget of one full-size packet (one segment or datagram filling the
/// MTU) on a path: the columns of Table 1 and more.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PacketOverhead {
    /// The path.
    pub path: PathKind,
    /// Largest application payload per packet (TCP MSS, or the largest UDP
    /// datagram that is not fragmented), bytes.
    pub payload_bytes: u32,
    /// Transport header with options, bytes.
    pub transport_header_bytes: u32,
    /// IP payload = transport header + payload, bytes.
    pub ip_payload_bytes: u32,
    /// IP header of the packet (the inner one in a tunnel), bytes.
    pub ip_header_bytes: u32,
    /// Bytes of tunnel headers inside the MTU, bytes.
    pub encapsulation_bytes: u32,
    /// Link header (Ethernet 14), bytes.
    pub link_header_bytes: u32,
    /// Frame without FCS: link + encapsulation + IP packet, bytes ("Total Ethernet MTU").
    pub frame_bytes: u32,
    /// Preamble + SFD, FCS, gap counted per frame (0 unless asked), bytes.
    pub wire_extra_bytes: u32,
    /// Every byte that is not payload: link + encapsulation + IP + transport (+ extras), bytes.
    pub header_bytes: u32,
    /// header bytes / payload bytes: the papers' "overhead %" as a ratio.
    pub overhead_ratio: f64,
    /// payload / (frame + extras): the share of the link the application gets.
    pub efficiency_ratio: f64,
}

impl PacketOverhead {
    /// The best goodput a link of `link_rate_bps` allows with full-size
    /// packets back to back, bit/s.
    pub fn expected_goodput_bps(&self, link_rate_bps: f64) -> f64 {
        link_rate_bps * self.efficiency_ratio
    }
}

/// Computes the overhead of a full-size packet on `path` under `settings`.
///
/// # Errors
/// [`StatsError::MtuTooSmall`] when the MTU cannot hold the headers and at
/// least one payload byte.
pub fn packet_overhead(
    path: PathKind,
    settings: &OverheadSettings,
) -> Result<PacketOverhead, StatsError> {
    let ip_header_bytes = path.family.ip_header_bytes();
    // A translated flow carries what fits on its IPv6 side (the larger header)
    // on both sides, assuming both sides have the same MTU.
    let limiting_ip_header = match path.encapsulation {
        Encapsulation::Nat64Ipv4Side | Encapsulation::Nat64Ipv6Side => {
            IpFamily::V6.ip_header_bytes()
        }
        _ => ip_header_bytes,
    };
    let encapsulation_bytes = path.encapsulation.added_bytes();
    let transport_header_bytes = settings.transport_header_bytes(path.transport);
    let inside_mtu = encapsulation_bytes + limiting_ip_header + transport_header_bytes;
    if settings.mtu_bytes <= inside_mtu {
        return Err(StatsError::MtuTooSmall {
            mtu_bytes: settings.mtu_bytes,
            path: path.to_string(),
            header_bytes: inside_mtu,
        });
    }
    let payload_bytes = settings.mtu_bytes - inside_mtu;
    let ip_payload_bytes = transport_header_bytes + payload_bytes;
    let link_header_bytes = settings.link_header_bytes();
    let frame_bytes = settings.padded_frame_bytes(
        link_header_bytes + encapsulation_bytes + ip_header_bytes + ip_payload_bytes,
    );
    let wire_extra_bytes = settings.wire_extra_bytes();
    let header_bytes = link_header_bytes
        + encapsulation_bytes
        + ip_header_bytes
        + transport_header_bytes
        + wire_extra_bytes;
    Ok(PacketOverhead {
        path,
        payload_bytes,
        transport_header_bytes,
        ip_payload_bytes,
        ip_header_bytes,
        encapsulation_bytes,
        link_header_bytes,
        frame_bytes,
        wire_extra_bytes,
        header_bytes,
        overhead_ratio: header_bytes as f64 / payload_bytes as f64,
        efficiency_ratio: payload_bytes as f64 / (frame_bytes + wire_extra_bytes) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overhead::{LinkType, Transport};

    fn linux() -> OverheadSettings {
        OverheadSettings::linux(1500)
    }

    #[test]
    fn linux_timestamps_shrink_the_mss_by_twelve_bytes() {
        let v4 = packet_overhead(PathKind::plain(IpFamily::V4, Transport::Tcp), &linux()).unwrap();
        let v6 = packet_overhead(PathKind::plain(IpFamily::V6, Transport::Tcp), &linux()).unwrap();
        assert_eq!((v4.payload_bytes, v6.payload_bytes), (1448, 1428));
        assert_eq!(v4.frame_bytes, 1514);
    }

    #[test]
    fn six_in_four_carries_twenty_bytes_less() {
        let path = PathKind {
            family: IpFamily::V6,
            transport: Transport::Tcp,
            encapsulation: Encapsulation::SixInFour,
        };
        let tunnel = packet_overhead(path, &OverheadSettings::textbook()).unwrap();
        assert_eq!(tunnel.payload_bytes, 1420);
        assert_eq!(tunnel.header_bytes, 14 + 20 + 40 + 20);
        assert_eq!(tunnel.frame_bytes, 1514);
    }

    #[test]
    fn vxlan_leaves_1450_bytes_for_the_inner_packet() {
        let path = PathKind {
            family: IpFamily::V4,
            transport: Transport::Udp,
            encapsulation: Encapsulation::VxlanOverIpv4,
        };
        let vxlan = packet_overhead(path, &OverheadSettings::textbook()).unwrap();
        assert_eq!(vxlan.payload_bytes, 1450 - 20 - 8);
    }

    #[test]
    fn nat64_ipv4_side_carries_what_fits_on_the_ipv6_side() {
        let v4_side = PathKind {
            family: IpFamily::V4,
            transport: Transport::Tcp,
            encapsulation: Encapsulation::Nat64Ipv4Side,
        };
        let overhead = packet_overhead(v4_side, &OverheadSettings::textbook()).unwrap();
        assert_eq!(overhead.payload_bytes, 1440);
        assert_eq!(overhead.ip_header_bytes, 20);
        assert_eq!(overhead.frame_bytes, 14 + 20 + 20 + 1440);
    }

    #[test]
    fn wire_extras_lower_the_efficiency_of_gigabit_ethernet_to_the_known_941_mbit() {
        // Classic figure: IPv4 TCP with timestamps on 1 GbE tops out at
        // 1448 / 1538 · 1e9 = 941.5 Mbit/s.
        let settings = OverheadSettings {
            count_wire_extras: true,
            ..linux()
        };
        let v4 = packet_overhead(PathKind::plain(IpFamily::V4, Transport::Tcp), &settings).unwrap();
        assert_eq!(v4.header_bytes, 14 + 20 + 32 + 24);
        let goodput = v4.expected_goodput_bps(1e9);
        assert!((goodput - 941_482_444.733).abs() < 1.0, "{goodput}");
    }

    #[test]
    fn raw_link_has_no_link_header() {
        let settings = OverheadSettings {
            link: LinkType::Raw,
            ..OverheadSettings::textbook()
        };
        let v6 = packet_overhead(PathKind::plain(IpFamily::V6, Transport::Udp), &settings).unwrap();
        assert_eq!(v6.header_bytes, 48);
        assert_eq!(v6.frame_bytes, 1500);
    }

    #[test]
    fn an_mtu_too_small_for_the_headers_is_an_error_naming_the_path() {
        let settings = OverheadSettings {
            mtu_bytes: 60,
            ..OverheadSettings::textbook()
        };
        let error = packet_overhead(PathKind::plain(IpFamily::V6, Transport::Tcp), &settings)
            .unwrap_err()
            .to_string();
        assert!(error.contains("IPv6 TCP"), "{error}");
        assert!(error.contains("60"), "{error}");
    }
}
