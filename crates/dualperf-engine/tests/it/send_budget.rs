//! Send budgets (iperf3 `-n` / `-k`) over loopback: a budgeted trial sends
//! exactly its budget in the measured interval and ends long before its
//! time cap, also with the server sending (`-u -k N -R`, as iperf3's server
//! sends the budget); a cap shorter than the budget needs ends it and says so.

use std::time::{Duration, Instant};

use dualperf_engine::limits::ServerLimits;
use dualperf_model::{BitRate, IpFamily, SendBudget, TestKind};

use crate::support::{short_spec, trial, TestServer};

#[test]
fn a_packet_budget_sends_exactly_its_datagrams_split_over_streams_and_ends_early() {
    let server = TestServer::start(ServerLimits::default(), None);
    for (ip, streams) in [("127.0.0.1", 1), ("::1", 3)] {
        let mut spec = short_spec(TestKind::UdpStream, 256);
        spec.duration_ms = 20_000; // the cap: far beyond what the budget needs
        spec.parallel_streams = streams;
        spec.rate = Some(BitRate::from_mbit(50)); // ~24 kpps per stream, bounded
        spec.send_budget = Some(SendBudget::Packets(3_001));
        let started = Instant::now();
        let report = trial(server.address(ip), &spec);
        let took = started.elapsed();
        let observations = &report.observations;
        assert_eq!(observations.sender.packets, 3_001, "{ip}");
        assert_eq!(observations.sender.bytes, 3_001 * 256, "{ip}");
        let udp = observations.udp.as_ref().expect("udp counters");
        assert!(
            udp.received <= 3_001 && udp.received >= 2_900,
            "{ip}: received {}",
            udp.received
        );
        assert!(took < Duration::from_secs(8), "{ip}: took {took:?}");
        // The measured interval is the time the budget took, not the cap.
        assert!(
            observations.measured_ns < 5_000_000_000,
            "{ip}: measured {} ns",
            observations.measured_ns
        );
        assert!(
            !observations.notes.iter().any(|n| n.contains("time cap")),
            "{:?}",
            observations.notes
        );
        assert_eq!(
            report.server_seen_family,
            IpFamily::of(&ip.parse().unwrap())
        );
    }
}

#[test]
fn a_byte_budget_writes_exactly_its_bytes_over_tcp() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut spec = short_spec(TestKind::TcpStream, 1000);
    spec.duration_ms = 20_000;
    spec.send_budget = Some(SendBudget::Bytes(2 << 20)); // 2098 writes, 2,098,000 B
    let report = trial(server.address("::1"), &spec);
    // The sender counts its measured bytes itself: exact. The receiver's
    // window is its own (the server's clock).
    assert_eq!(report.observations.sender.bytes, 2_098_000);
    assert!(report.observations.receiver.bytes > 0);
    assert!(report.observations.measured_ns < 5_000_000_000);
}

#[test]
fn a_cap_shorter_than_the_budget_needs_ends_the_trial_and_says_so() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut spec = short_spec(TestKind::UdpStream, 1000);
    spec.duration_ms = 200;
    spec.rate = Some(BitRate::from_mbit(8)); // 1000 datagrams/s: 200 in the cap
    spec.send_budget = Some(SendBudget::Packets(100_000));
    let report = trial(server.address("127.0.0.1"), &spec);
    let sent = report.observations.sender.packets;
    assert!(sent < 1_000, "sent {sent}");
    assert!(
        report
            .observations
            .notes
            .iter()
            .any(|n| n.contains("time cap") && n.contains("100000")),
        "{:?}",
        report.observations.notes
    );
}

/// `-u -k 2001 -R -P 2`: the server sends the budget (1001 and 1000
/// datagrams per stream, as iperf3's server does with -R), and the client,
/// which receives, ends the trial when each stream's last datagram came:
/// long before the 20 s cap.
#[test]
fn a_packet_budget_with_the_server_sending_ends_when_the_last_datagram_came() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut spec = short_spec(TestKind::UdpStream, 256);
    spec.duration_ms = 20_000; // the cap: far beyond what the budget needs
    spec.parallel_streams = 2;
    spec.reverse = true;
    spec.rate = Some(BitRate::from_mbit(20)); // ~10 kpps per stream: ~0.1 s
    spec.send_budget = Some(SendBudget::Packets(2_001));
    let started = Instant::now();
    let report = trial(server.address("127.0.0.1"), &spec);
    let took = started.elapsed();
    let observations = &report.observations;
    // The server's count of what it sent in the measured interval.
    assert_eq!(observations.sender.packets, 2_001);
    let udp = observations.udp.as_ref().expect("udp counters");
    assert_eq!(udp.sent, 2_001);
    assert!(udp.received >= 1_950, "received {}", udp.received);
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(
        observations.measured_ns < 2_000_000_000,
        "measured {} ns",
        observations.measured_ns
    );
}

/// `-u -k 1 -P 2 -R`: one stream's share is the one datagram, the other's
/// is none; the client's receivers still end the trial, not the cap.
#[test]
fn a_reverse_budget_smaller_than_the_streams_still_ends_the_trial() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut spec = short_spec(TestKind::UdpStream, 256);
    spec.duration_ms = 20_000;
    spec.parallel_streams = 2;
    spec.reverse = true;
    spec.rate = Some(BitRate::from_mbit(1));
    spec.send_budget = Some(SendBudget::Packets(1));
    let started = Instant::now();
    let report = trial(server.address("::1"), &spec);
    let took = started.elapsed();
    assert_eq!(report.observations.sender.packets, 1);
    assert!(took < Duration::from_secs(3), "took {took:?}");
}
