//! What a person sees while a run goes on. On a terminal: one status line,
//! rewritten in place, with the trial, elapsed time and an estimate of the
//! time left. Without a terminal (CI logs, pipes): one line per finished
//! point, and within a long point a line at least every
//! [`HEARTBEAT`] (trials done, time left), so a long run never looks hung.
//! Failed trials are always printed. On a terminal a thread of its own
//! ([`StatusLine`]) redraws the status line every [`TICK`], so the clock and
//! the estimate move while a long trial runs.
//! With live intervals on (standard output a terminal, no `--no-intervals`),
//! a line per finished sample interval goes to standard output, like
//! iperf3's, worded by `dualperf_report::present::interval`.

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dualperf_engine::client::{ClientOptions, Progress};
use dualperf_model::{RunConfig, TrialOutcome};

/// Longest silence without a terminal: a point that runs longer (a lab
/// experiment's one point of 25 arms) gets a line per trial this often.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(30);

/// How often the status line on a terminal is redrawn while a trial runs.
pub(crate) const TICK: Duration = Duration::from_secs(1);

/// Progress display for one run.
pub(crate) struct ProgressView {
    tty: bool,
    started: Instant,
    /// Trials per point (arms × repetitions).
    per_point: usize,
    /// Finished trials and failures of the point in progress.
    point_finished: usize,
    point_failed: usize,
    points_done: usize,
    points_total: usize,
    labels: Vec<(String, String)>,
    /// Print live interval lines (see [`live_intervals_wanted`]).
    intervals: bool,
    /// The status line on a terminal (redrawn every [`TICK`]); `None` without one.
    status: Option<StatusLine>,
    /// When the last progress line was written (without a terminal).
    last_line: Instant,
    /// Trials finished in the whole run, and how many it has (from the engine).
    trials_done: usize,
    trials_total: usize,
    /// Every engine event also goes here (`run --json-stream`).
    stream: Option<EventSink>,
}

