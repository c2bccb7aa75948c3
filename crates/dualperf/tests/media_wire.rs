//! On the wire: a G.711 media stream captured with tcpdump and decoded by
//! tshark as RTP (`-d udp.port==P,rtp`): version 2, payload type 0 (PCMU),
//! consecutive sequence numbers, one SSRC; 172 B of UDP payload in
//! 214-byte frames over IPv4 and 234-byte frames over IPv6 (on `lo`, whose
//! link header is a 14-byte Ethernet header): the same stream's frames
//! differ by the 20 bytes the IPv6 header adds, as the OpenH323 paper
//! measured (294 against 314 bytes). What the run prints on the link
//! (`media_ethernet_frame_bytes`, `media_ethernet_bps`, from the header
//! model) matches the capture's measured frames within 1 %.
//!
//! Runs `dualperf run --loopback --media g711` inside a network namespace
//! of its own (removed at the end, also on failure). Needs root, tcpdump
//! and tshark: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::collections::BTreeMap;

use dualperf_model::{MetricId, RunResult, TrialOutcome};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A namespace and a capture process, removed and stopped on drop.
struct Scratch {
    namespace: String,
    capture: Option<Child>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(mut capture) = self.capture.take() {
            let _ = capture.kill();
            let _ = capture.wait();
        }
        let _ = Command::new("ip")
            .args(["netns", "del", &self.namespace])
            .status();
    }
}

