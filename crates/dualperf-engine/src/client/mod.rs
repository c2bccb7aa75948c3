//! The measuring client: one trial ([`trial::run_trial`]) and a whole plan
//! of points × arms × repetitions ([`Client::run_plan`]), interleaved
//! across arms (v4, v6, v4, v6 …) by default so that machine drift hits
//! every arm alike, or blocked. A failed trial is recorded as
//! [`TrialOutcome::Failed`] and the plan goes on.

mod arm_trial;
pub mod assemble;
mod live;
pub mod load;
pub mod peer;
pub mod plausible;
pub mod probe_series;
pub mod trial;
pub mod under_load;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use dualperf_model::{
    Arm, HostFacts, IntervalSample, PeerKind, RepetitionOrder, RunConfig, RunResult, TestSpec,
    Trial, TrialOutcome, RESULT_SCHEMA, RESULT_SCHEMA_VERSION,
};

pub use arm_trial::{run_arm_trial, run_marked_trial, run_trial, target_address};
pub use trial::TrialReport;

use arm_trial::{load_targets, run_arm_trial_with};

use crate::clock::unix_ms;
use crate::host_facts::collect_host_facts;
use crate::protocol::error_chain;

/// Client settings that are not part of the measured configuration.
#[derive(Clone, Debug, Default)]
pub struct ClientOptions {
    /// Shared key for servers started with `--auth-key`.
    pub auth_key: Option<Vec<u8>>,
    /// User-space processes on this host that are part of the measured
    /// path (a lab's own forwarders, e.g. TAYGA): their CPU is recorded as
    /// the path's (`CpuObservations::path`), not counted as foreign load.
    pub path_pids: Vec<i32>,
    /// CPUs to pin the client's flow threads to (empty: unpinned).
    pub client_cpus: Vec<u32>,
    /// CPUs to ask the server to pin its flow threads to.
    pub server_cpus: Vec<u32>,
    /// Set (e.g. by Ctrl-C) to stop after the current trial.
    pub stop: Option<Arc<AtomicBool>>,
    /// The user declares the two hosts' clocks synchronised (PTP, NTP…), so
    /// one-way delay is reported between hosts too, with an error bound
    /// (RFC 7679 §3.7). Irrelevant when both ends run on one kernel.
    pub clocks_synchronised: bool,
    /// The server runs in this process (`dualperf run --loopback`): the
    /// process CPU figures of both ends are then one and the same.
    pub server_in_process: bool,
    /// Report every finished sample interval of the running trial as
    /// [`Progress::IntervalFinished`] (live interval lines, like iperf3's).
    pub live_intervals: bool,
    /// Where the client's sampler sends finished intervals; set per trial
    /// by [`Client::run_planned`] when `live_intervals` is on (leave `None`).
    pub interval_sink: Option<crate::meter::IntervalSink>,
    /// Source addresses of the client's sockets, at most one per family
    /// (iperf3's `-B`): a session of a family binds its control and data
    /// sockets to that family's address before connecting. Empty: the
    /// kernel chooses (RFC 6724 for IPv6).
    pub source_addresses: Vec<std::net::IpAddr>,
    /// How long the client waits for the server's control answers
    /// (iperf3's `--rcv-timeout`); `None`: [`trial::CONTROL_WAIT`].
    pub control_wait: Option<std::time::Duration>,
}

impl ClientOptions {
    /// How long the client waits for a control answer from the server.
    pub fn control_wait(&self) -> std::time::Duration {
        self.control_wait.unwrap_or(trial::CONTROL_WAIT)
    }

    /// The source address of `family`'s sockets, if `-B` gave one.
    pub fn source_for(&self, family: dualperf_model::IpFamily) -> Option<std::net::IpAddr> {
        self.source_addresses
            .iter()
            .copied()
            .find(|address| dualperf_model::IpFamily::of(address) == family)
    }
}

/// What [`Client::run_plan`] reports while it runs.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A trial is about to start.
    TrialStarted {
        /// Index of the trial, from 0.
        index: usize,
        /// Number of trials planned.
        total: usize,
        /// The point.
        spec: &'a TestSpec,
        /// The arm.
        arm: &'a Arm,
        /// The repetition, from 0.
        repetition: u32,
    },
    /// A trial ended (successfully or not).
    TrialFinished {
        /// Index of the trial, from 0.
        index: usize,
        /// Number of trials planned.
        total: usize,
        /// The trial as recorded.
        trial: &'a Trial,
    },
    /// A sample interval of the running trial ended (client side; only
    /// with [`ClientOptions::live_intervals`]).
    IntervalFinished {
        /// Index of the trial, from 0.
        index: usize,
        /// The point.
        spec: &'a TestSpec,
        /// The arm.
        arm: &'a Arm,
        /// The interval's counter deltas, as the client's sampler took them.
        sample: &'a IntervalSample,
    },
}

