//! Round-trip and connection-setup time distributions from
//! [`LatencySamples`]: the engine's HDR histogram plus exact sums.
//!
//! * Mean and standard deviation come from the exact sums (`sum_ns`,
//!   `sum_squares_ns2`), not from bucket midpoints.
//! * Percentiles come from the histogram by **nearest rank**: the q-th
//!   percentile of n samples is the value of the bucket holding the sample of
//!   rank ⌈q·n⌉ (at least 1), reported as the bucket's highest equivalent
//!   value (HdrHistogram's convention, 3 significant digits), clamped to the
//!   exact minimum and maximum. Interpolating inside a bucket would invent
//!   precision the histogram does not have.
//! * When there is no histogram but the raw series is complete, percentiles
//!   use the raw samples with the same nearest-rank rule.

use dualperf_model::observation::LatencySamples;

/// A latency distribution in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencyDistribution {
    /// Samples.
    pub count: u64,
    /// Exact mean.
    pub mean_ns: f64,
    /// Sample standard deviation from the exact sums; `None` for one sample.
    pub standard_deviation_ns: Option<f64>,
    /// Exact minimum.
    pub min_ns: f64,
    /// Median (nearest rank).
    pub p50_ns: f64,
    /// 90th percentile (nearest rank).
    pub p90_ns: f64,
    /// 99th percentile (nearest rank).
    pub p99_ns: f64,
    /// 99.9th percentile (nearest rank).
    pub p999_ns: f64,
    /// Exact maximum.
    pub max_ns: f64,
}

/// The nearest-rank `quantile` (0..=1) of a histogram of (value, count)
/// buckets in ascending value order; `None` when the histogram is empty.
pub fn histogram_percentile(buckets: &[(u64, u64)], quantile: f64) -> Option<u64> {
    let total: u64 = buckets.iter().map(|&(_, count)| count).sum();
    if total == 0 || !(0.0..=1.0).contains(&quantile) {
        return None;
    }
    let rank = ((quantile * total as f64).ceil() as u64).clamp(1, total);
    let mut cumulative = 0;
    for &(value, count) in buckets {
        cumulative += count;
        if cumulative >= rank {
            return Some(value);
        }
    }
    buckets.last().map(|&(value, _)| value)
}

/// The standard percentile table of a histogram: (quantile, value in ns)
/// for 0, 0.5, 0.9, 0.99, 0.999 and 1 (nearest rank, clamped to the exact
/// extremes). Empty when the histogram is.
pub fn percentile_table(samples: &LatencySamples) -> Vec<(f64, u64)> {
    let buckets: Vec<(u64, u64)> = samples
        .histogram
        .iter()
        .map(|b| (b.value_ns, b.count))
        .collect();
    [0.0, 0.5, 0.9, 0.99, 0.999, 1.0]
        .into_iter()
        .filter_map(|q| {
            histogram_percentile(&buckets, q).map(|v| {
                (
                    q,
                    v.clamp(samples.min_ns, samples.max_ns.max(samples.min_ns)),
                )
            })
        })
        .collect()
}

/// The empirical CDF of a histogram: for each bucket, (value in ns, share
/// of samples at or below it, 0..=1). Ready to plot.
pub fn cdf_points(samples: &LatencySamples) -> Vec<(u64, f64)> {
    let total: u64 = samples.histogram.iter().map(|b| b.count).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut cumulative = 0;
    samples
        .histogram
        .iter()
        .map(|bucket| {
            cumulative += bucket.count;
            (bucket.value_ns, cumulative as f64 / total as f64)
        })
        .collect()
}

