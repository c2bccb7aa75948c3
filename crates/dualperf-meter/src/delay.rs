//! One-way delay (RFC 7679), packet delay variation (RFC 5481 PDV, RFC 8219's
//! summary) and IP packet delay variation (RFC 3393 IPDV), accumulated one
//! packet at a time.
//!
//! * **One-way delay** `D(i) = R(i) − S(i)` (RFC 7679 §3), nanoseconds.
//!   Meaningful as an absolute value only when both ends read one clock or
//!   synchronised clocks; the caller decides whether to report it.
//! * **PDV** `D(i) − D(min)` (RFC 5481 §4.2): every delay against the
//!   smallest of the stream. A constant clock offset cancels. RFC 8219 §5
//!   summarises it as `D(99.9th percentile) − D(min)`.
//! * **IPDV** `D(i) − D(i−1)` for consecutive sequence numbers both received
//!   in time (RFC 3393 §2.4 with the "consecutive packets" selection function
//!   of RFC 5481 §4.1), paired in **sequence** order whatever order they
//!   arrived in. The offset cancels here too; reported as the distribution of
//!   `|IPDV|` (its signed mean is ≈ 0 by construction).
//!
//! Feed only first copies that arrived within the waiting time: a lost
//! packet's delay is undefined (RFC 7679 §3.4).
//!
//! # Exact and bounded
//!
//! Count, minimum, maximum and mean are exact for any number of packets.
//! Percentiles are exact (type 7 interpolation on the raw values, the same
//! arithmetic as dualperf-stats) while the raw values fit the capacity given
//! at construction; beyond it they come from a log-linear histogram of the
//! values relative to the first one (within 0.4 % of that difference:
//! see `histogram`), and [`DelaySummary::exact`] is false. Nothing is
//! allocated after construction.

use crate::histogram::LogHistogram;
use crate::quantile::{mean, percentile_of_sorted};

/// Default number of consecutive sequence numbers the IPDV pairing
/// remembers: a pair whose two packets arrive further apart than this
/// (in sequence numbers that arrived between them) is missed.
pub const DEFAULT_IPDV_WINDOW: usize = 1024;

/// Distribution of a delay-like quantity, nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DelaySummary {
    /// Number of values.
    pub count: u64,
    /// Smallest value, ns (exact).
    pub min_ns: f64,
    /// Mean value, ns (exact).
    pub mean_ns: f64,
    /// Median, ns.
    pub p50_ns: f64,
    /// 90th percentile, ns.
    pub p90_ns: f64,
    /// 99th percentile, ns.
    pub p99_ns: f64,
    /// 99.9th percentile, ns.
    pub p999_ns: f64,
    /// Largest value, ns (exact).
    pub max_ns: f64,
    /// True when the percentiles are exact (every value was kept raw);
    /// false when they come from the histogram (within 0.4 % of the
    /// distance from the first value).
    pub exact: bool,
}

/// Summary of raw `values` (type 7 percentiles, corrected mean).
fn summary_of(mut values: Vec<f64>) -> Option<DelaySummary> {
    values.sort_by(f64::total_cmp);
    Some(DelaySummary {
        count: values.len() as u64,
        min_ns: *values.first()?,
        mean_ns: mean(&values)?,
        p50_ns: percentile_of_sorted(&values, 0.5)?,
        p90_ns: percentile_of_sorted(&values, 0.9)?,
        p99_ns: percentile_of_sorted(&values, 0.99)?,
        p999_ns: percentile_of_sorted(&values, 0.999)?,
        max_ns: *values.last()?,
        exact: true,
    })
}

/// Accumulates a stream of nanosecond values: exact count, min, max and
/// mean; percentiles exact up to a raw capacity, from a histogram beyond.
#[derive(Clone, Debug)]
pub struct DelayObserver {
    count: u64,
    min_ns: i64,
    max_ns: i64,
    sum_ns: i128,
    /// The first value: the histogram holds `value − anchor`.
    anchor_ns: Option<i64>,
    histogram: LogHistogram,
    raw_ns: Vec<i64>,
    raw_capacity: usize,
}

impl DelayObserver {
    /// An observer of any `i64` values (one-way delays between unsynchronised
    /// clocks may be negative) that keeps up to `raw_capacity` raw values
    /// (8 bytes each) for exact percentiles. Allocates 70 KiB plus the raw
    /// capacity now, nothing afterwards.
    pub fn new(raw_capacity: usize) -> DelayObserver {
        DelayObserver::with_histogram(raw_capacity, LogHistogram::new(true))
    }

    /// An observer of non-negative values (negative ones count as 0 in the
    /// histogram): 35 KiB plus the raw capacity.
    pub fn non_negative(raw_capacity: usize) -> DelayObserver {
        DelayObserver::with_histogram(raw_capacity, LogHistogram::new(false))
    }

    fn with_histogram(raw_capacity: usize, histogram: LogHistogram) -> DelayObserver {
        DelayObserver {
            count: 0,
            min_ns: i64::MAX,
            max_ns: i64::MIN,
            sum_ns: 0,
            anchor_ns: None,
            histogram,
            raw_ns: Vec::with_capacity(raw_capacity),
            raw_capacity,
        }
    }

