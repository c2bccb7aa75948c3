//! What a person sees while a run goes on. On a terminal: one status line,
//! rewritten in place, with the trial, elapsed time and an estimate of the
//! time left. Without a terminal (CI logs, pipes): one line per finished
//! point, and within a long point a line at least every
//! [`HEARTBEAT`] (trials done, time left), so a long run never looks hung.
//! Failed trials are always printed.
//! With live intervals on (standard output a terminal, no `--no-intervals`),
//! a line per finished sample interval goes to standard output, like
//! iperf3's, worded by `dualperf_report::present::interval`.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use dualperf_engine::client::{ClientOptions, Progress};
use dualperf_model::{RunConfig, TrialOutcome};

/// Longest silence without a terminal: a point that runs longer (a lab
/// experiment's one point of 25 arms) gets a line per trial this often.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(30);

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
    /// The status line last written (a terminal), rewritten after an interval line.
    status: String,
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
            status: String::new(),
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
                let elapsed = self.started.elapsed();
                let left = estimate_left(elapsed, *index, *total)
                    .map(|left| format!(", ~{} left", clock(left)))
                    .unwrap_or_default();
                self.status = format!(
                    "[{}/{}] {}{left} · {} on {} (repetition {})",
                    index + 1,
                    total,
                    clock(elapsed),
                    spec.label(),
                    arm.label,
                    repetition + 1
                );
                let _ = write!(err, "\r\x1b[2K{}", self.status);
                let _ = err.flush();
            }
            Progress::TrialStarted { total, .. } => self.trials_total = *total,
            Progress::IntervalFinished { arm, sample, .. } if self.intervals => {
                let line =
                    dualperf_report::present::interval::interval_line(arm.id.as_str(), sample);
                if self.tty {
                    let _ = write!(err, "\r\x1b[2K");
                    let _ = err.flush();
                }
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
                if self.tty && !self.status.is_empty() {
                    let _ = write!(err, "{}", self.status);
                    let _ = err.flush();
                }
            }
            Progress::IntervalFinished { .. } => {}
            Progress::TrialFinished { trial, .. } => {
                self.point_finished += 1;
                self.trials_done += 1;
                if let TrialOutcome::Failed { error } = &trial.outcome {
                    self.point_failed += 1;
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
        if self.tty {
            eprint!("\r\x1b[2K");
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
    fn clocks_read_like_clocks() {
        assert_eq!(clock(Duration::from_secs(75)), "1:15");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
