//! serve + run over 127.0.0.1 and ::1 for every test kind.

use dualperf_engine::limits::ServerLimits;
use dualperf_model::{IpFamily, TestKind};

use crate::support::{assert_consistent, short_spec, trial, TestServer};

fn every_kind_over(ip: &str, family: IpFamily) {
    let server = TestServer::start(ServerLimits::default(), None);
    for (kind, size) in [
        (TestKind::TcpStream, 128 * 1024),
        (TestKind::UdpStream, 1024),
        (TestKind::TcpRr, 64),
        (TestKind::UdpRr, 64),
        (TestKind::TcpConnect, 0),
    ] {
        let spec = short_spec(kind, size);
        let report = trial(server.address(ip), &spec);
        assert_consistent(&report, &spec, family);
    }
    assert!(
        server.log_text().contains(&format!("family {family}")),
        "{}",
        server.log_text()
    );
}

#[test]
fn every_kind_runs_over_ipv4_loopback_and_the_server_sees_ipv4() {
    every_kind_over("127.0.0.1", IpFamily::V4);
}

#[test]
fn every_kind_runs_over_ipv6_loopback_and_the_server_sees_ipv6() {
    every_kind_over("::1", IpFamily::V6);
}

#[test]
fn reverse_and_parallel_streams_count_on_the_right_ends() {
    let server = TestServer::start(ServerLimits::default(), None);
    for (kind, size) in [(TestKind::TcpStream, 16 * 1024), (TestKind::UdpStream, 512)] {
        for (reverse, streams) in [(true, 1), (false, 3), (true, 2)] {
            let mut spec = short_spec(kind, size);
            spec.reverse = reverse;
            spec.parallel_streams = streams;
            if kind == TestKind::UdpStream {
                spec.rate = Some(dualperf_model::BitRate::from_mbit(10));
            }
            let report = trial(server.address("::1"), &spec);
            assert_consistent(&report, &spec, IpFamily::V6);
            if kind == TestKind::UdpStream {
                // 10 Mbit/s of 512-byte payloads per stream for 300 ms ≈ 732
                // datagrams each. The pacer must never exceed the rate; it may
                // fall short when CI's two CPUs are starved, but not by half.
                let expected = 10e6 / (512.0 * 8.0) * 0.3 * f64::from(streams);
                let sent = report.observations.sender.packets as f64;
                assert!(
                    (0.5..1.15).contains(&(sent / expected)),
                    "reverse {reverse}, {streams} streams: sent {sent}, expected about {expected}"
                );
            }
        }
    }
}

#[test]
fn a_silent_client_is_dropped_after_the_handshake_timeout() {
    use std::io::Read;
    let limits = ServerLimits {
        handshake_timeout: std::time::Duration::from_millis(200),
        ..Default::default()
    };
    let server = TestServer::start(limits, None);
    let mut stream = std::net::TcpStream::connect(server.address("127.0.0.1")).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    assert!(
        String::from_utf8_lossy(&answer).contains("timed out"),
        "{answer:?}"
    );
}

#[test]
fn concurrent_sessions_are_served_side_by_side_and_say_their_cpu_is_shared() {
    let server = TestServer::start(ServerLimits::default(), None);
    let (v4, v6) = (server.address("127.0.0.1"), server.address("::1"));
    let spec = short_spec(TestKind::TcpStream, 16 * 1024);
    let other = spec.clone();
    let parallel = std::thread::spawn(move || trial(v6, &other));
    let first = trial(v4, &spec);
    let second = parallel.join().unwrap();
    assert_consistent(&first, &spec, IpFamily::V4);
    assert_consistent(&second, &spec, IpFamily::V6);
    let notes: Vec<&String> = first
        .observations
        .notes
        .iter()
        .chain(&second.observations.notes)
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("served 2 sessions")),
        "{notes:?}"
    );
}
