//! The 95 % confidence interval of a relative difference (arm / baseline − 1),
//! computed on the log scale so it can never fall below −100 %.
//!
//! A linear interval (the paired difference's CI divided by the baseline mean)
//! runs below −100 % when the spread is large ("IPv6 via NAT64 is 95 % slower,
//! CI −163 to −26 %"), which is impossible for a rate or a delay. For positive
//! quantities this module uses the delta method on the log of the ratio of
//! means, R = mean(arm) / mean(baseline), with the pairing kept:
//!
//! ```text
//! z_i   = arm_i / mean(arm) − baseline_i / mean(baseline)
//! se    = sd(z) / √n                  (≈ standard error of ln R)
//! CI    = R · exp(±t(n−1, 0.975) · se) − 1
//! ```
//!
//! The bounds are exp(·) − 1 > −1 by construction, and the point estimate
//! R − 1 lies inside (the interval is symmetric in ln R). Significance still
//! comes from the paired difference's t interval (see `comparison`). Quantities
//! that can be negative (or a non-positive mean) keep the linear interval.

use crate::summary::confidence_interval_95;

/// The 95 % CI of the relative difference `relative` (arm / baseline − 1,
/// a fraction), given the paired `(baseline, arm)` values in the metric's unit.
///
/// Uses the log-scale (delta-method) interval when every paired value is
/// non-negative and both paired means and 1 + `relative` are positive;
/// otherwise the linear interval `linear_difference_ci95 / baseline_mean`.
/// `None` when fewer than two finite pairs (no interval).
pub fn relative_difference_ci95(
    pairs: &[(f64, f64)],
    relative: f64,
    baseline_mean: f64,
    linear_difference_ci95: Option<(f64, f64)>,
) -> Option<(f64, f64)> {
    let finite: Vec<(f64, f64)> = pairs
        .iter()
        .copied()
        .filter(|(b, a)| b.is_finite() && a.is_finite())
        .collect();
    let n = finite.len() as f64;
    let positive = finite.iter().all(|(b, a)| *b >= 0.0 && *a >= 0.0);
    let ratio = 1.0 + relative;
    if positive && n >= 2.0 && ratio > 0.0 && ratio.is_finite() {
        let base_mean = finite.iter().map(|(b, _)| b).sum::<f64>() / n;
        let arm_mean = finite.iter().map(|(_, a)| a).sum::<f64>() / n;
        if base_mean > 0.0 && arm_mean > 0.0 {
            let z: Vec<f64> = finite
                .iter()
                .map(|(b, a)| a / arm_mean - b / base_mean)
                .collect();
            // The CI of mean(z) is ±t·se around ~0; its half-width is t·se.
            if let Some((low, high)) = confidence_interval_95(&z) {
                let half = (high - low) / 2.0;
                let (low, high) = (ratio * (-half).exp() - 1.0, ratio * half.exp() - 1.0);
                if low.is_finite() && high.is_finite() {
                    return Some((low, high));
                }
            }
        }
    }
    linear_difference_ci95
        .filter(|_| baseline_mean != 0.0)
        .map(|(low, high)| {
            let (a, b) = (low / baseline_mean, high / baseline_mean);
            (a.min(b), a.max(b))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn nat64_like_spread_stays_above_minus_100_percent() {
        // Arm collapses to ~5 % of the baseline with a wide spread: the linear
        // interval would run far below −100 %.
        let pairs = [(100.0, 1.0), (100.0, 2.0), (100.0, 20.0), (100.0, 0.5)];
        let relative = (5.875 - 100.0) / 100.0;
        let diffs: Vec<f64> = pairs.iter().map(|(b, a)| a - b).collect();
        let linear = confidence_interval_95(&diffs);
        let (low, high) =
            relative_difference_ci95(&pairs, relative, 100.0, linear).expect("interval");
        assert!(low > -1.0, "low {low}");
        assert!(
            low <= relative && relative <= high,
            "{low} {relative} {high}"
        );
    }

    #[test]
    fn constant_ratio_gives_a_point_interval() {
        let pairs = [(100.0, 115.0), (200.0, 230.0), (150.0, 172.5)];
        let (low, high) = relative_difference_ci95(&pairs, 0.15, 150.0, None).expect("interval");
        assert!((low - 0.15).abs() < 1e-9 && (high - 0.15).abs() < 1e-9);
    }

    #[test]
    fn negative_quantities_keep_the_linear_interval() {
        let pairs = [(-1.0, 2.0), (1.0, 3.0)];
        let ci = relative_difference_ci95(&pairs, 1.0, 2.0, Some((-2.0, 6.0)));
        assert_eq!(ci, Some((-1.0, 3.0)));
    }

    #[test]
    fn a_single_pair_has_no_log_interval() {
        assert_eq!(
            relative_difference_ci95(&[(1.0, 2.0)], 1.0, 1.0, None),
            None
        );
    }

    proptest! {
        #[test]
        fn relative_ci_is_bounded_and_holds_its_estimate(
            pairs in prop::collection::vec((1e-3f64..1e9, 1e-3f64..1e9), 2..12),
        ) {
            let n = pairs.len() as f64;
            let base_mean = pairs.iter().map(|(b, _)| b).sum::<f64>() / n;
            let arm_mean = pairs.iter().map(|(_, a)| a).sum::<f64>() / n;
            let relative = (arm_mean - base_mean) / base_mean;
            let diffs: Vec<f64> = pairs.iter().map(|(b, a)| a - b).collect();
            let linear = confidence_interval_95(&diffs);
            let (low, high) = relative_difference_ci95(&pairs, relative, base_mean, linear)
                .expect("two or more positive pairs give an interval");
            prop_assert!(low > -1.0, "low {}", low);
            let slack = 1e-9 * relative.abs().max(1.0);
            prop_assert!(low <= relative + slack && relative - slack <= high,
                "{} not in [{}, {}]", relative, low, high);
        }
    }
}
