//! iperf3's server-side habits end to end with real processes on loopback:
//! `dualperf -s -1` serves one client's whole run (one session per trial)
//! and exits 0 by itself, and `dualperf -c … --get-server-output` prints
//! the server's own line of every trial, the same numbers the server's log
//! prints; `--bidir` runs both directions at once (TCP, and UDP with `-u`),
//! each seen by the server as a session of its own (one receiving, one
//! sending), and prints each direction's goodput (UDP: jitter and loss too).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/served.rs"]
mod served;

use served::{free_port, Server, BINARY};

/// What these tests ask of the server beyond [`served::Server`].
impl Server {
    /// Waits up to `limit` for the server to exit by itself.
    fn exits_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.0.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    fn log(&mut self) -> String {
        let _ = self.0.kill();
        let mut text = String::new();
        use std::io::Read;
        self.0
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    }
}

fn client(port: u16, extra: &[&str]) -> std::process::Output {
    Command::new(BINARY)
        .args([
            "-c",
            "localhost",
            "-p",
            &port.to_string(),
            "-u",
            "-b",
            "10M",
        ])
        .args([
            "-t",
            "0.3",
            "--warmup",
            "0",
            "--repeat",
            "2",
            "--no-store",
            "--no-intervals",
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn one_off_serves_a_whole_run_then_exits() {
    let port = free_port();
    let mut server = Server::start(port, &["-1", "--one-off-quiet", "1"], Stdio::piped());
    // Not before a client came: still serving after 1.5 s of nothing.
    assert!(server.exits_within(Duration::from_millis(1500)).is_none());
    let output = client(port, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Four trials (2 families × 2 repetitions), each its own session: all
    // served, so -1 did not stop after the first.
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let status = server
        .exits_within(Duration::from_secs(10))
        .expect("serve -1 did not exit");
    assert!(status.success(), "{status:?}");
    let log = server.log();
    assert_eq!(log.matches("closed by peer").count(), 4, "{log}");
    assert!(log.contains("-1: the client's sessions are over"), "{log}");
}

#[test]
fn get_server_output_prints_the_servers_line_per_trial() {
    let port = free_port();
    let mut server = Server::start(port, &[], Stdio::piped());
    let output = client(port, &["--get-server-output"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let start = stdout
        .find("Server output:")
        .unwrap_or_else(|| panic!("{stdout}"));
    let lines: Vec<&str> = stdout[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with('['))
        .collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    std::thread::sleep(Duration::from_millis(300));
    let log = server.log();
    for line in &lines {
        // The server measured it: its line names the client's address and
        // what it received, and the same figures are in its own log.
        let (_, server_line) = line
            .split_once("] test from ")
            .unwrap_or_else(|| panic!("{line}"));
        let moved = server_line.split_once("): ").unwrap().1;
        assert!(
            moved.starts_with("received ") && !moved.starts_with("received 0 B"),
            "{line}"
        );
        assert!(
            log.contains(moved),
            "{moved} not in the server's log:\n{log}"
        );
    }
}

#[test]
fn bidir_moves_both_directions_at_once_and_prints_each() {
    let port = free_port();
    let mut server = Server::start(port, &[], Stdio::piped());
    let json = std::env::temp_dir().join(format!("dp-bidir-{}.json", std::process::id()));
    let output = Command::new(BINARY)
        .args([
            "-c",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "--bidir",
            "-l",
            "64K",
        ])
        .args([
            "-t",
            "0.3",
            "--warmup",
            "0",
            "--repeat",
            "1",
            "--no-store",
            "--no-intervals",
        ])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let result: dualperf_model::RunResult =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    assert_eq!(result.trials.len(), 1);
    let dualperf_model::TrialOutcome::Ok(forward) = &result.trials[0].outcome else {
        panic!("{:?}", result.trials[0])
    };
    assert!(!result.trials[0].spec.reverse);
    let reverse = &forward.loads[0];
    assert!(reverse.spec.reverse && reverse.spec.kind == result.trials[0].spec.kind);
    assert!(forward.receiver.bytes > 0 && reverse.observations.receiver.bytes > 0);
    // The reverse direction's interval spans the forward one's.
    assert!(reverse.observations.measured_ns >= forward.measured_ns);
    let line = stdout
        .lines()
        .find(|l| l.contains("client to server") && l.contains("server to client"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("Mbit/s"), "{line}");
    std::thread::sleep(Duration::from_millis(300));
    let log = server.log();
    // Two sessions served: one received (client to server), one sent.
    assert_eq!(log.matches("closed by peer").count(), 2, "{log}");
    assert!(log.contains(", sent 0 B in"), "{log}");
    assert!(log.contains("received 0 B, sent "), "{log}");
}

/// `-u --bidir -b 10M`: UDP both ways at once, 10 Mbit/s each way as in
/// iperf3; each direction's goodput, jitter and loss on a line of its own;
/// the reverse direction's server-side sender stops with the trial, so its
/// counts are its rate over its own interval (not its 20 s schedule), and
/// the whole run takes about its trials' time.
#[test]
fn udp_bidir_sends_the_rate_each_way_and_prints_each_directions_loss_and_jitter() {
    let port = free_port();
    let mut server = Server::start(port, &[], Stdio::piped());
    let json = std::env::temp_dir().join(format!("dp-udp-bidir-{}.json", std::process::id()));
    let began = Instant::now();
    let output = client(port, &["--bidir", "-4", "--json", json.to_str().unwrap()]);
    let took = began.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    // Two trials of 0.3 s: well under the 2 s loss wait of each, let alone
    // the reverse sender's 20 s slack.
    assert!(took < Duration::from_secs(4), "the run took {took:?}");
    let result: dualperf_model::RunResult =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    assert_eq!(result.trials.len(), 2);
    for trial in &result.trials {
        let dualperf_model::TrialOutcome::Ok(forward) = &trial.outcome else {
            panic!("{trial:?}")
        };
        let reverse = &forward.loads[0].observations;
        for (direction, o) in [("forward", &**forward), ("reverse", &**reverse)] {
            let rate = o.receiver.bytes as f64 * 8e9 / o.measured_ns as f64;
            assert!(
                (8e6..11e6).contains(&rate),
                "{direction}: {rate:.0} bit/s for -b 10M ({} B in {} ns)",
                o.receiver.bytes,
                o.measured_ns
            );
            let udp = o.udp.as_ref().expect("UDP counters each way");
            assert_eq!(udp.received + udp.lost, udp.sent, "{direction}: {udp:?}");
        }
    }
    for direction in ["client to server: ", "server to client: "] {
        let line = stdout
            .lines()
            .find(|l| l.contains(direction))
            .unwrap_or_else(|| panic!("no {direction} line: {stdout}"));
        assert!(
            line.contains("Mbit/s goodput, jitter ") && line.contains(" ms, lost "),
            "{line}"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    let log = server.log();
    // Four sessions (two trials, each direction its own) and no failure:
    // the reverse sender met no closed port (ECONNREFUSED).
    assert_eq!(log.matches("closed by peer").count(), 4, "{log}");
    assert!(
        !log.contains("Connection refused") && !log.contains("failed"),
        "{log}"
    );
}
