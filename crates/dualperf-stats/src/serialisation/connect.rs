//! Connection setup on a token-bucket-shaped path: the frames each
//! tcp-connect cycle puts on each direction, and the bound they set.
//!
//! dualperf's tcp-connect opens one connection after another and closes
//! each with an abortive close (`SO_LINGER` 0), so one cycle puts on the
//! forward (client → server) direction a SYN, the handshake's ACK and a
//! RST, and on the reverse one a SYN-ACK (captured on loopback: 74, 66, 66
//! and 74 B frames for IPv4; the server's FIN, 5 % of cycles, is left out).
//! Linux's SYN and SYN-ACK carry 20 B of options (MSS, SACK permitted,
//! timestamps, window scale: RFC 6691, 2018, 7323), the ACK and the RST
//! the 12 B timestamp option. On a shaped direction the bucket repays each
//! cycle's frames before the next SYN passes, so the slowest direction
//! bounds the cycle, as for a request/response ([`super::request_response_bound_ns`]),
//! and the time the bucket holds the SYN is inside `connect()`. IPv6's
//! three forward frames are 60 B longer: 48 µs a cycle at 10 Mbit/s.

use dualperf_model::IpFamily;

use super::{serialisation_ns, ShapedHop};
use crate::overhead::{ETHERNET_HEADER_BYTES, LINUX_TCP_OPTION_BYTES, TCP_HEADER_BYTES};

/// TCP options on Linux's SYN and SYN-ACK, bytes: MSS 4, SACK permitted 2,
/// timestamps 10, window scale 3, one NOP.
pub const SYN_OPTION_BYTES: u32 = 20;

/// The frames of one tcp-connect cycle as htb counts them (Ethernet header
/// included), bytes: forward (SYN + ACK + RST) and reverse (SYN-ACK).
/// IPv4: 206 and 74; IPv6: 266 and 94.
pub fn cycle_frame_bytes(family: IpFamily) -> (u32, u32) {
    let base = ETHERNET_HEADER_BYTES + family.ip_header_bytes() + TCP_HEADER_BYTES;
    let syn = base + SYN_OPTION_BYTES;
    let segment = base + LINUX_TCP_OPTION_BYTES;
    (syn + 2 * segment, syn)
}

/// The least time a tcp-connect cycle takes on `hops`, ns: the slowest
/// shaped direction's frames of one cycle over its rate; `None` when no
/// hop is shaped.
pub fn cycle_bound_ns(family: IpFamily, hops: &[ShapedHop]) -> Option<f64> {
    let (forward, reverse) = cycle_frame_bytes(family);
    hops.iter()
        .filter_map(|hop| {
            let frames = if hop.forward { forward } else { reverse };
            serialisation_ns(frames, hop.rate_bits_per_second)
        })
        .reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_frames_are_those_captured_on_loopback() {
        // tshark on lo, dualperf tcp-connect to 127.0.0.1: SYN 74, SYN-ACK
        // 74, ACK 66, RST 66.
        assert_eq!(cycle_frame_bytes(IpFamily::V4), (74 + 66 + 66, 74));
        assert_eq!(cycle_frame_bytes(IpFamily::V6), (94 + 86 + 86, 94));
    }

    #[test]
    fn the_forward_direction_bounds_the_cycle_at_10_mbit() {
        let hops = [
            ShapedHop {
                rate_bits_per_second: 10_000_000,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: 10_000_000,
                forward: false,
            },
        ];
        // 206 B × 8 / 10 Mbit/s = 164.8 µs; 266 B: 212.8 µs.
        assert_eq!(cycle_bound_ns(IpFamily::V4, &hops), Some(164_800.0));
        assert_eq!(cycle_bound_ns(IpFamily::V6, &hops), Some(212_800.0));
        assert_eq!(cycle_bound_ns(IpFamily::V4, &[]), None);
    }
}
