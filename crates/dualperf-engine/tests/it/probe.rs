//! udp-probe over loopback: a stream of 10 ms probes arrives complete, in
//! order, with a plausible one-way delay on the shared kernel clock.

use dualperf_engine::limits::ServerLimits;
use dualperf_model::{IpFamily, TestKind, TestSpec};

use crate::support::{assert_consistent, short_spec, trial, TestServer};

/// 500 ms of 10 ms probes after a 100 ms warm-up: about 50 probes.
pub fn probe_spec(duration_ms: u64) -> TestSpec {
    let mut spec = short_spec(TestKind::UdpProbe, 172);
    spec.duration_ms = duration_ms;
    spec.probe_interval_us = Some(10_000);
    spec.sample_interval_ms = 100;
    spec
}

fn probes_arrive_complete_over(ip: &str, family: IpFamily, reverse: bool) {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut spec = probe_spec(500);
    spec.reverse = reverse;
    let report = trial(server.address(ip), &spec);
    assert_consistent(&report, &spec, family);
    let o = &report.observations;
    let udp = o.udp.as_ref().expect("probe counters");
    // The schedule sends one probe per 10 ms of the 500 ms measured stage;
    // a starved CI machine may end a probe or two early, never more late.
    assert!(
        (45..=51).contains(&udp.sent),
        "sent {} probes in 500 ms at 10 ms",
        udp.sent
    );
    assert_eq!(udp.sent, o.sender.packets);
    assert_eq!(udp.received, udp.sent, "loopback loses nothing: {udp:?}");
    assert_eq!((udp.lost, udp.duplicates, udp.reordered), (0, 0, 0));
    assert!(udp.clocks_shared, "one kernel, one clock");
    assert_eq!(udp.receive_timestamp_source, "SO_TIMESTAMPNS");
    assert_eq!(
        udp.arrivals.len() as u64,
        udp.sent,
        "every arrival kept raw"
    );
    for arrival in &udp.arrivals {
        let delay = arrival.received_ns - arrival.sent_ns;
        assert!(
            delay > 0 && delay < 10_000_000,
            "probe {} one-way delay {delay} ns is not in (0, 10 ms)",
            arrival.sequence
        );
    }
    // Probes leave 10 ms apart (± scheduling noise): the send stamps prove
    // the cadence, not just the count.
    let first = udp.arrivals.first().unwrap().sent_ns;
    let last = udp.arrivals.last().unwrap().sent_ns;
    let mean_gap = (last - first) / (udp.arrivals.len() as i64 - 1);
    assert!(
        (9_000_000..11_000_000).contains(&mean_gap),
        "mean gap {mean_gap} ns"
    );
    let lost: Vec<Option<u64>> = o.intervals.iter().map(|i| i.lost_packets).collect();
    assert!(
        !lost.is_empty() && lost.iter().all(|l| *l == Some(0)),
        "{lost:?}"
    );
    assert!(o.intervals.iter().all(|i| i.mean_delay_ns.is_some()));
    assert!(
        o.notes.iter().any(|n| n.contains("clocks shared")),
        "{:?}",
        o.notes
    );
    let rtt = o
        .control_min_rtt_ns
        .expect("TCP_INFO gives the control RTT");
    assert!(rtt > 0 && rtt < 10_000_000, "loopback RTT {rtt} ns");
    assert!(o.notes.iter().any(|n| n.contains("minimum RTT")));
}

#[test]
fn a_probe_stream_over_ipv4_loopback_arrives_complete_with_a_small_one_way_delay() {
    probes_arrive_complete_over("127.0.0.1", IpFamily::V4, false);
}

#[test]
fn a_probe_stream_over_ipv6_loopback_arrives_complete_with_a_small_one_way_delay() {
    probes_arrive_complete_over("::1", IpFamily::V6, false);
}

#[test]
fn a_reverse_probe_stream_runs_from_server_to_client() {
    probes_arrive_complete_over("::1", IpFamily::V6, true);
    probes_arrive_complete_over("127.0.0.1", IpFamily::V4, true);
}

#[test]
fn a_tcp_stream_with_a_probe_alongside_carries_the_probe_streams_observations() {
    let server = TestServer::start(ServerLimits::default(), None);
    for (ip, family) in [("127.0.0.1", IpFamily::V4), ("::1", IpFamily::V6)] {
        let mut spec = short_spec(TestKind::TcpStream, 64 * 1024);
        spec.duration_ms = 500;
        spec.probe_interval_us = Some(10_000);
        let report = trial(server.address(ip), &spec);
        assert_consistent(&report, &spec, family);
        let o = &report.observations;
        let probe = o.probe.as_ref().unwrap_or_else(|| panic!("{:?}", o.notes));
        assert_eq!((probe.interval_us, probe.size_bytes), (10_000, 172));
        assert!(
            (40..=51).contains(&probe.udp.sent),
            "{family}: {} probes",
            probe.udp.sent
        );
        assert_eq!(probe.udp.received + probe.udp.lost, probe.udp.sent);
        assert!(probe.udp.clocks_shared);
        assert!(!probe.intervals.is_empty());
        assert!(o.receiver.bytes > 0, "the load ran too");
    }
}
