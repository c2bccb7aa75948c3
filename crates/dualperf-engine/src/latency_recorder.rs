//! Per-transaction times (request/response round trips, connection setup
//! times) recorded in the socket loop without summarising them.
//!
//! Every sample goes into three places, each cheap and O(1):
//!
//! - an HDR histogram (Gil Tene's HdrHistogram, the `hdrhistogram` crate)
//!   with 3 significant decimal digits: any value is kept within 0.1 % of its
//!   true value, at any magnitude, in bounded memory; it auto-resizes so no
//!   value is ever clipped;
//! - a raw prefix of the series, in time order, up to a bound, so that the
//!   stats stage can look at autocorrelation, bimodality or warm-up effects;
//! - exact running count, minimum, maximum, sum and sum of squares, so the
//!   mean and standard deviation are exact (not histogram-rounded).
//!
//! No percentile is computed here: percentiles belong to the stats stage,
//! which gets the histogram as (value, count) buckets
//! ([`dualperf_model::LatencySamples`]). metrics.md: "Round-trip time ...
//! measured per transaction with the monotonic clock (not duration / count,
//! which hides the spread)".

use dualperf_model::{HistogramBucket, LatencySamples};
use hdrhistogram::Histogram;

/// Significant decimal digits kept by the histogram (3: 0.1 % resolution).
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// Raw samples preallocated at most up front; beyond this the raw vector
/// grows amortised, so a huge `raw_limit` does not cost memory until used.
const RAW_PREALLOCATION: usize = 1 << 16;

/// Records transaction times in nanoseconds: an HDR histogram, a bounded raw
/// prefix, and exact moments. Merge recorders of parallel flows with
/// [`LatencyRecorder::merge`].
#[derive(Clone, Debug)]
pub struct LatencyRecorder {
    histogram: Histogram<u64>,
    raw_ns: Vec<u64>,
    raw_limit: usize,
    count: u64,
    min_ns: u64,
    max_ns: u64,
    sum_ns: u128,
    sum_squares_ns2: f64,
}

impl LatencyRecorder {
    /// An empty recorder that keeps the first `raw_limit` samples raw.
    pub fn new(raw_limit: usize) -> LatencyRecorder {
        LatencyRecorder {
            histogram: Histogram::new(SIGNIFICANT_DIGITS)
                .expect("3 significant digits is within hdrhistogram's 0..=5"),
            raw_ns: Vec::with_capacity(raw_limit.min(RAW_PREALLOCATION)),
            raw_limit,
            count: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            sum_ns: 0,
            sum_squares_ns2: 0.0,
        }
    }

    /// Records one transaction time, nanoseconds. O(1); allocates only when
    /// the histogram must grow to a new magnitude or the raw prefix grows.
    #[inline]
    pub fn record(&mut self, nanoseconds: u64) {
        // `record` auto-resizes the histogram (`saturating_record` would not:
        // it clamps to the current range). Only a value beyond the largest
        // range a histogram can have fails; it saturates rather than vanish.
        if self.histogram.record(nanoseconds).is_err() {
            self.histogram.saturating_record(nanoseconds);
        }
        if self.raw_ns.len() < self.raw_limit {
            self.raw_ns.push(nanoseconds);
        }
        self.count += 1;
        self.min_ns = self.min_ns.min(nanoseconds);
        self.max_ns = self.max_ns.max(nanoseconds);
        self.sum_ns += u128::from(nanoseconds);
        let value = nanoseconds as f64;
        self.sum_squares_ns2 += value * value;
    }

    /// Adds `other`'s samples to this recorder (e.g. the flows of a parallel
    /// test). Histograms and moments add exactly; `other`'s raw samples are
    /// appended after this recorder's own, up to this recorder's bound, so
    /// the raw series is in time order per flow, not across flows.
    pub fn merge(&mut self, other: &LatencyRecorder) {
        // Both histograms auto-resize, so adding cannot fail on range.
        self.histogram
            .add(&other.histogram)
            .expect("adding two auto-resizing histograms cannot run out of range");
        let room = self.raw_limit.saturating_sub(self.raw_ns.len());
        self.raw_ns.extend(other.raw_ns.iter().copied().take(room));
        self.count += other.count;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        self.sum_ns += other.sum_ns;
        self.sum_squares_ns2 += other.sum_squares_ns2;
    }

