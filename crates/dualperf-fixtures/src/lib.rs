//! Test builders for every dualperf test suite (dev-only, `publish = false`).
//!
//! Tests of stats, report, store and engine all need the same values: a
//! [`TestSpec`] with sensible defaults, native or tunnelled [`Arm`]s, a
//! [`RunConfig`] with a baseline, [`Trial`]s with hand-made
//! [`Observations`], whole [`RunResult`]s and, for rendering and storage
//! tests, a whole SYNTHETIC run ([`synthetic`]). Building them here keeps
//! every suite on the model's current shape: when the model changes, one
//! crate changes.
//!
//! * specs and arms: [`spec`], [`native_arms`], [`arm`], [`arm_id`];
//! * runs: [`config`], [`result`], [`analysed`] (calls
//!   [`dualperf_stats::analyse`]), [`stream_run`];
//! * trials: [`trial`], [`ok`], [`failed`];
//! * observations: [`stream`], [`rr`], [`connect`], [`latency_samples`],
//!   [`udp_probe`], [`probe_arrivals`];
//! * whole runs: [`synthetic::SyntheticLab`], [`synthetic::synthetic_run`]
//!   and friends; a DiffServ-shaped run with per-flow and per-router
//!   analysis, [`diffserv::diffserv_run`]; a per-class one (EF arms idle
//!   and under class loads, a flow-label arm) with a hand-made analysis,
//!   [`diffserv_classes::diffserv_classes`];
//! * the published JSON Schemas: [`schema::assert_valid`] and the
//!   strictness every published schema gets ([`schema::strict_schema`]).
//!
//! Builders panic on nonsense input (an invalid arm id): they are for tests.

#![warn(missing_docs)]

pub mod diffserv;
pub mod diffserv_classes;
pub mod promtool;
pub mod schema;
pub mod synthetic;

use dualperf_model::observation::Arrival;
use dualperf_model::{
    Arm, ArmId, ArmPath, FlowCounters, HistogramBucket, HostFacts, IpFamily, LatencySamples,
    Observations, PerFamily, RepetitionOrder, RunConfig, RunResult, TestKind, TestSpec, Trial,
    TrialOutcome, UdpReceiveCounters,
};

/// Probe interval of a [`spec`] of kind `udp-probe`: 10 ms.
pub const PROBE_INTERVAL_US: u64 = 10_000;

/// Loopback targets of the native arms: `127.0.0.1` and `::1`.
pub const LOOPBACK: PerFamily<Option<&str>> = PerFamily {
    v4: Some("127.0.0.1"),
    v6: Some("::1"),
};

/// A point of `kind` and `size_bytes`: 1 s measured, no warm-up, one
/// stream, forward, unpaced, 100 ms samples; udp-probe points probe every
/// [`PROBE_INTERVAL_US`].
pub fn spec(kind: TestKind, size_bytes: u32) -> TestSpec {
    TestSpec {
        duration_ms: 1000,
        warmup_ms: 0,
        sample_interval_ms: 100,
        probe_interval_us: (kind == TestKind::UdpProbe).then_some(PROBE_INTERVAL_US),
        ..TestSpec::new(kind, size_bytes)
    }
}

/// The two native arms, `v4` then `v6`, with the given targets.
pub fn native_arms(targets: PerFamily<Option<&str>>) -> Vec<Arm> {
    IpFamily::ALL
        .into_iter()
        .map(|family| Arm::native(family, targets.get(family).map(str::to_string)))
        .collect()
}

/// An arm id.
///
/// # Panics
/// When `id` is not a valid [`ArmId`].
pub fn arm_id(id: &str) -> ArmId {
    ArmId::new(id).unwrap_or_else(|error| panic!("{error}"))
}

/// An idle, unmarked arm `id` of `family` on `path`, without a target;
/// labelled like "IPv6" (native) or "IPv6 via 6in4 router to router".
///
/// # Panics
/// When `id` is not a valid [`ArmId`].
pub fn arm(id: &str, family: IpFamily, path: ArmPath) -> Arm {
    let label = match &path {
        ArmPath::Native => family.label().to_string(),
        other => format!("{} via {}", family.label(), other.label()),
    };
    Arm {
        id: arm_id(id),
        label,
        family,
        path,
        marking: Default::default(),
        load: Default::default(),
        target: None,
    }
}

/// A run configuration measuring `points` on `arms`, 3 repetitions
/// interleaved, port 5201; the baseline is the native IPv4 arm when there
/// is one, else the first arm.
pub fn config(points: Vec<TestSpec>, arms: Vec<Arm>) -> RunConfig {
    let v4 = ArmId::native(IpFamily::V4);
    let baseline = if arms.iter().any(|arm| arm.id == v4) {
        v4
    } else {
        arms.first().map(|arm| arm.id.clone()).unwrap_or(v4)
    };
    RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        loads: Vec::new(),
        points,
        arms,
        baseline,
        repeat: 3,
        order: RepetitionOrder::Interleaved,
        host: None,
        port: 5201,
        client_cpus: vec![],
        server_cpus: vec![],
        command_line: vec!["dualperf".into(), "run".into()],
        contrasts: Vec::new(),
        goal: None,
    }
}

