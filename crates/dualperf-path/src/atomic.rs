//! An IPv6 "atomic fragment": a Fragment header (RFC 8200 §4.5) with
//! offset 0 and no more fragments, on a packet small enough not to need
//! it — RFC 7872's "fragment header on a small packet". Linux sockets no
//! longer send these (RFC 8021), so the whole packet is built here and
//! sent on a raw socket (`IPPROTO_RAW`, header included; CAP_NET_RAW),
//! as UDP from the probing socket's own address and port: the far end's
//! answer, and any ICMP error about the packet, reach that socket.

use std::io;
use std::net::{Ipv6Addr, SocketAddrV6};

use socket2::{Domain, Protocol, Socket, Type};

/// IPv6 next header: Fragment.
const FRAGMENT: u8 = 44;
/// IPv6 next header: UDP.
const UDP: u8 = 17;

/// The UDP datagram's addressing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flow {
    /// Source address and port (the probing socket's).
    pub(crate) source: SocketAddrV6,
    /// Destination address and port.
    pub(crate) destination: SocketAddrV6,
    /// Hop limit.
    pub(crate) hop_limit: u8,
    /// The Fragment header's identification.
    pub(crate) id: u32,
}

/// The Internet checksum of UDP over IPv6 (RFC 8200 §8.1): pseudo-header,
/// UDP header and payload.
fn udp_checksum(source: &Ipv6Addr, destination: &Ipv6Addr, udp: &[u8]) -> u16 {
    let mut sum: u64 = 0;
    let mut add = |bytes: &[u8]| {
        for pair in bytes.chunks(2) {
            sum += u64::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
        }
    };
    add(&source.octets());
    add(&destination.octets());
    add(&(udp.len() as u32).to_be_bytes());
    add(&[0, 0, 0, UDP]);
    add(udp);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    match !(sum as u16) {
        0 => 0xffff,
        checksum => checksum,
    }
}

/// The packet: IPv6 header, Fragment header (offset 0, M clear), UDP
/// header, `payload`.
pub(crate) fn packet(flow: &Flow, payload: &[u8]) -> Vec<u8> {
    let udp_len = 8 + payload.len();
    let mut udp = Vec::with_capacity(udp_len);
    udp.extend_from_slice(&flow.source.port().to_be_bytes());
    udp.extend_from_slice(&flow.destination.port().to_be_bytes());
    udp.extend_from_slice(&(udp_len as u16).to_be_bytes());
    udp.extend_from_slice(&[0, 0]);
    udp.extend_from_slice(payload);
    let checksum = udp_checksum(flow.source.ip(), flow.destination.ip(), &udp);
    udp[6..8].copy_from_slice(&checksum.to_be_bytes());

    let mut out = Vec::with_capacity(48 + udp_len);
    out.extend_from_slice(&[0x60, 0, 0, 0]);
    out.extend_from_slice(&((8 + udp_len) as u16).to_be_bytes());
    out.push(FRAGMENT);
    out.push(flow.hop_limit);
    out.extend_from_slice(&flow.source.ip().octets());
    out.extend_from_slice(&flow.destination.ip().octets());
    out.extend_from_slice(&[UDP, 0, 0, 0]);
    out.extend_from_slice(&flow.id.to_be_bytes());
    out.extend_from_slice(&udp);
    out
}

/// A raw IPv6 socket that sends whole packets (CAP_NET_RAW).
pub(crate) fn raw_socket() -> io::Result<Socket> {
    Socket::new(
        Domain::IPV6,
        Type::RAW,
        Some(Protocol::from(libc::IPPROTO_RAW)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packet_carries_a_fragment_header_at_offset_zero_and_a_valid_udp_checksum() {
        let flow = Flow {
            source: "[fd00:dead:beef:1::1]:40000".parse().unwrap(),
            destination: "[fd00:dead:beef:3::2]:5180".parse().unwrap(),
            hop_limit: 3,
            id: 0xdead_beef,
        };
        let payload = [7u8; 25];
        let bytes = packet(&flow, &payload);
        assert_eq!(bytes.len(), 40 + 8 + 8 + 25);
        assert_eq!(bytes[6], FRAGMENT, "next header: Fragment");
        assert_eq!(bytes[7], 3, "hop limit");
        assert_eq!(u16::from_be_bytes([bytes[4], bytes[5]]), 8 + 8 + 25);
        assert_eq!(bytes[40], UDP);
        assert_eq!(
            &bytes[42..44],
            &[0, 0],
            "offset 0, M clear: an atomic fragment"
        );
        // the checksum over pseudo-header + UDP (checksum included) folds to all ones
        let udp = &bytes[48..];
        let sum = udp_checksum(flow.source.ip(), flow.destination.ip(), udp);
        assert_eq!(
            sum, 0xffff,
            "a correct checksum verifies to zero (sent as 0xffff)"
        );
    }
}
