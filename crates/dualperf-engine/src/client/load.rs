//! Competing loads: the flows of a [`LoadSpec`] run as their own sessions
//! beside an arm's measured trial (the traffic mixes of the DiffServ
//! experiments, the competing UDP and TCP of the real-time ones).
//!
//! Order of events for one trial of an arm under a load:
//!
//! 1. every [`LoadFlow`](dualperf_model::LoadFlow) starts as a session of
//!    its own (control connection, data sockets, marking, family, meters);
//! 2. once all of them run, the load warms up for [`LoadSpec::warmup_ms`]
//!    (a TCP flow reaches its window, queues fill) — which is also each load
//!    flow's own warm-up, so its measured interval starts here;
//! 3. the measured trial runs (its handshake, warm-up and measured interval);
//! 4. the load flows are halted as soon as the measured trial's flows have
//!    ended — before its stop/results exchange, which thus crosses a quiet
//!    path — and report what they saw over their measured interval, which
//!    therefore spans the measured trial's. A load flow whose server sends
//!    (`reverse`) sends its stop as soon as it is halted, before its
//!    receivers drain, so the server's sender ends with the trial too
//!    instead of keeping to the load's schedule (`run_single`).
//!
//! A load flow's schedule is the measured trial's warm-up and duration plus
//! [`LOAD_SLACK`]: room for the measured trial's handshake on a congested
//! path; the halt normally ends it long before. A flow that fails to start
//! fails the trial (a result labelled "under load" must not come from an
//! idle path); so does one that fails or ends before the measured trial.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use dualperf_model::{LoadObservations, LoadSpec, TestSpec};

use super::trial::{run_single, Families, SessionHooks, TrialReport};
use super::ClientOptions;
use crate::error::{EngineError, Result};
use crate::protocol::error_chain;

/// Time a load flow's schedule runs past the measured trial's warm-up and
/// duration, for the measured trial's handshake on a busy path (a lost SYN
/// or control segment waits 1, 3, 7 … s for its retransmission).
pub const LOAD_SLACK: Duration = Duration::from_secs(20);

/// Longest wait for all load flows to start.
const LOAD_START_WAIT: Duration = Duration::from_secs(15);

/// Where one load flow goes: the server address and the families of its
/// session (resolved by the caller from the run's configuration).
#[derive(Clone, Copy, Debug)]
pub struct LoadTarget {
    /// The server's control address for the flow's family.
    pub server: SocketAddr,
    /// The families of the flow's session.
    pub families: Families,
}

/// The spec a load flow runs with beside a trial of `measured`: the flow's
/// own kind, size, rate, streams, direction and congestion control; the
/// load's warm-up; a duration covering the measured trial; the measured
/// trial's sampling interval, so their time series line up.
pub fn load_flow_spec(flow: &TestSpec, load: &LoadSpec, measured: &TestSpec) -> TestSpec {
    let mut spec = flow.clone();
    spec.warmup_ms = load.warmup_ms;
    spec.duration_ms = measured
        .warmup_ms
        .saturating_add(measured.duration_ms)
        .saturating_add(LOAD_SLACK.as_millis() as u64);
    spec.sample_interval_ms = measured.sample_interval_ms;
    spec
}

struct Running {
    flow: usize,
    spec: TestSpec,
    halt: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Result<TrialReport>>,
}

