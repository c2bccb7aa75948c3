//! End to end: the `dualperf` binary measures 127.0.0.1 against ::1 with an
//! in-process server and writes a valid result document.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::process::Command;

use dualperf_model::{IpFamily, RunResult, TrialOutcome};

/// The binary, with its results database in a per-process temporary file
/// so tests never write into the user's history.
fn dualperf() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dualperf"));
    command.env(
        "DUALPERF_DB",
        std::env::temp_dir().join(format!("dpe-db-{}.sqlite", std::process::id())),
    );
    command
}

#[test]
fn run_loopback_quick_writes_a_complete_json_result() {
    let directory = std::env::temp_dir().join(format!("dpe-run-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let json = directory.join("result.json");
    let output = dualperf()
        .args(["run", "--loopback", "--quick", "--json"])
        .arg(&json)
        .output()
        .expect("running dualperf");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("IPv4") && stdout.contains("IPv6") && stdout.contains("RTT p50"),
        "{stdout}"
    );
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_dir_all(&directory).unwrap();
    // A real result is what the published schema describes (errors name the instance path).
    dualperf_fixtures::schema::assert_valid("result.schema.json", &value);
    let result: RunResult = serde_json::from_value(value).unwrap();
    assert_eq!(
        (result.schema.as_str(), result.schema_version),
        ("dualperf.run", 2)
    );
    assert!(result.complete);
    // The result lists its arms and the baseline every other arm is compared with.
    let arms: Vec<(&str, &str)> = result
        .config
        .arms
        .iter()
        .map(|a| (a.id.as_str(), a.label.as_str()))
        .collect();
    assert_eq!(arms, [("v4", "IPv4"), ("v6", "IPv6")]);
    assert_eq!(result.config.baseline.as_str(), "v4");
    assert_eq!(
        result.trials.len(),
        5 * 2 * 3,
        "5 tests x 2 arms x 3 repetitions (the --quick default)"
    );
    let analysis = result
        .analysis
        .as_ref()
        .expect("analysed once, in the JSON");
    assert!(analysis
        .comparisons
        .iter()
        .all(|c| c.arm.as_str() == "v6" && c.baseline.as_str() == "v4"));
    for trial in &result.trials {
        assert_eq!(
            trial.server_seen_family,
            Some(trial.family),
            "{}",
            trial.spec.label()
        );
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            panic!("{:?}", trial.outcome)
        };
        assert!(observations.sender.packets > 0, "{}", trial.spec.label());
    }
    let families: Vec<_> = result.trials.iter().take(2).map(|t| t.family).collect();
    assert_eq!(
        families,
        [IpFamily::V4, IpFamily::V6],
        "interleaved by default"
    );
    assert!(result
        .trials
        .iter()
        .all(|t| t.arm.as_str() == t.family.key()));
    assert!(result.server_host.is_some());
}

#[test]
fn a_datagram_above_the_ipv4_limit_is_a_usage_error_naming_the_limit() {
    let output = dualperf()
        .args([
            "run",
            "--loopback",
            "--tests",
            "udp-stream",
            "--sizes",
            "65520",
        ])
        .output()
        .expect("running dualperf");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("65507"), "{stderr}");
}

#[test]
fn an_unreachable_server_fails_every_trial_but_still_writes_valid_json() {
    let directory = std::env::temp_dir().join(format!("dpe-fail-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let json = directory.join("result.json");
    // Port 9 (discard) on loopback: nothing listens there in the test environment.
    let output = dualperf()
        .args([
            "run",
            "--v4",
            "127.0.0.1",
            "-4",
            "-p",
            "9",
            "--tests",
            "tcp-rr",
            "--quick",
            "--json",
        ])
        .arg(&json)
        .output()
        .expect("running dualperf");
    assert_eq!(output.status.code(), Some(1));
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_dir_all(&directory).unwrap();
    assert!(!result.complete);
    assert!(
        matches!(&result.trials[0].outcome, TrialOutcome::Failed { error } if error.contains("127.0.0.1:9"))
    );
}

#[test]
fn ctrl_c_stops_after_the_current_trial_and_writes_an_incomplete_result() {
    let directory = std::env::temp_dir().join(format!("dpe-int-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let json = directory.join("result.json");
    let child = dualperf()
        .args([
            "run",
            "--loopback",
            "--tests",
            "tcp-rr",
            "-t",
            "0.5",
            "--warmup",
            "0",
            "--repeat",
            "10",
            "--json",
        ])
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running dualperf");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signalling the child we started, by its pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    // 130 like `lab` (issue 16), no longer 1.
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_dir_all(&directory).unwrap();
    assert!(!result.complete);
    assert!(
        result.trials.len() < 20 && !result.trials.is_empty(),
        "{} trials",
        result.trials.len()
    );
    assert!(
        result
            .trials
            .iter()
            .all(|t| matches!(t.outcome, TrialOutcome::Ok(_))),
        "the current trial finished"
    );
    assert!(
        result.errors.iter().any(|e| e.contains("interrupted")),
        "{:?}",
        result.errors
    );
}

#[test]
fn a_closed_pipe_ends_quietly_and_the_run_is_stored() {
    let db = std::env::temp_dir().join(format!("dpe-pipe-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&db);
    // `dualperf run --loopback --quick | head -1`, with `head` reading one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .env("DUALPERF_DB", &db)
        .args([
            "run",
            "--loopback",
            "--quick",
            "--tests",
            "udp-rr,tcp-rr",
            "--verbose",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running dualperf");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    use std::io::Read;
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(output.status.code(), Some(0) | Some(141)),
        "exit {:?}\n{stderr}",
        output.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let history = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .env("DUALPERF_DB", &db)
        .args(["history", "--json"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&history.stdout);
    assert!(history.status.success(), "{listing}");
    assert!(
        listing.contains("\"run_id\""),
        "the run is stored: {listing}"
    );
    let _ = std::fs::remove_file(&db);
}
