//! Tests of the per-trial metric extraction.

use super::*;
use dualperf_fixtures::{arm, ok, spec};
use dualperf_model::observation::{
    Arrival, CpuObservations, FlowCounters, HistogramBucket, LatencySamples, ProcessCpu,
    TcpCounters,
};
use dualperf_model::{Arm, IpFamily};

/// A trial of `kind` (1000-byte messages) on the native IPv4 arm.
fn trial(kind: TestKind, observations: Observations) -> Trial {
    let v4 = Arm::native(IpFamily::V4, None);
    dualperf_fixtures::trial(0, &spec(kind, 1000), &v4, 0, ok(observations))
}

fn names(metrics: &TrialMetrics) -> Vec<MetricId> {
    metrics.values.iter().map(|&(m, _)| m).collect()
}

#[test]
fn tcp_stream_yields_throughput_retransmissions_efficiency_and_cpu() {
    let observations = Observations {
        measured_ns: 2_000_000_000,
        sender: FlowCounters {
            bytes: 2_500_000_000,
            packets: 1,
        },
        receiver: FlowCounters {
            bytes: 2_500_000_000,
            packets: 1,
        },
        tcp: Some(TcpCounters {
            bytes_sent: 2_500_100_000,
            bytes_retransmitted: 100_000,
            segments_retransmitted: 70,
            ..TcpCounters::default()
        }),
        cpu: CpuObservations {
            client: ProcessCpu {
                user_ns: 100_000_000,
                system_ns: 900_000_000,
                wall_ns: 2_000_000_000,
                involuntary_switches: 0,
                run_queue_wait_ns: None,
                busiest_thread_demand_ns: None,
            },
            ..CpuObservations::default()
        },
        ..Observations::default()
    };
    let metrics = measure_trial(&trial(TestKind::TcpStream, observations));
    assert_eq!(metrics.value(MetricId::GoodputBps), Some(1e10));
    // IPv4 TCP at MTU 1500 with timestamps: 1538 link bytes per 1448 payload bytes.
    let wire = metrics.value(MetricId::WireThroughputBps).unwrap();
    assert!((wire - 1e10 * 1538.0 / 1448.0).abs() < 1.0, "{wire}");
    assert_eq!(metrics.value(MetricId::RetransmittedSegments), Some(70.0));
    let efficiency = metrics.value(MetricId::TcpEfficiencyRatio).unwrap();
    assert!((efficiency - 2_500_000_000.0 / 2_500_100_000.0).abs() < 1e-12);
    assert_eq!(metrics.value(MetricId::ClientCpuCores), Some(0.5));
    // 1 s of CPU = 1e6 µs over 2.5e9 B = 2384.19 MiB → 419.43 µs/MiB.
    let demand = metrics
        .value(MetricId::ClientServiceDemandUsPerMib)
        .unwrap();
    assert!((demand - 1e6 / (2.5e9 / 1_048_576.0)).abs() < 1e-9);
    let missing: Vec<MetricId> = metrics.missing.iter().map(|&(m, _)| m).collect();
    assert!(missing.contains(&MetricId::ServerCpuCores));
    assert!(!names(&metrics).contains(&MetricId::LossRatio));
}

#[test]
fn udp_stream_with_a_complete_trace_computes_delivery_from_the_trace() {
    let arrivals: Vec<Arrival> = [0u64, 2, 1, 4]
        .iter()
        .map(|&s| Arrival {
            sequence: s,
            sent_ns: s as i64 * 1000,
            received_ns: s as i64 * 1000 + 50,
        })
        .collect();
    let observations = Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters {
            bytes: 5_000,
            packets: 5,
        },
        receiver: FlowCounters {
            bytes: 4_000,
            packets: 4,
        },
        udp: Some(UdpReceiveCounters {
            sent: 5,
            received: 4,
            arrivals,
            clocks_shared: true,
            // Deliberately wrong engine counters: the trace must win.
            lost: 3,
            ..UdpReceiveCounters::default()
        }),
        ..Observations::default()
    };
    let metrics = measure_trial(&trial(TestKind::UdpStream, observations));
    assert_eq!(metrics.value(MetricId::LossRatio), Some(0.2));
    assert_eq!(metrics.value(MetricId::ReorderedRatio), Some(0.25));
    assert_eq!(metrics.value(MetricId::ReceivedPps), Some(4.0));
    assert_eq!(metrics.value(MetricId::DuplicatePackets), Some(0.0));
}

