//! iperf3's socket and output flags end to end, with a real `dualperf -s`
//! process on loopback: `-w` (both ends read back the buffer the kernel
//! granted: Linux doubles the size asked, socket(7)), `-M` (the MSS in use,
//! from TCP_INFO, drops from loopback's ~65 kB to at most the size asked),
//! `-N`, `-B` (the data connection's source is the bound address, and the
//! server, which serves only its control peer's address, accepts it: control
//! and data were bound alike), and `-T` (every printed line carries the
//! title, a usage error's too).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::{Command, Output};

use dualperf_model::{RunResult, TrialOutcome};

#[path = "common/served.rs"]
mod served;

use served::{free_port, Folder, Server, BINARY};

/// One short tcp-stream trial per family against the server on `port`.
fn client(port: u16, json: &Path, extra: &[&str]) -> Output {
    Command::new(BINARY)
        .args(["-c", "localhost", "-p", &port.to_string()])
        .args([
            "--tests",
            "tcp-stream",
            "-t",
            "0.3",
            "--warmup",
            "0",
            "--repeat",
            "1",
        ])
        .args(["--no-store", "--no-intervals", "--json"])
        .arg(json)
        .args(extra)
        .output()
        .unwrap()
}

fn result(output: &Output, json: &Path) -> RunResult {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

#[test]
fn window_mss_nodelay_and_source_reach_both_ends() {
    let folder = Folder::new("sockflags", "tuned");
    let port = free_port();
    let _server = Server::logged(port, &[], &folder.0.join("server.log"));

    // Without the flags: loopback's MSS (MTU 65536) and the default buffers.
    let plain_json = folder.0.join("plain.json");
    let plain = result(&client(port, &plain_json, &[]), &plain_json);
    for trial in &plain.trials {
        let TrialOutcome::Ok(obs) = &trial.outcome else {
            panic!("{trial:?}")
        };
        assert!(obs.tcp.unwrap().send_mss_bytes > 10_000, "{:?}", obs.tcp);
        assert_ne!(obs.socket.receive_buffer_bytes, Some(204_800));
    }

    let json = folder.0.join("tuned.json");
    let output = client(
        port,
        &json,
        &["-w", "100K", "-M", "1000", "-N", "-B", "127.0.0.2"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let tuned = result(&output, &json);
    assert_eq!(tuned.trials.len(), 2, "{stderr}");
    for trial in &tuned.trials {
        let TrialOutcome::Ok(obs) = &trial.outcome else {
            panic!("{trial:?}")
        };
        assert_eq!(trial.spec.tuning.buffer_bytes, Some(102_400));
        // 100 KiB asked, 200 KiB granted (doubled), at both ends.
        for facts in [&obs.socket, obs.server_socket.as_ref().unwrap()] {
            assert_eq!(facts.send_buffer_bytes, Some(204_800), "{facts:?}");
            assert_eq!(facts.receive_buffer_bytes, Some(204_800), "{facts:?}");
        }
        // The MSS in use: at most 1000 B, less the TCP options (timestamps).
        let mss = obs.tcp.unwrap().send_mss_bytes;
        assert!((900..=1000).contains(&mss), "MSS in use {mss}");
        let local = trial.local_address.as_deref().unwrap();
        match trial.family {
            dualperf_model::IpFamily::V4 => assert!(local.starts_with("127.0.0.2:"), "{local}"),
            dualperf_model::IpFamily::V6 => assert!(local.starts_with("[::1]:"), "{local}"),
        }
    }
    assert!(
        stderr.contains("-w 102400 B granted: client SO_SNDBUF 204800 B"),
        "{stderr}"
    );
    assert!(stderr.contains("-M 1000 B: MSS in use"), "{stderr}");
    assert!(stderr.contains("source 127.0.0.2:"), "{stderr}");
}

#[test]
fn bad_socket_flags_are_usage_errors() {
    let folder = Folder::new("sockflags", "bad");
    let json = folder.0.join("r.json");
    for (flags, expected) in [
        (vec!["-M", "10"], "TCP_MAXSEG range"),
        (vec!["-w", "lots"], "is not a size in bytes"),
        (vec!["-B", "192.0.2.1"], "not an address of this host"),
        (
            vec!["-B", "127.0.0.1", "-B", "127.0.0.2"],
            "one source address per family",
        ),
        (vec!["-N", "--peer", "iperf3"], "dualperf server only"),
    ] {
        let output = client(1, &json, &flags);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
    }
}

#[test]
fn title_prefixes_every_line_errors_included() {
    let folder = Folder::new("sockflags", "title");
    let port = free_port();
    let _server = Server::logged(port, &[], &folder.0.join("server.log"));
    let json = folder.0.join("r.json");
    let output = client(port, &json, &["-4", "-T", "lab-3"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
    assert!(lines.len() >= 2, "{stdout}\n{stderr}");
    for line in lines {
        assert!(line.starts_with("lab-3:  "), "untitled line: {line:?}");
    }
    // JSON on standard output stays parseable: only standard error is titled.
    let output = Command::new(BINARY)
        .args([
            "-c",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "--tests",
            "tcp-stream",
        ])
        .args([
            "-t",
            "0.2",
            "--warmup",
            "0",
            "--repeat",
            "1",
            "--no-store",
            "-J",
            "-T",
            "lab-3",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let _: RunResult = serde_json::from_slice(&output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.lines().all(|l| l.starts_with("lab-3:  ")),
        "{stderr}"
    );
    // A failure's message carries the title too, and the exit code stays 2.
    let output = client(port, &json, &["-T", "lab-3", "-M", "10"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("lab-3:  dualperf: error:"), "{stderr}");
}
