//! A whole capture against one udp-stream trial: hand-built packets in,
//! the trial's wire check out.

use dualperf_fixtures as fx;
use dualperf_model::datagram::{hello, write_header, Header, FLAG_WARMUP};
use dualperf_model::{ArmPath, Dscp, Observations, UdpReceiveCounters};

use super::*;
use crate::fixtures::{fragment_header, ipv6, udp, udp4, udp6, FRAGMENT, UDP};

const SERVER_PORT: u16 = 2000;

fn datagram(sequence: u64, flags: u32) -> Vec<u8> {
    let mut payload = vec![0u8; 100];
    write_header(
        &mut payload,
        Header {
            sequence,
            sent_ns: 0,
            flags,
        },
    );
    payload
}

fn run(received: u64) -> RunResult {
    let mut arm = fx::arm("v6", IpFamily::V6, ArmPath::Native);
    arm.marking.dscp = Some(Dscp::new(46).unwrap());
    let spec = fx::spec(TestKind::UdpStream, 100);
    let observations = Observations {
        udp: Some(UdpReceiveCounters {
            sent: received,
            received,
            ..UdpReceiveCounters::default()
        }),
        ..Observations::default()
    };
    let mut trial = fx::trial(0, &spec, &arm, 0, fx::ok(observations));
    trial.started_at_unix_ms = 1_000;
    trial.remote_address = Some(format!("[fd00::2]:{SERVER_PORT}"));
    fx::result(fx::config(vec![spec], vec![arm]), vec![trial])
}

fn packets() -> Vec<Vec<u8>> {
    let to_server = (40_000, SERVER_PORT);
    let ef = 46 << 2;
    let mut packets = vec![
        udp6(ef, 9, to_server, &hello(1, 0)),
        udp6(ef, 9, to_server, &datagram(0, FLAG_WARMUP)),
    ];
    for sequence in 0..3 {
        packets.push(udp6(ef, 9, to_server, &datagram(sequence, 0)));
    }
    // The fourth measured datagram, fragmented: first and later fragment.
    let mut first = fragment_header(UDP, 0, true, 77);
    first.extend_from_slice(&udp(to_server, &datagram(3, 0))[..48]);
    packets.push(ipv6(ef, 9, FRAGMENT, &first));
    let mut later = fragment_header(UDP, 6, false, 77);
    later.extend_from_slice(&[0; 60]);
    packets.push(ipv6(ef, 9, FRAGMENT, &later));
    // A reply from the server, another flow, and an IPv4 packet to the port.
    packets.push(udp6(0, 3, (SERVER_PORT, 40_000), &[0; 8]));
    packets.push(udp6(ef, 9, (40_001, 5_000), &datagram(0, 0)));
    packets.push(udp4(ef, to_server, &datagram(9, 0)));
    packets
}

fn check(received: u64) -> WireCheck {
    check_run(run(received))
}

fn check_run(mut result: RunResult) -> WireCheck {
    let bytes = packets();
    let captured: Vec<(i64, Packet<'_>)> = bytes
        .iter()
        .map(|l3| (1_000_000_000, crate::packet::decode(l3).unwrap()))
        .collect();
    let facts = CaptureFacts {
        interface: "veth0".into(),
        host: CaptureHost::Server,
        dropped: Some(0),
    };
    attach(&mut result, &captured, &facts);
    let TrialOutcome::Ok(observations) = &result.trials[0].outcome else {
        panic!("the trial is ok");
    };
    observations.wire.clone().unwrap()
}

#[test]
fn a_trial_counts_its_flow_tells_measured_from_warm_up_and_pairs_fragments() {
    let wire = check(4);
    assert_eq!(wire.side, WireSide::Receiver);
    assert_eq!(wire.interface, "veth0");
    let seen = &wire.seen;
    // hello + warm-up + 3 measured + 2 fragments + the IPv4 packet.
    assert_eq!(seen.packets, 8);
    assert_eq!(seen.reverse_packets, 1);
    assert_eq!(seen.measured_datagrams, Some(5));
    assert_eq!(seen.warmup_datagrams, Some(1));
    assert_eq!(seen.fragments, 2);
    assert_eq!((seen.ipv4_packets, seen.ipv6_packets), (1, 8));
    assert_eq!(
        seen.dscp,
        vec![
            WireValueCount {
                value: 0,
                packets: 1
            },
            WireValueCount {
                value: 46,
                packets: 8
            }
        ]
    );
    assert_eq!(wire.expected.datagrams, Some(4));
    assert_eq!(wire.expected.dscp, Some(46));
    assert_eq!(
        wire.findings,
        vec![
            WireFinding::CountMismatch {
                seen: 5,
                expected: 4
            },
            WireFinding::BytesMismatch {
                seen: 500,
                expected: 400
            },
            WireFinding::WrongFamily {
                expected: IpFamily::V6,
                packets: 1
            },
            WireFinding::WrongDscp {
                expected: 46,
                seen: 0,
                packets: 1
            },
        ]
    );
}

#[test]
fn a_capture_matching_the_engine_count_has_no_count_finding() {
    let wire = check(5);
    assert!(!wire
        .findings
        .iter()
        .any(|f| matches!(f, WireFinding::CountMismatch { .. })));
}

/// The run with flow label 9 asked (the client's packets carry 9, the
/// server's reply 3) and the server reporting `server_label`.
fn labelled(server_label: Option<u32>) -> WireCheck {
    let mut result = run(5);
    result.config.arms[0].marking.flow_label = Some(dualperf_model::FlowLabel::new(9).unwrap());
    if let TrialOutcome::Ok(observations) = &mut result.trials[0].outcome {
        observations.server_socket = Some(dualperf_model::SocketFacts {
            dscp: Some(Dscp::new(46).unwrap()),
            flow_label: server_label.map(|l| dualperf_model::FlowLabel::new(l).unwrap()),
            ..dualperf_model::SocketFacts::default()
        });
    }
    check_run(result)
}

fn label_findings(wire: &WireCheck) -> Vec<WireFinding> {
    wire.findings
        .iter()
        .filter(|f| matches!(f, WireFinding::WrongFlowLabel { .. }))
        .cloned()
        .collect()
}

#[test]
fn flow_labels_are_counted_per_end_and_each_end_held_to_what_it_reported() {
    // The server claims label 9 but its reply carries 3: a finding about
    // the server's packets only.
    let wire = labelled(Some(9));
    assert_eq!(
        wire.seen.client_flow_labels,
        vec![WireValueCount {
            value: 9,
            packets: 7
        }]
    );
    assert_eq!(
        wire.seen.server_flow_labels,
        vec![WireValueCount {
            value: 3,
            packets: 1
        }]
    );
    assert_eq!(
        (wire.expected.flow_label, wire.expected.server_flow_label),
        (Some(9), Some(9))
    );
    assert_eq!(
        label_findings(&wire),
        vec![WireFinding::WrongFlowLabel {
            expected: 9,
            seen: 3,
            packets: 1,
            sender: Some(WireEnd::Server),
        }]
    );
    // The server reported the kernel's automatic label: its packets are
    // not held to 9, and the client's agree.
    let wire = labelled(None);
    assert_eq!(wire.expected.server_flow_label, None);
    assert!(wire.expected.server_label_automatic);
    assert_eq!(label_findings(&wire), vec![]);
}
