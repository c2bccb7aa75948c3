//! Splits a capture into the run's trials and compares each trial's data
//! flow with what the engine reported (docs/metrics.md, "Wire verification").
//!
//! A trial's data flow is every TCP or UDP packet (the kind's transport)
//! to or from the server's data port of the trial (`Trial.remote_address`,
//! ephemeral and fresh per trial, never the control port) captured between
//! the trial's start and the next trial's start, plus the later fragments
//! of its fragmented datagrams (matched by addresses and identification).
//! For udp-stream the payload's dualperf header tells measured datagrams
//! from warm-up ones, so the counts compared are of the measured interval.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};

use dualperf_model::datagram::{read_header, read_hello, FLAG_WARMUP, HELLO_BYTES};
use dualperf_model::wire::relative_difference;
use dualperf_model::{
    ArmPath, IpFamily, RunResult, TestKind, Trial, TrialOutcome, WireCheck, WireCounts, WireEnd,
    WireExpected, WireFinding, WireSide, WireValueCount, WIRE_TOLERANCE_RATIO,
};

use crate::packet::{Encapsulation, Fragment, Packet, Protocol};

/// Which end's host the capture ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureHost {
    /// The server's (a lab's server node): the receiving end of forward tests.
    Server,
    /// The client's (`dualperf run`): the receiving end of `--reverse` tests.
    Client,
}

/// What the capture was and where.
#[derive(Clone, Debug)]
pub struct CaptureFacts {
    /// Interface captured on.
    pub interface: String,
    /// Whose host.
    pub host: CaptureHost,
    /// Packets the capture dropped, if it said.
    pub dropped: Option<u64>,
}

/// Slack after a trial's planned end when no later trial bounds it, ns.
const TAIL_NS: i64 = 10_000_000_000;
/// Slack before a trial's recorded start (clock reads of the two ends), ns.
const HEAD_NS: i64 = 50_000_000;

