//! `dualperf lab gigabit --quick`: the Gigabit UDP study (seed 004) on a
//! 1 Gbit/s point-to-point testbed. Every udp-stream trial ends at its
//! send budget (10,000 datagrams with --quick), the per-family means over
//! sizes are printed with the regime of each size, and the testbed is
//! gone afterwards.
//!
//! Needs root: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

#[path = "common/lab_run.rs"]
mod lab_run;

use std::process::Command;
use std::time::Duration;

use dualperf_model::{SendBudget, TestKind, TrialOutcome};

#[test]
fn lab_gigabit_quick_sends_every_budget_and_prints_the_means_over_sizes() {
    if !privileged::ready(&[]) {
        return;
    }
    let run = lab_run::lab("lab-gigabit", &["gigabit", "--quick"]);
    let took = run.took;
    let (stdout, result) = run.succeeded();
    assert!(took < Duration::from_secs(40), "took {took:?}");
    assert!(
        stdout.contains("means over 2 sizes (128 … 1408 B)"),
        "{stdout}"
    );
    for row in ["\n  IPv4 ", "\n  IPv6 ", "\n  IPv6 − IPv4 "] {
        assert!(stdout.contains(row), "no row `{row}` in\n{stdout}");
    }
    assert!(stdout.contains("regime:"), "{stdout}");
    assert!(
        stdout.contains("send budget: all 12 udp-stream trials sent their budget (10000 packets"),
        "{stdout}"
    );
    assert_eq!(
        result.trials.len(),
        12,
        "2 sizes × 2 families × 3 repetitions"
    );
    for trial in &result.trials {
        assert_eq!(trial.spec.kind, TestKind::UdpStream);
        assert_eq!(trial.spec.send_budget, Some(SendBudget::Packets(10_000)));
        let TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{:?}", trial.outcome)
        };
        assert_eq!(o.sender.packets, 10_000, "the budget, exactly");
        let udp = o.udp.as_ref().unwrap();
        assert_eq!(udp.sent, 10_000);
        assert_eq!(udp.received + udp.lost, 10_000);
        // The budget ended the trial, long before the 10 s cap.
        assert!(o.measured_ns < 5_000_000_000, "{}", o.measured_ns);
    }
    let rate = result.testbed.as_ref().and_then(|t| t.link_rate);
    assert_eq!(rate, Some(dualperf_model::LinkRate::Topology));
}

#[test]
fn lab_rejects_rate_flags_on_experiments_whose_rates_are_their_design() {
    // No privileges needed: refused before anything is built.
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["lab", "diffserv", "-b", "10M", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("-b applies to"), "{stderr}");
}

/// The plan a dry run prints: the udp-stream points' `rate`.
fn planned_rates(args: &[&str]) -> Vec<u64> {
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(args)
        .args(["--dry-run", "--tests", "udp-stream", "--quick"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let start = stdout.find("<<'EOF'\n").unwrap() + "<<'EOF'\n".len();
    let end = start + stdout[start..].find("\nEOF").unwrap();
    let plan: serde_json::Value = serde_json::from_str(&stdout[start..end]).unwrap();
    plan["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rate"].as_u64().unwrap_or(0))
        .collect()
}

#[test]
fn lab_paces_udp_above_the_bottleneck_by_default_and_at_b_when_given() {
    // No privileges needed: a dry run builds nothing. IPv4's frames a
    // quarter above the link (the --quick size, 1024 B, is one packet in
    // both families: 1.25 × 10 Mbit/s × 1024 / 1066 of payload).
    assert_eq!(planned_rates(&["lab", "bottleneck"]), vec![12_007_504]);
    assert_eq!(
        planned_rates(&["lab", "bottleneck", "-b", "5M"]),
        vec![5_000_000]
    );
    assert_eq!(planned_rates(&["lab", "router"]), vec![120_075_046]);
    assert_eq!(
        planned_rates(&["lab", "router", "--link-rate", "none"]),
        vec![0]
    );
    // iperf3's `-b 0`: unpaced.
    assert_eq!(planned_rates(&["lab", "bottleneck", "-b", "0"]), vec![0]);
}
