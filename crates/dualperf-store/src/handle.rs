//! The values a run is written with: how ([`WriteOptions`]), the run begun
//! ([`RunHandle`]) and its end ([`RunEnd`]). Both the [`crate::Store`] and
//! the `write` module use them; neither owns them.

use dualperf_model::{
    Analysis, HistogramBucket, RunResult, TestKind, Trial, TrialOutcome, UdpReceiveCounters,
};

/// How a run is written: which raw series are kept besides the analysis,
/// the counters, the histograms and the time series (which always are).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct WriteOptions {
    /// Keep the raw series of the measured load: per-transaction times of
    /// rr and connect trials (`LatencySamples::raw_ns`, up to 10,000 per
    /// trial) and per-datagram arrivals of udp-stream trials
    /// (`UdpReceiveCounters::arrivals`, up to 2,000). Off by default, for the
    /// binary's `--raw` to turn on (issue 15): the analysis, the histograms
    /// and the time series are what the report and `history` read, and these
    /// series are most of a run's bytes (see `tests/it/growth.rs`).
    pub raw_samples: bool,
    /// Keep the arrivals of isochronous probe streams (udp-probe trials and
    /// probes under load, `Observations::probe`). On by default: a probe's
    /// arrivals are its measurement — one-way delay, PDV and IPDV
    /// percentiles, the voice MOS and the report's delay distributions
    /// come from them alone (no histogram stands in) — and a probe sends
    /// few packets (100 per second at the default 10 ms).
    pub probe_arrivals: bool,
}

impl Default for WriteOptions {
    /// Compact: no raw load series, probe arrivals kept.
    fn default() -> Self {
        WriteOptions {
            raw_samples: false,
            probe_arrivals: true,
        }
    }
}

impl WriteOptions {
    /// Everything, every raw series included (`--raw`).
    pub const RAW: WriteOptions = WriteOptions {
        raw_samples: true,
        probe_arrivals: true,
    };
    /// The smallest: no raw series at all, probe arrivals neither. A probe
    /// analysed again from such a trial has no delay percentiles; its stored
    /// analysis has them.
    pub const MINIMAL: WriteOptions = WriteOptions {
        raw_samples: false,
        probe_arrivals: false,
    };

    /// Leaves in `trial` what a store with these options keeps: the trial
    /// as [`crate::Store::load_run`] will give it back. A series left out
    /// gets its bound set to 0 (`raw_limit`, `arrivals_limit`), so the trial
    /// says itself that it holds none ("at most 0 kept") rather than looking
    /// like a trial whose samples were lost.
    pub fn apply(&self, trial: &mut Trial) {
        // Media streams are probes too: their arrivals decide the MOS.
        let probe_trial = matches!(trial.spec.kind, TestKind::UdpProbe | TestKind::Media);
        let TrialOutcome::Ok(observations) = &mut trial.outcome else {
            return;
        };
        if !self.raw_samples {
            if let Some(latency) = observations.latency.as_mut() {
                latency.raw_ns = Vec::new();
                latency.raw_limit = 0;
                latency.histogram = coarsened(&latency.histogram, COMPACT_BUCKET_WIDTH);
            }
        }
        let keep_own_arrivals = if probe_trial {
            self.probe_arrivals
        } else {
            self.raw_samples
        };
        if !keep_own_arrivals {
            if let Some(udp) = observations.udp.as_mut() {
                drop_arrivals(udp);
            }
        }
        if !self.probe_arrivals {
            if let Some(probe) = observations.probe.as_mut() {
                drop_arrivals(&mut probe.udp);
            }
        }
        // A competing load's measurement is its counters and time series;
        // its per-datagram arrivals and transaction times are raw series.
        if !self.raw_samples {
            for load in &mut observations.loads {
                let o = &mut load.observations;
                if let Some(latency) = o.latency.as_mut() {
                    latency.raw_ns = Vec::new();
                    latency.raw_limit = 0;
                    latency.histogram = coarsened(&latency.histogram, COMPACT_BUCKET_WIDTH);
                }
                if let Some(udp) = o.udp.as_mut() {
                    drop_arrivals(udp);
                }
                if let Some(probe) = o.probe.as_mut() {
                    drop_arrivals(&mut probe.udp);
                }
            }
        }
    }
}

/// Relative width of a stored histogram bucket in a compact result: 1 %.
/// The analysis is computed from the engine's 3-significant-digit
/// histogram before the result is compacted; what is stored serves charts
/// and re-reading, where 1 % is finer than a pixel. An rr trial's histogram
/// shrinks about sevenfold (a default lab run: 138,265 → 18,811 buckets,
/// 4.1 → 0.6 MB of JSON).
pub(crate) const COMPACT_BUCKET_WIDTH: f64 = 0.01;

/// `histogram` with neighbouring buckets merged while they lie within
/// `width` (relative) of the first bucket of their group; a merged bucket's
/// value is the count-weighted mean of its members (so percentiles move by
/// less than `width`), its count their sum.
pub(crate) fn coarsened(histogram: &[HistogramBucket], width: f64) -> Vec<HistogramBucket> {
    let mut merged: Vec<HistogramBucket> = Vec::new();
    let (mut start, mut weighted) = (0u64, 0u128);
    for bucket in histogram {
        let joins = merged
            .last()
            .is_some_and(|_| (bucket.value_ns as f64) <= start as f64 * (1.0 + width));
        if joins {
            if let Some(last) = merged.last_mut() {
                last.count += bucket.count;
                weighted += u128::from(bucket.value_ns) * u128::from(bucket.count);
                last.value_ns = (weighted / u128::from(last.count.max(1))) as u64;
            }
        } else {
            start = bucket.value_ns;
            weighted = u128::from(bucket.value_ns) * u128::from(bucket.count);
            merged.push(*bucket);
        }
    }
    merged
}

fn drop_arrivals(udp: &mut UdpReceiveCounters) {
    udp.arrivals = Vec::new();
    udp.arrivals_limit = 0;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(value_ns: u64, count: u64) -> HistogramBucket {
        HistogramBucket { value_ns, count }
    }

    #[test]
    fn coarsening_merges_buckets_within_one_percent_and_keeps_every_count() {
        let fine: Vec<_> = (0..1_000)
            .map(|i| bucket(10_000 + i * 4, 1 + i % 3))
            .collect();
        let coarse = coarsened(&fine, COMPACT_BUCKET_WIDTH);
        let total = |h: &[HistogramBucket]| h.iter().map(|b| b.count).sum::<u64>();
        assert_eq!(total(&coarse), total(&fine), "no value is lost");
        assert!(coarse.len() < fine.len() / 10, "{} buckets", coarse.len());
        // Each merged bucket's value lies inside its members' span, within 1 %.
        let mut members = fine.iter();
        for merged in &coarse {
            let mut span = Vec::new();
            let mut counted = 0;
            while counted < merged.count {
                let b = members.next().unwrap();
                counted += b.count;
                span.push(b.value_ns);
            }
            let (low, high) = (span[0], *span.last().unwrap());
            assert!(low <= merged.value_ns && merged.value_ns <= high);
            assert!(high as f64 <= low as f64 * 1.01);
        }
        assert!(coarsened(&[], 0.01).is_empty());
    }
}
