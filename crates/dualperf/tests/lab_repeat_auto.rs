//! `dualperf lab --repeat auto`: the measuring child in the client node
//! repeats each point until its headline metric is precise (3 to 10
//! interleaved repetitions per arm), as `run --repeat auto` does — the lab
//! hands it the execution in the typed plan file, not as flags. Needs
//! root: skipped locally, required when DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/lab_run.rs"]
mod lab_run;
#[path = "common/privileged.rs"]
mod privileged;

#[test]
fn the_lab_child_repeats_until_precise() {
    if !privileged::ready(&[]) {
        return;
    }
    let run = lab_run::lab(
        "auto",
        &[
            "router",
            "--tests",
            "tcp-rr",
            "--sizes",
            "64",
            "-t",
            "0.1",
            "--repeat",
            "auto",
            "--rerun-contended",
            "1",
        ],
    );
    let plan = run.plan.clone().expect("the lab writes plan.json");
    let stderr = run.stderr.clone();
    let (_, result) = run.succeeded();
    let target = plan.execution.until_precise.expect("the plan says auto");
    assert_eq!((target.min_repetitions, target.max_repetitions), (3, 10));
    assert_eq!(plan.execution.rerun_contended, 1);
    let count = |arm: &str| {
        result
            .trials
            .iter()
            .filter(|t| t.arm.as_str() == arm)
            .count()
    };
    let (v4, v6) = (count("v4"), count("v6"));
    eprintln!("--repeat auto in the lab: {v4} repetitions per arm");
    assert_eq!(v4, v6, "every arm repeats alike");
    assert!((3..=10).contains(&v4), "{v4} repetitions");
    assert_eq!(result.config.repeat as usize, v4, "the count is recorded");
    assert!(
        stderr.contains("repetitions per arm)"),
        "the child's progress says it adapts: {stderr}"
    );
}
