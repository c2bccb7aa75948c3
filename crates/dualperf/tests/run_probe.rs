//! End to end: `dualperf run --tests udp-probe` and `--probe` over loopback
//! print the probe rows and keep 10 ms time series in the JSON result.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::process::Command;

use dualperf_model::{RunResult, TestKind, TrialOutcome};

fn run_to_json(args: &[&str], name: &str) -> (String, RunResult) {
    let json = std::env::temp_dir().join(format!("dpp-run-{}-{name}.json", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "run",
            "--loopback",
            "--repeat",
            "1",
            "-t",
            "0.5",
            "--warmup",
            "0.1",
            // The per-metric table has the probe rows. Never touch the
            // user's history.
            "--verbose",
            "--no-store",
        ])
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("running dualperf");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    (stdout, result)
}

#[test]
fn run_udp_probe_prints_ippm_rows_and_keeps_ten_millisecond_intervals() {
    let (stdout, result) = run_to_json(&["--tests", "udp-probe", "-i", "10ms"], "probe");
    for row in [
        "one-way delay p50",
        "PDV p99",
        "IPDV",
        "jitter",
        "loss",
        "reordering",
    ] {
        assert!(stdout.contains(row), "no `{row}` row:\n{stdout}");
    }
    assert!(!stdout.contains("n/a: clocks not shared"), "{stdout}");
    assert_eq!(result.trials.len(), 2);
    for trial in &result.trials {
        assert_eq!(trial.spec.kind, TestKind::UdpProbe);
        let TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{:?}", trial.outcome)
        };
        // 500 ms in 10 ms samples: about 50 intervals, each with loss and delay.
        assert!(
            (45..=52).contains(&o.intervals.len()),
            "{}",
            o.intervals.len()
        );
        // A sample may run long when the sampler thread is descheduled on a
        // busy machine; on average they are 10 ms.
        let mean_ns =
            o.intervals.iter().map(|i| i.length_ns).sum::<u64>() / o.intervals.len() as u64;
        assert!(
            (9_000_000..12_000_000).contains(&mean_ns),
            "mean sample {mean_ns} ns"
        );
        assert!(o.intervals.iter().any(|i| i.lost_packets == Some(0)));
        assert!(o.udp.as_ref().unwrap().clocks_shared);
    }
}

#[test]
fn run_probe_adds_a_loaded_probe_to_a_tcp_stream() {
    let (stdout, result) = run_to_json(&["--tests", "tcp-stream", "--probe"], "load");
    // The stats stage turns the probe into latency-under-load metrics,
    // named by their catalogue labels in the per-metric table.
    assert!(stdout.contains("one-way delay p50 under load"), "{stdout}");
    assert!(stdout.contains("jitter under load"), "{stdout}");
    for trial in &result.trials {
        let TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{:?}", trial.outcome)
        };
        let probe = o.probe.as_ref().expect("a probe ran alongside");
        assert!(probe.udp.sent > 30, "{}", probe.udp.sent);
    }
}
