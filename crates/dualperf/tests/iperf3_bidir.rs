//! `dualperf run --peer iperf3 -u --bidir -b 10M` against Debian's
//! `iperf3 -s` (esnet/iperf, written elsewhere) on loopback: one
//! bidirectional iperf3 test per trial, checked against the iperf3 server's
//! own JSON account (`iperf3 -s -1 -J`): it received the client-to-server
//! half and sent the server-to-client half, each at the 10 Mbit/s asked
//! for, and dualperf's counts of each half agree with the server's.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/iperf3_server.rs"]
mod iperf3_server;
use iperf3_server::Iperf3Server;

/// Bytes of `key` in the iperf3 server's `end` section.
fn end_bytes(json: &serde_json::Value, key: &str) -> f64 {
    json["end"][key]["bytes"]
        .as_f64()
        .unwrap_or_else(|| panic!("no end.{key}.bytes in {json}"))
}

#[test]
fn udp_bidir_against_iperf3_moves_the_rate_each_way_as_the_server_counts_it() {
    let port = std::net::TcpListener::bind("[::]:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // One test, then its JSON account on standard output.
    let Some(mut server) = Iperf3Server::start(port, &["-1", "-J"], Stdio::piped()) else {
        return;
    };
    let json = std::env::temp_dir().join(format!("dp-iperf3-bidir-{}.json", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["run", "-c", "127.0.0.1", "-p", &port.to_string()])
        .args(["--peer", "iperf3", "-u", "--bidir", "-b", "10M"])
        .args(["-t", "1", "--warmup", "0", "--repeat", "1"])
        .args(["--no-store", "--no-intervals", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    // iperf3 -s -1 exits after the test and prints its own account.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "iperf3 -s -1 did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut text = String::new();
    use std::io::Read;
    server
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let iperf3: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(iperf3["start"]["test_start"]["protocol"], "UDP", "{text}");
    // The server's own counts: what it received (client to server) and
    // what it sent (server to client, `bidir_reverse`), 10 Mbit/s for 1 s.
    let received = end_bytes(&iperf3, "sum_received");
    let sent = end_bytes(&iperf3, "sum_sent_bidir_reverse");
    for (what, bytes) in [("received", received), ("sent", sent)] {
        assert!(
            (1.1e6..1.4e6).contains(&bytes),
            "the iperf3 server {what} {bytes} B in a 1 s test at 10 Mbit/s"
        );
    }
    let result: dualperf_model::RunResult =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let dualperf_model::TrialOutcome::Ok(forward) = &result.trials[0].outcome else {
        panic!("{:?}", result.trials[0])
    };
    let reverse = &forward.loads[0].observations;
    // Client to server: dualperf sent what the server received (no loss on
    // loopback, give or take the datagrams in flight at the end).
    let close = |ours: u64, theirs: f64| (ours as f64 - theirs).abs() <= theirs * 0.03;
    assert!(
        close(forward.sender.bytes, received),
        "dualperf sent {} B, the server received {received} B",
        forward.sender.bytes
    );
    // Server to client: what dualperf received of what the server sent.
    assert!(
        close(reverse.receiver.bytes, sent),
        "dualperf received {} B, the server sent {sent} B",
        reverse.receiver.bytes
    );
    let udp = reverse.udp.as_ref().expect("dualperf's own UDP counters");
    assert!(
        udp.received > 0 && udp.received + udp.lost == udp.sent,
        "{udp:?}"
    );
    for direction in ["client to server: ", "server to client: "] {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(direction) && l.contains("jitter")),
            "no {direction} line: {stdout}"
        );
    }
}