/// A complete run `test-run` of `config` with `trials`, current schema, not
/// analysed.
pub fn result(config: RunConfig, trials: Vec<Trial>) -> RunResult {
    RunResult {
        schema: dualperf_model::RESULT_SCHEMA.to_string(),
        schema_version: dualperf_model::RESULT_SCHEMA_VERSION,
        run_id: "test-run".to_string(),
        started_at_unix_ms: 0,
        finished_at_unix_ms: 0,
        config,
        client_host: HostFacts::default(),
        server_host: None,
        testbed: None,
        trials,
        analysis: None,
        complete: true,
        errors: vec![],
    }
}

/// `result` with its analysis by [`dualperf_stats::analyse`], as a
/// measured run gets it.
pub fn analysed(mut result: RunResult) -> RunResult {
    result.analysis = Some(dualperf_stats::analyse(&result));
    result
}

/// Repetition `repetition` of point `point` (`spec`) on `arm`, started at
/// 0, without addresses.
pub fn trial(
    point: usize,
    spec: &TestSpec,
    arm: &Arm,
    repetition: u32,
    outcome: TrialOutcome,
) -> Trial {
    Trial {
        point,
        spec: spec.clone(),
        arm: arm.id.clone(),
        family: arm.family,
        repetition,
        started_at_unix_ms: 0,
        local_address: None,
        remote_address: None,
        server_seen_family: None,
        outcome,
    }
}

/// A trial that ran to the end with `observations`.
pub fn ok(observations: Observations) -> TrialOutcome {
    TrialOutcome::Ok(Box::new(observations))
}

/// A trial that failed with `error`.
pub fn failed(error: &str) -> TrialOutcome {
    TrialOutcome::Failed {
        error: error.to_string(),
    }
}

/// A bulk transfer (tcp-stream or udp-stream) delivering `goodput_bps`
/// over a 1 s measured interval: sender and receiver counted the same
/// bytes.
pub fn stream(goodput_bps: f64) -> Observations {
    let bytes = (goodput_bps / 8.0).round() as u64;
    Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters { bytes, packets: 1 },
        receiver: FlowCounters { bytes, packets: 1 },
        ..Observations::default()
    }
}

/// Exact latency samples of `values_ns`: one histogram bucket per distinct
/// value, exact sums, every value in the raw series.
pub fn latency_samples(values_ns: &[u64]) -> LatencySamples {
    let mut sorted = values_ns.to_vec();
    sorted.sort_unstable();
    let mut histogram: Vec<HistogramBucket> = Vec::new();
    for &value_ns in &sorted {
        match histogram.last_mut() {
            Some(bucket) if bucket.value_ns == value_ns => bucket.count += 1,
            _ => histogram.push(HistogramBucket { value_ns, count: 1 }),
        }
    }
    LatencySamples {
        count: values_ns.len() as u64,
        histogram,
        raw_ns: values_ns.to_vec(),
        raw_limit: values_ns.len() as u64,
        min_ns: sorted.first().copied().unwrap_or(0),
        max_ns: sorted.last().copied().unwrap_or(0),
        sum_ns: values_ns.iter().map(|&v| u128::from(v)).sum(),
        sum_squares_ns2: values_ns.iter().map(|&v| (v as f64).powi(2)).sum(),
    }
}

/// A request/response trial (tcp-rr, udp-rr) over 1 s whose transactions
/// took `rtts_ns`.
pub fn rr(rtts_ns: &[u64]) -> Observations {
    let count = rtts_ns.len() as u64;
    Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters {
            bytes: 0,
            packets: count,
        },
        receiver: FlowCounters {
            bytes: 0,
            packets: count,
        },
        latency: Some(latency_samples(rtts_ns)),
        ..Observations::default()
    }
}

/// A tcp-connect trial over 1 s whose connections took `setup_ns` to set up.
pub fn connect(setup_ns: &[u64]) -> Observations {
    Observations {
        measured_ns: 1_000_000_000,
        latency: Some(latency_samples(setup_ns)),
        ..Observations::default()
    }
}

/// Arrivals of an isochronous probe stream of `sent` probes every
/// `interval_ns` (sent from 0), probe `s` taking `delay_ns(s)`; the
/// sequences in `lost` never arrive. In sending order.
pub fn probe_arrivals(
    sent: u64,
    interval_ns: i64,
    delay_ns: impl Fn(u64) -> i64,
    lost: &[u64],
) -> Vec<Arrival> {
    (0..sent)
        .filter(|sequence| !lost.contains(sequence))
        .map(|sequence| {
            let sent_ns = sequence as i64 * interval_ns;
            Arrival {
                sequence,
                sent_ns,
                received_ns: sent_ns + delay_ns(sequence),
            }
        })
        .collect()
}