/// The distribution of `samples`; `None` when nothing was timed.
pub fn latency_distribution(samples: &LatencySamples) -> Option<LatencyDistribution> {
    if samples.count == 0 {
        return None;
    }
    let n = samples.count as f64;
    let mean = samples.sum_ns as f64 / n;
    let standard_deviation = (samples.count >= 2)
        .then(|| {
            // Σx² − n·mean², clamped: rounding can make it slightly negative.
            let squares = (samples.sum_squares_ns2 - n * mean * mean).max(0.0);
            (squares / (n - 1.0)).sqrt()
        })
        .filter(|sd| sd.is_finite());

    let buckets: Vec<(u64, u64)> = if !samples.histogram.is_empty() {
        samples
            .histogram
            .iter()
            .map(|b| (b.value_ns, b.count))
            .collect()
    } else if samples.raw_ns.len() as u64 == samples.count {
        let mut raw = samples.raw_ns.clone();
        raw.sort_unstable();
        raw.into_iter().map(|v| (v, 1)).collect()
    } else {
        return None;
    };
    let (min, max) = (samples.min_ns, samples.max_ns);
    let at = |q: f64| histogram_percentile(&buckets, q).map(|v| v.clamp(min, max) as f64);
    Some(LatencyDistribution {
        count: samples.count,
        mean_ns: mean,
        standard_deviation_ns: standard_deviation,
        min_ns: min as f64,
        p50_ns: at(0.5)?,
        p90_ns: at(0.9)?,
        p99_ns: at(0.99)?,
        p999_ns: at(0.999)?,
        max_ns: max as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::HistogramBucket;

    fn samples_of(values: &[u64]) -> LatencySamples {
        let mut histogram: Vec<HistogramBucket> = Vec::new();
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        for value in &sorted {
            match histogram.last_mut() {
                Some(bucket) if bucket.value_ns == *value => bucket.count += 1,
                _ => histogram.push(HistogramBucket {
                    value_ns: *value,
                    count: 1,
                }),
            }
        }
        LatencySamples {
            count: values.len() as u64,
            histogram,
            min_ns: *sorted.first().unwrap(),
            max_ns: *sorted.last().unwrap(),
            sum_ns: values.iter().map(|&v| v as u128).sum(),
            sum_squares_ns2: values.iter().map(|&v| (v as f64).powi(2)).sum(),
            ..LatencySamples::default()
        }
    }

    #[test]
    fn mean_and_standard_deviation_come_from_the_exact_sums() {
        // 2, 4, 4, 5, 10 µs: mean 5 µs, sd 3 µs.
        let d = latency_distribution(&samples_of(&[2_000, 4_000, 4_000, 5_000, 10_000])).unwrap();
        assert_eq!(d.mean_ns, 5_000.0);
        assert!((d.standard_deviation_ns.unwrap() - 3_000.0).abs() < 1e-6);
        assert_eq!((d.min_ns, d.max_ns), (2_000.0, 10_000.0));
    }

    #[test]
    fn percentiles_use_nearest_rank_over_buckets() {
        // 100 samples 1..=100 µs: p50 = rank 50 → 50 µs, p90 = 90 µs,
        // p99 = 99 µs, p99.9 = rank ⌈99.9⌉ = 100 → 100 µs.
        let values: Vec<u64> = (1..=100).map(|v| v * 1_000).collect();
        let d = latency_distribution(&samples_of(&values)).unwrap();
        assert_eq!(d.p50_ns, 50_000.0);
        assert_eq!(d.p90_ns, 90_000.0);
        assert_eq!(d.p99_ns, 99_000.0);
        assert_eq!(d.p999_ns, 100_000.0);
    }

    #[test]
    fn bucket_values_are_clamped_to_the_exact_extremes() {
        // One bucket reported as 10 239 ns holding samples of 10 200 ns.
        let samples = LatencySamples {
            count: 2,
            histogram: vec![HistogramBucket {
                value_ns: 10_239,
                count: 2,
            }],
            min_ns: 10_200,
            max_ns: 10_200,
            sum_ns: 20_400,
            sum_squares_ns2: 2.0 * 10_200f64.powi(2),
            ..LatencySamples::default()
        };
        let d = latency_distribution(&samples).unwrap();
        assert_eq!(d.p50_ns, 10_200.0);
        assert_eq!(d.standard_deviation_ns, Some(0.0));
    }

    #[test]
    fn raw_samples_stand_in_for_a_missing_histogram() {
        let samples = LatencySamples {
            count: 3,
            raw_ns: vec![30, 10, 20],
            min_ns: 10,
            max_ns: 30,
            sum_ns: 60,
            sum_squares_ns2: 1_400.0,
            ..LatencySamples::default()
        };
        assert_eq!(latency_distribution(&samples).unwrap().p50_ns, 20.0);
    }

    #[test]
    fn cdf_points_accumulate_to_one() {
        let samples = samples_of(&[10, 20, 20, 40]);
        assert_eq!(
            cdf_points(&samples),
            vec![(10, 0.25), (20, 0.75), (40, 1.0)]
        );
        assert!(cdf_points(&LatencySamples::default()).is_empty());
    }

    #[test]
    fn percentile_table_lists_the_standard_quantiles() {
        let values: Vec<u64> = (1..=1000).collect();
        let table = percentile_table(&samples_of(&values));
        assert_eq!(
            table,
            vec![
                (0.0, 1),
                (0.5, 500),
                (0.9, 900),
                (0.99, 990),
                (0.999, 999),
                (1.0, 1000)
            ]
        );
    }

    #[test]
    fn no_transactions_means_no_distribution() {
        assert_eq!(latency_distribution(&LatencySamples::default()), None);
    }

    #[test]
    fn a_single_sample_has_no_standard_deviation() {
        let d = latency_distribution(&samples_of(&[42])).unwrap();
        assert_eq!(d.standard_deviation_ns, None);
        assert_eq!(d.p999_ns, 42.0);
    }
}