    /// Samples recorded so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The samples in the model's shape: histogram buckets (each the highest
    /// value equivalent to the bucket, ascending, empty buckets left out),
    /// the raw prefix, and exact count/min/max/sums. With no samples, min
    /// and max are 0.
    pub fn finish(&self) -> LatencySamples {
        let histogram = self
            .histogram
            .iter_recorded()
            .map(|bucket| HistogramBucket {
                value_ns: bucket.value_iterated_to(),
                count: bucket.count_at_value(),
            })
            .collect();
        LatencySamples {
            count: self.count,
            histogram,
            raw_ns: self.raw_ns.clone(),
            raw_limit: self.raw_limit as u64,
            min_ns: if self.count == 0 { 0 } else { self.min_ns },
            max_ns: self.max_ns,
            sum_ns: self.sum_ns,
            sum_squares_ns2: self.sum_squares_ns2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_recorder_reports_zeros() {
        let samples = LatencyRecorder::new(10).finish();
        assert_eq!(samples.count, 0);
        assert_eq!(samples.min_ns, 0);
        assert_eq!(samples.max_ns, 0);
        assert!(samples.histogram.is_empty());
        assert!(samples.raw_ns.is_empty());
        assert_eq!(samples.raw_limit, 10);
    }

    #[test]
    fn known_values_give_exact_moments() {
        let mut recorder = LatencyRecorder::new(100);
        for value in [13_000, 14_000, 13_000, 70_000] {
            recorder.record(value);
        }
        let samples = recorder.finish();
        assert_eq!(samples.count, 4);
        assert_eq!(samples.min_ns, 13_000);
        assert_eq!(samples.max_ns, 70_000);
        assert_eq!(samples.sum_ns, 110_000);
        let squares = 2.0 * 13_000f64.powi(2) + 14_000f64.powi(2) + 70_000f64.powi(2);
        assert_eq!(samples.sum_squares_ns2, squares);
        assert_eq!(samples.raw_ns, vec![13_000, 14_000, 13_000, 70_000]);
    }

    #[test]
    fn histogram_buckets_are_ascending_and_count_every_sample() {
        let mut recorder = LatencyRecorder::new(0);
        for value in [13_000, 14_000, 13_000, 70_000] {
            recorder.record(value);
        }
        let samples = recorder.finish();
        // 13 000 and 14 000 are exactly representable with 3 digits: bucket
        // width at this magnitude is 8 ns, so each bucket's top is within it.
        let values: Vec<u64> = samples.histogram.iter().map(|b| b.value_ns).collect();
        let counts: Vec<u64> = samples.histogram.iter().map(|b| b.count).collect();
        assert_eq!(counts, vec![2, 1, 1]);
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
        assert!((13_000..13_000 + 16).contains(&values[0]), "{values:?}");
        assert!((14_000..14_000 + 16).contains(&values[1]), "{values:?}");
        assert!((70_000..70_000 + 70).contains(&values[2]), "{values:?}");
        assert!(
            samples.raw_ns.is_empty(),
            "raw_limit 0 keeps no raw samples"
        );
    }

    #[test]
    fn values_stay_within_a_thousandth_at_every_magnitude() {
        let mut recorder = LatencyRecorder::new(0);
        let values = [1, 999, 1_234_567, 987_654_321_000, 5_000_000_000_000];
        for value in values {
            recorder.record(value);
        }
        let samples = recorder.finish();
        assert_eq!(samples.histogram.len(), values.len());
        for (bucket, value) in samples.histogram.iter().zip(values) {
            let error = bucket.value_ns.abs_diff(value) as f64;
            assert!(
                error <= value as f64 / 1000.0,
                "{value} -> {}",
                bucket.value_ns
            );
        }
        assert_eq!(samples.max_ns, 5_000_000_000_000);
    }

    #[test]
    fn raw_series_keeps_only_the_first_samples() {
        let mut recorder = LatencyRecorder::new(3);
        for value in 1..=10 {
            recorder.record(value * 1000);
        }
        let samples = recorder.finish();
        assert_eq!(samples.raw_ns, vec![1000, 2000, 3000]);
        assert_eq!(samples.count, 10);
        assert_eq!(samples.sum_ns, 55_000);
    }

    #[test]
    fn merging_adds_counts_and_keeps_extremes() {
        let mut a = LatencyRecorder::new(3);
        a.record(20);
        a.record(30);
        let mut b = LatencyRecorder::new(10);
        b.record(10);
        b.record(40);
        b.record(50);
        a.merge(&b);
        let samples = a.finish();
        assert_eq!(samples.count, 5);
        assert_eq!(samples.min_ns, 10);
        assert_eq!(samples.max_ns, 50);
        assert_eq!(samples.sum_ns, 150);
        assert_eq!(samples.raw_ns, vec![20, 30, 10], "bounded by a's limit");
        let histogram_total: u64 = samples.histogram.iter().map(|b| b.count).sum();
        assert_eq!(histogram_total, 5);
    }

    #[test]
    fn merging_an_empty_recorder_changes_nothing() {
        let mut a = LatencyRecorder::new(3);
        a.record(7);
        let before = a.finish();
        a.merge(&LatencyRecorder::new(3));
        assert_eq!(a.finish(), before);
    }

    #[test]
    fn zero_is_a_valid_sample() {
        let mut recorder = LatencyRecorder::new(1);
        recorder.record(0);
        let samples = recorder.finish();
        assert_eq!(samples.min_ns, 0);
        assert_eq!(samples.histogram[0].count, 1);
    }
}
