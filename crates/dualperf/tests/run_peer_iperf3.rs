//! `dualperf run --peer iperf3` from the command line: what an iperf3 peer
//! cannot do is a usage error (exit 2) before anything is sent, and a run
//! against Debian's `iperf3 -s` on loopback stores the server's account
//! beside dualperf's own (`-c HOST --peer iperf3`, as iperf3 users type it).
//! The shaped, two-namespace comparison with iperf3's own client is
//! `iperf3_peer_netns.rs`.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::net::TcpListener;

#[path = "common/iperf3_server.rs"]
mod iperf3_server;
use iperf3_server::Iperf3Server;
use std::process::{Command, Stdio};
use std::time::Duration;

fn dualperf(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .arg("run")
        .args(args)
        .args(["--no-store", "--no-intervals"])
        .output()
        .unwrap()
}

#[test]
fn what_an_iperf3_server_cannot_run_is_a_usage_error() {
    for (args, says) in [
        (
            &[
                "--peer",
                "iperf3",
                "--v4",
                "127.0.0.1",
                "-4",
                "--tests",
                "tcp-rr",
            ][..],
            "tcp-rr needs a dualperf or STAMP peer",
        ),
        (
            &["--peer", "iperf3", "--loopback"][..],
            "cannot be combined with --loopback",
        ),
        (
            &["--peer", "iperf3", "--v4", "127.0.0.1", "-4", "--probe"][..],
            "cannot be combined with --probe",
        ),
        (
            &[
                "--peer",
                "iperf3",
                "--v4",
                "127.0.0.1",
                "-4",
                "--verify-wire",
            ][..],
            "cannot be combined with --verify-wire",
        ),
        (
            &["--peer", "netperf", "--v4", "127.0.0.1"][..],
            "known peers: dualperf, iperf3, stamp",
        ),
    ] {
        let output = dualperf(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_run_against_iperf3_on_loopback_keeps_the_server_s_account() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let Some(_server) = Iperf3Server::start(port, &[], Stdio::null()) else {
        return;
    };
    std::thread::sleep(Duration::from_millis(200));
    let json = std::env::temp_dir().join(format!("dp-peer-iperf3-{}.json", std::process::id()));
    let port = port.to_string();
    let output = dualperf(&[
        "-c",
        "127.0.0.1",
        "-4",
        "--peer",
        "iperf3",
        "-p",
        &port,
        "-u",
        "-b",
        "5M",
        "-t",
        "0.5",
        "--warmup",
        "0",
        "--repeat",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    assert_eq!(result["config"]["peer"], "iperf3");
    let trials = result["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 1, "-4: one arm");
    let outcome = &trials[0]["outcome"];
    assert_eq!(outcome["status"], "ok");
    let server = &outcome["iperf3"];
    assert_eq!(server["server_received"], true);
    // The server's datagram count matches what dualperf sent (0.5 s at
    // 5 Mbit/s of 1024 B datagrams: about 305), loss is the server's.
    let packets = server["udp_packets"].as_u64().unwrap();
    let sent = outcome["sender"]["packets"].as_u64().unwrap();
    assert!(
        packets.abs_diff(sent) <= 5 && (250..=360).contains(&sent),
        "{server} sent {sent}"
    );
    assert_eq!(outcome["udp"]["lost"], server["udp_lost"]);
}
