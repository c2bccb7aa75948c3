//! End to end: iperf3's `-k`/`-n` on `dualperf run --loopback`. Every
//! udp-stream trial sends exactly its budget, the plan records it, the
//! terminal says every budget was sent; refused combinations exit 2.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::process::Command;

use dualperf_model::{RunResult, SendBudget, TrialOutcome};

fn dualperf(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(args)
        .arg("--no-store")
        .output()
        .unwrap()
}

#[test]
fn a_packet_budget_anywhere_on_the_line_sends_exactly_that_many_datagrams() {
    let json = std::env::temp_dir().join(format!("dpe-budget-{}.json", std::process::id()));
    let output = dualperf(&[
        "run",
        "-u",
        "-k",
        "3K",
        "--loopback",
        "-l",
        "512",
        "-b",
        "50M",
        "--repeat",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("send budget: all 4 udp-stream trials sent their budget (3072 packets"),
        "{stdout}"
    );
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    let point = &result.config.points[0];
    assert_eq!(point.send_budget, Some(SendBudget::Packets(3072)));
    assert_eq!(point.duration_ms, 30_000, "the default cap");
    assert_eq!(result.trials.len(), 4);
    for trial in &result.trials {
        let TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{:?}", trial.outcome)
        };
        assert_eq!(o.sender.packets, 3072);
        assert_eq!(o.udp.as_ref().unwrap().sent, 3072);
        // 3072 datagrams at 50 Mbit/s take about 0.25 s, not the 30 s cap.
        assert!(o.measured_ns < 10_000_000_000, "{}", o.measured_ns);
    }
}

#[test]
fn refused_budgets_exit_2_with_the_reason() {
    for (args, reason) in [
        (vec!["run", "--loopback", "-u", "-k", "10", "-R"], "-R"),
        (
            vec!["run", "--loopback", "--tests", "tcp-rr", "-n", "1M"],
            "neither",
        ),
        (vec!["run", "--loopback", "-u", "-k", "0"], "0"),
        (
            vec!["run", "--loopback", "-u", "-k", "10", "-n", "10"],
            "cannot be used",
        ),
        (vec!["run", "--loopback", "-u", "-k", "lots"], "lots"),
    ] {
        let output = dualperf(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
    }
}