/// Sets `Observations.wire` of every successful trial of `result` from
/// the packets captured (`(time_ns, packet)`, in capture order).
pub fn attach(result: &mut RunResult, packets: &[(i64, Packet<'_>)], facts: &CaptureFacts) {
    let mut starts: Vec<i64> = result
        .trials
        .iter()
        .map(|t| t.started_at_unix_ms as i64 * 1_000_000)
        .collect();
    starts.sort_unstable();
    let arms = result.config.arms.clone();
    for trial in &mut result.trials {
        let start = trial.started_at_unix_ms as i64 * 1_000_000;
        let end = starts.iter().copied().find(|&s| s > start).unwrap_or(
            start + (trial.spec.warmup_ms + trial.spec.duration_ms) as i64 * 1_000_000 + TAIL_NS,
        );
        let path = arms
            .iter()
            .find(|a| a.id == trial.arm)
            .map(|a| (a.path.clone(), a.marking));
        let Some(check) = check_trial(trial, packets, (start - HEAD_NS, end), path, facts) else {
            continue;
        };
        if let TrialOutcome::Ok(observations) = &mut trial.outcome {
            observations.wire = Some(check);
        }
    }
}

/// The wire check of one trial; `None` for a failed trial or one without
/// a recorded server address.
fn check_trial(
    trial: &Trial,
    packets: &[(i64, Packet<'_>)],
    (from, to): (i64, i64),
    arm: Option<(ArmPath, dualperf_model::Marking)>,
    facts: &CaptureFacts,
) -> Option<WireCheck> {
    let TrialOutcome::Ok(observations) = &trial.outcome else {
        return None;
    };
    let server: SocketAddr = trial.remote_address.as_deref()?.parse().ok()?;
    let port = server.port();
    let protocol = if trial.spec.kind.is_udp() {
        Protocol::Udp
    } else {
        Protocol::Tcp
    };
    let (path, marking) = arm.unwrap_or_default();
    // Data flows client → server unless reversed (rr and connect: requests).
    let to_server_is_data = !trial.spec.reverse;
    let side = match (facts.host, to_server_is_data) {
        (CaptureHost::Server, true) | (CaptureHost::Client, false) => WireSide::Receiver,
        _ => WireSide::Sender,
    };
    let stream = trial.spec.kind == TestKind::UdpStream;
    let mut seen = WireCounts {
        measured_datagrams: stream.then_some(0),
        measured_payload_bytes: stream.then_some(0),
        warmup_datagrams: stream.then_some(0),
        ..WireCounts::default()
    };
    let mut dscp: BTreeMap<u32, u64> = BTreeMap::new();
    let mut labels: BTreeMap<u32, u64> = BTreeMap::new();
    let mut client_labels: BTreeMap<u32, u64> = BTreeMap::new();
    let mut server_labels: BTreeMap<u32, u64> = BTreeMap::new();
    // First fragments of the flow → whether they went in the data direction.
    let mut fragmented: HashMap<(IpAddr, IpAddr, u32), bool> = HashMap::new();
    let window = packets.iter().filter(|(t, _)| (from..to).contains(t));
    let mut count = |packet: &Packet<'_>, data: bool, seen: &mut WireCounts| {
        if data {
            seen.packets += 1;
            seen.ip_bytes += u64::from(packet.ip_bytes);
        } else {
            seen.reverse_packets += 1;
            seen.reverse_ip_bytes += u64::from(packet.ip_bytes);
        }
        match packet.family {
            IpFamily::V4 => seen.ipv4_packets += 1,
            IpFamily::V6 => seen.ipv6_packets += 1,
        }
        *dscp.entry(u32::from(packet.dscp)).or_default() += 1;
        // Resets and handshake packets are not data: Linux sends a reset,
        // and a listener's SYN-ACK, with a label of its own choosing.
        let control = packet.transport.is_some_and(|t| t.tcp_reset || t.tcp_syn);
        if let (Some(label), false) = (packet.flow_label, control) {
            *labels.entry(label).or_default() += 1;
            // Data goes to the server unless reversed, so a packet came
            // from the client when its direction matches that.
            let by_client = data == to_server_is_data;
            let by_end = if by_client {
                &mut client_labels
            } else {
                &mut server_labels
            };
            *by_end.entry(label).or_default() += 1;
        }
        if packet.fragment.is_some() {
            seen.fragments += 1;
        }
        match packet.encapsulation {
            Encapsulation::SixInFour => seen.six_in_four += 1,
            Encapsulation::FourInSix => seen.four_in_six += 1,
            Encapsulation::None => {}
        }
    };
    for (_, packet) in window.clone() {
        let Some(transport) = packet.transport.filter(|t| t.protocol == protocol) else {
            continue;
        };
        let to_server = transport.destination_port == port;
        if !to_server && transport.source_port != port {
            continue;
        }
        let data = to_server == to_server_is_data;
        count(packet, data, &mut seen);
        if let Some(fragment) = packet.fragment {
            fragmented.insert(
                (packet.source, packet.destination, fragment.identification),
                data,
            );
        }
        if stream && data {
            tally_datagram(packet, transport.udp_payload_bytes, &mut seen);
        }
    }
    for (_, packet) in window {
        if let Some(Fragment {
            identification,
            first: false,
        }) = packet.fragment
        {
            if let Some(&data) =
                fragmented.get(&(packet.source, packet.destination, identification))
            {
                count(packet, data, &mut seen);
            }
        }
    }
    seen.dscp = histogram(dscp);
    seen.flow_labels = histogram(labels);
    seen.client_flow_labels = histogram(client_labels);
    seen.server_flow_labels = histogram(server_labels);
    let family = match (&path, facts.host) {
        (ArmPath::Nat64 { .. }, CaptureHost::Server) => IpFamily::V4,
        _ => trial.family,
    };
    let udp = observations.udp.as_ref();
    let datagrams = match (stream && trial.spec.parallel_streams == 1, side, udp) {
        (true, WireSide::Receiver, Some(udp)) => {
            Some(udp.received + udp.duplicates + observations.receive_buffer_drops.unwrap_or(0))
        }
        (true, WireSide::Sender, Some(udp)) => Some(udp.sent),
        _ => None,
    };
    let asked_label = marking
        .flow_label
        .filter(|_| family == IpFamily::V6)
        .map(|l| l.value());
    // The server's packets are held to what the server reported its socket
    // sends: the asked label, or (reported as such) the kernel's automatic one.
    // A server that recorded its marking read its DSCP back (`Some` even
    // for 0); one that did not (tcp-connect, an iperf3 server) said nothing
    // of its label either.
    let server_reported = observations
        .server_socket
        .as_ref()
        .filter(|socket| socket.dscp.is_some());
    let server_flow_label = asked_label.and(
        server_reported
            .and_then(|socket| socket.flow_label)
            .map(|l| l.value()),
    );
    let server_label_automatic =
        asked_label.is_some() && server_reported.is_some() && server_flow_label.is_none();
    let expected = WireExpected {
        family: Some(family),
        dscp: marking.dscp.map(|d| d.value()),
        flow_label: asked_label,
        server_flow_label,
        server_label_automatic,
        datagrams,
        payload_bytes: datagrams.map(|d| d * u64::from(trial.spec.size_bytes)),
    };
    let findings = findings(&seen, &expected, facts.dropped);
    Some(WireCheck {
        interface: facts.interface.clone(),
        side,
        seen,
        expected,
        capture_dropped: facts.dropped,
        findings,
    })
}

/// Counts a udp-stream datagram of the data direction by its header.
fn tally_datagram(packet: &Packet<'_>, payload_bytes: u32, seen: &mut WireCounts) {
    let payload = packet.payload;
    if payload_bytes as usize == HELLO_BYTES && read_hello(payload).is_some() {
        return;
    }
    let Some(header) = read_header(payload) else {
        return;
    };
    if header.flags & FLAG_WARMUP != 0 {
        if let Some(w) = seen.warmup_datagrams.as_mut() {
            *w += 1;
        }
        return;
    }
    if let Some(m) = seen.measured_datagrams.as_mut() {
        *m += 1;
    }
    if let Some(b) = seen.measured_payload_bytes.as_mut() {
        *b += u64::from(payload_bytes);
    }
}

fn histogram(counts: BTreeMap<u32, u64>) -> Vec<WireValueCount> {
    counts
        .into_iter()
        .map(|(value, packets)| WireValueCount { value, packets })
        .collect()
}

/// The most frequent value other than `wanted`, and how many packets
/// carried anything but `wanted`.
fn others(counts: &[WireValueCount], wanted: u32) -> Option<(u32, u64)> {
    let off: u64 = counts
        .iter()
        .filter(|c| c.value != wanted)
        .map(|c| c.packets)
        .sum();
    let most = counts
        .iter()
        .filter(|c| c.value != wanted)
        .max_by_key(|c| c.packets)?;
    Some((most.value, off))
}

/// What disagrees (docs/metrics.md, "Wire verification").
pub fn findings(
    seen: &WireCounts,
    expected: &WireExpected,
    dropped: Option<u64>,
) -> Vec<WireFinding> {
    let mut findings = Vec::new();
    if seen.packets + seen.reverse_packets == 0 {
        findings.push(WireFinding::NothingCaptured);
        return findings;
    }
    match dropped {
        Some(dropped) if dropped > 0 => {
            findings.push(WireFinding::CaptureIncomplete { dropped });
        }
        _ => {
            if let (Some(seen), Some(expected)) = (seen.measured_datagrams, expected.datagrams) {
                if relative_difference(seen, expected) > WIRE_TOLERANCE_RATIO {
                    findings.push(WireFinding::CountMismatch { seen, expected });
                }
            }
            if let (Some(seen), Some(expected)) =
                (seen.measured_payload_bytes, expected.payload_bytes)
            {
                if relative_difference(seen, expected) > WIRE_TOLERANCE_RATIO {
                    findings.push(WireFinding::BytesMismatch { seen, expected });
                }
            }
        }
    }
    if let Some(family) = expected.family {
        let other = match family {
            IpFamily::V4 => seen.ipv6_packets,
            IpFamily::V6 => seen.ipv4_packets,
        };
        if other > 0 {
            findings.push(WireFinding::WrongFamily {
                expected: family,
                packets: other,
            });
        }
    }
    if let Some(dscp) = expected.dscp {
        if let Some((value, packets)) = others(&seen.dscp, u32::from(dscp)) {
            findings.push(WireFinding::WrongDscp {
                expected: dscp,
                seen: value as u8,
                packets,
            });
        }
    }
    for (sender, wanted, labels) in [
        (
            WireEnd::Client,
            expected.flow_label,
            &seen.client_flow_labels,
        ),
        (
            WireEnd::Server,
            expected.server_flow_label,
            &seen.server_flow_labels,
        ),
    ] {
        let Some(label) = wanted else { continue };
        if let Some((value, packets)) = others(labels, label) {
            findings.push(WireFinding::WrongFlowLabel {
                expected: label,
                seen: value,
                packets,
                sender: Some(sender),
            });
        }
    }
    findings
}

#[cfg(test)]
mod attach_tests;
#[cfg(test)]
mod tests {
    use super::*;

    fn counts(measured: u64, dscp: &[(u32, u64)]) -> WireCounts {
        WireCounts {
            packets: measured + 10,
            measured_datagrams: Some(measured),
            measured_payload_bytes: Some(measured * 1000),
            ipv6_packets: measured + 10,
            dscp: dscp
                .iter()
                .map(|&(value, packets)| WireValueCount { value, packets })
                .collect(),
            ..WireCounts::default()
        }
    }

    fn expected(datagrams: u64) -> WireExpected {
        WireExpected {
            family: Some(IpFamily::V6),
            dscp: Some(46),
            flow_label: None,
            server_flow_label: None,
            server_label_automatic: false,
            datagrams: Some(datagrams),
            payload_bytes: Some(datagrams * 1000),
        }
    }

    #[test]
    fn counts_within_a_thousandth_and_the_asked_dscp_agree() {
        assert_eq!(
            findings(&counts(10_000, &[(46, 10_010)]), &expected(10_009), Some(0)),
            vec![]
        );
    }

    #[test]
    fn a_count_beyond_a_thousandth_and_a_remarked_dscp_are_findings() {
        let found = findings(&counts(10_000, &[(8, 10_010)]), &expected(10_020), Some(0));
        assert_eq!(
            found,
            vec![
                WireFinding::CountMismatch {
                    seen: 10_000,
                    expected: 10_020
                },
                WireFinding::BytesMismatch {
                    seen: 10_000_000,
                    expected: 10_020_000
                },
                WireFinding::WrongDscp {
                    expected: 46,
                    seen: 8,
                    packets: 10_010
                },
            ]
        );
    }

    #[test]
    fn a_lossy_capture_compares_marking_but_not_counts() {
        let found = findings(&counts(9_000, &[(46, 9_010)]), &expected(10_000), Some(5));
        assert_eq!(found, vec![WireFinding::CaptureIncomplete { dropped: 5 }]);
    }
}
