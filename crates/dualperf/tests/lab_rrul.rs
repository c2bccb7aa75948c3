//! `dualperf lab rrul --quick`: latency under load in the style of flent's
//! RRUL, the example of an experiment that is only a design (one planner in
//! dualperf-design, one preset, no report code). Checks what issue 22 asks:
//!
//! - it runs in under two minutes and prints the latency of every arm;
//! - the JSON carries the design's contrasts and every comparison is one of
//!   them (IPv6 under load against IPv4 under load, not against IPv4 idle);
//! - bulk TCP up and down fills the 20 Mbit/s bottleneck's queue: the
//!   probes' median one-way delay under load is well above idle in both
//!   families (a known effect the measurement must see).
//!
//! Needs root: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/lab_run.rs"]
mod lab_run;
#[path = "common/privileged.rs"]
mod privileged;

use std::time::Duration;

use dualperf_model::MetricId;

#[test]
fn the_quick_rrul_experiment_sees_the_queue_in_both_families() {
    if !privileged::ready(&[]) {
        return;
    }
    let run = lab_run::lab("rrul", &["rrul", "--quick"]);
    let (took, stdout, stderr) = (run.took, &run.stdout, &run.stderr);
    eprintln!("lab rrul --quick took {took:?}\n{stdout}\n{stderr}");
    assert!(matches!(run.code, Some(0 | 1)), "{stderr}");
    assert!(took < Duration::from_secs(120), "took {took:?}");
    assert!(
        stdout.contains("v6-rrul vs v4-rrul")
            || stdout.contains("IPv6 under RRUL load vs IPv4 under RRUL load"),
        "{stdout}"
    );
    assert!(stdout.contains("values (means)"), "{stdout}");
    let result = run.result.clone().expect("the lab writes result.json");
    assert_eq!(result.config.contrasts.len(), 3);
    let analysis = result.analysis.as_ref().unwrap();
    for c in &analysis.comparisons {
        assert!(
            result
                .config
                .contrasts
                .iter()
                .any(|d| d.arm == c.arm && d.baseline == c.baseline),
            "{} vs {} is not a contrast of the design",
            c.arm,
            c.baseline
        );
    }
    let owd = |arm: &str| {
        analysis
            .summaries
            .iter()
            .find(|s| s.arm.as_str() == arm && s.metric == MetricId::OwdP50Ns && s.point == 0)
            .map(|s| s.summary.mean)
            .unwrap_or_else(|| panic!("no one-way delay p50 on {arm}"))
    };
    for (idle, loaded) in [("v4", "v4-rrul"), ("v6", "v6-rrul")] {
        // 10 ms of emulated delay each way; a 100-packet queue at 20 Mbit/s
        // holds up to 60 ms more. Under load the median must show the queue.
        assert!(owd(idle) > 9e6 && owd(idle) < 20e6, "{idle}: {}", owd(idle));
        assert!(
            owd(loaded) > owd(idle) + 5e6,
            "{loaded}: {} vs idle {}",
            owd(loaded),
            owd(idle)
        );
    }
}
