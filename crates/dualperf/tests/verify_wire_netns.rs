//! `dualperf run --verify-wire` between two network namespaces: the
//! capture on the client's veth (the receiving end with `-R`) agrees with
//! the engine within 0.1 % for both families' udp-stream datagrams, and
//! every packet carries `-S ef -L 12345`; then an nftables rule in the
//! server namespace remarks UDP to CS1 and the check must say so and
//! withhold significance. Needs root, `ip`, `nft` and `tcpdump`; skips
//! without them unless DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

#[path = "common/netns_pair.rs"]
mod netns_pair;
use netns_pair::{sh, Lab};

use dualperf_model::{ComparisonWarning, RunResult, TestKind, TrialOutcome, WireFinding};

const PORT: &str = "5198";

/// Two repetitions of reversed udp-stream and tcp-stream, `-S ef -L 12345`,
/// with `--verify-wire`.
fn run(lab: &Lab) -> RunResult {
    let mut args = vec!["--v4", "10.208.0.2", "--v6", "fd20:8::2", "-p", PORT];
    args.extend([
        "-S",
        "ef",
        "-L",
        "12345",
        "--no-store",
        "--repeat",
        "2",
        "-R",
    ]);
    args.extend(["-t", "0.4", "--warmup", "0.1", "-b", "20M", "--verify-wire"]);
    args.extend(["--tests", "udp-stream,tcp-stream"]);
    lab.run(&args).0
}

#[test]
fn the_capture_agrees_with_the_engine_and_a_remarking_rule_is_found() {
    let Some(mut lab) = Lab::or_skip("dpvw", 8, "tcpdump") else {
        return;
    };
    lab.serve(PORT).unwrap();

    let result = run(&lab);
    let mut udp_checked = 0;
    for trial in &result.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            panic!("a trial failed: {trial:?}");
        };
        let wire = observations
            .wire
            .as_ref()
            .expect("every trial has a wire check");
        assert!(wire.findings.is_empty(), "{:?}: {:?}", trial.arm, wire);
        assert!(wire.seen.dscp.iter().all(|c| c.value == 46), "{wire:?}");
        if trial.spec.kind == TestKind::UdpStream {
            let (seen, expected) = (
                wire.seen.measured_datagrams.unwrap(),
                wire.expected.datagrams.unwrap(),
            );
            eprintln!(
                "{} udp-stream: capture {seen} measured datagrams, engine {expected} ({} packets in all, {} warm-up)",
                trial.arm,
                wire.seen.packets,
                wire.seen.warmup_datagrams.unwrap()
            );
            assert!(seen > 100);
            assert!(seen.abs_diff(expected) as f64 <= expected as f64 * 0.001);
            udp_checked += 1;
        }
        if trial.family == dualperf_model::IpFamily::V6 {
            assert!(
                wire.seen.flow_labels.iter().all(|c| c.value == 12345),
                "{wire:?}"
            );
        }
    }
    assert_eq!(udp_checked, 4, "both families, two repetitions");

    // Remark the server's UDP to CS1 on its way out: the wire must disagree.
    for rule in [
        "add table inet dpvw",
        "add chain inet dpvw post { type filter hook postrouting priority 0 ; }",
        "add rule inet dpvw post meta l4proto udp ip dscp set cs1",
        "add rule inet dpvw post meta l4proto udp ip6 dscp set cs1",
    ] {
        let mut args = vec!["ip", "netns", "exec", &lab.server, "nft"];
        args.extend(rule.split(' '));
        sh(&args).unwrap();
    }
    let result = run(&lab);
    let remarked = result
        .trials
        .iter()
        .filter(|t| t.spec.kind == TestKind::UdpStream)
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => o.wire.clone(),
            TrialOutcome::Failed { .. } => None,
        })
        .filter(|w| {
            w.findings.iter().any(|f| {
                matches!(
                    f,
                    WireFinding::WrongDscp {
                        expected: 46,
                        seen: 8,
                        ..
                    }
                )
            })
        })
        .count();
    assert_eq!(remarked, 4, "every udp-stream trial is found remarked");
    let analysis = result.analysis.as_ref().unwrap();
    let udp_comparison = analysis.comparisons.iter().find(|c| c.point == 0).unwrap();
    assert!(!udp_comparison.significant);
    assert!(udp_comparison
        .warnings
        .iter()
        .any(|w| matches!(w, ComparisonWarning::WireMismatch { .. })));
}
