//! The exporter's main loop: asks the [`Schedule`] what to do, runs one
//! comparison at a time through a caller-supplied function (the binary
//! wires the engine's client and the stats stage into it), turns each
//! result into a [`RunSnapshot`] at once (the raw result is dropped, so
//! memory stays flat) and records it in the shared [`Registry`].
//!
//! A [`StopSignal`] (SIGTERM, Ctrl-C) ends the loop at once while it
//! waits, and after the current trial while it measures: an interrupted
//! comparison is not recorded.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dualperf_model::{RunResult, TrialOutcome};

use crate::registry::Registry;
use crate::schedule::{Next, Schedule, TargetSchedule};
use crate::snapshot::RunSnapshot;

/// Raised to stop: wakes a sleeping driver at once.
#[derive(Debug, Default)]
pub struct StopSignal {
    flag: Arc<AtomicBool>,
    lock: Mutex<()>,
    wake: Condvar,
}

impl StopSignal {
    /// A signal not raised yet.
    pub fn new() -> Arc<StopSignal> {
        Arc::new(StopSignal::default())
    }

    /// Raises the signal (from any thread, e.g. a signal handler's).
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        let _guard = self.lock.lock();
        self.wake.notify_all();
    }

    /// True once raised.
    pub fn is_stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The flag itself, for the engine's client (checked between trials).
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Sleeps for `timeout` or until raised; true when raised.
    pub fn sleep(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut guard = match self.lock.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        while !self.is_stopped() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            guard = match self.wake.wait_timeout(guard, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        self.is_stopped()
    }
}

/// What one comparison gave.
#[derive(Debug)]
pub enum Outcome {
    /// An analysed run (failed trials are inside it).
    Measured(Box<RunResult>),
    /// The comparison could not run at all; why.
    Failed(String),
}

/// One target as the driver sees it.
#[derive(Clone, Debug)]
pub struct DriverTarget {
    /// Name, the `target` label.
    pub name: String,
    /// When it is compared.
    pub schedule: TargetSchedule,
}

/// How the loop runs.
#[derive(Clone, Copy, Debug)]
pub struct DriverOptions {
    /// Most of the wall time spent measuring, (0, 1].
    pub duty_cycle: f64,
    /// Stop after this many comparisons (`None`: until stopped).
    pub limit: Option<u64>,
    /// Seed of the jitter.
    pub seed: u64,
}

/// How the loop ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverSummary {
    /// Comparisons recorded.
    pub recorded: u64,
    /// Of which every trial succeeded.
    pub succeeded: u64,
    /// The stop signal ended it (rather than the limit).
    pub stopped: bool,
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Resident memory of this process (VmRSS in `/proc/self/status`), bytes.
pub fn resident_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Runs the schedule of `targets` until `stop` is raised or the limit is
/// reached. `compare(index)` runs one comparison of `targets[index]`;
/// `log` gets one line per comparison.
pub fn drive(
    targets: &[DriverTarget],
    options: DriverOptions,
    registry: &Mutex<Registry>,
    stop: &StopSignal,
    compare: &mut dyn FnMut(usize) -> Outcome,
    log: &mut dyn FnMut(&str),
) -> DriverSummary {
    let origin = Instant::now();
    let schedules: Vec<TargetSchedule> = targets.iter().map(|t| t.schedule).collect();
    let mut schedule = Schedule::new(
        &schedules,
        options.duty_cycle,
        options.limit,
        options.seed,
        Duration::ZERO,
    );
    let mut summary = DriverSummary::default();
    loop {
        if stop.is_stopped() {
            summary.stopped = true;
            break;
        }
        let now = origin.elapsed();
        match schedule.next(now) {
            Next::Run(index) => {
                let name = &targets[index].name;
                schedule.started(index, now);
                let started_unix_ms = unix_ms();
                let outcome = compare(index);
                schedule.finished(origin.elapsed());
                if stop.is_stopped() {
                    log(&format!(
                        "{name}: interrupted; this comparison is not recorded"
                    ));
                    summary.stopped = true;
                    break;
                }
                let snapshot = match outcome {
                    Outcome::Measured(result) => {
                        log(&format!("{name}: {}", describe(&result)));
                        RunSnapshot::of_run(name, &result)
                    }
                    Outcome::Failed(error) => {
                        log(&format!("{name}: failed: {error}"));
                        RunSnapshot::failed(name, started_unix_ms, unix_ms())
                    }
                };
                summary.recorded += 1;
                summary.succeeded += u64::from(snapshot.success);
                let mut registry = match registry.lock() {
                    Ok(guard) => guard,
                    Err(poisoned) => poisoned.into_inner(),
                };
                registry.record(snapshot);
                registry.set_busy(schedule.busy());
            }
            Next::WaitUntil(at) => {
                stop.sleep(at.saturating_sub(now));
            }
            Next::Busy => unreachable!("the driver finishes every comparison it starts"),
            Next::Done => break,
        }
    }
    summary
}

