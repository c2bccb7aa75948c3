//! End to end: iperf3's `-k`/`-n` on `dualperf run --loopback`. Every
//! udp-stream trial sends exactly its budget, the plan records it, the
//! terminal says every budget was sent, also when the server sends it
//! (`-u -k N -R`); refused combinations exit 2.

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
        (
            vec![
                "run",
                "--loopback",
                "--tests",
                "tcp-stream",
                "-n",
                "1M",
                "-R",
            ],
            "-R",
        ),
        (
            vec!["run", "--loopback", "-u", "-k", "10", "--bidir"],
            "--bidir",
        ),
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

/// `-u -k 2K -R`: the server sends the budget, as iperf3's does with -R;
/// the client ends each trial when the last datagram came, not at the cap.
#[test]
fn a_packet_budget_with_reverse_is_sent_by_the_server_and_ends_the_trial() {
    let json = std::env::temp_dir().join(format!("dpe-budget-r-{}.json", std::process::id()));
    let began = std::time::Instant::now();
    let output = dualperf(&[
        "run",
        "--loopback",
        "-4",
        "-u",
        "-k",
        "2K",
        "-R",
        "-b",
        "50M",
        "--repeat",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let took = began.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("send budget: all 1 udp-stream trials sent their budget (2048 packets"),
        "{stdout}"
    );
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    assert!(result.config.points[0].reverse);
    let TrialOutcome::Ok(o) = &result.trials[0].outcome else {
        panic!("{:?}", result.trials[0].outcome)
    };
    // The server's count of what it sent; the client received it.
    assert_eq!(o.sender.packets, 2048);
    let udp = o.udp.as_ref().unwrap();
    assert_eq!(udp.sent, 2048);
    assert!(udp.received >= 2000, "{udp:?}");
    // 2048 datagrams of 1024 B at 50 Mbit/s take about 0.35 s, not the 30 s cap.
    assert!(took < std::time::Duration::from_secs(8), "took {took:?}");
}
