//! `dualperf run -L 12345 --verify-wire` between two network namespaces,
//! tcp-stream, tcp-rr and udp-stream, forward and reversed (`-R`): the
//! capture on the client's veth counts the IPv6 packets of each end by flow
//! label, and every one of the client's and of the server's carries 12345
//! (the server reflects the label on its accepted TCP connections, which
//! its namespace allows with `net.ipv6.flowlabel_consistency=0`, and
//! connects its UDP sockets with it). Then the server's namespace forbids
//! reflection: the listener passes the label on by inheritance
//! (`dualperf_engine::server::listener_label`), and the server's TCP
//! packets still carry 12345. (A server that cannot label at all is held
//! to the automatic label it reports: the wire crate's and the report
//! crate's unit tests.) Needs root, `ip` and `tcpdump`; skips without them
//! unless DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

#[path = "common/netns_pair.rs"]
mod netns_pair;
use netns_pair::{sh, Lab};

use dualperf_model::{IpFamily, RunResult, TestKind, TrialOutcome, WireCheck, WireFinding};

const PORT: &str = "5197";
const LABEL: u32 = 12345;

/// Runs `dualperf run -L 12345 --verify-wire` with `extra` flags; the
/// result and the terminal output.
fn run(lab: &Lab, tests: &str, extra: &[&str]) -> (RunResult, String) {
    let mut args = vec!["--v4", "10.227.0.2", "--v6", "fd20:27::2", "-p", PORT];
    args.extend(["-L", "12345", "--no-store", "--repeat", "1", "--verbose"]);
    args.extend(["-t", "0.3", "--warmup", "0.1", "-b", "20M", "--verify-wire"]);
    args.extend(["--tests", tests]);
    args.extend(extra);
    lab.run(&args)
}

/// The IPv6 trials' wire checks, with their test kind.
fn ipv6_checks(result: &RunResult) -> Vec<(TestKind, bool, WireCheck)> {
    result
        .trials
        .iter()
        .filter(|t| t.family == IpFamily::V6)
        .map(|trial| {
            let TrialOutcome::Ok(observations) = &trial.outcome else {
                panic!("a trial failed: {trial:?}");
            };
            let wire = observations.wire.clone().expect("a wire check per trial");
            (trial.spec.kind, trial.spec.reverse, wire)
        })
        .collect()
}

/// Packets carrying `label`, and packets carrying any other.
fn split(counts: &[dualperf_model::WireValueCount], label: u32) -> (u64, u64) {
    let with: u64 = counts
        .iter()
        .filter(|c| c.value == label)
        .map(|c| c.packets)
        .sum();
    let without: u64 = counts
        .iter()
        .filter(|c| c.value != label)
        .map(|c| c.packets)
        .sum();
    (with, without)
}

#[test]
fn every_ipv6_data_packet_of_both_ends_carries_the_label_with_or_without_reflection() {
    let Some(mut lab) = Lab::or_skip("dpfl", 27, "tcpdump") else {
        return;
    };
    lab.serve(PORT).unwrap();

    let mut seen_kinds = Vec::new();
    for extra in [&[][..], &["-R"][..]] {
        let (result, _) = run(&lab, "tcp-stream,tcp-rr,udp-stream", extra);
        for (kind, reverse, wire) in ipv6_checks(&result) {
            let client = split(&wire.seen.client_flow_labels, LABEL);
            let server = split(&wire.seen.server_flow_labels, LABEL);
            eprintln!(
                "{kind:?} reverse={reverse}: client {} with {LABEL}, {} without; \
                 server {} with, {} without",
                client.0, client.1, server.0, server.1
            );
            assert_eq!(wire.expected.flow_label, Some(LABEL), "{wire:?}");
            assert_eq!(wire.expected.server_flow_label, Some(LABEL), "{wire:?}");
            // Every packet of either end carries the label; the data
            // sender sends many, and so does the other end except under
            // udp-stream (nothing back but the client's hello).
            assert!(client.1 == 0 && server.1 == 0, "{kind:?}: {wire:?}");
            let least = |sends_data: bool| match (kind, sends_data) {
                (TestKind::UdpStream, false) => 0,
                _ => 10,
            };
            assert!(client.0 >= least(!reverse), "{kind:?}: {wire:?}");
            assert!(server.0 >= least(reverse), "{kind:?}: {wire:?}");
            // Counts are verify_wire_netns's business (and suffer on a
            // contended machine); the labels are this test's.
            assert!(
                !wire
                    .findings
                    .iter()
                    .any(|f| matches!(f, WireFinding::WrongFlowLabel { .. })),
                "{kind:?}: {wire:?}"
            );
            seen_kinds.push((kind, reverse));
        }
    }
    assert_eq!(seen_kinds.len(), 6, "three kinds, both directions");

    // Without reflection (the namespace forbids it) the server's listener
    // passes the label on by inheritance: its TCP packets still carry it,
    // tcp-stream forward and reversed, tcp-rr.
    sh(&[
        "ip",
        "netns",
        "exec",
        &lab.server,
        "sysctl",
        "-qw",
        "net.ipv6.flowlabel_consistency=1",
    ])
    .unwrap();
    for extra in [&[][..], &["-R"][..]] {
        let (result, stdout) = run(&lab, "tcp-stream,tcp-rr", extra);
        for (kind, reverse, wire) in ipv6_checks(&result) {
            let client = split(&wire.seen.client_flow_labels, LABEL);
            let server = split(&wire.seen.server_flow_labels, LABEL);
            eprintln!(
                "no reflection, {kind:?} reverse={reverse}: client {} with {LABEL}, {} without; \
                 server {} with, {} without",
                client.0, client.1, server.0, server.1
            );
            assert_eq!(wire.expected.server_flow_label, Some(LABEL), "{wire:?}");
            assert!(client.0 >= 10 && client.1 == 0, "{kind:?}: {wire:?}");
            assert!(server.0 >= 10 && server.1 == 0, "{kind:?}: {wire:?}");
            assert!(
                !wire
                    .findings
                    .iter()
                    .any(|f| matches!(f, WireFinding::WrongFlowLabel { .. })),
                "{wire:?}"
            );
        }
        assert!(!stdout.contains("marking: "), "{stdout}");
    }
}
