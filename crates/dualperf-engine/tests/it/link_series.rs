//! Throughput over time as the link saw it: through a 10 Mbit/s htb
//! bottleneck (client — router — server namespaces), no 50 ms interval of
//! what the receiver got may exceed the link: a bulk TCP stream and UDP
//! offered at 12 Mbit/s. On a busy host the
//! receiving threads get descheduled and read in bursts (read()-time
//! counting showed 20–30 Mbit/s intervals in `lab realtime`); counted by
//! arrival they stay under the link. The bound is the link + 5 %:
//! 10.5 Mbit/s of payload. (Busy threads on every CPU at the same priority
//! starve the kernel's forwarding and the htb itself, which then delivers
//! late and in bursts: 11.8 Mbit/s intervals were seen so, as on a capture.)

use std::net::SocketAddr;

use dualperf_model::{BitRate, IpFamily, Observations, TestKind, TestSpec};

use crate::probe_lab::{in_ns, or_skip, with_server, ProbeChain};
use crate::support::{short_spec, trial};

/// Payload rate per interval of at least half the nominal length, Mbit/s.
fn interval_rates(o: &Observations, interval_ms: u64) -> Vec<f64> {
    o.intervals
        .iter()
        .filter(|s| s.length_ns >= interval_ms * 1_000_000 / 2)
        .map(|s| s.received_bytes as f64 * 8.0 / (s.length_ns as f64 / 1e9) / 1e6)
        .collect()
}

fn spec(kind: TestKind, streams: u32) -> TestSpec {
    let mut spec = short_spec(
        kind,
        if kind == TestKind::TcpStream {
            131_072
        } else {
            1_200
        },
    );
    spec.duration_ms = 2_000;
    spec.warmup_ms = 500;
    spec.sample_interval_ms = 50;
    spec.parallel_streams = streams;
    if kind == TestKind::UdpStream {
        spec.rate = Some(BitRate::from_bits_per_second(12_000_000));
    }
    spec
}

#[test]
fn no_interval_through_a_10_mbit_bottleneck_exceeds_the_link() {
    let Some(chain) = or_skip(ProbeChain::create("l", 213)) else {
        return;
    };
    // One segment per packet, as on a real link (the lab's delay line
    // does the same): a 64 KB GSO packet would leave htb in one piece.
    let segs = ["link", "set", "dev", &chain.client_dev, "gso_max_segs", "1"];
    in_ns(&chain.client, "ip", &segs).expect("setting gso_max_segs");
    chain
        .shape_router_egress("10mbit", 100)
        .expect("htb and pfifo exist on this kernel");
    let addresses = ProbeChain::server_addresses(213);
    let results = with_server(&chain.server, &chain.client, move |port| {
        let mut results = Vec::new();
        for (address, family) in addresses.iter().zip([IpFamily::V4, IpFamily::V6]) {
            let server = SocketAddr::new(address.parse().unwrap(), port);
            // One TCP connection: with four in this one process the
            // receivers fall behind, the kernel merges queued segments and
            // a merged segment carries its newest stamp (a known limit,
            // docs/metrics.md); `lab realtime`'s four-stream load, served
            // by a process of its own, stays under the link.
            for (kind, streams) in [(TestKind::TcpStream, 1), (TestKind::UdpStream, 1)] {
                let report = trial(server, &spec(kind, streams));
                let o = &report.observations;
                let mean = o.receiver.bytes as f64 * 8.0 / (o.measured_ns as f64 / 1e9) / 1e6;
                results.push((family, kind, streams, mean, interval_rates(o, 50)));
            }
        }
        results
    });
    for (family, kind, streams, mean, rates) in results {
        let highest = rates.iter().copied().fold(0.0, f64::max);
        eprintln!(
            "{family} {kind} ×{streams}: mean {mean:.2} Mbit/s, highest 50 ms interval {highest:.2} Mbit/s over {} intervals",
            rates.len()
        );
        assert!(
            rates.len() >= 30,
            "{family} {kind}: {} intervals",
            rates.len()
        );
        // The flow filled the link (the bound is not met by sending little).
        assert!(mean > 8.0, "{family} {kind} ×{streams}: mean {mean} Mbit/s");
        assert!(
            highest <= 10.5,
            "{family} {kind} ×{streams}: an interval of {highest:.2} Mbit/s on a 10 Mbit/s link: {rates:?}"
        );
    }
    drop(chain);
}
