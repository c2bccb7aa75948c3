//! One captured IP packet decoded as far as the wire check needs: the
//! (inner) family, DSCP and flow label, whether it is a fragment, whether
//! it came encapsulated (6in4: IPv4 protocol 41; 4in6: IPv6 next header 4,
//! after any extension headers such as an SRv6 routing header), and for
//! the first (or only) fragment the transport ports and payload start.

use std::net::IpAddr;

use dualperf_model::IpFamily;

/// IP protocol numbers used here.
const TCP: u8 = 6;
const UDP: u8 = 17;
const IPV6_IN_IPV4: u8 = 41;
const IPV4_IN_IPV6: u8 = 4;

/// How a packet was carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encapsulation {
    /// Not encapsulated.
    None,
    /// IPv6 in IPv4 (protocol 41).
    SixInFour,
    /// IPv4 in IPv6 (next header 4).
    FourInSix,
}

/// The transport header of a first or only fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transport {
    /// 6 (TCP) or 17 (UDP).
    pub protocol: u8,
    /// Source port.
    pub source_port: u16,
    /// Destination port.
    pub destination_port: u16,
    /// UDP: the payload length from the UDP header, bytes (whole datagram,
    /// even when fragmented); TCP: 0.
    pub udp_payload_bytes: u32,
    /// TCP: the RST flag.
    pub tcp_reset: bool,
}

/// A decoded packet.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Packet<'a> {
    /// Family of the (inner) IP header.
    pub family: IpFamily,
    /// Source and destination of the (inner) header.
    pub source: IpAddr,
    /// See `source`.
    pub destination: IpAddr,
    /// DSCP of the (inner) header.
    pub dscp: u8,
    /// Flow label of the (inner) IPv6 header; `None` for IPv4.
    pub flow_label: Option<u32>,
    /// Encapsulation around the inner header.
    pub encapsulation: Encapsulation,
    /// The (inner) packet is a fragment; `Some((identification, first))`.
    pub fragment: Option<(u32, bool)>,
    /// Transport header, for unfragmented packets and first fragments.
    pub transport: Option<Transport>,
    /// Transport payload as captured (may be cut at the snap length).
    pub payload: &'a [u8],
    /// IP bytes on the wire (outer header included), from the outermost header.
    pub ip_bytes: u32,
}

/// Decodes `l3`; `None` when it is not a TCP or UDP packet (or fragment of one) we can read.
pub(crate) fn decode(l3: &[u8]) -> Option<Packet<'_>> {
    let ip_bytes = outer_length(l3)?;
    let mut packet = decode_ip(l3, Encapsulation::None)?;
    packet.ip_bytes = ip_bytes;
    Some(packet)
}

fn outer_length(l3: &[u8]) -> Option<u32> {
    match l3.first()? >> 4 {
        4 => Some(u32::from(u16::from_be_bytes([*l3.get(2)?, *l3.get(3)?]))),
        6 => Some(40 + u32::from(u16::from_be_bytes([*l3.get(4)?, *l3.get(5)?]))),
        _ => None,
    }
}

fn decode_ip(l3: &[u8], carried: Encapsulation) -> Option<Packet<'_>> {
    match l3.first()? >> 4 {
        4 => decode_v4(l3, carried),
        6 => decode_v6(l3, carried),
        _ => None,
    }
}

