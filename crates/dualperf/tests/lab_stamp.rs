//! `dualperf lab p2p --peer stamp --quick`: STAMP arms in a lab testbed. The
//! server node runs `dualperf serve --stamp` on the lab's port; the client's
//! udp-probe points are STAMP sessions, IPv4 and IPv6, each answered in
//! full on the clean link, with the terminal's STAMP block per family.
//!
//! Needs root: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::process::Command;

use dualperf_model::{PeerKind, RunResult, TestKind, TrialOutcome};

#[test]
fn a_lab_testbed_runs_stamp_arms_in_both_families() {
    if !privileged::ready(&[]) {
        return;
    }
    let folder = std::env::temp_dir().join(format!("dpt-lab-stamp-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["lab", "p2p", "--peer", "stamp", "--quick", "--no-store"])
        .arg("--results")
        .arg(&folder)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("STAMP reflector"), "{stdout}");
    for family in ["IPv4", "IPv6"] {
        let line = format!("] {family}: 150 of 150 answered; lost 0 forward, 0 back");
        assert!(stdout.contains(&line), "no `{line}` in\n{stdout}");
    }
    let run = std::fs::read_dir(&folder)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let result: RunResult =
        serde_json::from_slice(&std::fs::read(run.join("result.json")).unwrap()).unwrap();
    std::fs::remove_dir_all(&folder).unwrap();
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
