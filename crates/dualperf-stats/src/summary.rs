//! Summaries of a sample of numbers: mean, sample standard deviation,
//! minimum, maximum, percentiles, coefficient of variation and the Student-t
//! 95 % confidence interval of the mean.
//!
//! Percentile method: linear interpolation between the closest ranks
//! (Hyndman & Fan type 7, the default of R, NumPy and spreadsheets). For a
//! sorted sample `x[0..n]` and a quantile `q` in 0..=1, `h = (n − 1)·q` and
//! the value is `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`. The median is the
//! 0.5 quantile, so for an even count it is the mean of the two middle values.
//!
//! Non-finite inputs (NaN, ±∞) are ignored so that no summary is ever
//! non-finite (JSON has no NaN).

use dualperf_model::Summary;

use crate::student_t::t_critical_95;

/// The finite values of `values`, sorted ascending.
fn sorted_finite(values: &[f64]) -> Vec<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// Arithmetic mean of the finite values; `None` when there are none.
///
/// A second pass corrects the rounding of the first, so that equal values
/// have exactly their value as mean (three times 0.05 averages to 0.05, not
/// 0.05000000000000001) and the standard deviation of a constant is 0.
pub fn mean(values: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return None;
    }
    let n = finite.len() as f64;
    let first = finite.iter().sum::<f64>() / n;
    let correction = finite.iter().map(|v| v - first).sum::<f64>() / n;
    Some(first + correction)
}

/// Sample standard deviation (divisor n − 1) of the finite values; `None`
/// for fewer than two values.
///
/// Computed in two passes around the mean, which keeps full precision when
/// the values are large and close together (e.g. 9.41e9 ± 1e6 bit/s).
pub fn sample_standard_deviation(values: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.len() < 2 {
        return None;
    }
    let mean = mean(&finite)?;
    let squares: f64 = finite.iter().map(|v| (v - mean).powi(2)).sum();
    let sd = (squares / (finite.len() - 1) as f64).sqrt();
    sd.is_finite().then_some(sd)
}

/// The `quantile` (0..=1) of an ascending sorted sample by linear
/// interpolation between closest ranks (Hyndman & Fan type 7).
///
/// Returns `None` for an empty sample or a quantile outside 0..=1.
pub fn percentile_of_sorted(sorted: &[f64], quantile: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&quantile) {
        return None;
    }
    let position = (sorted.len() - 1) as f64 * quantile;
    let lower = position.floor() as usize;
    let upper = (lower + 1).min(sorted.len() - 1);
    let fraction = position - lower as f64;
    Some(sorted[lower] + fraction * (sorted[upper] - sorted[lower]))
}

/// The `quantile` (0..=1) of an unsorted sample; see [`percentile_of_sorted`].
pub fn percentile(values: &[f64], quantile: f64) -> Option<f64> {
    percentile_of_sorted(&sorted_finite(values), quantile)
}

/// A two-sided 95 % Student-t confidence interval of the mean,
/// `mean ± t(0.975, n − 1)·sd/√n`; `None` for fewer than two values.
pub fn confidence_interval_95(values: &[f64]) -> Option<(f64, f64)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let n = finite.len() as u64;
    let mean = mean(&finite)?;
    let sd = sample_standard_deviation(&finite)?;
    let t = t_critical_95(n - 1)?;
    let half_width = t * sd / (n as f64).sqrt();
    half_width
        .is_finite()
        .then_some((mean - half_width, mean + half_width))
}