/// A udp-probe trial: `sent` probes, the complete arrival trace
/// `arrivals` (in receive order), measured over `sent` ×
/// [`PROBE_INTERVAL_US`]; `clocks_shared` says whether one-way delay is
/// meaningful. The engine's running counters are left at their defaults
/// except `sent`, `received` and `lost`: stats recomputes delivery from
/// the trace.
pub fn udp_probe(arrivals: Vec<Arrival>, sent: u64, clocks_shared: bool) -> Observations {
    let received = {
        let mut sequences: Vec<u64> = arrivals.iter().map(|a| a.sequence).collect();
        sequences.sort_unstable();
        sequences.dedup();
        sequences.len() as u64
    };
    let duplicates = arrivals.len() as u64 - received;
    Observations {
        measured_ns: sent * PROBE_INTERVAL_US * 1_000,
        sender: FlowCounters {
            bytes: sent * 172,
            packets: sent,
        },
        receiver: FlowCounters {
            bytes: received * 172,
            packets: received,
        },
        udp: Some(UdpReceiveCounters {
            sent,
            received,
            duplicates,
            lost: sent.saturating_sub(received),
            arrivals_limit: arrivals.len() as u64,
            arrivals,
            loss_wait_ms: 2000,
            receive_timestamp_source: "SO_TIMESTAMPNS".into(),
            clocks_shared,
            ..UdpReceiveCounters::default()
        }),
        ..Observations::default()
    }
}

/// A run of one tcp-stream point (131 072-byte writes) measured on `arms`
/// (baseline as [`config`] picks it), repetitions interleaved: repetition k
/// of arm i delivers `goodputs_gbps[i][k]` Gbit/s over 1 s, or fails with
/// "connection refused" for `None`. Arms with fewer values get fewer
/// trials.
///
/// # Panics
/// When `goodputs_gbps` does not have one slice per arm.
pub fn stream_run(arms: Vec<Arm>, goodputs_gbps: &[&[Option<f64>]]) -> RunResult {
    assert_eq!(arms.len(), goodputs_gbps.len(), "one goodput list per arm");
    let point = spec(TestKind::TcpStream, 131_072);
    let repetitions = goodputs_gbps.iter().map(|g| g.len()).max().unwrap_or(0);
    let mut trials = Vec::new();
    for repetition in 0..repetitions {
        for (arm, goodputs) in arms.iter().zip(goodputs_gbps) {
            if let Some(&goodput) = goodputs.get(repetition) {
                let outcome = match goodput {
                    Some(gbps) => ok(stream(gbps * 1e9)),
                    None => failed("connection refused"),
                };
                trials.push(trial(0, &point, arm, repetition as u32, outcome));
            }
        }
    }
    let mut config = config(vec![point], arms);
    config.repeat = goodputs_gbps.first().map_or(0, |g| g.len() as u32);
    result(config, trials)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{MetricId, TunnelPlacement};

    #[test]
    fn a_stream_run_analyses_to_one_comparison_per_compared_arm() {
        let arms = vec![
            Arm::native(IpFamily::V4, None),
            Arm::native(IpFamily::V6, None),
            arm(
                "v6-6in4",
                IpFamily::V6,
                ArmPath::SixInFour {
                    placement: TunnelPlacement::RouterRouter,
                },
            ),
        ];
        let run = analysed(stream_run(
            arms,
            &[
                &[Some(10.0), Some(10.0)],
                &[Some(9.0), Some(9.0)],
                &[Some(8.0), Some(8.0)],
            ],
        ));
        let analysis = run.analysis.unwrap();
        let goodput: Vec<_> = analysis
            .comparisons
            .iter()
            .filter(|c| c.metric == MetricId::GoodputBps)
            .collect();
        assert_eq!(goodput.len(), 2);
        assert!(goodput.iter().all(|c| c.baseline.as_str() == "v4"));
        assert_eq!(run.config.arms[2].label, "IPv6 via 6in4 router to router");
    }

    #[test]
    fn latency_samples_are_exact() {
        let samples = latency_samples(&[30, 10, 20, 10]);
        assert_eq!(samples.count, 4);
        assert_eq!(samples.sum_ns, 70);
        assert_eq!((samples.min_ns, samples.max_ns), (10, 30));
        assert_eq!(samples.histogram.len(), 3);
        assert_eq!(samples.histogram[0].count, 2);
    }

    #[test]
    fn a_probe_trace_counts_what_arrived() {
        let arrivals = probe_arrivals(10, 10_000_000, |_| 40_000, &[3, 4]);
        let observations = udp_probe(arrivals, 10, true);
        let udp = observations.udp.unwrap();
        assert_eq!((udp.sent, udp.received, udp.lost), (10, 8, 2));
    }

    #[test]
    fn the_baseline_is_native_ipv4_when_present() {
        let arms = native_arms(LOOPBACK);
        assert_eq!(arms[1].target.as_deref(), Some("::1"));
        let mut reversed = arms.clone();
        reversed.reverse();
        assert_eq!(config(vec![], reversed).baseline.as_str(), "v4");
        let only_v6 = vec![Arm::native(IpFamily::V6, None)];
        assert_eq!(config(vec![], only_v6).baseline.as_str(), "v6");
    }
}