/// A receiver of every engine event (`run --json-stream`).
pub(crate) type EventSink = Box<dyn FnMut(&Progress<'_>)>;

/// Whether `dualperf run` prints live interval lines: not with
/// `--no-intervals`, not in a lab's measuring child, not when the JSON
/// goes to standard output (`-J`, `--json -`), and only when standard
/// output is a terminal.
pub(crate) fn live_intervals_wanted(
    opted_out: bool,
    measuring_child: bool,
    json_on_stdout: bool,
) -> bool {
    !opted_out && !measuring_child && !json_on_stdout && std::io::stdout().is_terminal()
}

impl ProgressView {
    /// A display for `config`; `tty` says whether standard error is a terminal.
    pub(crate) fn new(config: &RunConfig, tty: bool) -> ProgressView {
        ProgressView {
            tty,
            started: Instant::now(),
            per_point: config.arms.len() * config.repeat as usize,
            point_finished: 0,
            point_failed: 0,
            points_done: 0,
            points_total: config.points.len(),
            labels: config
                .arms
                .iter()
                .map(|arm| (arm.id.to_string(), arm.label.clone()))
                .collect(),
            intervals: false,
            status: tty.then(StatusLine::start),
            last_line: Instant::now(),
            trials_done: 0,
            trials_total: 0,
            stream: None,
        }
    }

    /// The display, also handing every engine event to `stream` (`run
    /// --json-stream`), which then owns standard output: no interval lines.
    pub(crate) fn with_stream(self, stream: EventSink) -> ProgressView {
        ProgressView {
            stream: Some(stream),
            intervals: false,
            ..self
        }
    }

    /// The display, printing live interval lines when `options` asks the
    /// engine for them.
    pub(crate) fn with_intervals(self, options: &ClientOptions) -> ProgressView {
        ProgressView {
            intervals: options.live_intervals,
            ..self
        }
    }

    fn arm_label<'a>(&'a self, id: &'a str) -> &'a str {
        self.labels
            .iter()
            .find(|(key, _)| key == id)
            .map(|(_, label)| label.as_str())
            .unwrap_or(id)
    }

    /// Shows one event of the engine.
    pub(crate) fn show(&mut self, progress: &Progress) {
        if let Some(stream) = self.stream.as_mut() {
            stream(progress);
        }
        let mut err = std::io::stderr().lock();
        match progress {
            Progress::TrialStarted {
                index,
                total,
                spec,
                arm,
                repetition,
            } if self.tty => {
                let now = Instant::now();
                let trial = TrialStatus {
                    index: *index,
                    total: *total,
                    what: format!(
                        "{} on {} (repetition {})",
                        spec.label(),
                        arm.label,
                        repetition + 1
                    ),
                    run_started: self.started,
                    started: now,
                    left_at_start: estimate_left(now - self.started, *index, *total),
                };
                if let Some(status) = &self.status {
                    let mut shown = status.lock();
                    *shown = Some(trial);
                    draw(&mut err, shown.as_ref());
                }
            }
            Progress::TrialStarted { total, .. } => self.trials_total = *total,
            Progress::IntervalFinished { arm, sample, .. } if self.intervals => {
                let line =
                    dualperf_report::present::interval::interval_line(arm.id.as_str(), sample);
                // Hold the status line while the interval line goes out, so
                // the ticker does not draw into it.
                let shown = self.status.as_ref().map(StatusLine::lock);
                if self.tty {
                    let _ = write!(err, "\r\x1b[2K");
                    let _ = err.flush();
                }
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
                if let Some(shown) = shown {
                    draw(&mut err, shown.as_ref());
                }
            }
            Progress::IntervalFinished { .. } => {}
            Progress::TrialFinished { trial, .. } => {
                self.point_finished += 1;
                self.trials_done += 1;
                if let TrialOutcome::Failed { error } = &trial.outcome {
                    self.point_failed += 1;
                    let _shown = self.status.as_ref().map(StatusLine::lock);
                    let _ = writeln!(
                        err,
                        "{}dualperf: {} on {} failed: {error}",
                        if self.tty { "\r\x1b[2K" } else { "" },
                        trial.spec.label(),
                        self.arm_label(trial.arm.as_str()),
                    );
                }
                if self.per_point > 0 && self.point_finished >= self.per_point {
                    self.points_done += 1;
                    if !self.tty {
                        let _ = writeln!(
                            err,
                            "dualperf: [{}/{} points, {}] {}: {} trials, {} failed",
                            self.points_done,
                            self.points_total,
                            clock(self.started.elapsed()),
                            trial.spec.label(),
                            self.point_finished,
                            self.point_failed
                        );
                    }
                    self.point_finished = 0;
                    self.point_failed = 0;
                    self.last_line = Instant::now();
                } else if !self.tty && self.last_line.elapsed() >= HEARTBEAT {
                    let elapsed = self.started.elapsed();
                    let left = estimate_left(elapsed, self.trials_done, self.trials_total)
                        .map(|left| format!(", ~{} left", clock(left)))
                        .unwrap_or_default();
                    let _ = writeln!(
                        err,
                        "dualperf: [{}/{} trials, {}{left}] {} on {}: {} failed so far",
                        self.trials_done,
                        self.trials_total,
                        clock(elapsed),
                        trial.spec.label(),
                        self.arm_label(trial.arm.as_str()),
                        self.point_failed
                    );
                    self.last_line = Instant::now();
                }
            }
        }
    }

    /// A display for a run whose points take as many repetitions as they
    /// need (`--repeat auto`): the executor says when a point is done.
    pub(crate) fn until_precise(config: &RunConfig, tty: bool) -> ProgressView {
        ProgressView {
            per_point: 0,
            ..ProgressView::new(config, tty)
        }
    }

    /// Ends a point of an until-precise run (see [`ProgressView::until_precise`]).
    pub(crate) fn point_done(&mut self, label: &str) {
        if self.per_point > 0 {
            return;
        }
        self.points_done += 1;
        if !self.tty {
            eprintln!(
                "dualperf: [{}/{} points, {}] {label}: {} trials ({} repetitions per arm), {} failed",
                self.points_done,
                self.points_total,
                clock(self.started.elapsed()),
                self.point_finished,
                self.point_finished / self.labels.len().max(1),
                self.point_failed
            );
        }
        self.point_finished = 0;
        self.point_failed = 0;
        self.last_line = Instant::now();
    }

    /// Clears the status line once the run is over.
    pub(crate) fn done(&self) {
        if let Some(status) = &self.status {
            *status.lock() = None;
        }
        if self.tty {
            eprint!("\r\x1b[2K");
        }
    }
}

/// The trial a terminal's status line shows: enough to redraw it with the
/// clock and the estimate as they are now.
#[derive(Clone, Debug)]
struct TrialStatus {
    /// The trial's index (from 0) and how many the run has.
    index: usize,
    total: usize,
    /// "tcp-stream 1024 B on IPv6 (repetition 2)".
    what: String,
    run_started: Instant,
    started: Instant,
    /// The time left when the trial started ([`estimate_left`]).
    left_at_start: Option<Duration>,
}

impl TrialStatus {
    /// "[3/12] 0:41, ~1:20 left · tcp-stream 1024 B on IPv6 (repetition 2)"
    /// at `now`: the estimate counts down while the trial runs (never below 0).
    fn line(&self, now: Instant) -> String {
        let left = self
            .left_at_start
            .map(|left| {
                let spent = now.saturating_duration_since(self.started);
                format!(", ~{} left", clock(left.saturating_sub(spent)))
            })
            .unwrap_or_default();
        format!(
            "[{}/{}] {}{left} · {}",
            self.index + 1,
            self.total,
            clock(now.saturating_duration_since(self.run_started)),
            self.what
        )
    }
}

/// Rewrites the status line in place (nothing when no trial runs).
fn draw(err: &mut impl Write, trial: Option<&TrialStatus>) {
    if let Some(trial) = trial {
        let _ = write!(err, "\r\x1b[2K{}", trial.line(Instant::now()));
        let _ = err.flush();
    }
}

/// A terminal's status line and the thread that redraws it every [`TICK`];
/// dropping it stops the thread.
struct StatusLine {
    shown: Arc<Mutex<Option<TrialStatus>>>,
    /// Dropped to stop the ticker.
    stop: Option<Sender<()>>,
    ticker: Option<JoinHandle<()>>,
}

impl StatusLine {
    fn start() -> StatusLine {
        let shown: Arc<Mutex<Option<TrialStatus>>> = Arc::default();
        let (stop, stopped) = mpsc::channel::<()>();
        let ticking = Arc::clone(&shown);
        let ticker = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                    // Standard error first, then the status: the order `show` takes them in.
                    let mut err = std::io::stderr().lock();
                    let shown = ticking.lock().unwrap_or_else(PoisonError::into_inner);
                    draw(&mut err, shown.as_ref());
                }
            })
            .ok();
        StatusLine {
            shown,
            stop: Some(stop),
            ticker,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<TrialStatus>> {
        self.shown.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
    }
}

