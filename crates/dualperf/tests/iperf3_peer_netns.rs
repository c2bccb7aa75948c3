//! `dualperf run --peer iperf3` against Debian's `iperf3 -s` (esnet/iperf,
//! written elsewhere) between two network namespaces joined by a veth pair
//! shaped to 20 Mbit/s each way with htb, so the path, not the CPU, sets
//! the rate: both families, TCP and UDP at a rate, forward and reverse.
//! dualperf's goodput must be within 5 % of what iperf3's own client
//! (`iperf3 -c … -J`) measures on the same path, and the run must print
//! verdicts per family.
//!
//! Needs root, `ip`, `tc` and `iperf3`; skips without them unless
//! DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/netns_pair.rs"]
mod netns_pair;
use netns_pair::{sh, Lab};

use std::process::Command;

use serde_json::Value;

const V4: &str = "10.226.0.2";
const V6: &str = "fd20:26::2";
/// The shaped rate of each direction.
const SHAPED: &str = "20mbit";

/// htb at [`SHAPED`] on the egress of `dev` in `ns`.
fn shape(ns: &str, dev: &str) {
    sh(&[
        "tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10",
    ])
    .unwrap();
    sh(&[
        "tc", "-n", ns, "class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb",
        "rate", SHAPED, "ceil", SHAPED,
    ])
    .unwrap();
}

/// iperf3's own client in the client namespace: the receiver's bit rate
/// (`end.sum_received.bits_per_second`).
fn iperf3_goodput(client_ns: &str, server: &str, extra: &[&str]) -> f64 {
    let output = Command::new("ip")
        .args([
            "netns", "exec", client_ns, "iperf3", "-c", server, "-t", "2", "-J",
        ])
        .args(extra)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("iperf3 -c {server} {extra:?}: {e}"));
    json["end"]["sum_received"]["bits_per_second"]
        .as_f64()
        .unwrap_or_else(|| panic!("iperf3 -c {server} {extra:?}: {json}"))
}

/// Mean goodput per (test kind, family) of a dualperf result: receiver
/// bytes over the measured interval of every successful trial.
fn dualperf_goodput(result: &Value, kind: &str, family: &str) -> f64 {
    let rates: Vec<f64> = result["trials"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["spec"]["kind"] == kind && t["family"] == family)
        .map(|t| {
            let o = &t["outcome"];
            assert_eq!(o["status"], "ok", "{t}");
            o["receiver"]["bytes"].as_f64().unwrap() * 8e9 / o["measured_ns"].as_f64().unwrap()
        })
        .collect();
    assert!(!rates.is_empty(), "no {kind} {family} trial");
    rates.iter().sum::<f64>() / rates.len() as f64
}

