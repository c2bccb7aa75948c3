//! iperf3's first contact, end to end with real processes: `dualperf -p PORT
//! -s` serves, and `dualperf -c HOST` measures what exists on loopback and
//! says what is missing — `localhost` (both families, RFC 6761), `127.0.0.1`
//! and `::1` (one family each, the other left out with the reason), a closed
//! port (both left out: exit 1), a requested family that fails (exit 1),
//! and, as root, an IPv4-only name: a private mount namespace (`unshare
//! --mount`) bind-mounts a hosts file naming it over /etc/hosts for the
//! client alone, so the machine's /etc/hosts is never touched.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::path::Path;
use std::process::{Command, Output};

use dualperf_model::{IpFamily, RunResult, TrialOutcome};

#[path = "common/served.rs"]
mod served;

use served::{free_port, Folder, Server, BINARY};

/// The client's arguments after `-c HOST`: one short UDP trial per family
/// at 10 Mbit/s, nothing stored, the result as JSON into `json`.
fn client_args(port: u16, json: &Path) -> Vec<String> {
    [
        "-p",
        &port.to_string(),
        "-u",
        "-b",
        "10M",
        "-t",
        "0.3",
        "--warmup",
        "0",
        "--repeat",
        "1",
        "--no-store",
        "--no-intervals",
        "--json",
    ]
    .iter()
    .map(ToString::to_string)
    .chain([json.display().to_string()])
    .collect()
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Checks a run that exited 0 measured exactly `families`, every trial
/// served by the real server in its own family, and returns stdout, stderr.
fn assert_measured(output: &Output, json: &Path, families: &[IpFamily]) -> (String, String) {
    let (stdout, stderr) = text(output);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let result: RunResult = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    let measured: Vec<IpFamily> = result.config.arms.iter().map(|a| a.family).collect();
    assert_eq!(measured, families, "{stderr}");
    assert_eq!(result.trials.len(), families.len());
    for trial in &result.trials {
        assert!(matches!(trial.outcome, TrialOutcome::Ok(_)), "{trial:?}");
        assert_eq!(trial.server_seen_family, Some(trial.family));
    }
    (stdout, stderr)
}

/// A one-family run prints its values as iperf3's summary does.
fn assert_values_printed(stdout: &str, family: &str) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("[1] udp-stream") && l.contains(family))
        .unwrap_or_else(|| panic!("no value line for {family}:\n{stdout}"));
    for value in ["goodput", "sender rate", "loss", "jitter", "bit/s"] {
        assert!(line.contains(value), "{value} missing: {line}");
    }
}

#[test]
fn dash_c_measures_what_exists_and_says_what_is_missing() {
    let port = free_port();
    let folder = Folder::new("iperf3", "families");
    let log = folder.0.join("serve.log");
    let server = Server::logged(port, &[], &log);
    let json = folder.0.join("result.json");

    // localhost: both families, compared.
    let output = Command::new(BINARY)
        .args(["-c", "localhost"])
        .args(client_args(port, &json))
        .output()
        .unwrap();
    let (_, stderr) = assert_measured(&output, &json, &[IpFamily::V4, IpFamily::V6]);
    assert!(!stderr.contains("not measured"), "{stderr}");

    // An IPv4 literal, and flags before -c (iperf3's words anywhere).
    let mut args = client_args(port, &json);
    args.extend(["-c".into(), "127.0.0.1".into()]);
    let output = Command::new(BINARY).args(args).output().unwrap();
    let (stdout, stderr) = assert_measured(&output, &json, &[IpFamily::V4]);
    assert!(
        stderr.contains("IPv6 not measured: `127.0.0.1` is an address of the other family"),
        "{stderr}"
    );
    assert_values_printed(&stdout, "IPv4");

    // An IPv6 literal.
    let output = Command::new(BINARY)
        .args(["-c", "::1"])
        .args(client_args(port, &json))
        .output()
        .unwrap();
    let (stdout, stderr) = assert_measured(&output, &json, &[IpFamily::V6]);
    assert!(stderr.contains("IPv4 not measured"), "{stderr}");
    assert_values_printed(&stdout, "IPv6");

    // The server printed one result line per session: bytes, time, rates.
    drop(server);
    let log = std::fs::read_to_string(&log).unwrap();
    let sessions: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("1 tests, closed by peer; received "))
        .collect();
    assert_eq!(
        sessions.len(),
        4,
        "two for localhost, one per literal:\n{log}"
    );
    for line in sessions {
        assert!(
            !line.contains("received 0 B") && line.contains("Mbit/s in"),
            "{line}"
        );
    }
}

