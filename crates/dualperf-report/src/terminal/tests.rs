//! Snapshot and behaviour tests of the terminal table, on a hand-built run
//! analysed by `dualperf_stats::analyse`.

use dualperf_model::observation::{
    CpuObservations, FlowCounters, HistogramBucket, LatencySamples, Observations, ProcessCpu,
    TcpCounters, UdpReceiveCounters,
};
use dualperf_model::{
    HostFacts, IpFamily, PerFamily, RepetitionOrder, RunConfig, RunResult, TestKind, TestSpec,
    Trial, TrialOutcome,
};

use super::*;

fn spec(kind: TestKind, size_bytes: u32) -> TestSpec {
    TestSpec {
        kind,
        size_bytes,
        duration_ms: 1000,
        warmup_ms: 0,
        parallel_streams: 1,
        reverse: false,
        rate: None,
        sample_interval_ms: 100,
        probe_interval_us: None,
    }
}

fn cpu(busy_ms: u64) -> CpuObservations {
    CpuObservations {
        client: ProcessCpu {
            user_ns: busy_ms * 200_000,
            system_ns: busy_ms * 800_000,
            wall_ns: 1_000_000_000,
        },
        ..CpuObservations::default()
    }
}

fn tcp_stream(gbps: f64, retransmitted: u64) -> Observations {
    let bytes = (gbps * 1e9 / 8.0) as u64;
    Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters {
            bytes,
            packets: bytes / 131_072,
        },
        receiver: FlowCounters {
            bytes,
            packets: bytes / 131_072,
        },
        tcp: Some(TcpCounters {
            bytes_sent: bytes + retransmitted * 1448,
            bytes_retransmitted: retransmitted * 1448,
            segments_retransmitted: retransmitted,
            ..TcpCounters::default()
        }),
        cpu: cpu(900),
        ..Observations::default()
    }
}

fn udp_stream(received: u64, lost: u64) -> Observations {
    Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters {
            bytes: (received + lost) * 64,
            packets: received + lost,
        },
        receiver: FlowCounters {
            bytes: received * 64,
            packets: received,
        },
        udp: Some(UdpReceiveCounters {
            sent: received + lost,
            received,
            lost,
            loss_episodes: lost.min(3),
            jitter_ns: 2_000,
            ..UdpReceiveCounters::default()
        }),
        cpu: cpu(1000),
        ..Observations::default()
    }
}

fn tcp_rr(median_us: u64) -> Observations {
    let values = [
        median_us * 900,
        median_us * 1000,
        median_us * 1000,
        median_us * 1300,
    ];
    Observations {
        measured_ns: 1_000_000_000,
        latency: Some(LatencySamples {
            count: 4,
            histogram: values
                .iter()
                .map(|&v| HistogramBucket {
                    value_ns: v,
                    count: 1,
                })
                .collect(),
            min_ns: values[0],
            max_ns: values[3],
            sum_ns: values.iter().map(|&v| v as u128).sum(),
            sum_squares_ns2: values.iter().map(|&v| (v as f64).powi(2)).sum(),
            ..LatencySamples::default()
        }),
        cpu: cpu(300),
        ..Observations::default()
    }
}

fn trial(
    point: usize,
    spec: &TestSpec,
    family: IpFamily,
    repetition: u32,
    outcome: TrialOutcome,
) -> Trial {
    let remote = match family {
        IpFamily::V4 => "127.0.0.1:5201",
        IpFamily::V6 => "[::1]:5201",
    };
    Trial {
        point,
        spec: spec.clone(),
        family,
        repetition,
        started_at_unix_ms: 0,
        local_address: None,
        remote_address: Some(remote.to_string()),
        server_seen_family: Some(family),
        outcome,
    }
}

fn ok(observations: Observations) -> TrialOutcome {
    TrialOutcome::Ok(Box::new(observations))
}

