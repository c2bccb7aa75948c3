//! Integration tests of the results store, against real SQLite files.
//! The runs stored here are SYNTHETIC (`dualperf_fixtures::synthetic`):
//! made-up numbers with the shape of a real run, not measurements.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

mod fixtures;
mod flows;
mod growth;
mod kill;
mod prune;
mod read_only;
mod roundtrip;

use dualperf_fixtures::synthetic::SyntheticLab;
use dualperf_model::{
    observation::Arrival, Arm, ArmId, ArmPath, Dscp, IpFamily, LoadCondition, Marking,
    ProbeObservations, RunResult, TestKind, TrialOutcome, TunnelPlacement,
};
use dualperf_store::{Store, WriteOptions};

/// The synthetic lab run (22 points × the two native arms × 3 repetitions,
/// analysed) with a given id.
pub fn synthetic_run(run_id: &str) -> RunResult {
    SyntheticLab {
        run_id: run_id.to_string(),
        ..Default::default()
    }
    .build()
}

/// Three arms: native IPv4 (the baseline), native IPv6 and IPv6 through a
/// 6in4 tunnel between the routers, marked EF and under a named load.
pub fn three_arms() -> Vec<Arm> {
    let mut tunnel = dualperf_fixtures::arm(
        "v6-6in4-router-router",
        IpFamily::V6,
        ArmPath::SixInFour {
            placement: TunnelPlacement::RouterRouter,
        },
    );
    tunnel.marking = Marking {
        dscp: Some(Dscp::EF),
        flow_label: None,
    };
    tunnel.load = LoadCondition::Under {
        load: "tcp-4x".into(),
    };
    tunnel.target = Some("fd00:2::2".into());
    vec![
        Arm::native(IpFamily::V4, Some("10.0.2.2".into())),
        Arm::native(IpFamily::V6, Some("fd00:2::2".into())),
        tunnel,
    ]
}

/// A small synthetic run on [`three_arms`]: streams at 64 and 1472 B with
/// a probe under load, rr at 64 B and the probe alone, analysed.
pub fn three_arm_run(run_id: &str) -> RunResult {
    three_arm_run_of(run_id, vec![64, 1472])
}

/// [`three_arm_run`] with these stream sizes.
pub fn three_arm_run_of(run_id: &str, stream_sizes: Vec<u32>) -> RunResult {
    let run = SyntheticLab {
        run_id: run_id.to_string(),
        stream_sizes,
        rr_sizes: vec![64],
        arms: three_arms(),
        ..Default::default()
    }
    .build();
    dualperf_fixtures::analysed(with_probe_under_load(run))
}

/// Gives every stream trial a probe under load (`--probe`): the udp-probe
/// point's observations on the same arm and repetition.
pub fn with_probe_under_load(mut run: RunResult) -> RunResult {
    let probes: Vec<(ArmId, u32, ProbeObservations)> = run
        .trials
        .iter()
        .filter(|t| t.spec.kind == TestKind::UdpProbe)
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => Some((
                t.arm.clone(),
                t.repetition,
                ProbeObservations {
                    interval_us: t.spec.probe_interval_us.unwrap_or(20_000),
                    size_bytes: t.spec.size_bytes,
                    udp: o.udp.clone().unwrap_or_default(),
                    intervals: o.intervals.clone(),
                    notes: vec!["probe under load (synthetic)".into()],
                },
            )),
            TrialOutcome::Failed { .. } => None,
        })
        .collect();
    for point in &mut run.config.points {
        if matches!(point.kind, TestKind::TcpStream | TestKind::UdpStream) {
            point.probe_interval_us = Some(20_000);
        }
    }
    for trial in &mut run.trials {
        if !matches!(trial.spec.kind, TestKind::TcpStream | TestKind::UdpStream) {
            continue;
        }
        trial.spec.probe_interval_us = Some(20_000);
        let found = probes
            .iter()
            .find(|(arm, repetition, _)| *arm == trial.arm && *repetition == trial.repetition);
        if let (TrialOutcome::Ok(observations), Some((_, _, probe))) = (&mut trial.outcome, found) {
            observations.probe = Some(Box::new(probe.clone()));
        }
    }
    run
}

/// Raw samples in the volumes a real run keeps (the engine's bounds: 10,000
/// per-transaction times per rr/connect trial, 2,000 arrivals per udp-stream
/// trial), which the synthetic lab leaves out.
pub fn with_raw_samples(mut run: RunResult) -> RunResult {
    for trial in &mut run.trials {
        let kind = trial.spec.kind;
        let TrialOutcome::Ok(observations) = &mut trial.outcome else {
            continue;
        };
        if let Some(latency) = observations.latency.as_mut() {
            let kept = latency.count.min(10_000);
            latency.raw_limit = 10_000;
            latency.raw_ns = (0..kept)
                .map(|i| latency.min_ns + (i * 7_919) % (latency.max_ns - latency.min_ns + 1))
                .collect();
        }
        if let (TestKind::UdpStream, Some(udp)) = (kind, observations.udp.as_mut()) {
            let kept = udp.received.min(2_000);
            udp.arrivals_limit = 2_000;
            udp.arrivals = (0..kept)
                .map(|sequence| {
                    let sent_ns = 1_795_298_400_000_000_000 + sequence as i64 * 12_345;
                    Arrival {
                        sequence,
                        sent_ns,
                        received_ns: sent_ns + 61_000 + (sequence as i64 * 7_919) % 20_000,
                    }
                })
                .collect();
        }
    }
    run
}

/// `run` as it loads after being saved with `options`.
pub fn as_stored(run: &RunResult, options: WriteOptions) -> RunResult {
    let mut run = run.clone();
    run.trials.iter_mut().for_each(|t| options.apply(t));
    run
}

/// A store in a new temporary directory (kept alive by the returned guard).
pub fn temporary_store() -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("results.sqlite");
    let store = Store::open(&path).unwrap();
    (directory, path, store)
}
