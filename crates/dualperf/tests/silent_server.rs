//! A server that accepts the control connection and then says nothing
//! (not a dualperf server, or a stuck one): `run` must not hang. It gives
//! up after its control wait (15 s, or iperf3's `--rcv-timeout`: 2 s
//! here), says what happened and what to try, exits 1, and stops the whole
//! run after three silent trials in a row rather than waiting for every
//! planned trial.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn a_server_that_accepts_and_stays_silent_fails_the_trial_with_a_reason() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accept and hold every connection without a word.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["run", "-c", "127.0.0.1", "-4", "-p", &port.to_string()])
        .args(["--sizes", "1408", "-t", "0.2", "--rcv-timeout", "2000"])
        // Two points × two repetitions: four trials, the run stops after three.
        .args([
            "--tests",
            "tcp-stream,tcp-rr",
            "--repeat",
            "2",
            "--no-store",
        ])
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{took:?}\n{stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        took < Duration::from_secs(15),
        "gave up only after {took:?}"
    );
    assert!(
        stderr.contains("accepted the connection but sent nothing in 2 s"),
        "{stderr}"
    );
    assert!(stderr.contains("--peer iperf3"), "{stderr}");
    assert!(
        stderr.contains("stopped after 3 of 4 trials: the server did not answer 3 trials in a row"),
        "{stderr}"
    );
}
