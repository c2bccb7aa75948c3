//! Byte fixtures for the packet views.

use super::*;
use crate::fixtures::{
    fragment_header, ipv4, ipv6, srh, udp, udp4, udp6, FRAGMENT, IPV4_IN_IPV6, IPV6_IN_IPV4,
    ROUTING, UDP,
};

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
        (
            t.protocol,
            t.source_port,
            t.destination_port,
            t.udp_payload_bytes
        ),
        (Protocol::Udp, 1000, 2000, 24)
    );
    assert_eq!(packet.payload.len(), 24);
    assert_eq!(packet.ip_bytes, 52);
    assert_eq!(packet.encapsulation, Encapsulation::None);
    assert_eq!(packet.fragment, None);
    let v6 = udp6(46 << 2, 12345, (1000, 2000), &[9; 20]);
    let packet = decode(&v6).unwrap();
    assert_eq!(
        (packet.family, packet.dscp, packet.flow_label),
        (IpFamily::V6, 46, Some(12345))
    );
    assert_eq!(packet.ip_bytes, 68);
    assert_eq!(packet.destination, "fd00::2".parse::<IpAddr>().unwrap());
}

#[test]
fn a_packet_cut_at_the_snap_length_keeps_its_wire_length() {
    let mut v4 = udp4(0, (1, 2), &[7; 1000]);
    v4.truncate(20 + 8 + 20);
    let packet = decode(&v4).unwrap();
    assert_eq!(packet.ip_bytes, 1028);
    assert_eq!(packet.transport.unwrap().udp_payload_bytes, 1000);
    assert_eq!(packet.payload, &[7; 20]);
}

#[test]
fn six_in_four_is_decoded_to_the_inner_header_and_counted_as_encapsulated() {
    let inner = udp6(0, 7, (1, 2), &[0; 20]);
    let outer = ipv4(0, IPV6_IN_IPV4, &inner);
    let packet = decode(&outer).unwrap();
    assert_eq!(packet.encapsulation, Encapsulation::SixInFour);
    assert_eq!((packet.family, packet.flow_label), (IpFamily::V6, Some(7)));
    assert_eq!(packet.ip_bytes, 20 + 68);
}

#[test]
fn four_in_six_behind_an_srv6_routing_header_is_decoded_to_the_inner_ipv4() {
    let inner = udp4(34 << 2, (3, 4), &[0; 12]);
    let mut body = srh(IPV4_IN_IPV6);
    body.extend_from_slice(&inner);
    let outer = ipv6(0, 99, ROUTING, &body);
    let packet = decode(&outer).unwrap();
    assert_eq!(packet.encapsulation, Encapsulation::FourInSix);
    assert_eq!(
        (packet.family, packet.dscp, packet.flow_label),
        (IpFamily::V4, 34, None)
    );
    assert_eq!(packet.transport.unwrap().destination_port, 4);
    assert_eq!(packet.ip_bytes, 40 + 24 + 40);
}

#[test]
fn a_later_ipv4_fragment_has_no_ports_and_the_first_has_them() {
    let mut first = udp4(0, (5, 6), &[0; 40]);
    first[6] = 0x20; // MF
    let packet = decode(&first).unwrap();
    assert_eq!(
        packet.fragment,
        Some(Fragment {
            identification: 1,
            first: true
        })
    );
    assert!(packet.transport.is_some());
    let mut later = first.clone();
    later[6] = 0x00;
    later[7] = 0x05; // offset 40 bytes
    let packet = decode(&later).unwrap();
    assert_eq!(
        packet.fragment,
        Some(Fragment {
            identification: 1,
            first: false
        })
    );
    assert!(packet.transport.is_none());
}

#[test]
fn ipv6_fragments_carry_the_identification_and_only_the_first_has_ports() {
    let mut body = fragment_header(UDP, 0, true, 0xdead_beef);
    body.extend_from_slice(&udp((7, 8), &[1; 64])[..40]);
    let first = ipv6(0, 5, FRAGMENT, &body);
    let first = decode(&first).unwrap();
    assert_eq!(
        first.fragment,
        Some(Fragment {
            identification: 0xdead_beef,
            first: true
        })
    );
    let t = first.transport.unwrap();
    assert_eq!((t.source_port, t.udp_payload_bytes), (7, 64));
    let mut body = fragment_header(UDP, 5, false, 0xdead_beef);
    body.extend_from_slice(&[1; 32]);
    let later = ipv6(0, 5, FRAGMENT, &body);
    let later = decode(&later).unwrap();
    assert_eq!(
        later.fragment,
        Some(Fragment {
            identification: 0xdead_beef,
            first: false
        })
    );
    assert!(later.transport.is_none());
}

#[test]
fn other_protocols_and_short_headers_are_not_packets_of_the_check() {
    assert_eq!(decode(&ipv4(0, 1, &[8, 0, 0, 0])), None); // ICMP
    assert_eq!(decode(&[0x45, 0, 0]), None);
    assert_eq!(decode(&[]), None);
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