/// One planned trial: (point index, arm index in [`RunConfig::arms`], repetition).
pub type PlannedTrial = (usize, usize, u32);

/// The order trials run in: per point, repetitions interleaved across
/// arms (a, b, a, b …) or blocked (a, a, …, b, b, …).
pub fn plan_order(config: &RunConfig) -> Vec<PlannedTrial> {
    let arms = 0..config.arms.len();
    let mut order = Vec::new();
    for point in 0..config.points.len() {
        match config.order {
            RepetitionOrder::Interleaved => {
                for repetition in 0..config.repeat {
                    for arm in arms.clone() {
                        order.push((point, arm, repetition));
                    }
                }
            }
            RepetitionOrder::Blocked => {
                for arm in arms.clone() {
                    for repetition in 0..config.repeat {
                        order.push((point, arm, repetition));
                    }
                }
            }
        }
    }
    order
}

/// Consecutive silent trials (failed after the whole control wait) after
/// which a run stops: a silent server would otherwise cost 15 s per trial
/// (a default run: about 7.5 minutes).
pub const MAX_SILENT_TRIALS: u32 = 3;

/// A client with its options.
#[derive(Clone, Debug, Default)]
pub struct Client {
    /// The options.
    pub options: ClientOptions,
    /// Consecutive silent trials so far, across [`Client::run_planned`]
    /// calls (the binary runs one trial per call).
    silent: std::sync::Arc<std::sync::atomic::AtomicU32>,
}

impl Client {
    /// A client with `options`.
    pub fn new(options: ClientOptions) -> Self {
        Client {
            options,
            silent: Default::default(),
        }
    }