#[test]
fn nothing_listening_or_a_requested_family_failing_exits_1() {
    let closed = free_port();
    let folder = Folder::new("iperf3", "closed");
    let json = folder.0.join("result.json");
    let output = Command::new(BINARY)
        .args(["-c", "localhost"])
        .args(client_args(closed, &json))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    for family in ["IPv4", "IPv6"] {
        assert!(
            stderr.contains(&format!("{family} not measured: the server at"))
                && stderr.contains("refused"),
            "{stderr}"
        );
    }
    // Asked for with -4, IPv4 is not left out: it is measured and fails.
    let output = Command::new(BINARY)
        .args(["-c", "localhost", "-4"])
        .args(client_args(closed, &json))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stderr.contains("not measured"), "{stderr}");
    assert!(stderr.contains("trials failed"), "{stderr}");
}

#[test]
fn an_ipv4_only_name_is_measured_over_ipv4() {
    if !privileged::ready(&["unshare", "mount"]) {
        return;
    }
    let port = free_port();
    let folder = Folder::new("iperf3", "a-only");
    let _server = Server::logged(port, &[], &folder.0.join("serve.log"));
    let json = folder.0.join("result.json");
    let hosts = folder.0.join("hosts");
    let name = format!("a-only-{}.dualperf.test", std::process::id());
    std::fs::write(&hosts, format!("127.0.0.1 {name}\n")).unwrap();
    // The bind mount lives in the client's private mount namespace only and
    // ends with it; the machine's /etc/hosts is never written.
    let output = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg(r#"mount --bind "$0" /etc/hosts && exec "$@""#)
        .arg(&hosts)
        .arg(BINARY)
        .args(["-c", &name])
        .args(client_args(port, &json))
        .output()
        .unwrap();
    let (stdout, stderr) = assert_measured(&output, &json, &[IpFamily::V4]);
    assert!(
        stderr.contains(&format!("IPv6 not measured: `{name}` has no AAAA record")),
        "{stderr}"
    );
    assert_values_printed(&stdout, "IPv4");
}

#[test]
fn json_stream_gives_a_line_per_interval_and_trial_then_the_result() {
    let port = free_port();
    let folder = Folder::new("iperf3", "stream");
    let _server = Server::logged(port, &[], &folder.0.join("serve.log"));
    let output = Command::new(BINARY)
        .args(["--json-stream", "-c", "localhost", "-p", &port.to_string()])
        .args(["-u", "-b", "10M", "-t", "0.3", "-i", "0.1", "--warmup", "0"])
        .args(["--repeat", "1", "--no-store"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        names.iter().filter(|n| **n == "trial").count(),
        2,
        "{names:?}"
    );
    assert_eq!(names.last(), Some(&"end"), "{names:?}");
    // Each trial's intervals come before it: 0.3 s in 0.1 s samples.
    for trial in 0..2 {
        let intervals: Vec<&serde_json::Value> = events
            .iter()
            .filter(|e| e["event"] == "interval" && e["data"]["trial"] == trial)
            .collect();
        assert!(intervals.len() >= 2, "trial {trial}: {names:?}");
        assert!(intervals
            .iter()
            .all(|i| i["data"]["sample"]["sent_bytes"].as_u64() > Some(0)));
    }
    let result: RunResult = serde_json::from_value(events.last().unwrap()["data"].clone()).unwrap();
    assert_eq!(result.trials.len(), 2);
    assert!(result.analysis.is_some());
}

#[test]
fn json_stream_speaks_under_a_precision_goal_too() {
    let port = free_port();
    let folder = Folder::new("iperf3", "stream-goal");
    let _server = Server::logged(port, &[], &folder.0.join("serve.log"));
    let output = Command::new(BINARY)
        .args(["--json-stream", "-c", "localhost", "-p", &port.to_string()])
        .args(["-u", "-b", "10M", "-t", "0.2", "--warmup", "0"])
        .args(["--precision", "50%", "--budget", "20s", "--no-store"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let names: Vec<String> = stdout
        .lines()
        .map(|line| {
            let event: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            event["event"].as_str().unwrap().to_string()
        })
        .collect();
    // At least the first stage's trials (two arms), each reported, then the end.
    assert!(
        names.iter().filter(|n| *n == "trial").count() >= 2,
        "{names:?}"
    );
    assert_eq!(names.last().map(String::as_str), Some("end"), "{names:?}");
}