/// Runs dualperf in the client namespace; (its result, its standard output).
fn dualperf(lab: &Lab, json: &std::path::Path, args: &[&str]) -> (Value, String) {
    let output = Command::new("ip")
        .args([
            "netns",
            "exec",
            &lab.client,
            env!("CARGO_BIN_EXE_dualperf"),
            "run",
        ])
        .args(["--peer", "iperf3", "--no-store", "--no-intervals"])
        .args(["-t", "2", "--warmup", "0", "--json", json.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "dualperf run {args:?}: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    (result, stdout)
}

/// A scratch folder, removed on drop.
struct Folder(std::path::PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn within_5_percent(what: &str, dualperf: f64, iperf3: f64) {
    let difference = (dualperf - iperf3).abs() / iperf3;
    eprintln!(
        "{what}: dualperf {:.2} Mbit/s, iperf3 {:.2} Mbit/s ({:+.2} %)",
        dualperf / 1e6,
        iperf3 / 1e6,
        (dualperf / iperf3 - 1.0) * 100.0
    );
    assert!(
        difference <= 0.05,
        "{what}: dualperf {dualperf:.0} bit/s is {:.1} % from iperf3's {iperf3:.0} bit/s",
        difference * 100.0
    );
}

#[test]
fn dualperf_against_debian_s_iperf3_server_matches_iperf3_s_own_client() {
    let Some(mut lab) = Lab::or_skip("dpi3", 26, "iperf3") else {
        return;
    };
    let pid = std::process::id();
    let (client_ns, server_ns) = (lab.client.clone(), lab.server.clone());
    shape(&client_ns, &format!("dpi3{pid}c"));
    shape(&server_ns, &format!("dpi3{pid}s"));
    lab.spawn(&server_ns, &["iperf3", "-s"]).unwrap();
    lab.wait_listening("5201", "iperf3 -s");
    let folder = Folder(std::env::temp_dir().join(format!("dpi3-{pid}")));
    std::fs::create_dir_all(&folder.0).unwrap();

    // Forward: TCP, and UDP at 10 Mbit/s (half the path), both families,
    // with the `--v4 A --v6 B` spelling; verdicts per family on stdout.
    let (forward, stdout) = dualperf(
        &lab,
        &folder.0.join("forward.json"),
        &["--v4", V4, "--v6", V6, "--tests", "tcp-stream,udp-stream"]
            .into_iter()
            .chain(["-l", "1200", "-b", "10M", "--repeat", "2"])
            .collect::<Vec<_>>(),
    );
    eprintln!("{stdout}");
    assert_eq!(forward["config"]["peer"], "iperf3");
    assert!(
        stdout.contains("[1] tcp-stream") && stdout.contains("goodput"),
        "{stdout}"
    );
    assert!(
        stdout.contains("IPv6") && stdout.contains("IPv4"),
        "{stdout}"
    );
    for trial in forward["trials"].as_array().unwrap() {
        let server = &trial["outcome"]["iperf3"];
        assert_eq!(server["server_received"], true, "{trial}");
        if trial["spec"]["kind"] == "udp-stream" {
            // The server's account of loss, as iperf3 computed it.
            let packets = server["udp_packets"].as_u64().unwrap();
            let lost = server["udp_lost"].as_u64().unwrap();
            assert!(packets > 1500, "{server}");
            assert!(
                lost * 100 <= packets,
                "under 1 % lost below the shaped rate: {server}"
            );
            assert!(server["udp_jitter_ns"].as_u64().is_some(), "{server}");
        }
    }
    for (family, server) in [("v4", V4), ("v6", V6)] {
        let ours = dualperf_goodput(&forward, "tcp-stream", family);
        let theirs = iperf3_goodput(&client_ns, server, &[]);
        within_5_percent(&format!("tcp-stream {family}"), ours, theirs);
        // Shaped at 20 Mbit/s: the path, not the machine, set the rate.
        assert!((15e6..20.5e6).contains(&ours), "{family}: {ours}");
        let ours = dualperf_goodput(&forward, "udp-stream", family);
        let theirs = iperf3_goodput(&client_ns, server, &["-u", "-b", "10M", "-l", "1200"]);
        within_5_percent(&format!("udp-stream 10M {family}"), ours, theirs);
    }

    // Reverse (-R): the iperf3 server sends; with iperf3's `-c` spelling.
    let (reverse, _) = dualperf(
        &lab,
        &folder.0.join("reverse.json"),
        &[
            "-c",
            V6,
            "--v4",
            V4,
            "-R",
            "--tests",
            "tcp-stream,udp-stream",
        ]
        .into_iter()
        .chain(["-l", "1200", "-b", "10M", "--repeat", "1"])
        .collect::<Vec<_>>(),
    );
    for trial in reverse["trials"].as_array().unwrap() {
        assert_eq!(
            trial["outcome"]["iperf3"]["server_received"], false,
            "{trial}"
        );
        if trial["spec"]["kind"] == "udp-stream" {
            let udp = &trial["outcome"]["udp"];
            assert!(udp["received"].as_u64().unwrap() > 1500, "{udp}");
            assert!(udp["lost"].as_u64().unwrap() * 100 <= udp["sent"].as_u64().unwrap());
        }
    }
    for (family, server) in [("v4", V4), ("v6", V6)] {
        let ours = dualperf_goodput(&reverse, "tcp-stream", family);
        let theirs = iperf3_goodput(&client_ns, server, &["-R"]);
        within_5_percent(&format!("tcp-stream -R {family}"), ours, theirs);
        let ours = dualperf_goodput(&reverse, "udp-stream", family);
        let theirs = iperf3_goodput(&client_ns, server, &["-R", "-u", "-b", "10M", "-l", "1200"]);
        within_5_percent(&format!("udp-stream 10M -R {family}"), ours, theirs);
    }
}