fn decode_v4(l3: &[u8], carried: Encapsulation) -> Option<Packet<'_>> {
    let header = usize::from(l3.first()? & 0x0f) * 4;
    let tos = *l3.get(1)?;
    let identification = u16::from_be_bytes([*l3.get(4)?, *l3.get(5)?]);
    let flags_offset = u16::from_be_bytes([*l3.get(6)?, *l3.get(7)?]);
    let more = flags_offset & 0x2000 != 0;
    let offset = flags_offset & 0x1fff;
    let protocol = *l3.get(9)?;
    let source: [u8; 4] = l3.get(12..16)?.try_into().ok()?;
    let destination: [u8; 4] = l3.get(16..20)?.try_into().ok()?;
    let body = l3.get(header..)?;
    if protocol == IPV6_IN_IPV4 && offset == 0 && !more && carried == Encapsulation::None {
        return decode_ip(body, Encapsulation::SixInFour);
    }
    let fragment = (more || offset != 0).then_some((u32::from(identification), offset == 0));
    let (transport, payload) = if offset == 0 {
        transport(protocol, body)?
    } else {
        (None, &[][..])
    };
    Some(Packet {
        family: IpFamily::V4,
        source: IpAddr::from(source),
        destination: IpAddr::from(destination),
        dscp: tos >> 2,
        flow_label: None,
        encapsulation: carried,
        fragment,
        transport,
        payload,
        ip_bytes: 0,
    })
}

fn decode_v6(l3: &[u8], carried: Encapsulation) -> Option<Packet<'_>> {
    let word = u32::from_be_bytes(l3.get(0..4)?.try_into().ok()?);
    let traffic_class = ((word >> 20) & 0xff) as u8;
    let flow_label = word & 0x000f_ffff;
    let source: [u8; 16] = l3.get(8..24)?.try_into().ok()?;
    let destination: [u8; 16] = l3.get(24..40)?.try_into().ok()?;
    let mut next = *l3.get(6)?;
    let mut offset = 40;
    let mut fragment = None;
    let mut first = true;
    // Extension headers: hop-by-hop, routing (SRv6), destination options, fragment.
    loop {
        match next {
            0 | 43 | 60 => {
                let length = (usize::from(*l3.get(offset + 1)?) + 1) * 8;
                next = *l3.get(offset)?;
                offset += length;
            }
            44 => {
                let offset_flags = u16::from_be_bytes([*l3.get(offset + 2)?, *l3.get(offset + 3)?]);
                let identification =
                    u32::from_be_bytes(l3.get(offset + 4..offset + 8)?.try_into().ok()?);
                first = offset_flags >> 3 == 0;
                fragment = Some((identification, first));
                next = *l3.get(offset)?;
                offset += 8;
            }
            _ => break,
        }
    }
    let body = l3.get(offset..)?;
    if next == IPV4_IN_IPV6 && fragment.is_none() && carried == Encapsulation::None {
        return decode_ip(body, Encapsulation::FourInSix);
    }
    let (transport, payload) = if first {
        transport(next, body)?
    } else {
        (None, &[][..])
    };
    Some(Packet {
        family: IpFamily::V6,
        source: IpAddr::from(source),
        destination: IpAddr::from(destination),
        dscp: traffic_class >> 2,
        flow_label: Some(flow_label),
        encapsulation: carried,
        fragment,
        transport,
        payload,
        ip_bytes: 0,
    })
}

type Decoded<'a> = (Option<Transport>, &'a [u8]);

