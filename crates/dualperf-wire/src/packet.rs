//! Typed views of captured IP packets, decoded with `etherparse`: the
//! (inner) family, DSCP and flow label, whether the packet is a fragment
//! (IPv4 MF/offset, RFC 791; IPv6 fragment header, RFC 8200 §4.5), whether
//! it came encapsulated (6in4: IPv4 protocol 41, RFC 4213; 4in6: IPv6 next
//! header 4, RFC 2473, after any extension headers such as an SRv6 routing
//! header, RFC 8754), and for the first (or only) fragment the TCP or UDP
//! ports and where the payload starts. Captures are cut at a snap length,
//! so headers are read laxly: a length field larger than the bytes
//! captured is not an error.

use std::net::IpAddr;

use dualperf_model::IpFamily;
use etherparse::{
    IpNumber, Ipv4HeaderSlice, Ipv6ExtensionSlice, Ipv6HeaderSlice, LaxIpSlice, LaxIpv4Slice,
    LaxIpv6Slice, TcpHeaderSlice, UdpHeaderSlice,
};

/// How a packet was carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encapsulation {
    /// Not encapsulated.
    None,
    /// IPv6 in IPv4 (protocol 41).
    SixInFour,
    /// IPv4 in IPv6 (next header 4).
    FourInSix,
}

/// The transport protocol of a packet the check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// TCP (IP protocol 6).
    Tcp,
    /// UDP (IP protocol 17).
    Udp,
}

/// The transport header of a first or only fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transport {
    /// TCP or UDP.
    pub protocol: Protocol,
    /// Source port.
    pub source_port: u16,
    /// Destination port.
    pub destination_port: u16,
    /// UDP: the payload length from the UDP header, bytes (whole datagram,
    /// even when fragmented); TCP: 0.
    pub udp_payload_bytes: u32,
    /// TCP: the RST flag.
    pub tcp_reset: bool,
    /// TCP: the SYN flag (a handshake packet: SYN or SYN-ACK).
    pub tcp_syn: bool,
}

/// A fragment of a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// The datagram's identification (IPv4: 16 bits; IPv6: 32 bits).
    pub identification: u32,
    /// The first fragment (offset 0), the one with the transport header.
    pub first: bool,
}

/// A decoded packet.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet<'a> {
    /// Family of the (inner) IP header.
    pub family: IpFamily,
    /// Source of the (inner) header.
    pub source: IpAddr,
    /// Destination of the (inner) header.
    pub destination: IpAddr,
    /// DSCP of the (inner) header (RFC 2474).
    pub dscp: u8,
    /// Flow label of the (inner) IPv6 header (RFC 6437); `None` for IPv4.
    pub flow_label: Option<u32>,
    /// Encapsulation around the inner header.
    pub encapsulation: Encapsulation,
    /// The (inner) packet is a fragment.
    pub fragment: Option<Fragment>,
    /// Transport header, for unfragmented packets and first fragments.
    pub transport: Option<Transport>,
    /// Transport payload as captured (may be cut at the snap length).
    pub payload: &'a [u8],
    /// IP bytes on the wire (outer header included), from the outermost
    /// header's length field.
    pub ip_bytes: u32,
}

/// Decodes `l3`; `None` when it is not a TCP or UDP packet (or fragment of one) we can read.
pub fn decode(l3: &[u8]) -> Option<Packet<'_>> {
    let ip_bytes = outer_length(l3)?;
    let mut packet = decode_ip(l3, Encapsulation::None)?;
    packet.ip_bytes = ip_bytes;
    Some(packet)
}

/// The outermost header's length: IPv4 total length, IPv6 40 + payload length.
fn outer_length(l3: &[u8]) -> Option<u32> {
    match l3.first()? >> 4 {
        4 => Some(u32::from(Ipv4HeaderSlice::from_slice(l3).ok()?.total_len())),
        6 => Some(40 + u32::from(Ipv6HeaderSlice::from_slice(l3).ok()?.payload_length())),
        _ => None,
    }
}