/// One line about a finished comparison.
fn describe(result: &RunResult) -> String {
    let seconds = result
        .finished_at_unix_ms
        .saturating_sub(result.started_at_unix_ms) as f64
        / 1000.0;
    let failed: Vec<&str> = result
        .trials
        .iter()
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Failed { error } => Some(error.as_str()),
            TrialOutcome::Ok(_) => None,
        })
        .collect();
    if result.complete {
        format!("ok, {} trials in {seconds:.1} s", result.trials.len())
    } else if let Some(first) = failed.first() {
        format!(
            "{} of {} trials failed in {seconds:.1} s (first: {first})",
            failed.len(),
            result.trials.len()
        )
    } else {
        format!(
            "incomplete after {} trials in {seconds:.1} s: {}",
            result.trials.len(),
            result.errors.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::synthetic::small_synthetic_run;

    fn targets(n: usize) -> Vec<DriverTarget> {
        (0..n)
            .map(|i| DriverTarget {
                name: format!("t{i}"),
                schedule: TargetSchedule {
                    interval: Duration::from_millis(20),
                    jitter: Duration::from_millis(5),
                    max_runs_per_hour: 1_000_000,
                },
            })
            .collect()
    }

    #[test]
    fn the_loop_records_every_comparison_up_to_the_limit() {
        let registry = Mutex::new(Registry::new(&["t0", "t1"], "test", unix_ms()));
        let stop = StopSignal::new();
        let run = small_synthetic_run();
        let mut calls = Vec::new();
        let mut lines = Vec::new();
        let summary = drive(
            &targets(2),
            DriverOptions {
                duty_cycle: 1.0,
                limit: Some(6),
                seed: 3,
            },
            &registry,
            &stop,
            &mut |index| {
                calls.push(index);
                if calls.len() == 3 {
                    Outcome::Failed("no AAAA".into())
                } else {
                    Outcome::Measured(Box::new(run.clone()))
                }
            },
            &mut |line| lines.push(line.to_string()),
        );
        assert_eq!(
            summary,
            DriverSummary {
                recorded: 6,
                succeeded: 5,
                stopped: false
            }
        );
        assert!(calls.contains(&0) && calls.contains(&1));
        assert!(
            lines.iter().any(|l| l.ends_with("failed: no AAAA")),
            "{lines:?}"
        );
    }

    #[test]
    fn a_stop_while_measuring_drops_that_comparison_and_a_stop_while_waiting_wakes_at_once() {
        let registry = Mutex::new(Registry::new(&["t0"], "test", unix_ms()));
        let stop = StopSignal::new();
        let summary = drive(
            &targets(1),
            DriverOptions {
                duty_cycle: 1.0,
                limit: None,
                seed: 3,
            },
            &registry,
            &stop,
            &mut |_| {
                stop.stop();
                Outcome::Failed("interrupted".into())
            },
            &mut |_| {},
        );
        assert_eq!((summary.recorded, summary.stopped), (0, true));

        let stop = StopSignal::new();
        let raiser = stop.clone();
        let started = Instant::now();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            raiser.stop();
        });
        assert!(stop.sleep(Duration::from_secs(30)));
        assert!(started.elapsed() < Duration::from_secs(5));
        thread.join().unwrap();
    }

    #[test]
    fn resident_memory_is_read_from_proc() {
        let bytes = resident_memory_bytes().unwrap();
        assert!(bytes > 1 << 20 && bytes < 1 << 40, "{bytes}");
    }
}
