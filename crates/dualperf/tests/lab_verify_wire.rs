//! `dualperf lab --verify-wire`: tcpdump in the server node (the receiving
//! end) around the measuring child; every trial gets a wire check whose
//! capture holds at least the datagrams the receiver counted, of the arm's
//! family, and the pcap is removed. (Unlimited UDP on a busy machine can
//! leave datagrams unread at the end of a trial: the check reports that as
//! a count mismatch, so agreement within 0.1 % is asserted by the paced
//! namespace-pair test, `verify_wire_netns.rs`.) Needs root and tcpdump:
//! skipped locally, required when DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/lab_run.rs"]
mod lab_run;
#[path = "common/privileged.rs"]
mod privileged;

use dualperf_model::{TestKind, TrialOutcome, WireFinding, WireSide};

#[test]
fn a_lab_run_checks_every_trial_on_the_server_nodes_wire() {
    if !privileged::ready(&["tcpdump"]) {
        return;
    }
    let run = lab_run::lab(
        "wire",
        &[
            "router",
            "--quick",
            "--tests",
            "udp-stream,tcp-rr",
            "--verify-wire",
        ],
    );
    let pcap_left = run.files.iter().any(|name| name == "wire.pcap");
    let (stdout, result) = run.succeeded();
    assert!(!pcap_left, "the pcap is removed once checked");
    assert!(stdout.contains("wire check (--verify-wire):"), "{stdout}");
    for trial in &result.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        let wire = observations.wire.as_ref().expect("a wire check per trial");
        assert_eq!(wire.side, WireSide::Receiver, "forward tests, server node");
        assert!(wire.seen.packets > 0, "{wire:?}");
        assert!(
            !wire.findings.iter().any(|f| matches!(
                f,
                WireFinding::WrongFamily { .. } | WireFinding::NothingCaptured
            )),
            "{wire:?}"
        );
        if trial.spec.kind == TestKind::UdpStream {
            let udp = observations.udp.as_ref().unwrap();
            let seen = wire.seen.measured_datagrams.unwrap();
            eprintln!(
                "{} udp-stream: capture {seen} measured datagrams, engine received {}, sender sent {}",
                trial.arm, udp.received, udp.sent
            );
            assert!(seen >= udp.received && seen <= udp.sent, "{wire:?}");
        }
    }
}
