//! The values a run is written with: how ([`WriteOptions`]), the run begun
//! ([`RunHandle`]) and its end ([`RunEnd`]). Both the [`crate::Store`] and
//! the `write` module use them; neither owns them.

use dualperf_model::{Analysis, Observations, RunResult, Trial, TrialOutcome};

/// How a run is written.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct WriteOptions {
    /// Keep the raw per-transaction times (`LatencySamples::raw_ns`) and the
    /// raw per-packet arrivals (`UdpReceiveCounters::arrivals`, of the trial
    /// and of its probe). Off by default (`dualperf run --raw` turns it
    /// on): the analysis, the histograms and the time series are what the
    /// report and `history` read, and the raw series are most of a run's
    /// bytes. A trial stored without them loads as [`strip_raw_samples`]
    /// leaves it.
    pub raw_samples: bool,
}

impl WriteOptions {
    /// Everything, raw samples included.
    pub const RAW: WriteOptions = WriteOptions { raw_samples: true };
}

/// Drops a trial's raw series and records their bounds as 0, so that the
/// trial says itself that it holds none ("at most 0 raw samples kept"),
/// rather than looking like a run whose samples were all lost: the raw
/// per-transaction times (with `raw_limit` 0) and the raw per-packet
/// arrivals of the trial and of its probe (with `arrivals_limit` 0).
/// Counters, histograms, time series and notes stay.
pub fn strip_raw_samples(trial: &mut Trial) {
    if let TrialOutcome::Ok(observations) = &mut trial.outcome {
        strip_observations(observations);
    }
}

fn strip_observations(observations: &mut Observations) {
    if let Some(latency) = observations.latency.as_mut() {
        latency.raw_ns = Vec::new();
        latency.raw_limit = 0;
    }
    if let Some(udp) = observations.udp.as_mut() {
        udp.arrivals = Vec::new();
        udp.arrivals_limit = 0;
    }
    if let Some(probe) = observations.probe.as_mut() {
        probe.udp.arrivals = Vec::new();
        probe.udp.arrivals_limit = 0;
    }
}

/// A run that has been begun: its database row id, how many trials it has
/// and how it is written. Get one from [`crate::Store::begin_run`]; pass it
/// to [`crate::Store::append_trial`] and [`crate::Store::finish_run`].
#[derive(Debug)]
pub struct RunHandle {
    pub(crate) row_id: i64,
    pub(crate) run_id: String,
    pub(crate) next_seq: u32,
    pub(crate) options: WriteOptions,
}

impl RunHandle {
    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Trials written so far.
    pub fn trials_written(&self) -> u32 {
        self.next_seq
    }

    /// How the run is written.
    pub fn options(&self) -> WriteOptions {
        self.options
    }
}

/// How a run ended: what [`crate::Store::finish_run`] writes.
#[derive(Clone, Copy, Debug)]
pub struct RunEnd<'a> {
    /// Wall-clock end, milliseconds since the Unix epoch.
    pub finished_at_unix_ms: u64,
    /// True when every planned trial ran and succeeded.
    pub complete: bool,
    /// Run-level errors.
    pub errors: &'a [String],
    /// The analysis, if the stats stage ran.
    pub analysis: Option<&'a Analysis>,
}

impl<'a> RunEnd<'a> {
    /// The end as recorded in a finished [`RunResult`].
    pub fn of(run: &'a RunResult) -> Self {
        RunEnd {
            finished_at_unix_ms: run.finished_at_unix_ms,
            complete: run.complete,
            errors: &run.errors,
            analysis: run.analysis.as_ref(),
        }
    }
}