/// Summarises a sample: count, mean, sd, CV, min, max, median and the 95 %
/// CI of the mean. Non-finite values are ignored; `None` when no finite value
/// remains.
///
/// The coefficient of variation is sd / |mean|, `None` when the mean is 0 or
/// there is a single value.
pub fn summarise(values: &[f64]) -> Option<Summary> {
    let sorted = sorted_finite(values);
    let first = *sorted.first()?;
    let last = *sorted.last()?;
    let mean = mean(&sorted)?;
    let standard_deviation = sample_standard_deviation(&sorted);
    let coefficient_of_variation = standard_deviation
        .filter(|_| mean != 0.0)
        .map(|sd| sd / mean.abs())
        .filter(|cv| cv.is_finite());
    let ci = confidence_interval_95(&sorted);
    Some(Summary {
        count: sorted.len() as u64,
        mean,
        standard_deviation,
        coefficient_of_variation,
        min: first,
        max: last,
        median: percentile_of_sorted(&sorted, 0.5)?,
        ci95_low: ci.map(|(low, _)| low),
        ci95_high: ci.map(|(_, high)| high),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn empty_sample_has_no_summary() {
        assert_eq!(summarise(&[]), None);
        assert_eq!(summarise(&[f64::NAN, f64::INFINITY]), None);
    }

    #[test]
    fn single_value_has_no_spread_and_no_interval() {
        let summary = summarise(&[7.0]).unwrap();
        assert_eq!(summary.count, 1);
        assert_eq!(summary.mean, 7.0);
        assert_eq!(summary.median, 7.0);
        assert_eq!(summary.standard_deviation, None);
        assert_eq!(summary.coefficient_of_variation, None);
        assert_eq!(summary.ci95_low, None);
    }

    #[test]
    fn hand_computed_sample_of_five() {
        // 2, 4, 4, 5, 10: mean 5, squared deviations 9+1+1+0+25 = 36,
        // sd = √(36/4) = 3, CV = 0.6, t(0.975, 4) = 2.776445105,
        // half width = 2.776445105·3/√5 = 3.724992.
        let summary = summarise(&[10.0, 4.0, 2.0, 5.0, 4.0]).unwrap();
        assert_eq!(summary.count, 5);
        assert!(close(summary.mean, 5.0));
        assert!(close(summary.standard_deviation.unwrap(), 3.0));
        assert!(close(summary.coefficient_of_variation.unwrap(), 0.6));
        assert_eq!((summary.min, summary.max, summary.median), (2.0, 10.0, 4.0));
        let half = 2.776_445_105 * 3.0 / 5f64.sqrt();
        assert!(close(summary.ci95_low.unwrap(), 5.0 - half));
        assert!(close(summary.ci95_high.unwrap(), 5.0 + half));
        assert!((half - 3.724_992).abs() < 1e-6);
    }

    #[test]
    fn two_values_use_the_wide_t_of_one_degree_of_freedom() {
        // 1 and 3: mean 2, sd √2, half width 12.706·√2/√2 = 12.706.
        let (low, high) = confidence_interval_95(&[1.0, 3.0]).unwrap();
        assert!(close(low, 2.0 - 12.706_204_736));
        assert!(close(high, 2.0 + 12.706_204_736));
    }

    #[test]
    fn even_count_median_is_the_mean_of_the_middle_pair() {
        assert_eq!(percentile(&[4.0, 1.0, 3.0, 2.0], 0.5), Some(2.5));
    }

    #[test]
    fn percentiles_interpolate_between_closest_ranks() {
        // 10, 20, 30, 40, 50: p90 at h = 3.6 → 40 + 0.6·10 = 46.
        let sample = [50.0, 10.0, 40.0, 20.0, 30.0];
        assert!(close(percentile(&sample, 0.9).unwrap(), 46.0));
        assert_eq!(percentile(&sample, 0.0), Some(10.0));
        assert_eq!(percentile(&sample, 1.0), Some(50.0));
        assert_eq!(percentile(&sample, 1.5), None);
    }

    #[test]
    fn zero_mean_has_no_coefficient_of_variation() {
        let summary = summarise(&[-1.0, 1.0]).unwrap();
        assert_eq!(summary.mean, 0.0);
        assert_eq!(summary.coefficient_of_variation, None);
    }

    #[test]
    fn large_close_values_keep_their_small_spread() {
        let summary = summarise(&[9.41e9 + 1.0, 9.41e9 - 1.0, 9.41e9]).unwrap();
        assert!(close(summary.standard_deviation.unwrap(), 1.0));
    }

    #[test]
    fn equal_values_have_their_value_as_mean_and_no_spread() {
        let summary = summarise(&[0.05, 0.05, 0.05]).unwrap();
        assert_eq!(summary.mean, 0.05);
        assert_eq!(summary.standard_deviation, Some(0.0));
        assert_eq!(
            (summary.ci95_low, summary.ci95_high),
            (Some(0.05), Some(0.05))
        );
    }

    #[test]
    fn non_finite_values_are_ignored() {
        let summary = summarise(&[1.0, f64::NAN, 3.0, f64::NEG_INFINITY]).unwrap();
        assert_eq!(summary.count, 2);
        assert_eq!(summary.mean, 2.0);
    }
}
