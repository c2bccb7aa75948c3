//! The 95 % confidence interval of a relative difference (arm / baseline − 1),
//! computed on the log scale so it can never fall below −100 %.
//!
//! A linear interval (the paired difference's CI divided by the baseline mean)
//! runs below −100 % when the spread is large ("IPv6 via NAT64 is 95 % slower,
//! CI −163 to −26 %"), which is impossible for a rate or a delay. For positive
//! quantities this module maps the paired difference's interval to the log
//! of the ratio R = 1 + relative (= arm mean / baseline mean), keeping its
//! t statistic:
//!
//! ```text
//! h   = (half-width of the paired difference CI / baseline mean) · ln R / (R − 1)
//! CI  = R · exp(±h) − 1                       (ln R / (R − 1) → 1 at R = 1)
//! ```
//!
//! The bounds are exp(·) − 1 > −1 by construction, the point estimate R − 1
//! lies inside (the interval is symmetric in ln R), and the interval
//! excludes 0 exactly when the paired difference's does (h < |ln R| ⇔
//! half-width < |mean difference|), so the verdict's "significant" and its
//! interval never disagree. For small differences it equals the linear
//! interval. Quantities that can be negative keep the linear interval (the
//! difference CI divided by the baseline mean); a non-negative one whose arm
//! measured 0 throughout (R = 0) gets the linear interval cut at −100 %.

/// The 95 % CI of the relative difference `relative` (arm / baseline − 1,
/// a fraction), from the paired difference's CI `difference_ci95` (metric's
/// unit) and the baseline mean; `pairs` are the paired `(baseline, arm)`
/// values. On the log scale when every paired value is non-negative and
/// `1 + relative` and the baseline mean are positive; otherwise the linear
/// interval. `None` without a difference CI or with a zero baseline mean.
pub fn relative_difference_ci95(
    pairs: &[(f64, f64)],
    relative: f64,
    baseline_mean: f64,
    difference_ci95: Option<(f64, f64)>,
) -> Option<(f64, f64)> {
    let (low, high) = difference_ci95.filter(|_| baseline_mean != 0.0)?;
    let positive = pairs.iter().all(|(b, a)| *b >= 0.0 && *a >= 0.0);
    let ratio = 1.0 + relative;
    if positive && baseline_mean > 0.0 && ratio > 0.0 && ratio.is_finite() {
        let linear_half = (high - low).abs() / 2.0 / baseline_mean;
        // ln R / (R − 1), 1 in the limit R → 1.
        let slope = if relative.abs() < 1e-12 {
            1.0
        } else {
            ratio.ln() / relative
        };
        let half = linear_half * slope;
        let bounds = (ratio * (-half).exp() - 1.0, ratio * half.exp() - 1.0);
        if bounds.0.is_finite() && bounds.1.is_finite() {
            return Some(bounds);
        }
    }
    let (a, b) = (low / baseline_mean, high / baseline_mean);
    let (a, b) = (a.min(b), a.max(b));
    // An arm that measured 0 throughout (R = 0, no logarithm): a
    // non-negative quantity still falls by at most 100 %.
    if positive && baseline_mean > 0.0 {
        return Some((a.max(-1.0), b.max(-1.0)));
    }
    Some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::confidence_interval_95;
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
        let (low, high) =
            relative_difference_ci95(&pairs, 0.15, 150.0, Some((22.5, 22.5))).expect("interval");
        assert!((low - 0.15).abs() < 1e-9 && (high - 0.15).abs() < 1e-9);
    }

    #[test]
    fn negative_quantities_keep_the_linear_interval() {
        let pairs = [(-1.0, 2.0), (1.0, 3.0)];
        let ci = relative_difference_ci95(&pairs, 1.0, 2.0, Some((-2.0, 6.0)));
        assert_eq!(ci, Some((-1.0, 3.0)));
    }

    #[test]
    fn an_arm_at_zero_bottoms_out_at_minus_100_percent() {
        // lab bottleneck, softirq ratio: IPv4 0.0068, IPv6 0 throughout.
        let pairs = [(0.0204, 0.0), (0.0, 0.0), (0.0, 0.0)];
        let ci = relative_difference_ci95(&pairs, -1.0, 0.0068, Some((-0.0215, 0.0078)));
        let (low, high) = ci.expect("interval");
        assert_eq!(low, -1.0);
        assert!((high - 0.0078 / 0.0068).abs() < 1e-12);
    }

    #[test]
    fn small_differences_keep_the_linear_interval_and_its_verdict() {
        // −0.87 ± 0.57 on a mean of 21: linear −6.9 % … −1.4 %.
        let ci = Some((-0.866_667 - 0.573_687, -0.866_667 + 0.573_687));
        let (low, high) = relative_difference_ci95(&[], -0.866_667 / 21.0, 21.0, ci).unwrap();
        assert!(
            (low + 0.0686).abs() < 2e-3 && (high + 0.0140).abs() < 2e-3,
            "{low} {high}"
        );
        // A difference CI that straddles 0 gives a relative one that does.
        let straddling = Some((-0.1, 2.7));
        let (low, high) = relative_difference_ci95(&[], 1.3 / 21.0, 21.0, straddling).unwrap();
        assert!(low < 0.0 && high > 0.0, "{low} {high}");
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
        fn relative_ci_is_bounded_holds_its_estimate_and_agrees_on_significance(
            pairs in prop::collection::vec((1e-3f64..1e9, 1e-3f64..1e9), 2..12),
        ) {
            let n = pairs.len() as f64;
            let base_mean = pairs.iter().map(|(b, _)| b).sum::<f64>() / n;
            let diffs: Vec<f64> = pairs.iter().map(|(b, a)| a - b).collect();
            let difference_mean = diffs.iter().sum::<f64>() / n;
            let relative = difference_mean / base_mean;
            let linear = confidence_interval_95(&diffs);
            prop_assume!(linear.is_some());
            let (low, high) = relative_difference_ci95(&pairs, relative, base_mean, linear)
                .expect("a difference CI gives a relative one");
            prop_assert!(low > -1.0, "low {}", low);
            let slack = 1e-9 * relative.abs().max(1.0);
            prop_assert!(low <= relative + slack && relative - slack <= high,
                "{} not in [{}, {}]", relative, low, high);
            // Significant (excludes 0) exactly when the paired difference is,
            // away from the boundary where rounding decides.
            let (d_low, d_high) = linear.unwrap_or_default();
            let margin = 1e-9 * (d_high - d_low).abs().max(difference_mean.abs());
            if d_low > margin || d_high < -margin {
                prop_assert!(low > 0.0 || high < 0.0, "[{}, {}] vs [{}, {}]", low, high, d_low, d_high);
            } else if d_low < -margin && d_high > margin {
                prop_assert!(low <= 0.0 && high >= 0.0, "[{}, {}] vs [{}, {}]", low, high, d_low, d_high);
            }
        }
    }
}
