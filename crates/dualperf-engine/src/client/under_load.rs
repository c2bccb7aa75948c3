//! Latency under load: a udp-probe stream that runs alongside a
//! tcp-stream or udp-stream trial, so one-way delay, PDV, loss and
//! reordering are measured while the path is busy (`dualperf run --probe`).
//!
//! The probe runs as a second, concurrent session with the same server
//! (its own control connection and data socket), in the same direction as
//! the load (`--reverse` reverses both), with the same warm-up, duration
//! and sampling interval. The probe session starts first and the load as
//! soon as the probe's flows run (so the probe's handshake never crosses a
//! congested path); the load's measured interval therefore begins a control
//! round trip or so after the probe's. Its
//! observations land in [`Observations::probe`](dualperf_model::Observations).

use std::net::SocketAddr;

use dualperf_model::{Marking, ProbeObservations, TestKind, TestSpec};

use super::trial::{run_single, Families, SessionHooks, TrialReport};
use super::ClientOptions;
use crate::endpoint::probe_interval;
use crate::error::Result;
use crate::sizes::default_size;

/// Longest wait for the probe session to start before the load starts anyway.
const PROBE_START_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// True when `spec` is a load test that asked for a probe alongside.
pub fn wants_probe(spec: &TestSpec) -> bool {
    spec.probe_interval_us.is_some()
        && matches!(spec.kind, TestKind::TcpStream | TestKind::UdpStream)
}

/// The udp-probe spec that accompanies `load`.
pub fn probe_spec_for(load: &TestSpec) -> TestSpec {
    TestSpec {
        duration_ms: load.duration_ms,
        warmup_ms: load.warmup_ms,
        reverse: load.reverse,
        sample_interval_ms: load.sample_interval_ms,
        probe_interval_us: load.probe_interval_us,
        ..TestSpec::new(TestKind::UdpProbe, default_size(TestKind::UdpProbe))
    }
}

/// Runs `spec` with a probe stream alongside; `hooks` coordinate the
/// measured session with competing loads. A failed probe does not fail
/// the load trial: the load's observations say why the probe is missing.
pub fn run_with_probe(
    server: SocketAddr,
    spec: &TestSpec,
    families: Families,
    marking: &Marking,
    options: &ClientOptions,
    want_host_facts: bool,
    mut hooks: SessionHooks,
) -> Result<TrialReport> {
    let probe = probe_spec_for(spec);
    // A budgeted load ends before its schedule (the cap): the probe beside
    // it halts when the load's flows end, not at the cap.
    let load_done = spec.send_budget.map(|_| {
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        hooks.flows_done.push(done.clone());
        done
    });
    // The probe measures the arm's treatment: it carries the same marking.
    let probe_marking = *marking;
    // The probe beside the load prints no live intervals: the load's are the trial's.
    let probe_options = ClientOptions {
        interval_sink: None,
        ..options.clone()
    };
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let probe_thread = std::thread::Builder::new()
        .name("dualperf-probe-session".into())
        .spawn(move || {
            let report = run_single(
                server,
                &probe,
                families,
                &probe_marking,
                &probe_options,
                false,
                SessionHooks {
                    started: Some(started_tx),
                    halt: load_done,
                    ..SessionHooks::default()
                },
            );
            (probe, report)
        })
        .expect("spawning a thread only fails when the process is out of resources");
    // The load starts once the probe is running: its handshake and hellos
    // must not cross a path the load has already congested. A probe that
    // fails first drops the sender, and the load goes ahead without it.
    let _ = started_rx.recv_timeout(PROBE_START_WAIT);
    let load = run_single(
        server,
        spec,
        families,
        marking,
        options,
        want_host_facts,
        hooks,
    );
    let probed = probe_thread.join();
    let mut report = load?;
    let observations = &mut report.observations;
    match probed {
        Ok((probe, Ok(probe_report))) => {
            let o = probe_report.observations;
            match o.udp {
                Some(udp) => {
                    observations.probe = Some(Box::new(ProbeObservations {
                        interval_us: probe_interval(&probe).as_micros() as u64,
                        size_bytes: probe.size_bytes,
                        udp,
                        intervals: o.intervals,
                        notes: o.notes,
                    }))
                }
                None => observations
                    .notes
                    .push("probe under load: the probe session returned no counters".into()),
            }
        }
        Ok((_, Err(error))) => observations
            .notes
            .push(format!("probe under load failed: {error}")),
        Err(_) => observations
            .notes
            .push("probe under load failed: its thread panicked".into()),
    }
    Ok(report)
}
