//! The `diffserv` preset's conditioner seen on the wire: a tshark capture on
//! the core router's side of the core link (after the edge router's
//! conditioner) while `dualperf run` sends EF from the premium client in
//! profile, then at twice its allowance, then from the non-premium client:
//!
//! - in profile, every data packet keeps DSCP 46 (EF);
//! - at twice the allowance, about half keep EF and the excess carries DSCP 0;
//! - from the unauthorised client, every data packet carries DSCP 0;
//! - every IPv6 data packet carries the flow label `-L` asked for (the
//!   conditioner rewrites the DSCP only).
//!
//! The testbed's namespaces are uniquely named and removed when the testbed
//! handle drops, also when an assertion fails. Needs root, `ip`, `nft`, `tc`
//! and `tshark`: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::ffi::OsString;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dualperf_lab::{preset, BuildOptions, RunId, Testbed};
use dualperf_model::IpFamily;

const PORT: &str = "5197";

/// Sends EF udp-stream traffic from `node` to the server, both families.
fn send(testbed: &Testbed, node: &str, rate: &str, label: &str) {
    let server = |family| testbed.address("server", family).unwrap().to_string();
    let output = Command::new("ip")
        .args(["netns", "exec", &testbed.netns(node).unwrap()])
        .arg(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "run",
            "--v4",
            &server(IpFamily::V4),
            "--v6",
            &server(IpFamily::V6),
        ])
        .args([
            "-p",
            PORT,
            "-S",
            "ef",
            "-L",
            label,
            "--no-store",
            "--repeat",
            "1",
        ])
        .args(["--tests", "udp-stream", "--sizes", "994", "-b", rate])
        .args(["-t", "0.6", "--warmup", "0.1"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// One captured data packet.
struct Packet {
    time: f64,
    source: String,
    dscp: u8,
    flow_label: Option<u32>,
}

#[test]
fn the_core_link_sees_ef_in_profile_the_excess_and_unauthorised_ef_as_dscp_0() {
    let tools = ["tshark", "nft", "tc"].iter().all(|tool| {
        Command::new("which")
            .arg(tool)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !(dualperf_lab::can_create_namespaces() && tools) {
        assert!(
            std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
            "needs root, tshark, nft and tc"
        );
        eprintln!("skipped: needs root, tshark, nft and tc");
        return;
    }
    let topology = preset::load("diffserv").unwrap();
    let run = RunId::unique();
    let testbed = Testbed::build(&topology, &run, &BuildOptions::default()).unwrap();
    let domain = topology.diffserv().unwrap();
    let core = topology.node_index("core").unwrap();
    let end = topology.links()[domain.core_link].end_of(core).unwrap();
    let interface = dualperf_lab::naming::interface_name(&run, domain.core_link, end);
    let pcap = std::env::temp_dir().join(format!("dpds-{}.pcap", std::process::id()));
    let _ = std::fs::remove_file(&pcap);
    let mut server = testbed
        .spawn(
            "server",
            env!("CARGO_BIN_EXE_dualperf"),
            &["serve".into(), "-p".into(), PORT.into()],
            Stdio::null(),
            Stdio::null(),
        )
        .unwrap();
    let tshark_args: Vec<OsString> = vec![
        "-q".into(),
        "-i".into(),
        interface.clone().into(),
        "-w".into(),
        pcap.clone().into(),
        "-f".into(),
        "udp".into(),
    ];
    let mut tshark = testbed
        .spawn("core", "tshark", &tshark_args, Stdio::null(), Stdio::null())
        .unwrap();
    let ready = Instant::now();
    while !pcap.exists() && ready.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(700));
    let allowance_pps = domain.ef_packets_per_second();
    let in_profile = format!("{}", allowance_pps / 4 * 994 * 8);
    let twice = format!("{}", 2 * allowance_pps * 994 * 8);
    send(&testbed, "premium", &in_profile, "12345");
    let first = now_s();
    send(&testbed, "premium", &twice, "12346");
    let second = now_s();
    send(&testbed, "other", &in_profile, "12347");
    std::thread::sleep(Duration::from_millis(500));
    tshark.stop();
    server.stop();
    let fields = Command::new("tshark")
        .args([
            "-r",
            pcap.to_str().unwrap(),
            "-T",
            "fields",
            "-E",
            "separator=,",
        ])
        .args(["-e", "frame.time_epoch", "-e", "ip.src", "-e", "ipv6.src"])
        .args([
            "-e",
            "ip.dsfield.dscp",
            "-e",
            "ipv6.tclass.dscp",
            "-e",
            "ipv6.flow",
        ])
        .args(["-e", "udp.length"])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&pcap);
    let text = String::from_utf8_lossy(&fields.stdout).into_owned();
    let packets: Vec<Packet> = text
        .lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split(',').collect();
            // Data datagrams only (994 B payload + 8 B UDP header).
            if cols.get(6).and_then(|l| l.parse::<u32>().ok()) != Some(1002) {
                return None;
            }
            let v6 = cols[1].is_empty();
            Some(Packet {
                time: cols[0].parse().ok()?,
                source: if v6 { cols[2] } else { cols[1] }.to_string(),
                dscp: if v6 { cols[4] } else { cols[3] }.parse().ok()?,
                flow_label: v6
                    .then(|| u32::from_str_radix(cols[5].trim_start_matches("0x"), 16).ok())
                    .flatten(),
            })
        })
        .collect();
    let address = |node: &str, family| testbed.address(node, family).unwrap().to_string();
    for family in IpFamily::ALL {
        let premium = address("premium", family);
        let other = address("other", family);
        let phase = |from: &str, start: f64, end: f64| -> Vec<&Packet> {
            packets
                .iter()
                .filter(|p| p.source == from && p.time >= start && p.time < end)
                .collect()
        };
        let calm = phase(&premium, 0.0, first);
        let over = phase(&premium, first, second);
        let unauthorised = phase(&other, second, f64::MAX);
        eprintln!(
            "{}: in profile {} packets, over the allowance {} ({} EF), unauthorised {}",
            family.label(),
            calm.len(),
            over.len(),
            over.iter().filter(|p| p.dscp == 46).count(),
            unauthorised.len()
        );
        assert!(calm.len() > 50, "{family:?}: too few in-profile packets");
        assert!(
            calm.iter().all(|p| p.dscp == 46),
            "{family:?}: in-profile EF remarked"
        );
        let kept = over.iter().filter(|p| p.dscp == 46).count() as f64;
        let excess = over.iter().filter(|p| p.dscp == 0).count() as f64;
        assert_eq!(
            kept + excess,
            over.len() as f64,
            "{family:?}: only DSCP 46 or 0"
        );
        let share = kept / (kept + excess);
        assert!(
            (0.3..=0.7).contains(&share),
            "{family:?}: {share:.2} of EF at twice the allowance kept EF ({kept} of {})",
            kept + excess
        );
        assert!(
            unauthorised.len() > 50,
            "{family:?}: too few unauthorised packets"
        );
        assert!(
            unauthorised.iter().all(|p| p.dscp == 0),
            "{family:?}: unauthorised EF kept its mark"
        );
        if family == IpFamily::V6 {
            for (packets, label) in [(&calm, 12345), (&over, 12346), (&unauthorised, 12347)] {
                assert!(
                    packets.iter().all(|p| p.flow_label == Some(label)),
                    "IPv6 flow label {label} not kept"
                );
            }
        }
    }
    let prefix = dualperf_lab::naming::run_namespace_prefix(&run);
    testbed.teardown().unwrap();
    let left = Command::new("ip").args(["netns", "list"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&left.stdout).contains(&prefix));
}
