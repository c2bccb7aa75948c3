//! `dualperf run -S ef -L 12345` between two network namespaces: a tshark
//! capture on the server's veth shows every data packet of both ends with
//! DSCP 46, and every IPv6 one with flow label 12345 (TCP and UDP alike).
//! Needs root, `ip` and `tshark`; skips without them unless
//! DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

#[path = "common/netns_pair.rs"]
mod netns_pair;
use netns_pair::Lab;

use std::process::Command;
use std::time::{Duration, Instant};

const PORT: &str = "5199";

#[test]
fn every_data_packet_of_both_ends_carries_ef_and_the_flow_label() {
    let Some(mut lab) = Lab::or_skip("dpmk", 7, "tshark") else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_dualperf");
    let pcap = std::env::temp_dir().join(format!("dpmk-{}.pcap", std::process::id()));
    let pcap_text = pcap.to_str().unwrap().to_string();
    let server_ns = lab.server.clone();
    let client_ns = lab.client.clone();
    let veth = format!("dpmk{}s", std::process::id());
    lab.spawn(&server_ns, &[bin, "serve", "-p", PORT]).unwrap();
    lab.spawn(
        &server_ns,
        &[
            "tshark",
            "-q",
            "-i",
            &veth,
            "-w",
            &pcap_text,
            "-f",
            "tcp or udp",
        ],
    )
    .unwrap();
    // tshark needs a moment before it captures; the server to listen.
    let ready = Instant::now();
    while !pcap.exists() && ready.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(700));
    let output = Command::new("ip")
        .args(["netns", "exec", &client_ns, bin, "run"])
        .args(["--v4", "10.207.0.2", "--v6", "fd20:7::2", "-p", PORT])
        .args(["-S", "ef", "-L", "12345", "--no-store", "--repeat", "1"])
        .args(["-t", "0.3", "--warmup", "0.1", "-b", "20M"])
        .args(["--tests", "tcp-stream,udp-stream,tcp-rr,udp-rr,tcp-connect"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::thread::sleep(Duration::from_millis(500));
    let fields = lab.finish_capture(
        &pcap_text,
        &[
            "ip.dsfield.dscp",
            "ipv6.tclass.dscp",
            "ipv6.flow",
            "tcp.srcport",
            "tcp.dstport",
            "udp.srcport",
            "udp.dstport",
            "ip.src",
            "ipv6.src",
            "tcp.flags",
        ],
    );
    let _ = std::fs::remove_file(&pcap);
    let (mut v4, mut v6, mut from_server, mut from_client) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for line in fields.lines() {
        let cols: Vec<&str> = line.split(',').collect();
        let ports: Vec<&str> = cols[3..7]
            .iter()
            .copied()
            .filter(|p| !p.is_empty())
            .collect();
        if ports.len() < 2 || ports.contains(&PORT) {
            continue; // the control channel is not marked
        }
        if cols[7] == "10.207.0.2" || cols[8] == "fd20:7::2" {
            from_server += 1;
        } else {
            from_client += 1;
        }
        let (dscp4, dscp6, flow) = (cols[0], cols[1], cols[2]);
        // A TCP reset (tcp-connect closes abortively) is built by
        // tcp_v6_send_response, which takes the automatic label from the
        // socket's hash, not the connected label. Its DSCP is checked.
        let orphan_reset = cols
            .get(9)
            .and_then(|f| u32::from_str_radix(f.trim_start_matches("0x"), 16).ok())
            .is_some_and(|flags| flags & 0x4 != 0);
        if !dscp4.is_empty() {
            v4 += 1;
            if dscp4 != "46" {
                wrong.push(line.to_string());
            }
        } else {
            v6 += 1;
            let label = u32::from_str_radix(flow.trim_start_matches("0x"), 16).unwrap_or(0);
            if dscp6 != "46" || (label != 12345 && !orphan_reset) {
                wrong.push(line.to_string());
            }
        }
    }
    eprintln!("data packets: {v4} IPv4, {v6} IPv6 ({from_client} from the client, {from_server} from the server)");
    assert!(
        v4 > 100 && v6 > 100,
        "too few data packets: {v4} IPv4, {v6} IPv6"
    );
    assert!(
        from_client > 100 && from_server > 100,
        "both ends must send"
    );
    assert!(
        wrong.is_empty(),
        "{} of {} data packets unmarked, e.g. {:?}",
        wrong.len(),
        v4 + v6,
        &wrong[..wrong.len().min(10)]
    );
}