#[test]
fn udp_stream_with_a_bounded_trace_uses_the_engine_counters() {
    let observations = Observations {
        measured_ns: 1_000_000_000,
        udp: Some(UdpReceiveCounters {
            sent: 1000,
            received: 990,
            lost: 10,
            reordered: 99,
            jitter_ns: 1234,
            arrivals: vec![Arrival::default()],
            arrivals_limit: 1,
            ..UdpReceiveCounters::default()
        }),
        ..Observations::default()
    };
    let metrics = measure_trial(&trial(TestKind::UdpStream, observations));
    assert_eq!(metrics.value(MetricId::LossRatio), Some(0.01));
    assert_eq!(metrics.value(MetricId::ReorderedRatio), Some(0.1));
    assert_eq!(metrics.value(MetricId::JitterNs), Some(1234.0));
}

#[test]
fn rr_yields_rtt_percentiles_and_transactions_per_second() {
    let observations = Observations {
        measured_ns: 1_000_000_000,
        latency: Some(LatencySamples {
            count: 4,
            histogram: vec![
                HistogramBucket {
                    value_ns: 10_000,
                    count: 2,
                },
                HistogramBucket {
                    value_ns: 20_000,
                    count: 2,
                },
            ],
            min_ns: 10_000,
            max_ns: 20_000,
            sum_ns: 60_000,
            sum_squares_ns2: 2.0 * 1e8 + 2.0 * 4e8,
            ..LatencySamples::default()
        }),
        ..Observations::default()
    };
    let metrics = measure_trial(&trial(TestKind::TcpRr, observations));
    assert_eq!(metrics.value(MetricId::RttMeanNs), Some(15_000.0));
    assert_eq!(metrics.value(MetricId::RttP50Ns), Some(10_000.0));
    assert_eq!(metrics.value(MetricId::RttP99Ns), Some(20_000.0));
    assert_eq!(metrics.value(MetricId::TransactionsPerSecond), Some(4.0));
}

#[test]
fn probe_without_shared_clocks_reports_why_one_way_delay_is_missing() {
    let arrivals: Vec<Arrival> = (0..10u64)
        .map(|s| Arrival {
            sequence: s,
            sent_ns: s as i64 * 10_000_000,
            received_ns: s as i64 * 10_000_000 + 5_000 + (s as i64 % 2) * 100,
        })
        .collect();
    let observations = Observations {
        measured_ns: 100_000_000,
        udp: Some(UdpReceiveCounters {
            sent: 10,
            received: 10,
            arrivals,
            ..UdpReceiveCounters::default()
        }),
        ..Observations::default()
    };
    let metrics = measure_trial(&trial(TestKind::UdpProbe, observations));
    assert!(metrics.value(MetricId::OwdMeanNs).is_none());
    let reason = metrics.missing_reason(MetricId::OwdMeanNs).unwrap();
    assert!(reason.contains("clocks"), "{reason}");
    assert_eq!(metrics.value(MetricId::PdvP99Ns), Some(100.0));
    assert_eq!(metrics.value(MetricId::IpdvMeanAbsNs), Some(100.0));
    assert_eq!(metrics.value(MetricId::LossRatio), Some(0.0));
}

