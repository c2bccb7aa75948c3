//! Builds the fixture run with the `dualperf-fixtures` builders. The
//! schema-v1 file is frozen (it proves that v1 results still load); the v2
//! file is regenerated from this builder after a deliberate schema change:
//! `cargo test -p dualperf-stats --test it -- --ignored regenerate`.

use dualperf_fixtures::{config, native_arms, ok, result, trial};
use dualperf_model::observation::{
    Arrival, CpuObservations, FlowCounters, Observations, ProcessCpu, SocketFacts, TcpCounters,
    UdpReceiveCounters,
};
use dualperf_model::{IpFamily, PerFamily, RunResult, TestKind, TestSpec};

/// A point of the fixture: the fixtures' defaults with a 200 ms warm-up.
fn spec(kind: TestKind, size_bytes: u32) -> TestSpec {
    TestSpec {
        warmup_ms: 200,
        ..dualperf_fixtures::spec(kind, size_bytes)
    }
}

fn probe(family: IpFamily, repetition: u32) -> Observations {
    let base_ns: i64 = match family {
        IpFamily::V4 => 30_000,
        IpFamily::V6 => 32_000,
    } + repetition as i64 * 500;
    let mut order: Vec<u64> = (0..20).collect();
    if family == IpFamily::V4 {
        order.swap(5, 6); // one reordered probe
    } else {
        order.retain(|&s| s != 12); // one lost probe
    }
    let arrivals: Vec<Arrival> = order
        .iter()
        .map(|&s| {
            let sent_ns = 1_700_000_000_000_000_000 + s as i64 * 10_000_000;
            let wobble = (s as i64 * 7 % 5) * 1_000;
            Arrival {
                sequence: s,
                sent_ns,
                received_ns: sent_ns + base_ns + wobble,
            }
        })
        .collect();
    Observations {
        measured_ns: 200_000_000,
        sender: FlowCounters {
            bytes: 20 * 172,
            packets: 20,
        },
        receiver: FlowCounters {
            bytes: arrivals.len() as u64 * 172,
            packets: arrivals.len() as u64,
        },
        udp: Some(UdpReceiveCounters {
            sent: 20,
            received: arrivals.len() as u64,
            arrivals,
            arrivals_limit: 100_000,
            loss_wait_ms: 2000,
            receive_timestamp_source: "SO_TIMESTAMPNS".into(),
            clocks_shared: true,
            ..UdpReceiveCounters::default()
        }),
        socket: SocketFacts {
            path_mtu_bytes: Some(1500),
            ..SocketFacts::default()
        },
        ..Observations::default()
    }
}

fn stream(family: IpFamily, repetition: u32) -> Observations {
    let gbps = match family {
        IpFamily::V4 => [9.40, 9.42, 9.38][repetition as usize],
        IpFamily::V6 => [9.27, 9.30, 9.24][repetition as usize],
    };
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
            bytes_sent: bytes + 14_480,
            bytes_retransmitted: 14_480,
            segments_retransmitted: 10,
            segments_sent: bytes / 1448,
            smoothed_rtt_us: 120,
            send_mss_bytes: if family == IpFamily::V4 { 1448 } else { 1428 },
            congestion_window_segments: 300,
        }),
        cpu: CpuObservations {
            client: ProcessCpu {
                user_ns: 50_000_000,
                system_ns: 600_000_000,
                wall_ns: 1_000_000_000,
                involuntary_switches: 0,
                run_queue_wait_ns: None,
                busiest_thread_demand_ns: None,
            },
            server: Some(ProcessCpu {
                user_ns: 40_000_000,
                system_ns: 700_000_000,
                wall_ns: 1_000_000_000,
                involuntary_switches: 0,
                run_queue_wait_ns: None,
                busiest_thread_demand_ns: None,
            }),
            system: None,
            pinned: None,
            path: None,
        },
        socket: SocketFacts {
            path_mtu_bytes: Some(1500),
            ..SocketFacts::default()
        },
        ..Observations::default()
    }
}

/// The fixture run: a udp-probe point and a tcp-stream point on a
/// namespace lab (10.0.0.0/24 and fd00::/64 inside the lab), 3 repetitions
/// on the two native arms, IPv4 the baseline. Current schema version.
pub fn fixture_run() -> RunResult {
    let points = vec![
        spec(TestKind::UdpProbe, 172),
        spec(TestKind::TcpStream, 131_072),
    ];
    let arms = native_arms(PerFamily {
        v4: Some("10.0.0.2"),
        v6: Some("fd00::2"),
    });
    let mut trials = Vec::new();
    for (index, point) in points.iter().enumerate() {
        for repetition in 0..3 {
            for arm in &arms {
                let family = arm.family;
                let observations = match point.kind {
                    TestKind::UdpProbe => probe(family, repetition),
                    _ => stream(family, repetition),
                };
                let remote = match family {
                    IpFamily::V4 => "10.0.0.2:5201",
                    IpFamily::V6 => "[fd00::2]:5201",
                };
                let mut trial = trial(index, point, arm, repetition, ok(observations));
                trial.started_at_unix_ms = 1_763_770_000_000;
                trial.remote_address = Some(remote.into());
                trial.server_seen_family = Some(family);
                trials.push(trial);
            }
        }
    }
    let mut config = config(points, arms);
    config.command_line = vec!["dualperf".into(), "lab".into()];
    RunResult {
        run_id: "20261122T003000Z-fixture".into(),
        started_at_unix_ms: 1_763_770_000_000,
        finished_at_unix_ms: 1_763_770_010_000,
        ..result(config, trials)
    }
}

#[test]
#[ignore = "writes the v2 fixture file; run by hand after a deliberate schema change"]
fn regenerate() {
    let json = serde_json::to_string_pretty(&fixture_run()).unwrap();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/run_v2_lab_probe_and_tcp_stream.json"
    );
    std::fs::write(path, json + "\n").unwrap();
}