    /// Records one value, nanoseconds.
    #[inline]
    pub fn observe(&mut self, value_ns: i64) {
        self.count += 1;
        self.min_ns = self.min_ns.min(value_ns);
        self.max_ns = self.max_ns.max(value_ns);
        self.sum_ns += i128::from(value_ns);
        let anchor = *self.anchor_ns.get_or_insert(value_ns);
        self.histogram.record(value_ns.saturating_sub(anchor));
        if self.raw_ns.len() < self.raw_capacity {
            self.raw_ns.push(value_ns);
        }
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Smallest value, ns; `None` when empty.
    pub fn min_ns(&self) -> Option<i64> {
        (self.count > 0).then_some(self.min_ns)
    }

    /// Largest value, ns; `None` when empty.
    pub fn max_ns(&self) -> Option<i64> {
        (self.count > 0).then_some(self.max_ns)
    }

    /// Mean value, ns (from an exact 128-bit sum); `None` when empty.
    pub fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64)
    }

    /// True while every value is kept raw (percentiles exact).
    pub fn is_exact(&self) -> bool {
        self.count as usize <= self.raw_capacity
    }

    /// Heap bytes held (fixed at construction).
    pub fn memory_bytes(&self) -> usize {
        self.histogram.memory_bytes() + self.raw_ns.capacity() * 8
    }

    /// The distribution of the values (one-way delay); `None` when empty.
    pub fn summary(&self) -> Option<DelaySummary> {
        self.summary_relative(false)
    }

    /// The distribution of `value − min` (RFC 5481 PDV of delays); `None`
    /// when empty. [`DelaySummary::p999_ns`] is RFC 8219's PDV summary.
    pub fn variation_summary(&self) -> Option<DelaySummary> {
        self.summary_relative(true)
    }

    fn summary_relative(&self, from_minimum: bool) -> Option<DelaySummary> {
        if self.count == 0 {
            return None;
        }
        if self.is_exact() {
            // In f64 first, then the minimum subtracted, as dualperf-stats does.
            let values = self.raw_ns.iter().map(|&v| v as f64);
            return if from_minimum {
                let minimum = self.min_ns as f64;
                summary_of(values.map(|v| v - minimum).collect())
            } else {
                summary_of(values.collect())
            };
        }
        let anchor = self.anchor_ns?;
        let offset = if from_minimum {
            self.min_ns as f64
        } else {
            0.0
        };
        let (min, max) = (self.min_ns as f64, self.max_ns as f64);
        let quantile = |q: f64| -> Option<f64> {
            let value = anchor as f64 + self.histogram.quantile(q)? as f64;
            Some(value.clamp(min, max) - offset)
        };
        Some(DelaySummary {
            count: self.count,
            min_ns: min - offset,
            mean_ns: self.mean_ns()? - offset,
            p50_ns: quantile(0.5)?,
            p90_ns: quantile(0.9)?,
            p99_ns: quantile(0.99)?,
            p999_ns: quantile(0.999)?,
            max_ns: max - offset,
            exact: false,
        })
    }
}

/// RFC 3393 IPDV of consecutive sequence numbers, paired as they complete:
/// a ring of the last `window` transit times indexed by sequence number
/// (16 bytes each) finds each packet's neighbours in O(1).
#[derive(Clone, Debug)]
pub struct IpdvObserver {
    /// Slot `s % window`: (`s + 1`, transit of `s`); 0 marks an empty slot.
    ring: Box<[(u64, i64)]>,
    slot_mask: u64,
    absolute: DelayObserver,
    signed_sum_ns: i128,
}

impl IpdvObserver {
    /// A pairing over `window` sequence numbers (rounded up to a power of
    /// two, at least 4), keeping up to `raw_capacity` |IPDV| values raw.
    pub fn new(window: usize, raw_capacity: usize) -> IpdvObserver {
        let window = window.max(4).next_power_of_two();
        IpdvObserver {
            ring: vec![(0, 0); window].into_boxed_slice(),
            slot_mask: window as u64 - 1,
            absolute: DelayObserver::non_negative(raw_capacity),
            signed_sum_ns: 0,
        }
    }

    /// Records the transit time (`received − sent`, ns) of a first copy of
    /// `sequence` received in time (never `u64::MAX`).
    #[inline]
    pub fn observe(&mut self, sequence: u64, transit_ns: i64) {
        let mask = self.slot_mask;
        let slot = move |s: u64| (s & mask) as usize;
        if let Some(previous) = sequence.checked_sub(1) {
            let (tag, transit) = self.ring[slot(previous)];
            if tag == sequence {
                self.record(transit_ns.wrapping_sub(transit));
            }
        }
        let next = sequence.wrapping_add(1);
        let (tag, transit) = self.ring[slot(next)];
        if tag == sequence.wrapping_add(2) && tag != 0 {
            self.record(transit.wrapping_sub(transit_ns));
        }
        self.ring[slot(sequence)] = (sequence.wrapping_add(1), transit_ns);
    }

