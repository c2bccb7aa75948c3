//! `dualperf path` against a host that runs no `dualperf serve` (issue 27):
//! on loopback, with nothing on the probe port, it says the responder did
//! not answer and falls back to what ICMP echo (root) and TCP can show, and
//! lists what it could not test. Without root it ends with exit code 3 and
//! says CAP_NET_RAW is missing. Only loopback is touched.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::net::{TcpListener, UdpSocket};
use std::process::Command;

#[test]
fn a_plain_host_is_probed_with_icmp_echo_and_tcp_and_the_gaps_are_named() {
    // a TCP port that listens (for the MSS) and a UDP port where nothing answers
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let tcp_port = tcp.local_addr().unwrap().port();
    let quiet = UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = quiet.local_addr().unwrap().port();
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "path",
            "--v4",
            "127.0.0.1",
            "--json",
            "--wait",
            "100",
            "--ext-headers",
            "none",
        ])
        .args([
            "-p",
            &udp_port.to_string(),
            "--tcp-port",
            &tcp_port.to_string(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let document: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let family = &document["evidence"]["families"][0];
    let untested = family["untested"].to_string();
    assert!(
        untested.contains("no dualperf responder answered"),
        "{untested}"
    );
    assert!(untested.contains("TCP bulk transfer"), "{untested}");
    assert!(family["tcp"]["mss"].as_u64().unwrap() > 0, "{family}");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_eq!(family["transport"]["kind"], "echo", "{family}");
        assert_eq!(document["verdicts"][0]["mtu"]["verdict"], "clean");
        assert!(untested.contains("ICMP echo replies are as large as the requests"));
        assert_eq!(output.status.code(), Some(0), "{stdout}");
    } else {
        assert!(untested.contains("CAP_NET_RAW"), "{untested}");
        assert_eq!(output.status.code(), Some(3), "{stdout}");
    }
    drop(quiet);
}