/// Time left at the average pace so far, once a trial has finished.
fn estimate_left(elapsed: Duration, finished: usize, total: usize) -> Option<Duration> {
    (finished > 0).then(|| elapsed.mul_f64(total.saturating_sub(finished) as f64 / finished as f64))
}

/// `m:ss` (or `h:mm:ss`).
fn clock(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 3600 {
        format!(
            "{}:{:02}:{:02}",
            seconds / 3600,
            seconds % 3600 / 60,
            seconds % 60
        )
    } else {
        format!("{}:{:02}", seconds / 60, seconds % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_follows_the_pace_so_far() {
        assert_eq!(estimate_left(Duration::from_secs(10), 0, 4), None);
        assert_eq!(
            estimate_left(Duration::from_secs(10), 1, 4),
            Some(Duration::from_secs(30))
        );
        // Reruns of contended trials can finish more trials than planned.
        assert_eq!(
            estimate_left(Duration::from_secs(10), 5, 4),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn live_intervals_stay_off_when_asked_or_when_stdout_carries_json() {
        assert!(!live_intervals_wanted(true, false, false));
        assert!(!live_intervals_wanted(false, true, false));
        assert!(!live_intervals_wanted(false, false, true));
        // Under `cargo test` standard output is captured, not a terminal.
        assert_eq!(
            live_intervals_wanted(false, false, false),
            std::io::stdout().is_terminal()
        );
    }

    #[test]
    fn the_status_line_ticks_while_a_trial_runs() {
        let start = Instant::now();
        let trial = TrialStatus {
            index: 2,
            total: 12,
            what: "tcp-stream 1024 B on IPv6 (repetition 2)".into(),
            run_started: start,
            started: start + Duration::from_secs(20),
            left_at_start: Some(Duration::from_secs(80)),
        };
        assert_eq!(
            trial.line(start + Duration::from_secs(20)),
            "[3/12] 0:20, ~1:20 left · tcp-stream 1024 B on IPv6 (repetition 2)"
        );
        // Thirty seconds into the trial, both the clock and the estimate moved.
        assert_eq!(
            trial.line(start + Duration::from_secs(50)),
            "[3/12] 0:50, ~0:50 left · tcp-stream 1024 B on IPv6 (repetition 2)"
        );
        // A trial longer than the estimate counts down to 0, not below.
        assert!(trial
            .line(start + Duration::from_secs(500))
            .contains("~0:00 left"));
    }

    #[test]
    fn the_ticker_stops_when_dropped() {
        let status = StatusLine::start();
        *status.lock() = None;
        let started = Instant::now();
        drop(status);
        // The thread stops at once, not after its next tick.
        assert!(started.elapsed() < TICK);
    }

    #[test]
    fn clocks_read_like_clocks() {
        assert_eq!(clock(Duration::from_secs(75)), "1:15");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
