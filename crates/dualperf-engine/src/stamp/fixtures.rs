//! Real packets of stamp-suite 1.0.0 (an independent Rust STAMP
//! implementation, `cargo install stamp-suite`), captured with tcpdump on
//! loopback: its sender (`-c 2 --cos --dscp 46 --ssid 4660`, open and
//! `-A A` authenticated) against its stateful reflector. dualperf's
//! packet, TLV and HMAC code must read them and write them again byte for
//! byte, and its reflector must answer them as stamp-suite's did.
//!
//! The key of the authenticated capture is the 32 ASCII octets
//! `dualperf-stamp-interop-key-01234` (`--hmac-key` takes them in hex).

use super::auth::StampKey;
use super::packet::{self, Mode, ReflectedPacket, TestPacket};
use super::reflector::{reflect, Arrival};
use super::timestamp::{decode, ClockFormat};
use super::tlv::{ClassOfService, TlvList, TYPE_CLASS_OF_SERVICE};

/// Open mode: test packet 0 and the stateful reflector's reply.
const OPEN_TEST: &str = "00000000eeb2ee5b8bf4bf2a000112340000000000000000000000000000000000000000000000000000000080040004b8000000";
const OPEN_REPLY: &str = "00000000eeb2ee5b8ce522fc00011234eeb2ee5b8ce412f500000000eeb2ee5b8bf4bf2a00010000ff00000000040004bae03000";
/// Open mode: test packet 1 and its reply.
const OPEN_TEST_1: &str = "00000001eeb2ee5b8ec1c15a000112340000000000000000000000000000000000000000000000000000000080040004b8000000";
const OPEN_REPLY_1: &str = "00000001eeb2ee5b8ec96f8e00011234eeb2ee5b8ec87d6d00000001eeb2ee5b8ec1c15a00010000ff00000000040004bae03000";
/// Authenticated mode: test packet 0 and its reply (base HMAC and HMAC TLV).
const AUTH_TEST: &str = "00000000000000000000000000000000eeb2ee5ed857850400011234000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000094d8301cae08d3fb40c66d4ba810d88980040004b800000080080010718fca0ccebbed7b17728df965d0c6b1";
const AUTH_REPLY: &str = "00000000000000000000000000000000eeb2ee5ed9b9a5340001123400000000eeb2ee5ed9b823ea000000000000000000000000000000000000000000000000eeb2ee5ed85785040001000000000000ff00000000000000000000000000000034465558a3472509c01ac4e2524a0e2b00040004bae03000000800103b44f1cb619e3318ff702714726a3032";
/// Authenticated mode: test packet 1 and its reply.
const AUTH_TEST_1: &str = "00000001000000000000000000000000eeb2ee5edb5bfdd30001123400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006213ff44759dd08ba54775944ad0f84780040004b800000080080010a82cb42a9cf655028ec84d1b8181251a";
const AUTH_REPLY_1: &str = "00000001000000000000000000000000eeb2ee5edb697c450001123400000000eeb2ee5edb684cfd000000000000000000000001000000000000000000000000eeb2ee5edb5bfdd30001000000000000ff000000000000000000000000000000d3f3211fb592e153e14c75a9afc434d600040004bae03000000800101783fac21afca5b1b75b60a1d3ef4df5";

const KEY: &[u8] = b"dualperf-stamp-interop-key-01234";

fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

fn mode_and_key(authenticated: bool) -> (Mode, Option<StampKey>) {
    match authenticated {
        true => (Mode::Authenticated, Some(StampKey::new(KEY).unwrap())),
        false => (Mode::Unauthenticated, None),
    }
}

/// Reads a test packet and writes it again from the fields read.
fn rewrite_test(wire: &[u8], authenticated: bool) -> Vec<u8> {
    let (mode, key) = mode_and_key(authenticated);
    let test = TestPacket::read(wire, mode).unwrap();
    let mut tlvs = TlvList::read(&wire[mode.base_bytes()..]);
    assert!(tlvs.rest.is_empty());
    let mut out = Vec::new();
    test.write(mode, key.as_ref(), &mut out);
    if let Some(key) = &key {
        tlvs.sign(test.sequence, key);
    }
    tlvs.write(&mut out);
    out
}

/// Reads a reflected packet and writes it again from the fields read.
fn rewrite_reply(wire: &[u8], authenticated: bool) -> Vec<u8> {
    let (mode, key) = mode_and_key(authenticated);
    let reply = ReflectedPacket::read(wire, mode).unwrap();
    let mut tlvs = TlvList::read(&wire[mode.base_bytes()..]);
    let mut out = Vec::new();
    reply.write(mode, key.as_ref(), &mut out);
    if let Some(key) = &key {
        tlvs.sign(reply.sequence, key);
    }
    tlvs.write(&mut out);
    out
}