/// Four points: a TCP stream where IPv6 is slower, a loopback UDP stream
/// with an unstable IPv4, a request/response test, and a connect test whose
/// IPv6 trials all failed.
fn hand_built_run() -> RunResult {
    let points = vec![
        spec(TestKind::TcpStream, 131_072),
        spec(TestKind::UdpStream, 64),
        spec(TestKind::TcpRr, 64),
        spec(TestKind::TcpConnect, 0),
    ];
    let mut trials = Vec::new();
    let stream = [(20.1, 19.4), (20.8, 20.0), (20.4, 19.8)];
    let udp = [(800_000, 700_000), (1_000_000, 710_000), (600_000, 690_000)];
    let rr = [(21, 22), (20, 21), (22, 24)];
    for repetition in 0..3u32 {
        let r = repetition as usize;
        let (v4, v6) = stream[r];
        trials.push(trial(
            0,
            &points[0],
            IpFamily::V4,
            repetition,
            ok(tcp_stream(v4, 3)),
        ));
        trials.push(trial(
            0,
            &points[0],
            IpFamily::V6,
            repetition,
            ok(tcp_stream(v6, 5)),
        ));
        let (v4, v6) = udp[r];
        trials.push(trial(
            1,
            &points[1],
            IpFamily::V4,
            repetition,
            ok(udp_stream(v4, 0)),
        ));
        trials.push(trial(
            1,
            &points[1],
            IpFamily::V6,
            repetition,
            ok(udp_stream(v6, 7)),
        ));
        let (v4, v6) = rr[r];
        trials.push(trial(
            2,
            &points[2],
            IpFamily::V4,
            repetition,
            ok(tcp_rr(v4)),
        ));
        trials.push(trial(
            2,
            &points[2],
            IpFamily::V6,
            repetition,
            ok(tcp_rr(v6)),
        ));
        trials.push(trial(
            3,
            &points[3],
            IpFamily::V4,
            repetition,
            ok(tcp_rr(40)),
        ));
        let refused = TrialOutcome::Failed {
            error: "connect to [::1]:5201: connection refused".into(),
        };
        trials.push(trial(3, &points[3], IpFamily::V6, repetition, refused));
    }
    RunResult {
        schema: dualperf_model::RESULT_SCHEMA.to_string(),
        schema_version: dualperf_model::RESULT_SCHEMA_VERSION,
        run_id: "20261122T001500Z-test".to_string(),
        started_at_unix_ms: 0,
        finished_at_unix_ms: 0,
        config: RunConfig {
            points,
            families: IpFamily::ALL.to_vec(),
            repeat: 3,
            order: RepetitionOrder::Interleaved,
            targets: PerFamily {
                v4: Some("127.0.0.1".into()),
                v6: Some("::1".into()),
            },
            host: None,
            port: 5201,
            client_cpus: vec![],
            server_cpus: vec![],
            command_line: vec![],
        },
        client_host: HostFacts::default(),
        server_host: None,
        testbed: None,
        trials,
        analysis: None,
        complete: false,
        errors: vec![],
    }
}

#[test]
fn comparison_table_snapshot() {
    let result = hand_built_run();
    let analysis = dualperf_stats::analyse(&result);
    insta::assert_snapshot!(render_comparison_table(&result, &analysis));
}

#[test]
fn narrow_terminal_drops_the_family_intervals() {
    let result = hand_built_run();
    let analysis = dualperf_stats::analyse(&result);
    let narrow = render_comparison_table_width(&result, &analysis, 80);
    assert!(!narrow.contains("IPv4 mean ±CI"));
    for line in narrow.lines() {
        assert!(
            line.chars().count() <= 80,
            "too wide for 80 columns: {line}"
        );
    }
}

#[test]
fn verdicts_snapshot() {
    let result = hand_built_run();
    let analysis = dualperf_stats::analyse(&result);
    insta::assert_snapshot!(render_verdicts(&result, &analysis));
}

#[test]
fn a_point_without_a_comparison_says_why() {
    let result = hand_built_run();
    let analysis = dualperf_stats::analyse(&result);
    let verdicts = render_verdicts(&result, &analysis);
    let connect = verdicts.lines().nth(3).unwrap();
    assert!(
        connect.starts_with("[4] tcp-connect 0 B: no IPv4/IPv6 comparison"),
        "{connect}"
    );
    assert!(connect.contains("connection refused"), "{connect}");
}

#[test]
fn nothing_measured_is_said_plainly() {
    let result = hand_built_run();
    assert_eq!(
        render_comparison_table(&result, &Analysis::default()),
        "No metrics: every trial failed or nothing was measured.\n"
    );
}