/// TCP or UDP header and payload; `None` for other protocols.
fn transport(protocol: u8, body: &[u8]) -> Option<Decoded<'_>> {
    let port = |at: usize| -> Option<u16> {
        Some(u16::from_be_bytes([*body.get(at)?, *body.get(at + 1)?]))
    };
    match protocol {
        UDP => {
            let length = u32::from(port(4)?);
            Some((
                Some(Transport {
                    protocol,
                    source_port: port(0)?,
                    destination_port: port(2)?,
                    udp_payload_bytes: length.saturating_sub(8),
                    tcp_reset: false,
                }),
                body.get(8..).unwrap_or(&[]),
            ))
        }
        TCP => {
            let header = usize::from(body.get(12)? >> 4) * 4;
            Some((
                Some(Transport {
                    protocol,
                    source_port: port(0)?,
                    destination_port: port(2)?,
                    udp_payload_bytes: 0,
                    tcp_reset: body.get(13)? & 0x04 != 0,
                }),
                body.get(header..).unwrap_or(&[]),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An IPv4 UDP packet with `tos`, ports and payload.
    pub(crate) fn udp4(tos: u8, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
        let total = 20 + 8 + payload.len();
        let mut p = vec![0x45, tos];
        p.extend_from_slice(&(total as u16).to_be_bytes());
        p.extend_from_slice(&[0, 1, 0x40, 0, 64, UDP, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        p.extend_from_slice(&ports.0.to_be_bytes());
        p.extend_from_slice(&ports.1.to_be_bytes());
        p.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(payload);
        p
    }

    /// An IPv6 UDP packet with traffic class, flow label, ports and payload.
    pub(crate) fn udp6(class: u8, label: u32, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
        let word: u32 = (6 << 28) | (u32::from(class) << 20) | label;
        let mut p = word.to_be_bytes().to_vec();
        p.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        p.extend_from_slice(&[UDP, 64]);
        p.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        p.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        p.extend_from_slice(&ports.0.to_be_bytes());
        p.extend_from_slice(&ports.1.to_be_bytes());
        p.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(payload);
        p
    }

    #[test]
    fn ipv4_and_ipv6_udp_give_marking_ports_and_payload() {
        let v4 = udp4(46 << 2, (1000, 2000), &[9; 24]);
        let packet = decode(&v4).unwrap();
        assert_eq!(
            (packet.family, packet.dscp, packet.flow_label),
            (IpFamily::V4, 46, None)
        );
        let t = packet.transport.unwrap();
        assert_eq!(
            (t.source_port, t.destination_port, t.udp_payload_bytes),
            (1000, 2000, 24)
        );
        assert_eq!(packet.payload.len(), 24);
        assert_eq!(packet.ip_bytes, 52);
        let v6 = udp6(46 << 2, 12345, (1000, 2000), &[9; 20]);
        let packet = decode(&v6).unwrap();
        assert_eq!(
            (packet.family, packet.dscp, packet.flow_label),
            (IpFamily::V6, 46, Some(12345))
        );
        assert_eq!(packet.ip_bytes, 68);
    }

    #[test]
    fn six_in_four_is_decoded_to_the_inner_header_and_counted_as_encapsulated() {
        let inner = udp6(0, 7, (1, 2), &[0; 20]);
        let mut outer = vec![0x45, 0];
        outer.extend_from_slice(&((20 + inner.len()) as u16).to_be_bytes());
        outer.extend_from_slice(&[
            0,
            0,
            0x40,
            0,
            64,
            IPV6_IN_IPV4,
            0,
            0,
            10,
            0,
            0,
            1,
            10,
            0,
            0,
            2,
        ]);
        outer.extend_from_slice(&inner);
        let packet = decode(&outer).unwrap();
        assert_eq!(packet.encapsulation, Encapsulation::SixInFour);
        assert_eq!((packet.family, packet.flow_label), (IpFamily::V6, Some(7)));
        assert_eq!(packet.ip_bytes, 20 + 68);
    }

    #[test]
    fn a_later_ipv4_fragment_has_no_ports_and_the_first_has_them() {
        let mut first = udp4(0, (5, 6), &[0; 40]);
        first[6] = 0x20; // MF
        let packet = decode(&first).unwrap();
        assert_eq!(packet.fragment, Some((1, true)));
        assert!(packet.transport.is_some());
        let mut later = first.clone();
        later[6] = 0x00;
        later[7] = 0x05; // offset 40 bytes
        let packet = decode(&later).unwrap();
        assert_eq!(packet.fragment, Some((1, false)));
        assert!(packet.transport.is_none());
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        for length in 0..80 {
            let bytes: Vec<u8> = (0..length).map(|i| (i * 37 + 0x45) as u8).collect();
            let _ = decode(&bytes);
            let mut six = bytes.clone();
            if let Some(b) = six.first_mut() {
                *b = 0x60;
            }
            let _ = decode(&six);
        }
    }
}
