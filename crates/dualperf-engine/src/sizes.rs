//! Message sizes: presets, the per-family datagram limits, and IP
//! fragmentation of datagrams larger than the path MTU.
//!
//! Limits (RFC 768, RFC 791, RFC 8200; jumbograms, RFC 2675, not used):
//! - IPv4: 65535 − 20 (IPv4 header) − 8 (UDP header) = **65507** bytes;
//! - IPv6: 65535 (payload length field, headers excluded) − 8 = **65527** bytes.

use dualperf_model::{IpFamily, TestKind};

use crate::datagram::HEADER_BYTES;

/// Largest UDP payload of a family without jumbograms, bytes.
pub fn max_udp_payload(family: IpFamily) -> u32 {
    match family {
        IpFamily::V4 => 65_507,
        IpFamily::V6 => 65_527,
    }
}

/// Smallest payload a kind can carry, bytes: udp-stream needs its
/// [`HEADER_BYTES`]-byte header, udp-rr an 8-byte sequence number.
pub fn min_size(kind: TestKind) -> u32 {
    match kind {
        TestKind::UdpStream | TestKind::UdpProbe => HEADER_BYTES as u32,
        TestKind::Media => {
            dualperf_model::media::RTP_HEADER_BYTES + dualperf_model::media::STAMP_BYTES
        }
        TestKind::UdpRr => 8,
        TestKind::TcpStream | TestKind::TcpRr => 1,
        TestKind::TcpConnect => 0,
    }
}

/// Checks a size for a kind and family.
///
/// # Errors
/// A message naming the limit, e.g. "udp-stream payload 65520 B exceeds the
/// IPv4 maximum of 65507 B (65535 − 20 IPv4 − 8 UDP)".
pub fn validate_size(kind: TestKind, family: IpFamily, size_bytes: u32) -> Result<(), String> {
    if size_bytes < min_size(kind) {
        return Err(format!(
            "{kind} size {size_bytes} B is below its minimum of {} B",
            min_size(kind)
        ));
    }
    if kind.is_udp() && size_bytes > max_udp_payload(family) {
        let why = match family {
            IpFamily::V4 => "65535 − 20 IPv4 header − 8 UDP header",
            IpFamily::V6 => "65535 payload length − 8 UDP header, no jumbograms",
        };
        return Err(format!(
            "{kind} payload {size_bytes} B exceeds the {} maximum of {} B ({why})",
            family.label(),
            max_udp_payload(family)
        ));
    }
    if kind == TestKind::TcpRr && size_bytes > 16 << 20 {
        return Err(format!(
            "tcp-rr size {size_bytes} B exceeds the 16 MiB limit"
        ));
    }
    Ok(())
}

/// IP packets one UDP datagram of `payload_bytes` becomes on a path of
/// `mtu_bytes`: 1 when it fits, otherwise the number of fragments (each
/// fragment carries a multiple of 8 bytes; IPv6 adds an 8-byte fragment
/// header, RFC 8200 §4.5).
pub fn fragments_per_datagram(family: IpFamily, payload_bytes: u32, mtu_bytes: u32) -> u32 {
    let ip_payload = payload_bytes + 8;
    let header = family.ip_header_bytes();
    if ip_payload + header <= mtu_bytes {
        return 1;
    }
    let fragment_header = match family {
        IpFamily::V4 => 0,
        IpFamily::V6 => 8,
    };
    let per_fragment = (mtu_bytes.saturating_sub(header + fragment_header) / 8) * 8;
    if per_fragment == 0 {
        return 0;
    }
    ip_payload.div_ceil(per_fragment)
}

/// Named size lists for `--sizes`.
///
/// - `papers`: 64, 128, 256, 512, 1024, 1408, 2048, 4096, 8192, 16384,
///   32768, 65507 — the sweep of the seed papers, 64 B to 64 KiB; 65507 is
///   the largest IPv4 datagram and is used for both families (65536 for TCP);
/// - `small`: 64, 512, 1408 — a quick sweep around the Ethernet MTU;
/// - `default`: one size per kind, see [`default_size`].
pub fn preset(name: &str) -> Option<Vec<u32>> {
    match name {
        "papers" => Some(vec![
            64, 128, 256, 512, 1024, 1408, 2048, 4096, 8192, 16384, 32768, 65507,
        ]),
        "small" => Some(vec![64, 512, 1408]),
        _ => None,
    }
}

/// The size a kind uses when no `--sizes` is given, bytes: 128 KiB writes
/// for tcp-stream (as iperf3), 1024 B datagrams for udp-stream (below any
/// Ethernet MTU for both families), 64 B for request/response (as the papers).
pub fn default_size(kind: TestKind) -> u32 {
    match kind {
        TestKind::TcpStream => 131_072,
        TestKind::UdpStream => 1024,
        TestKind::UdpProbe | TestKind::Media => 172,
        TestKind::TcpRr | TestKind::UdpRr => 64,
        TestKind::TcpConnect => 0,
    }
}

/// Adapts a preset size to a kind: the `papers` top size 65507 means
/// "64 KiB" for tcp-stream and tcp-rr.
pub fn size_for_kind(kind: TestKind, size: u32) -> u32 {
    if size == 65_507 && !kind.is_udp() && kind != TestKind::TcpConnect {
        65_536
    } else {
        size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_datagrams_are_accepted_and_one_more_byte_is_rejected() {
        assert!(validate_size(TestKind::UdpStream, IpFamily::V4, 65_507).is_ok());
        let err = validate_size(TestKind::UdpStream, IpFamily::V4, 65_508).unwrap_err();
        assert!(err.contains("65507"), "{err}");
        assert!(validate_size(TestKind::UdpRr, IpFamily::V6, 65_527).is_ok());
        assert!(validate_size(TestKind::UdpRr, IpFamily::V6, 65_528)
            .unwrap_err()
            .contains("IPv6"));
    }

    #[test]
    fn tcp_sizes_have_no_datagram_limit() {
        assert!(validate_size(TestKind::TcpStream, IpFamily::V4, 1 << 20).is_ok());
    }

    #[test]
    fn a_datagram_within_the_mtu_is_one_packet() {
        assert_eq!(fragments_per_datagram(IpFamily::V4, 1472, 1500), 1);
        assert_eq!(fragments_per_datagram(IpFamily::V6, 1452, 1500), 1);
    }

    #[test]
    fn one_byte_over_the_mtu_makes_two_fragments() {
        assert_eq!(fragments_per_datagram(IpFamily::V4, 1473, 1500), 2);
        assert_eq!(fragments_per_datagram(IpFamily::V6, 1453, 1500), 2);
    }

    #[test]
    fn largest_ipv4_datagram_on_ethernet_needs_45_fragments() {
        // 65515 bytes of UDP over 1480-byte fragments: ceil(65515 / 1480) = 45.
        assert_eq!(fragments_per_datagram(IpFamily::V4, 65_507, 1500), 45);
        // IPv6: 1448-byte fragments: ceil(65535 / 1448) = 46.
        assert_eq!(fragments_per_datagram(IpFamily::V6, 65_527, 1500), 46);
    }

    #[test]
    fn papers_preset_spans_64_bytes_to_64_kib() {
        let sizes = preset("papers").unwrap();
        assert_eq!((sizes[0], *sizes.last().unwrap()), (64, 65_507));
        assert_eq!(size_for_kind(TestKind::TcpStream, 65_507), 65_536);
        assert_eq!(size_for_kind(TestKind::UdpStream, 65_507), 65_507);
    }
}