#[test]
fn stamp_suite_packets_are_read_and_written_again_byte_for_byte() {
    for (test, reply, authenticated) in [
        (OPEN_TEST, OPEN_REPLY, false),
        (OPEN_TEST_1, OPEN_REPLY_1, false),
        (AUTH_TEST, AUTH_REPLY, true),
        (AUTH_TEST_1, AUTH_REPLY_1, true),
    ] {
        let (test, reply) = (bytes(test), bytes(reply));
        assert_eq!(rewrite_test(&test, authenticated), test, "test packet");
        assert_eq!(rewrite_reply(&reply, authenticated), reply, "reply");
    }
}

#[test]
fn stamp_suite_fields_read_as_rfc_8762_and_8972_define_them() {
    for (test, reply, authenticated, sequence) in [
        (OPEN_TEST_1, OPEN_REPLY_1, false, 1),
        (AUTH_TEST_1, AUTH_REPLY_1, true, 1),
    ] {
        let (mode, key) = mode_and_key(authenticated);
        let (test, reply) = (bytes(test), bytes(reply));
        let sent = TestPacket::read(&test, mode).unwrap();
        assert_eq!(
            (sent.sequence, sent.ssid, sent.error_estimate),
            (sequence, 0x1234, 1)
        );
        let back = ReflectedPacket::read(&reply, mode).unwrap();
        assert_eq!(back.sender_sequence, sequence);
        assert_eq!(back.sequence, sequence); // stateful, nothing lost: 0, 1
        assert_eq!(back.sender_timestamp, sent.timestamp);
        assert_eq!((back.ssid, back.sender_ttl), (0x1234, 255));
        let t1 = decode(sent.timestamp, ClockFormat::Ntp);
        let (t2, t3) = (
            decode(back.receive_timestamp, ClockFormat::Ntp),
            decode(back.timestamp, ClockFormat::Ntp),
        );
        assert!(t1 < t2 && t2 < t3 && t3 - t1 < 1_000_000_000);
        let tlvs = TlvList::read(&reply[mode.base_bytes()..]);
        let cos = tlvs.find(TYPE_CLASS_OF_SERVICE).unwrap();
        assert_eq!(cos.flags, 0, "a reflector that knows the TLV clears U");
        let cos = ClassOfService::from_value(&cos.value).unwrap();
        assert_eq!((cos.dscp1, cos.dscp2, cos.ecn, cos.rp), (46, 46, 0, 0));
        if let Some(key) = key {
            assert_eq!(packet::verify(&test, &key), Ok(()));
            assert_eq!(packet::verify(&reply, &key), Ok(()));
            assert!(TlvList::read(&test[112..]).verifies(sent.sequence, &key));
            assert!(tlvs.verifies(back.sequence, &key));
        }
    }
}

#[test]
fn dualperf_answers_a_stamp_suite_test_packet_as_stamp_suite_did() {
    let (test, theirs) = (bytes(OPEN_TEST_1), bytes(OPEN_REPLY_1));
    let back = ReflectedPacket::read(&theirs, Mode::Unauthenticated).unwrap();
    let arrival = Arrival {
        received_ns: decode(back.receive_timestamp, ClockFormat::Ntp),
        tos: Some(46 << 2),
        ttl: Some(255),
    };
    let now = decode(back.timestamp, ClockFormat::Ntp);
    let ours = reflect(&test, arrival, Some(1), None, now).unwrap();
    assert_eq!(ours.tos, Some(46 << 2));
    assert_eq!(ours.bytes.len(), theirs.len());
    // Timestamps went through nanoseconds (within 1 ns); stamp-suite also
    // sets the draft-ietf-ippm-stamp-cos-ecn RPE bits in the CoS TLV's
    // reserved octet 2 (0x30), which RFC 8972 leaves zero.
    for (at, (a, b)) in ours.bytes.iter().zip(&theirs).enumerate() {
        let timestamp_low = (8..12).contains(&at) || (20..24).contains(&at);
        let reserved = at == 50;
        assert!(
            a == b || timestamp_low || reserved,
            "octet {at}: {a:#04x} vs {b:#04x}"
        );
    }
    let mine = ReflectedPacket::read(&ours.bytes, Mode::Unauthenticated).unwrap();
    for (a, b) in [
        (mine.timestamp, back.timestamp),
        (mine.receive_timestamp, back.receive_timestamp),
    ] {
        assert!((decode(a, ClockFormat::Ntp) - decode(b, ClockFormat::Ntp)).abs() <= 1);
    }
}
