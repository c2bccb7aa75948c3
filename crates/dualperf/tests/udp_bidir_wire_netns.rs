//! `dualperf run -u --bidir -b 10M` between two network namespaces, checked
//! against a tshark capture on the server's veth (the kernel's and
//! Wireshark's count, not dualperf's): every data datagram each way is on
//! the wire, exactly as many as each direction's sender counted, and the
//! server-to-client ones stop with the trial (the reverse sender is not
//! left running its 20 s load schedule). Needs root, `ip` and `tshark`;
//! skips without them unless DUALPERF_REQUIRE_PRIVILEGED is set, then it
//! fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/netns_pair.rs"]
mod netns_pair;
use netns_pair::Lab;

use std::process::Command;
use std::time::{Duration, Instant};

const PORT: &str = "5198";
/// udp-stream's payload (-l 1200): its datagrams are the 1208-byte UDP ones.
const PAYLOAD: u32 = 1200;

#[test]
fn each_direction_s_datagrams_on_the_wire_are_what_its_sender_counted() {
    let Some(mut lab) = Lab::or_skip("dpbd", 31, "tshark") else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_dualperf");
    let pid = std::process::id();
    let pcap = std::env::temp_dir().join(format!("dpbd-{pid}.pcap"));
    let json = std::env::temp_dir().join(format!("dpbd-{pid}.json"));
    let pcap_text = pcap.to_str().unwrap().to_string();
    let (server_ns, client_ns) = (lab.server.clone(), lab.client.clone());
    let veth = format!("dpbd{pid}s");
    lab.spawn(&server_ns, &[bin, "serve", "-p", PORT]).unwrap();
    lab.spawn(
        &server_ns,
        &["tshark", "-q", "-i", &veth, "-w", &pcap_text, "-f", "udp"],
    )
    .unwrap();
    let ready = Instant::now();
    while !pcap.exists() && ready.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(700));
    let began = Instant::now();
    let output = Command::new("ip")
        .args(["netns", "exec", &client_ns, bin, "run"])
        .args(["--v4", "10.231.0.2", "-4", "-p", PORT])
        .args(["-u", "--bidir", "-b", "10M", "-l", &PAYLOAD.to_string()])
        .args(["-t", "0.5", "--warmup", "0", "--repeat", "1", "--no-store"])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let took = began.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(took < Duration::from_secs(4), "the run took {took:?}");
    // Long enough for a sender left running to show up in the capture.
    std::thread::sleep(Duration::from_millis(1500));
    let fields = lab.finish_capture(&pcap_text, &["ip.src", "udp.length"]);
    let _ = std::fs::remove_file(&pcap);
    let result: dualperf_model::RunResult =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let data_length = (PAYLOAD + 8).to_string();
    let (mut from_client, mut from_server) = (0u64, 0u64);
    for line in fields.lines() {
        let (source, length) = line.split_once(',').unwrap_or_default();
        if length != data_length {
            continue; // hellos
        }
        match source {
            "10.231.0.1" => from_client += 1,
            "10.231.0.2" => from_server += 1,
            _ => {}
        }
    }
    let dualperf_model::TrialOutcome::Ok(forward) = &result.trials[0].outcome else {
        panic!("{:?}", result.trials[0])
    };
    let reverse = &forward.loads[0].observations;
    eprintln!(
        "on the wire: {from_client} datagrams client to server, {from_server} server to client; \
         counted by the senders: {} and {}",
        forward.sender.packets, reverse.sender.packets
    );
    // Without a warm-up every datagram is a measured one: the wire holds
    // exactly what each sender counted, nothing sent after the end.
    assert_eq!(from_client, forward.sender.packets);
    assert_eq!(from_server, reverse.sender.packets);
    // 10 Mbit/s of 1200-byte payloads is about 1042 datagrams a second.
    let rate = |packets: u64, ns: u64| packets as f64 * f64::from(PAYLOAD) * 8e9 / ns as f64;
    for (direction, packets, ns) in [
        ("client to server", from_client, forward.measured_ns),
        ("server to client", from_server, reverse.measured_ns),
    ] {
        let bps = rate(packets, ns);
        assert!(
            (9e6..11e6).contains(&bps),
            "{direction}: {packets} datagrams in {ns} ns = {bps:.0} bit/s"
        );
    }
}