fn decode_ip(l3: &[u8], carried: Encapsulation) -> Option<Packet<'_>> {
    match LaxIpSlice::from_slice(l3).ok()?.0 {
        LaxIpSlice::Ipv4(v4) => decode_v4(&v4, carried),
        LaxIpSlice::Ipv6(v6) => decode_v6(&v6, carried),
    }
}

fn decode_v4<'a>(ip: &LaxIpv4Slice<'a>, carried: Encapsulation) -> Option<Packet<'a>> {
    let header = ip.header();
    let more = header.more_fragments();
    let offset = header.fragments_offset().value();
    let payload = ip.payload();
    let body = payload.payload;
    if payload.ip_number == IpNumber::IPV6 && offset == 0 && !more && carried == Encapsulation::None
    {
        return decode_ip(body, Encapsulation::SixInFour);
    }
    let fragment = (more || offset != 0).then_some(Fragment {
        identification: u32::from(header.identification()),
        first: offset == 0,
    });
    let (transport, payload) = if offset == 0 {
        transport(payload.ip_number, body)?
    } else {
        (None, &[][..])
    };
    Some(Packet {
        family: IpFamily::V4,
        source: IpAddr::V4(header.source_addr()),
        destination: IpAddr::V4(header.destination_addr()),
        dscp: header.dcp().value(),
        flow_label: None,
        encapsulation: carried,
        fragment,
        transport,
        payload,
        ip_bytes: 0,
    })
}

fn decode_v6<'a>(ip: &LaxIpv6Slice<'a>, carried: Encapsulation) -> Option<Packet<'a>> {
    let header = ip.header();
    // Extension headers (hop-by-hop, routing such as SRv6, destination
    // options, fragment) are walked by etherparse; the payload's number is
    // the header after the last one.
    let fragment = ip.extensions().clone().into_iter().find_map(|e| match e {
        Ipv6ExtensionSlice::Fragment(f) => Some(Fragment {
            identification: f.identification(),
            first: f.fragment_offset().value() == 0,
        }),
        _ => None,
    });
    let payload = ip.payload();
    let body = payload.payload;
    if payload.ip_number == IpNumber::IPV4 && fragment.is_none() && carried == Encapsulation::None {
        return decode_ip(body, Encapsulation::FourInSix);
    }
    let (transport, payload) = if !matches!(fragment, Some(Fragment { first: false, .. })) {
        transport(payload.ip_number, body)?
    } else {
        (None, &[][..])
    };
    Some(Packet {
        family: IpFamily::V6,
        source: IpAddr::V6(header.source_addr()),
        destination: IpAddr::V6(header.destination_addr()),
        dscp: header.dscp().value(),
        flow_label: Some(header.flow_label().value()),
        encapsulation: carried,
        fragment,
        transport,
        payload,
        ip_bytes: 0,
    })
}

type Decoded<'a> = (Option<Transport>, &'a [u8]);

/// TCP or UDP header and payload; `None` for other protocols.
fn transport(protocol: IpNumber, body: &[u8]) -> Option<Decoded<'_>> {
    match protocol {
        IpNumber::UDP => {
            let udp = UdpHeaderSlice::from_slice(body).ok()?;
            Some((
                Some(Transport {
                    protocol: Protocol::Udp,
                    source_port: udp.source_port(),
                    destination_port: udp.destination_port(),
                    udp_payload_bytes: u32::from(udp.length()).saturating_sub(8),
                    tcp_reset: false,
                    tcp_syn: false,
                }),
                body.get(udp.slice().len()..).unwrap_or(&[]),
            ))
        }
        IpNumber::TCP => {
            let tcp = TcpHeaderSlice::from_slice(body).ok()?;
            Some((
                Some(Transport {
                    protocol: Protocol::Tcp,
                    source_port: tcp.source_port(),
                    destination_port: tcp.destination_port(),
                    udp_payload_bytes: 0,
                    tcp_reset: tcp.rst(),
                    tcp_syn: tcp.syn(),
                }),
                body.get(tcp.slice().len()..).unwrap_or(&[]),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