    fn is_stopped(&self) -> bool {
        self.options
            .stop
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::SeqCst))
    }

    /// Runs every trial of `config`. Never fails: errors become failed
    /// trials or run-level errors, and `complete` says whether all ran.
    pub fn run_plan(
        &self,
        config: &RunConfig,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> RunResult {
        let mut result = self.begin(config);
        let order = plan_order(config);
        let total = order.len();
        self.run_planned(config, &order, &mut result, (0, total), on_progress);
        finish_result(&mut result, total);
        result
    }

    /// An empty result for `config`: schema, run id, this host's facts. Fill
    /// it with [`Client::run_planned`], close it with [`finish_result`].
    pub fn begin(&self, config: &RunConfig) -> RunResult {
        let started = unix_ms();
        RunResult {
            schema: RESULT_SCHEMA.to_string(),
            schema_version: RESULT_SCHEMA_VERSION,
            run_id: new_run_id(started),
            started_at_unix_ms: started,
            finished_at_unix_ms: 0,
            config: config.clone(),
            client_host: collect_host_facts(),
            server_host: None,
            testbed: None,
            trials: Vec::new(),
            analysis: None,
            complete: false,
            errors: Vec::new(),
        }
    }

    /// Runs the `planned` trials of `config` in order, appending them to
    /// `result` (a point at a time, for executors that decide how many
    /// repetitions a point needs as it goes). `(first, total)` numbers the
    /// trials in progress reports: the first is trial `first` of `total`.
    /// Returns false when stopped (the reason is in `result.errors`).
    pub fn run_planned(
        &self,
        config: &RunConfig,
        planned: &[PlannedTrial],
        result: &mut RunResult,
        (first, total): (usize, usize),
        on_progress: &mut dyn FnMut(&Progress),
    ) -> bool {
        use std::sync::atomic::Ordering;
        for (offset, &(point, arm, repetition)) in planned.iter().enumerate() {
            let index = first + offset;
            let silent = self.silent.load(Ordering::SeqCst);
            if silent >= MAX_SILENT_TRIALS {
                result.errors.push(format!(
                    "stopped after {index} of {total} trials: the server did not answer \
                     {silent} trials in a row (each waited {})",
                    crate::protocol::seconds_text(self.options.control_wait())
                ));
                return false;
            }
            if self.is_stopped() {
                result
                    .errors
                    .push(format!("interrupted after {index} of {total} trials"));
                return false;
            }
            let spec = &config.points[point];
            let arm = &config.arms[arm];
            on_progress(&Progress::TrialStarted {
                index,
                total,
                spec,
                arm,
                repetition,
            });
            let server_host = &mut result.server_host;
            let trial_started = std::time::Instant::now();
            let trial = if self.options.live_intervals {
                live::with_live_intervals(
                    &self.options,
                    |client| client.run_one(config, point, arm, repetition, server_host),
                    &mut |sample| {
                        on_progress(&Progress::IntervalFinished {
                            index,
                            spec,
                            arm,
                            sample,
                        })
                    },
                )
            } else {
                self.run_one(config, point, arm, repetition, server_host)
            };
            on_progress(&Progress::TrialFinished {
                index,
                total,
                trial: &trial,
            });
            // Silent: failed after waiting the whole control wait for an
            // answer (a server that accepts and never speaks).
            let failed = matches!(trial.outcome, TrialOutcome::Failed { .. });
            self.silent.store(
                match failed && trial_started.elapsed() >= self.options.control_wait() {
                    true => silent + 1,
                    false => 0,
                },
                Ordering::SeqCst,
            );
            result.trials.push(trial);
        }
        true
    }

    fn run_one(
        &self,
        config: &RunConfig,
        point: usize,
        arm: &Arm,
        repetition: u32,
        server_host: &mut Option<HostFacts>,
    ) -> Trial {
        let spec = &config.points[point];
        let family = arm.family;
        let mut trial = Trial {
            point,
            spec: spec.clone(),
            arm: arm.id.clone(),
            family,
            repetition,
            started_at_unix_ms: unix_ms(),
            local_address: None,
            remote_address: None,
            server_seen_family: None,
            outcome: TrialOutcome::Failed {
                error: String::new(),
            },
        };
        let target = match target_address(config, arm) {
            Ok(address) => address,
            Err(error) => {
                trial.outcome = TrialOutcome::Failed { error };
                return trial;
            }
        };
        if config.peer == dualperf_model::PeerKind::Stamp {
            match crate::client::peer::stamp::run_arm_trial(target, spec, arm, &self.options) {
                Ok(stamp) => {
                    trial.local_address = stamp.local_address.map(|a| a.to_string());
                    trial.remote_address = Some(stamp.remote_address.to_string());
                    trial.outcome = TrialOutcome::Ok(Box::new(stamp.observations));
                }
                Err(error) => trial.outcome = TrialOutcome::Failed { error },
            }
            return trial;
        }
        let started = std::time::Instant::now();
        let path_before: Option<Vec<(u64, u64)>> =
            (!self.options.path_pids.is_empty()).then(|| {
                self.options
                    .path_pids
                    .iter()
                    .map(|&pid| crate::cpu::pid_cpu_ns(pid).unwrap_or((0, 0)))
                    .collect()
            });
        let want_host_facts = server_host.is_none();
        let outcome = match (config.peer, config.load_of(arm)) {
            (_, Err(error)) => {
                trial.outcome = TrialOutcome::Failed { error };
                return trial;
            }
            (PeerKind::Dualperf, Ok(None)) => {
                run_arm_trial(target, spec, arm, &self.options, want_host_facts)
            }
            (PeerKind::Dualperf, Ok(Some(load))) => match load_targets(config, arm, target, load) {
                Err(error) => {
                    trial.outcome = TrialOutcome::Failed { error };
                    return trial;
                }
                Ok(targets) => load::run_under_load(load, &targets, spec, &self.options, |hooks| {
                    run_arm_trial_with(target, spec, arm, &self.options, want_host_facts, hooks)
                }),
            },
            (PeerKind::Iperf3, Ok(None)) => {
                crate::client::peer::iperf3::run_trial(target, spec, arm, &self.options)
            }
            (PeerKind::Iperf3, Ok(Some(load))) => crate::client::peer::iperf3::bidir::run_trial(
                target,
                spec,
                load,
                arm,
                &self.options,
            ),
            (peer, Ok(load)) => Err(crate::EngineError::InvalidTest(match load {
                Some(_) => format!("arms under a load need a dualperf peer, not {peer}"),
                None => format!("this build has no {peer} client"),
            })),
        };
        self.record_outcome(&mut trial, outcome, path_before, started, server_host);
        trial
    }

    /// Fills `trial` from the outcome of its run.
    fn record_outcome(
        &self,
        trial: &mut Trial,
        outcome: crate::error::Result<TrialReport>,
        path_before: Option<Vec<(u64, u64)>>,
        started: std::time::Instant,
        server_host: &mut Option<HostFacts>,
    ) {
        match outcome {
            Ok(report) => {
                trial.local_address = report.local_address;
                trial.remote_address = report.remote_address;
                trial.server_seen_family = Some(report.server_seen_family);
                if server_host.is_none() {
                    *server_host = report.server_host;
                }
                let mut observations = report.observations;
                observations.cpu.path = path_before
                    .as_ref()
                    .and_then(|before| path_cpu(before, &self.options.path_pids, started));
                if let Some(path) = &mut observations.cpu.path {
                    // Measured over the whole trial (handshake and warm-up
                    // included); scaled to the measured interval, assuming an
                    // even load, to match the system counters it is set against.
                    let scale = observations.measured_ns as f64 / path.wall_ns.max(1) as f64;
                    let scale = scale.min(1.0);
                    path.user_ns = (path.user_ns as f64 * scale) as u64;
                    path.system_ns = (path.system_ns as f64 * scale) as u64;
                    path.wall_ns = observations.measured_ns;
                }
                trial.outcome = TrialOutcome::Ok(Box::new(observations));
            }
            Err(error) => {
                trial.outcome = TrialOutcome::Failed {
                    error: error_chain(&error),
                }
            }
        }
    }
}