/// Runs `measured` (the arm's trial) under `load`, whose flows go to
/// `targets` (one per flow). The returned report is the measured trial's,
/// with each load flow's observations in `observations.loads`.
///
/// # Errors
/// A load flow that does not start, fails, or ends before the measured
/// trial; otherwise whatever the measured trial returns.
pub fn run_under_load(
    load: &LoadSpec,
    targets: &[LoadTarget],
    measured_spec: &TestSpec,
    options: &ClientOptions,
    measured: impl FnOnce(SessionHooks) -> Result<TrialReport>,
) -> Result<TrialReport> {
    if targets.len() != load.flows.len() {
        return Err(EngineError::InvalidTest(format!(
            "load `{}` has {} flows but {} targets",
            load.name,
            load.flows.len(),
            targets.len()
        )));
    }
    let (started_tx, started_rx) = mpsc::channel();
    let mut running = Vec::new();
    for (index, (flow, target)) in load.flows.iter().zip(targets).enumerate() {
        let spec = load_flow_spec(&flow.spec, load, measured_spec);
        let halt = Arc::new(AtomicBool::new(false));
        let hooks = SessionHooks {
            started: Some(started_tx.clone()),
            halt: Some(halt.clone()),
            flows_done: Vec::new(),
        };
        // A load flow's intervals are its own (in `Observations.loads`),
        // never the live lines of the measured trial.
        let options = ClientOptions {
            interval_sink: None,
            live_intervals: false,
            ..options.clone()
        };
        let (thread_spec, marking, target) = (spec.clone(), flow.marking, *target);
        let thread = std::thread::Builder::new()
            .name(format!("dualperf-load-{index}"))
            .spawn(move || {
                run_single(
                    target.server,
                    &thread_spec,
                    target.families,
                    &marking,
                    &options,
                    false,
                    hooks,
                )
            })
            .map_err(|error| EngineError::Flow(format!("spawning a load thread: {error}")))?;
        running.push(Running {
            flow: index,
            spec,
            halt,
            thread,
        });
    }
    drop(started_tx);
    let deadline = Instant::now() + LOAD_START_WAIT;
    let mut started = 0;
    while started < running.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match started_rx.recv_timeout(left) {
            Ok(()) => started += 1,
            // Every sender is gone (a flow failed before it ran) or time is up.
            Err(_) => break,
        }
    }
    if started < running.len() {
        let errors = stop_all(load, running);
        return Err(EngineError::Flow(format!(
            "load `{}`: {} of {} flows did not start: {}",
            load.name,
            load.flows.len() - started,
            load.flows.len(),
            errors.join("; ")
        )));
    }
    std::thread::sleep(Duration::from_millis(load.warmup_ms));
    let measured = measured(SessionHooks {
        flows_done: running.iter().map(|flow| flow.halt.clone()).collect(),
        ..SessionHooks::default()
    });
    let mut loads = Vec::new();
    let mut errors = Vec::new();
    for flow in &running {
        flow.halt.store(true, Ordering::Release);
    }
    for flow in running {
        let label = &load.flows[flow.flow].label;
        match joined(label, flow.thread) {
            Ok(report) => {
                let mut observations = report.observations;
                let schedule_end = Duration::from_millis(flow.spec.duration_ms);
                if Duration::from_nanos(observations.measured_ns) >= schedule_end {
                    errors.push(format!(
                        "{label}: ran its whole schedule and may have ended before the measured trial did"
                    ));
                }
                observations.notes.push(format!(
                    "competing load `{}`: halted when the measured trial's flows ended",
                    load.name
                ));
                loads.push(LoadObservations {
                    flow: flow.flow,
                    label: label.clone(),
                    family: targets[flow.flow].families.client,
                    marking: load.flows[flow.flow].marking,
                    spec: flow.spec,
                    observations: Box::new(observations),
                });
            }
            Err(error) => errors.push(error),
        }
    }
    let mut report = measured?;
    if !errors.is_empty() {
        return Err(EngineError::Flow(format!(
            "competing load `{}` failed: {}",
            load.name,
            errors.join("; ")
        )));
    }
    report.observations.loads = loads;
    Ok(report)
}

/// Halts and joins every running load flow; returns their errors.
fn stop_all(load: &LoadSpec, running: Vec<Running>) -> Vec<String> {
    for flow in &running {
        flow.halt.store(true, Ordering::Release);
    }
    let mut errors: Vec<String> = running
        .into_iter()
        .filter_map(|flow| joined(&load.flows[flow.flow].label, flow.thread).err())
        .collect();
    if errors.is_empty() {
        errors.push("no flow reported an error before the wait ran out".into());
    }
    errors
}

/// The report of a load flow's thread, or its error prefixed with `label`.
fn joined(
    label: &str,
    thread: std::thread::JoinHandle<Result<TrialReport>>,
) -> std::result::Result<TrialReport, String> {
    match thread.join() {
        Ok(Ok(report)) => Ok(report),
        Ok(Err(error)) => Err(format!("{label}: {}", error_chain(&error))),
        Err(_) => Err(format!("{label}: its thread panicked")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{LoadFlow, TestKind};

    fn spec(kind: TestKind, warmup_ms: u64, duration_ms: u64, interval: u64) -> TestSpec {
        TestSpec {
            duration_ms,
            warmup_ms,
            sample_interval_ms: interval,
            ..TestSpec::new(kind, 1200)
        }
    }

    #[test]
    fn a_load_flow_spans_the_measured_trial_and_shares_its_sampling() {
        let measured = spec(TestKind::UdpProbe, 200, 1_000, 50);
        let load = LoadSpec {
            name: "udp".into(),
            label: "UDP".into(),
            flows: vec![LoadFlow {
                label: "BE UDP".into(),
                spec: spec(TestKind::UdpStream, 0, 0, 100),
                family: None,
                marking: Default::default(),
            }],
            warmup_ms: 500,
            offered: None,
        };
        let flow = load_flow_spec(&load.flows[0].spec, &load, &measured);
        assert_eq!(flow.warmup_ms, 500);
        assert_eq!(
            flow.duration_ms,
            1_200 + LOAD_SLACK.as_millis() as u64,
            "the measured warm-up and duration plus slack"
        );
        assert_eq!(flow.sample_interval_ms, 50);
        assert_eq!(flow.kind, TestKind::UdpStream);
    }
}
