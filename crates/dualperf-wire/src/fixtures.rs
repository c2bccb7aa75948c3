//! Hand-built packets and pcap files for the tests: each byte is written
//! out from the header layouts (RFC 791, RFC 8200, RFC 8754, RFC 768,
//! <https://www.tcpdump.org/linktypes.html>), not produced by the crates
//! under test.

/// IP protocol numbers.
pub(crate) const UDP: u8 = 17;
pub(crate) const IPV6_IN_IPV4: u8 = 41;
pub(crate) const IPV4_IN_IPV6: u8 = 4;
pub(crate) const ROUTING: u8 = 43;
pub(crate) const FRAGMENT: u8 = 44;

/// The file header's magic number and byte order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Magic {
    Microseconds,
    Nanoseconds,
    BigEndianMicro,
}

/// The link layer the frames get.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Link {
    Ethernet,
    EthernetVlan,
    Raw,
    CookedV1,
    CookedV2,
}

fn protocol(l3: &[u8]) -> [u8; 2] {
    if l3.first().is_some_and(|b| b >> 4 == 4) {
        [0x08, 0x00]
    } else {
        [0x86, 0xdd]
    }
}

fn frame(link: Link, l3: &[u8]) -> (u32, Vec<u8>) {
    let mut frame = Vec::new();
    let number = match link {
        Link::Ethernet => {
            frame.extend_from_slice(&[0; 12]);
            frame.extend_from_slice(&protocol(l3));
            1
        }
        Link::EthernetVlan => {
            frame.extend_from_slice(&[0; 12]);
            frame.extend_from_slice(&[0x81, 0x00, 0x00, 0x07]);
            frame.extend_from_slice(&protocol(l3));
            1
        }
        Link::Raw => 101,
        Link::CookedV1 => {
            // packet type, ARPHRD, address length, 8-byte address, protocol.
            frame.extend_from_slice(&[0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]);
            frame.extend_from_slice(&protocol(l3));
            113
        }
        Link::CookedV2 => {
            // protocol, reserved, ifindex, ARPHRD, packet type, address length, address.
            frame.extend_from_slice(&protocol(l3));
            frame.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 0, 6]);
            frame.extend_from_slice(&[0; 8]);
            276
        }
    };
    frame.extend_from_slice(l3);
    (number, frame)
}

/// A pcap file of `frames` (`(seconds, fraction, l3)`).
pub(crate) fn pcap_file(magic: Magic, link: Link, frames: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
    let big = matches!(magic, Magic::BigEndianMicro);
    let u32b = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u16b = |v: u16| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut bytes = Vec::new();
    let number = match magic {
        Magic::Nanoseconds => 0xa1b2_3c4d,
        _ => 0xa1b2_c3d4,
    };
    bytes.extend_from_slice(&u32b(number));
    bytes.extend_from_slice(&u16b(2));
    bytes.extend_from_slice(&u16b(4));
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&u32b(65535));
    bytes.extend_from_slice(&u32b(frame(link, &[]).0));
    for (seconds, fraction, l3) in frames {
        let (_, frame) = frame(link, l3);
        bytes.extend_from_slice(&u32b(*seconds));
        bytes.extend_from_slice(&u32b(*fraction));
        bytes.extend_from_slice(&u32b(frame.len() as u32));
        bytes.extend_from_slice(&u32b(frame.len() as u32));
        bytes.extend_from_slice(&frame);
    }
    bytes
}

/// A raw-IP pcap file with snap length `snap` and one record of `l3`
/// whose original length is `original`.
pub(crate) fn with_lengths(snap: u32, original: u32, l3: &[u8]) -> Vec<u8> {
    let mut bytes = pcap_file(Magic::Microseconds, Link::Raw, &[]);
    bytes[16..20].copy_from_slice(&snap.to_le_bytes());
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&(l3.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&original.to_le_bytes());
    bytes.extend_from_slice(l3);
    bytes
}

/// An IPv4 header (20 bytes, identification 1, DF) of `protocol` around `body`.
pub(crate) fn ipv4(tos: u8, protocol: u8, body: &[u8]) -> Vec<u8> {
    let total = 20 + body.len();
    let mut p = vec![0x45, tos];
    p.extend_from_slice(&(total as u16).to_be_bytes());
    p.extend_from_slice(&[0, 1, 0x40, 0, 64, protocol, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    p.extend_from_slice(body);
    p
}

/// A UDP header and payload.
pub(crate) fn udp(ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
    let mut p = ports.0.to_be_bytes().to_vec();
    p.extend_from_slice(&ports.1.to_be_bytes());
    p.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

/// An IPv4 UDP packet with `tos`, ports and payload.
pub(crate) fn udp4(tos: u8, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
    ipv4(tos, UDP, &udp(ports, payload))
}

/// An IPv6 header (fd00::1 → fd00::2) with `next` header around `body`.
pub(crate) fn ipv6(class: u8, label: u32, next: u8, body: &[u8]) -> Vec<u8> {
    let word: u32 = (6 << 28) | (u32::from(class) << 20) | label;
    let mut p = word.to_be_bytes().to_vec();
    p.extend_from_slice(&(body.len() as u16).to_be_bytes());
    p.extend_from_slice(&[next, 64]);
    p.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    p.extend_from_slice(body);
    p
}

/// An IPv6 UDP packet with traffic class, flow label, ports and payload.
pub(crate) fn udp6(class: u8, label: u32, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
    ipv6(class, label, UDP, &udp(ports, payload))
}

/// An SRv6 routing header (RFC 8754: type 4, one segment) before `next`.
pub(crate) fn srh(next: u8) -> Vec<u8> {
    // next header, length in 8-octet units after the first 8 (2 = one
    // 16-byte segment), routing type 4, segments left 0, last entry 0,
    // flags 0, tag 0; then the segment fd00::2.
    let mut h = vec![next, 2, 4, 0, 0, 0, 0, 0];
    h.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    h
}

/// An IPv6 fragment header (RFC 8200 §4.5) before `next`.
pub(crate) fn fragment_header(next: u8, offset_units: u16, more: bool, id: u32) -> Vec<u8> {
    let mut h = vec![next, 0];
    h.extend_from_slice(&((offset_units << 3) | u16::from(more)).to_be_bytes());
    h.extend_from_slice(&id.to_be_bytes());
    h
}