    #[inline]
    fn record(&mut self, ipdv_ns: i64) {
        self.signed_sum_ns += i128::from(ipdv_ns);
        // |IPDV| as the f64 of the signed value, as dualperf-stats takes it.
        self.absolute
            .observe(ipdv_ns.checked_abs().unwrap_or(i64::MAX));
    }

    /// Pairs of consecutive sequence numbers seen.
    pub fn pairs(&self) -> u64 {
        self.absolute.count()
    }

    /// Mean signed IPDV, ns; `None` without a pair.
    pub fn mean_signed_ns(&self) -> Option<f64> {
        (self.pairs() > 0).then(|| self.signed_sum_ns as f64 / self.pairs() as f64)
    }

    /// The distribution of |IPDV|, ns; `None` without a pair.
    pub fn absolute_summary(&self) -> Option<DelaySummary> {
        self.absolute.summary()
    }

    /// Heap bytes held (fixed at construction).
    pub fn memory_bytes(&self) -> usize {
        self.ring.len() * 16 + self.absolute.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delays(values: &[i64], capacity: usize) -> DelayObserver {
        let mut o = DelayObserver::new(capacity);
        for &v in values {
            o.observe(v);
        }
        o
    }

    #[test]
    fn pdv_is_delay_above_the_minimum() {
        let o = delays(&[500, 700, 400], 10);
        let pdv = o.variation_summary().unwrap_or_default();
        assert_eq!((pdv.min_ns, pdv.max_ns), (0.0, 300.0));
        assert_eq!(pdv.p50_ns, 100.0);
        assert!(pdv.exact);
        let owd = o.summary().unwrap_or_default();
        assert_eq!(
            (owd.min_ns, owd.max_ns, owd.mean_ns),
            (400.0, 700.0, 1600.0 / 3.0)
        );
    }

    /// dualperf-stats' ippm::delay vector: delays 1..=1000 µs, PDV p99.9 by
    /// linear interpolation at h = 999·0.999 = 998.001 → 999.001 µs, minus 1 µs.
    #[test]
    fn rfc8219_pdv_of_a_thousand_probes_uses_the_999th_percentile() {
        let values: Vec<i64> = (0..1000).map(|i| (i + 1) * 1_000).collect();
        let pdv = delays(&values, 1000)
            .variation_summary()
            .unwrap_or_default();
        assert!((pdv.p999_ns - 998_001.0).abs() < 1e-6, "{}", pdv.p999_ns);
    }

    #[test]
    fn beyond_the_raw_capacity_percentiles_come_from_the_histogram() {
        // 10 ms of fixed delay plus 0..100 µs of variation, 100 000 packets.
        let values: Vec<i64> = (0..100_000)
            .map(|i| 10_000_000 + (i * 7919) % 100_000)
            .collect();
        let o = delays(&values, 1_000);
        assert!(!o.is_exact());
        let pdv = o.variation_summary().unwrap_or_default();
        assert!(!pdv.exact);
        assert_eq!(pdv.min_ns, 0.0);
        // Exact p99 of PDV: 99 000 ns; the histogram of offsets from the first
        // value (10 ms) resolves it to 0.4 % of ~100 µs, not of 10 ms.
        assert!((pdv.p99_ns - 99_000.0).abs() < 400.0, "{}", pdv.p99_ns);
        assert!((o.mean_ns().unwrap_or_default() - 10_049_999.5).abs() < 1.0);
        assert_eq!(o.memory_bytes(), 2 * 4480 * 8 + 1_000 * 8);
    }

    #[test]
    fn nothing_observed_has_no_summary() {
        let o = DelayObserver::new(0);
        assert_eq!(o.summary(), None);
        assert_eq!(o.variation_summary(), None);
        assert_eq!(o.mean_ns(), None);
    }

    fn ipdv(pairs: &[(u64, i64)]) -> IpdvObserver {
        let mut o = IpdvObserver::new(16, 100);
        for &(s, d) in pairs {
            o.observe(s, d);
        }
        o
    }

    // dualperf-stats' ippm::delay IPDV vectors.
    #[test]
    fn ipdv_pairs_consecutive_sequence_numbers_only() {
        let o = ipdv(&[(0, 500), (1, 800), (3, 600), (4, 550)]);
        assert_eq!(o.pairs(), 2);
        assert_eq!(o.mean_signed_ns(), Some(125.0));
        let a = o.absolute_summary().unwrap_or_default();
        assert_eq!((a.min_ns, a.max_ns), (50.0, 300.0));
    }

    #[test]
    fn ipdv_uses_sequence_order_not_arrival_order() {
        let o = ipdv(&[(1, 800), (0, 500)]);
        assert_eq!(o.mean_signed_ns(), Some(300.0));
    }

    #[test]
    fn ipdv_forgets_pairs_beyond_its_window() {
        // 0 arrives, then 16 overwrites its slot, then 1: the pair (0, 1) is lost.
        let o = ipdv(&[(0, 500), (16, 0), (1, 800)]);
        assert_eq!(o.pairs(), 0);
    }
}
