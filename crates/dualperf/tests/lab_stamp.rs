//! `dualperf lab p2p --peer stamp --quick`: STAMP arms in a lab testbed. The
//! server node runs `dualperf serve --stamp` on the lab's port; the client's
//! udp-probe points are STAMP sessions, IPv4 and IPv6, each answered in
//! full on the clean link, with the terminal's STAMP block per family.
//!
//! Needs root: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/lab_run.rs"]
mod lab_run;
#[path = "common/privileged.rs"]
mod privileged;

use dualperf_model::{PeerKind, TestKind, TrialOutcome};

#[test]
fn a_lab_testbed_runs_stamp_arms_in_both_families() {
    if !privileged::ready(&[]) {
        return;
    }
    let (stdout, result) =
        lab_run::lab("lab-stamp", &["p2p", "--peer", "stamp", "--quick"]).succeeded();
    assert!(stdout.contains("STAMP reflector"), "{stdout}");
    for family in ["IPv4", "IPv6"] {
        let line = format!("] {family}: 150 of 150 answered; lost 0 forward, 0 back");
        assert!(stdout.contains(&line), "no `{line}` in\n{stdout}");
    }
    assert_eq!(result.config.peer, PeerKind::Stamp);
    assert!(result
        .config
        .points
        .iter()
        .all(|p| p.kind == TestKind::UdpProbe));
    assert_eq!(result.trials.len(), 6, "3 repetitions × 2 families");
    for trial in &result.trials {
        let TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{:?}", trial.outcome)
        };
        let stamp = o.stamp.as_ref().unwrap();
        assert_eq!((stamp.sent, stamp.replies), (50, 50));
        assert_eq!(stamp.reflector_stateful, Some(true));
        assert!(
            o.udp.as_ref().unwrap().clocks_shared,
            "the lab's one kernel"
        );
    }
}