fn tshark(pcap: &std::path::Path, extra: &[&str]) -> Vec<Vec<String>> {
    let output = Command::new("tshark")
        .arg("-r")
        .arg(pcap)
        .args(extra)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn g711_frames_are_rtp_and_ipv6_frames_are_20_bytes_longer() {
    if !privileged::ready(&["tshark", "tcpdump"]) {
        return;
    }
    let namespace = format!("dpt-media-{}", std::process::id());
    let mut scratch = Scratch {
        namespace: namespace.clone(),
        capture: None,
    };
    let ip = |args: &[&str]| {
        let status = Command::new("ip").args(args).status().unwrap();
        assert!(status.success(), "ip {args:?}");
    };
    ip(&["netns", "add", &namespace]);
    ip(&["-n", &namespace, "link", "set", "lo", "up"]);
    let folder = std::env::temp_dir().join(format!("dpt-media-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let pcap = folder.join("media.pcap");
    scratch.capture = Some(
        Command::new("ip")
            .args([
                "netns", "exec", &namespace, "tcpdump", "-i", "lo", "-U", "-w",
            ])
            .arg(&pcap)
            .args(["udp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // tcpdump writes the file header once it captures.
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::metadata(&pcap).map_or(true, |m| m.len() == 0) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let output = Command::new("ip")
        .args(["netns", "exec", &namespace])
        .arg(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "run",
            "--loopback",
            "--media",
            "g711",
            "-t",
            "1",
            "--warmup",
            "0.1",
            "--repeat",
            "1",
            "--no-store",
            "--json",
        ])
        .arg(folder.join("result.json"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::thread::sleep(Duration::from_millis(300));
    drop(scratch); // stops tcpdump (flushing the file), removes the namespace
                   // The media streams: UDP datagrams of 172 B, by destination port.
    let mut streams: BTreeMap<String, (String, Vec<u32>)> = BTreeMap::new();
    for fields in tshark(
        &pcap,
        &[
            "-Y",
            "udp.length == 180",
            "-T",
            "fields",
            "-e",
            "udp.dstport",
            "-e",
            "frame.len",
            "-e",
            "ip.version",
            "-e",
            "ipv6.version",
        ],
    ) {
        // IPv6 packets carry ipv6.version (tshark fills ip.version for both).
        let family = if fields.get(3).is_some_and(|v| !v.is_empty()) {
            "v6"
        } else {
            "v4"
        };
        let entry = streams
            .entry(fields[0].clone())
            .or_insert_with(|| (family.to_string(), Vec::new()));
        entry.1.push(fields[1].parse().unwrap());
    }
    assert_eq!(streams.len(), 2, "one G.711 stream per family: {streams:?}");
    let mut frame_bytes = BTreeMap::new();
    for (port, (family, lengths)) in &streams {
        assert!(lengths.len() >= 40, "{family}: {} frames", lengths.len());
        let first = lengths[0];
        assert!(lengths.iter().all(|&l| l == first), "{family}: {lengths:?}");
        frame_bytes.insert(family.clone(), first);
        // tshark decodes the stream as RTP when told the port.
        let decode = format!("udp.port=={port},rtp");
        let rtp = tshark(
            &pcap,
            &[
                "-d",
                &decode,
                "-Y",
                &format!("rtp && udp.dstport=={port} && udp.length == 180"),
                "-T",
                "fields",
                "-e",
                "rtp.version",
                "-e",
                "rtp.p_type",
                "-e",
                "rtp.seq",
                "-e",
                "rtp.ssrc",
            ],
        );
        assert_eq!(rtp.len(), lengths.len(), "{family}: every frame is RTP");
        assert!(rtp.iter().all(|f| f[0] == "2" && f[1] == "0"), "{rtp:?}");
        let ssrc = &rtp[0][3];
        assert!(rtp.iter().all(|f| &f[3] == ssrc), "one SSRC");
        let sequence: Vec<u32> = rtp.iter().map(|f| f[2].parse().unwrap()).collect();
        for pair in sequence.windows(2) {
            assert_eq!((pair[0] + 1) % 65_536, pair[1], "consecutive RTP sequence");
        }
    }
    // What the run printed on the link (the header model) against the
    // capture: per trial, the measured datagrams' frames (warm-up flag
    // clear in the dualperf stamp after the 12-byte RTP header).
    let result: RunResult =
        serde_json::from_slice(&std::fs::read(folder.join("result.json")).unwrap()).unwrap();
    let captured: Vec<(u16, u64, u64)> = tshark(
        &pcap,
        &[
            "-Y",
            "udp.length == 180",
            "-T",
            "fields",
            "-e",
            "udp.dstport",
            "-e",
            "frame.len",
            "-e",
            "udp.payload",
        ],
    )
    .into_iter()
    .filter_map(|f| {
        let payload = f.get(2)?.replace(':', "");
        // Stamp flags: bytes 28..32 of the payload (RTP 12 + sequence 8 + time 8).
        let flags = u32::from_str_radix(payload.get(56..64)?, 16).ok()?;
        if flags & 1 != 0 {
            return None;
        }
        Some((f[0].parse().ok()?, f[1].parse().ok()?, 1))
    })
    .collect();
    let analysis = result.analysis.as_ref().unwrap();
    for trial in &result.trials {
        let TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{}: the trial failed", trial.arm);
        };
        let port: u16 = trial
            .remote_address
            .as_ref()
            .and_then(|a| a.rsplit(':').next()?.parse().ok())
            .unwrap();
        let (bytes, packets) = captured
            .iter()
            .filter(|c| c.0 == port)
            .fold((0, 0), |(b, p), c| (b + c.1, p + c.2));
        let value = |metric: MetricId| {
            analysis
                .summaries
                .iter()
                .find(|s| s.arm == trial.arm && s.metric == metric)
                .map(|s| s.summary.mean)
                .unwrap()
        };
        let frame = bytes as f64 / packets as f64;
        let rate = bytes as f64 * 8.0 / (o.measured_ns as f64 / 1e9);
        let (printed_frame, printed_rate) = (
            value(MetricId::MediaEthernetFrameBytes),
            value(MetricId::MediaEthernetBps),
        );
        eprintln!(
            "{}: capture {packets} frames of {frame:.2} B, {:.2} kbit/s; printed {printed_frame:.2} B, {:.2} kbit/s",
            trial.arm,
            rate / 1e3,
            printed_rate / 1e3
        );
        assert!((printed_frame / frame - 1.0).abs() < 0.01, "{}", trial.arm);
        assert!((printed_rate / rate - 1.0).abs() < 0.01, "{}", trial.arm);
    }
    std::fs::remove_dir_all(&folder).unwrap();
    eprintln!("frame bytes: {frame_bytes:?}");
    assert_eq!(
        frame_bytes["v4"], 214,
        "14 Ethernet + 20 IPv4 + 8 UDP + 12 RTP + 160 G.711"
    );
    assert_eq!(frame_bytes["v6"], 234, "IPv6's header is 20 bytes longer");
}