/// CPU the path processes used since `before` (one entry per pid), over the
/// wall time since `started`.
fn path_cpu(
    before: &[(u64, u64)],
    pids: &[i32],
    started: std::time::Instant,
) -> Option<dualperf_model::ProcessCpu> {
    let (mut user_ns, mut system_ns) = (0, 0);
    for (&pid, &(user, system)) in pids.iter().zip(before) {
        let (user_now, system_now) = crate::cpu::pid_cpu_ns(pid)?;
        user_ns += user_now.saturating_sub(user);
        system_ns += system_now.saturating_sub(system);
    }
    Some(dualperf_model::ProcessCpu {
        user_ns,
        system_ns,
        wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
        involuntary_switches: 0,
        run_queue_wait_ns: None,
        busiest_thread_demand_ns: None,
    })
}

/// Closes a result filled by [`Client::run_planned`]: `complete` when
/// `expected` trials ran and all succeeded, and the finishing time.
pub fn finish_result(result: &mut RunResult, expected: usize) {
    result.complete = result.trials.len() == expected
        && result
            .trials
            .iter()
            .all(|t| matches!(t.outcome, TrialOutcome::Ok(_)));
    result.finished_at_unix_ms = unix_ms();
}

/// Runs `config` with default options (no key, unpinned, no Ctrl-C flag).
pub fn run_plan(config: &RunConfig, on_progress: &mut dyn FnMut(&Progress)) -> RunResult {
    Client::default().run_plan(config, on_progress)
}

/// A run id like `20261121T235000Z-1a2b3c4d`: the UTC start time and 32
/// random bits (`getrandom(2)`). Time and pid alone collide: two runs
/// started in the same second as PID 1 of their own PID namespaces
/// (containers) got the same id and one was lost.
pub fn new_run_id(unix_ms: u64) -> String {
    dualperf_model::run_id(unix_ms, &crate::protocol::auth::new_challenge()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{ArmId, IpFamily, TestKind};

    fn config(order: RepetitionOrder) -> RunConfig {
        let spec = TestSpec {
            duration_ms: 100,
            warmup_ms: 0,
            sample_interval_ms: 100,
            ..TestSpec::new(TestKind::TcpRr, 64)
        };
        RunConfig {
            peer: dualperf_model::PeerKind::Dualperf,
            loads: Vec::new(),
            points: vec![spec],
            arms: vec![
                Arm::native(IpFamily::V4, Some("127.0.0.1".into())),
                Arm::native(IpFamily::V6, None),
            ],
            baseline: ArmId::native(IpFamily::V4),
            repeat: 2,
            order,
            host: None,
            port: 9,
            client_cpus: vec![],
            server_cpus: vec![],
            command_line: vec![],
            contrasts: Vec::new(),
            goal: None,
        }
    }

    #[test]
    fn interleaved_order_alternates_arms() {
        let arms: Vec<_> = plan_order(&config(RepetitionOrder::Interleaved))
            .iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(arms, [0, 1, 0, 1]);
    }

    #[test]
    fn blocked_order_runs_each_arm_in_one_block() {
        let arms: Vec<_> = plan_order(&config(RepetitionOrder::Blocked))
            .iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(arms, [0, 0, 1, 1]);
    }

    #[test]
    fn an_arm_without_an_address_fails_its_trials_and_the_run_goes_on() {
        let result = run_plan(&config(RepetitionOrder::Interleaved), &mut |_| {});
        assert_eq!(result.trials.len(), 4);
        assert!(!result.complete);
        let v6 = result
            .trials
            .iter()
            .find(|t| t.family == IpFamily::V6)
            .unwrap();
        assert_eq!(v6.arm.as_str(), "v6");
        assert!(
            matches!(&v6.outcome, TrialOutcome::Failed { error } if error.contains("no server address for arm v6"))
        );
        serde_json::to_string(&result).unwrap();
    }

    #[test]
    fn run_id_is_the_utc_start_time() {
        // 2026-11-21 23:50:00 UTC
        assert!(new_run_id(1_795_305_000_000).starts_with("20261121T235000Z-"));
        // Same instant, same pid (as PID 1 of two containers): still distinct.
        assert_ne!(new_run_id(1_795_305_000_000), new_run_id(1_795_305_000_000));
    }
}