#[test]
fn a_probe_beside_a_tcp_stream_gives_delay_under_load() {
    // 10 probes, 10 ms apart, each 40 ms in flight but one lost (seq 7).
    let arrivals: Vec<Arrival> = (0..10u64)
        .filter(|&s| s != 7)
        .map(|s| Arrival {
            sequence: s,
            sent_ns: s as i64 * 10_000_000,
            received_ns: s as i64 * 10_000_000 + 40_000_000,
        })
        .collect();
    let observations = Observations {
        measured_ns: 100_000_000,
        probe: Some(Box::new(dualperf_model::ProbeObservations {
            interval_us: 10_000,
            size_bytes: 172,
            udp: UdpReceiveCounters {
                sent: 10,
                received: 9,
                lost: 1,
                clocks_shared: true,
                arrivals,
                ..UdpReceiveCounters::default()
            },
            ..Default::default()
        })),
        ..Observations::default()
    };
    let metrics = measure_trial(&trial(TestKind::TcpStream, observations));
    assert_eq!(metrics.value(MetricId::LoadedOwdP50Ns), Some(40_000_000.0));
    assert_eq!(metrics.value(MetricId::LoadedPdvP99Ns), Some(0.0));
    assert_eq!(metrics.value(MetricId::LoadedLossRatio), Some(0.1));
    assert_eq!(metrics.value(MetricId::LoadedJitterNs), Some(0.0));
    assert_eq!(metrics.value(MetricId::LoadedReorderedRatio), Some(0.0));
}

#[test]
fn a_stream_without_a_probe_has_no_loaded_metrics() {
    let metrics = measure_trial(&trial(TestKind::TcpStream, Observations::default()));
    assert!(metrics.value(MetricId::LoadedOwdP50Ns).is_none());
    let loaded = [
        MetricId::LoadedOwdP50Ns,
        MetricId::LoadedOwdP99Ns,
        MetricId::LoadedPdvP99Ns,
        MetricId::LoadedJitterNs,
        MetricId::LoadedReorderedRatio,
        MetricId::LoadedLossRatio,
    ];
    assert!(!metrics.missing.iter().any(|(m, _)| loaded.contains(m)));
}

#[test]
fn a_failed_trial_has_no_metrics() {
    let mut failed = trial(TestKind::TcpStream, Observations::default());
    failed.outcome = TrialOutcome::Failed {
        error: "connection refused".into(),
    };
    assert!(trial_metrics(&failed).is_empty());
}

#[test]
fn wire_throughput_counts_a_tunnel_started_on_the_host() {
    let observations = Observations {
        measured_ns: 1_000_000_000,
        receiver: FlowCounters {
            bytes: 1_250_000_000,
            packets: 1,
        },
        socket: dualperf_model::SocketFacts {
            path_mtu_bytes: Some(1480),
            ..Default::default()
        },
        ..Observations::default()
    };
    let host_tunnel = arm(
        "v6-6in4",
        IpFamily::V6,
        ArmPath::SixInFour {
            placement: TunnelPlacement::HostHost,
        },
    );
    let trial = dualperf_fixtures::trial(
        0,
        &spec(TestKind::TcpStream, 131_072),
        &host_tunnel,
        0,
        ok(observations),
    );
    // Inside the 1480-byte tunnel: MSS 1408; on the 1500-byte link the
    // frame is 14 + 20 + 40 + 32 + 1408 = 1514 bytes + 24 on the wire.
    let on_host = measure_trial_on(&trial, &host_tunnel.path);
    let wire = on_host.value(MetricId::WireThroughputBps).unwrap();
    assert!((wire - 1e10 * 1538.0 / 1408.0).abs() < 1.0, "{wire}");
    // Router to router, the host's link carries plain IPv6 at its 1480 MTU.
    let routers = ArmPath::SixInFour {
        placement: TunnelPlacement::RouterRouter,
    };
    let wire = measure_trial_on(&trial, &routers)
        .value(MetricId::WireThroughputBps)
        .unwrap();
    assert!((wire - 1e10 * 1518.0 / 1408.0).abs() < 1.0, "{wire}");
}
