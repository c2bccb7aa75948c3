//! End to end through a translator: `dualperf lab nat64 --quick` measures an
//! IPv6-only client reaching an IPv4-only server through NAT64 (TAYGA on
//! this kernel) beside native IPv4, through the same pipeline as every lab
//! run. The server sees the NAT64 arm's sessions over IPv4, which is what
//! the arm is; the result records which translator ran and how much CPU it
//! wanted. Needs root and TAYGA: skipped with a message locally, required
//! when DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/lab_run.rs"]
mod lab_run;
#[path = "common/privileged.rs"]
mod privileged;

use std::process::Command;

use dualperf_model::{IpFamily, TrialOutcome};

#[test]
fn the_nat64_arm_is_measured_against_native_ipv4_and_the_translator_is_recorded() {
    if !privileged::ready(&["tayga"]) {
        return;
    }
    let (stdout, result) =
        lab_run::lab("nat64", &["nat64", "--quick", "--tests", "udp-rr"]).succeeded();
    let ids: Vec<&str> = result.config.arms.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["v4", "v6-nat64"]);
    let nat64: Vec<_> = result
        .trials
        .iter()
        .filter(|t| t.arm.as_str() == "v6-nat64")
        .collect();
    assert_eq!(nat64.len(), 3);
    for trial in nat64 {
        assert!(
            matches!(trial.outcome, TrialOutcome::Ok(_)),
            "{:?}",
            trial.outcome
        );
        assert_eq!(trial.family, IpFamily::V6, "the client's sockets are IPv6");
        assert_eq!(
            trial.server_seen_family,
            Some(IpFamily::V4),
            "the server sees the translated session over IPv4"
        );
    }
    let testbed = result.testbed.unwrap();
    assert!(
        testbed
            .mechanisms
            .iter()
            .any(|m| m.implementation == "tayga" || m.implementation == "jool"),
        "{:?}",
        testbed.mechanisms
    );
    assert!(
        stdout.contains("IPv6 via NAT64"),
        "the verdict names the arm: {stdout}"
    );
    let left = Command::new("ip").args(["netns", "list"]).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&left.stdout).contains(testbed.run_id.as_str()),
        "the testbed is removed"
    );
}
