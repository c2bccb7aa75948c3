//! Router CPU for every preset with routers (issue 24, item 7): `dualperf
//! lab tunnel-router-router --quick` (seed 003's router-to-router tunnel)
//! records, for every trial of every arm, the softirq CPU of each of the
//! testbed's three routers (the tunnel's two end routers and the one
//! between them), the analysis summarises it per router and arm, and the
//! terminal shows the table. The 6in4 arm crosses the tunnel ends, so its
//! end routers must have done work. Needs root: skipped with a message
//! locally, required when DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

#[path = "common/lab_run.rs"]
mod lab_run;

use dualperf_model::TrialOutcome;

#[test]
fn every_arm_of_a_routed_preset_carries_each_routers_cpu() {
    if !privileged::ready(&[]) {
        return;
    }
    let (stdout, result) = lab_run::lab(
        "rcpu",
        &[
            "tunnel-router-router",
            "--quick",
            "--tests",
            "udp-rr",
            "-t",
            "0.3",
            "--repeat",
            "2",
            "-p",
            "5392",
        ],
    )
    .succeeded();
    eprintln!("{stdout}");
    let routers: Vec<&str> = result
        .testbed
        .as_ref()
        .unwrap()
        .nodes
        .iter()
        .filter(|n| n.role == "router")
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(routers.len(), 3, "{routers:?}");
    assert!(result.config.arms.len() >= 2);
    for trial in &result.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            panic!("a trial failed: {:?}", trial.outcome);
        };
        let mut seen: Vec<&str> = observations
            .routers
            .iter()
            .map(|r| r.node.as_str())
            .collect();
        seen.sort_unstable();
        let mut want = routers.clone();
        want.sort_unstable();
        assert_eq!(seen, want, "{}: every router's CPU", trial.arm);
        assert!(observations.routers.iter().all(|r| r.wall_ns > 0));
    }
    let analysis = result.analysis.as_ref().unwrap();
    for arm in &result.config.arms {
        for router in &routers {
            let summary = analysis
                .routers
                .iter()
                .find(|r| r.arm == arm.id && r.node == *router)
                .unwrap_or_else(|| panic!("{} has no CPU of {router}", arm.label));
            eprintln!(
                "{} {router}: {:.1} % of one CPU",
                arm.label,
                summary.summary.mean * 100.0
            );
        }
    }
    // The tunnelled arm's packets are encapsulated and decapsulated on the
    // tunnel's end routers: they worked during its trials.
    let tunnelled = result
        .config
        .arms
        .iter()
        .find(|a| a.path != dualperf_model::ArmPath::Native)
        .unwrap();
    let busy = analysis
        .routers
        .iter()
        .filter(|r| r.arm == tunnelled.id && r.summary.mean > 0.0)
        .count();
    assert!(busy >= 2, "{:?}", analysis.routers);
    assert!(
        stdout.contains("Router CPU, % of one CPU"),
        "the terminal shows it: {stdout}"
    );
    let notes = &result.testbed.as_ref().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("router CPU = softirq time")),
        "{notes:?}"
    );
}
