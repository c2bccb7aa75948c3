//! dualperf's iperf3 client against Debian's `iperf3 -s` (esnet/iperf,
//! written elsewhere) over loopback, both families: TCP and UDP, forward
//! and reverse, with the server's own account checked against dualperf's.

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dualperf_engine::client::peer::iperf3;
use dualperf_engine::client::ClientOptions;
use dualperf_model::{Arm, BitRate, IpFamily, Observations, TestKind, TestSpec};

/// An `iperf3 -s` on a free loopback port, killed on drop.
pub struct Iperf3Server {
    child: Child,
    /// Its port.
    pub port: u16,
}

impl Iperf3Server {
    /// Starts one, or `None` (with a note) when iperf3 is not installed and
    /// the run does not require it (`DUALPERF_REQUIRE_PRIVILEGED` unset).
    pub fn start() -> Option<Iperf3Server> {
        let port = TcpListener::bind("[::]:0").ok()?.local_addr().ok()?.port();
        let child = match Command::new("iperf3")
            .args(["-s", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(error) => {
                assert!(
                    std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                    "iperf3 is required here: {error}"
                );
                eprintln!("skipped: iperf3 is not installed ({error})");
                return None;
            }
        };
        let server = Iperf3Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::net::TcpStream::connect(("::1", port)).is_err() {
            assert!(Instant::now() < deadline, "iperf3 -s did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        // That probe connection counts as a (failed) client to iperf3;
        // give it a moment to reset.
        std::thread::sleep(Duration::from_millis(200));
        Some(server)
    }
}

impl Drop for Iperf3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(server: &Iperf3Server, family: IpFamily, spec: &TestSpec) -> Observations {
    let ip = match family {
        IpFamily::V4 => "127.0.0.1",
        IpFamily::V6 => "::1",
    };
    let arm = Arm::native(family, Some(ip.into()));
    let address = SocketAddr::new(ip.parse().unwrap(), server.port);
    let report = iperf3::run_trial(address, spec, &arm, &ClientOptions::default())
        .unwrap_or_else(|e| panic!("{family} {}: {e}", spec.label()));
    assert_eq!(report.server_seen_family, family);
    let remote = report.remote_address.unwrap();
    assert_eq!(
        IpFamily::of(&remote.parse::<SocketAddr>().unwrap().ip()),
        family,
        "{remote}"
    );
    report.observations
}

fn spec(kind: TestKind, size: u32, reverse: bool, rate: Option<BitRate>) -> TestSpec {
    TestSpec {
        duration_ms: 1000,
        warmup_ms: 0,
        reverse,
        rate,
        sample_interval_ms: 250,
        ..TestSpec::new(kind, size)
    }
}

#[test]
fn tcp_both_ways_and_both_families_against_iperf3() {
    let Some(server) = Iperf3Server::start() else {
        return;
    };
    for family in IpFamily::ALL {
        for reverse in [false, true] {
            let spec = spec(TestKind::TcpStream, 131_072, reverse, None);
            let o = run(&server, family, &spec);
            let report = o.iperf3.as_ref().unwrap();
            assert_eq!(report.server_received, !reverse);
            assert!(o.sender.bytes > 1_000_000, "{family} {reverse}: {o:?}");
            // TCP delivers what was written, less what is in flight at the end.
            let ratio = o.receiver.bytes as f64 / o.sender.bytes as f64;
            assert!(
                (0.9..=1.1).contains(&ratio),
                "{family} reverse={reverse}: sent {} received {}",
                o.sender.bytes,
                o.receiver.bytes
            );
            assert!(!o.intervals.is_empty());
            assert!((900_000_000..1_300_000_000).contains(&o.measured_ns));
        }
    }
}

#[test]
fn udp_at_a_rate_reports_the_server_s_loss_and_jitter() {
    let Some(server) = Iperf3Server::start() else {
        return;
    };
    let rate = Some(BitRate::from_mbit(20));
    for family in IpFamily::ALL {
        let o = run(
            &server,
            family,
            &spec(TestKind::UdpStream, 1200, false, rate),
        );
        let report = o.iperf3.as_ref().unwrap();
        let packets = report.udp_packets.unwrap();
        // 20 Mbit/s of 1200 B for 1 s: about 2083 datagrams.
        assert!(
            (1800..=2400).contains(&packets),
            "{family}: server saw {packets} datagrams"
        );
        assert!(o.sender.packets.abs_diff(packets) < 100, "{o:?}");
        let udp = o.udp.as_ref().unwrap();
        assert_eq!(udp.lost, report.udp_lost.unwrap());
        assert!(
            udp.lost * 100 < packets,
            "loopback loses under 1 %: {udp:?}"
        );
        assert!(report.udp_jitter_ns.is_some());
        // Reverse: the server paces and dualperf counts.
        let o = run(
            &server,
            family,
            &spec(TestKind::UdpStream, 1200, true, rate),
        );
        let udp = o.udp.as_ref().unwrap();
        assert!(
            (1800..=2400).contains(&udp.received),
            "{family} reverse: {udp:?}"
        );
        assert!(udp.lost * 100 < udp.sent.max(1), "{udp:?}");
        assert!(!o.iperf3.as_ref().unwrap().server_received);
    }
}

#[test]
fn a_second_client_meets_a_busy_server_and_is_told_so() {
    let Some(server) = Iperf3Server::start() else {
        return;
    };
    let long = TestSpec {
        duration_ms: 3000,
        ..spec(TestKind::TcpStream, 131_072, false, None)
    };
    let port = server.port;
    let first = std::thread::spawn(move || {
        let arm = Arm::native(IpFamily::V4, Some("127.0.0.1".into()));
        let address = SocketAddr::new("127.0.0.1".parse().unwrap(), port);
        iperf3::run_trial(address, &long, &arm, &ClientOptions::default())
    });
    std::thread::sleep(Duration::from_millis(500));
    let arm = Arm::native(IpFamily::V6, Some("::1".into()));
    let address = SocketAddr::new("::1".parse().unwrap(), port);
    let policy = iperf3::BusyPolicy {
        attempts: 2,
        first_wait: Duration::from_millis(200),
    };
    let short = spec(TestKind::TcpStream, 131_072, false, None);
    let error = iperf3::run_trial_with(address, &short, &arm, &ClientOptions::default(), policy)
        .unwrap_err()
        .to_string();
    assert!(error.contains("busy"), "{error}");
    assert!(first.join().unwrap().is_ok());
    // Once the first test is over the server takes the next one.
    std::thread::sleep(Duration::from_millis(300));
    let outcome = iperf3::run_trial(address, &short, &arm, &ClientOptions::default());
    assert!(outcome.is_ok(), "{outcome:?}");
}

#[test]
fn parallel_streams_carry_iperf3_s_stream_ids() {
    let Some(server) = Iperf3Server::start() else {
        return;
    };
    // The server rejects results whose stream ids are not its own (1, 3, 4 …).
    for (kind, size, rate) in [
        (TestKind::TcpStream, 131_072, None),
        (TestKind::UdpStream, 1200, Some(BitRate::from_mbit(10))),
    ] {
        let spec = TestSpec {
            parallel_streams: 3,
            ..spec(kind, size, false, rate)
        };
        let o = run(&server, IpFamily::V6, &spec);
        let report = o.iperf3.unwrap();
        let ids: Vec<i64> = report.streams.iter().map(|s| s.id).collect();
        assert_eq!(ids, [1, 3, 4], "{kind}");
        assert!(report.streams.iter().all(|s| s.bytes > 0), "{report:?}");
    }
}
