//! Critical values of Student's t distribution for two-sided 95 % confidence
//! intervals.
//!
//! A confidence interval of a mean over `n` repetitions is
//! `mean ± t(0.975, n − 1) · sd / √n`. With the 3 to 10 repetitions a
//! measurement campaign affords, `t` is far from the normal 1.96 (12.706 for
//! two values), so it must be right.
//!
//! Method: up to [`LARGE_DEGREES_OF_FREEDOM`], the 0.975 quantile of
//! statrs' [`StudentsT`] (the inverse of the regularised incomplete beta
//! function), exact to about 1e-9. Beyond, that inverse loses accuracy
//! (1.2e-4 too low at df = 10⁶, 0.13 at 10⁷) and slows to a crawl, while
//! the t quantile is within 2.4e-4 of the normal one: statrs' normal
//! quantile plus the first Cornish–Fisher term (Abramowitz & Stegun
//! 26.7.5), `z + (z³ + z) / (4·df)`, exact to 3e-8 there. At df = ∞ the
//! value is the normal quantile 1.959964.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The 0.975 quantile of the standard normal distribution.
pub const NORMAL_QUANTILE_975: f64 = 1.959_963_984_540_054;

/// Degrees of freedom beyond which the normal quantile with one
/// correction term replaces statrs' Student-t inverse (see the module
/// documentation).
pub const LARGE_DEGREES_OF_FREEDOM: u64 = 10_000;

/// The critical value `t(0.975, degrees_of_freedom)`: the half-width of a
/// two-sided 95 % confidence interval in units of the standard error.
///
/// Returns `None` for 0 degrees of freedom (a single value has no interval).
pub fn t_critical_95(degrees_of_freedom: u64) -> Option<f64> {
    let df = degrees_of_freedom as f64;
    let t = match degrees_of_freedom {
        0 => return None,
        1..=LARGE_DEGREES_OF_FREEDOM => StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(0.975),
        _ => {
            let z = Normal::standard().inverse_cdf(0.975);
            z + (z.powi(3) + z) / (4.0 * df)
        }
    };
    t.is_finite().then_some(t)
}

/// The two-sided quantile `t(1 − (1 − confidence)/2, degrees_of_freedom)`
/// for any confidence level in (0, 1) (0.95 gives [`t_critical_95`]'s
/// value, 0.99 the half-width factor of a 99 % interval); `None` for 0
/// degrees of freedom or a level outside (0, 1).
pub fn t_critical(confidence: f64, degrees_of_freedom: u64) -> Option<f64> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    let quantile = 1.0 - (1.0 - confidence) / 2.0;
    let df = degrees_of_freedom as f64;
    let t = match degrees_of_freedom {
        0 => return None,
        1..=LARGE_DEGREES_OF_FREEDOM => StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(quantile),
        _ => {
            let z = Normal::standard().inverse_cdf(quantile);
            z + (z.powi(3) + z) / (4.0 * df)
        }
    };
    t.is_finite().then_some(t)
}

/// The two-sided p-value of a t statistic with `degrees_of_freedom`:
/// `2 · (1 − F(|t|))`, the probability of a |t| at least this large when
/// the true mean difference is 0. `None` for 0 degrees of freedom or a
/// non-finite statistic (no spread: the test is not defined there).
pub fn two_sided_p_value(t: f64, degrees_of_freedom: u64) -> Option<f64> {
    if degrees_of_freedom == 0 || !t.is_finite() {
        return None;
    }
    let df = degrees_of_freedom as f64;
    let tail = if degrees_of_freedom <= LARGE_DEGREES_OF_FREEDOM {
        1.0 - StudentsT::new(0.0, 1.0, df).ok()?.cdf(t.abs())
    } else {
        1.0 - Normal::standard().cdf(t.abs())
    };
    let p = (2.0 * tail).clamp(0.0, 1.0);
    p.is_finite().then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance
    }

    #[test]
    fn zero_degrees_of_freedom_have_no_critical_value() {
        assert_eq!(t_critical_95(0), None);
    }

    #[test]
    fn small_degrees_of_freedom_match_the_textbook_table() {
        // Three-decimal values printed in every statistics textbook.
        for (df, expected) in [
            (1, 12.706),
            (2, 4.303),
            (3, 3.182),
            (4, 2.776),
            (5, 2.571),
            (9, 2.262),
            (10, 2.228),
            (19, 2.093),
            (29, 2.045),
            (30, 2.042),
        ] {
            let t = t_critical_95(df).unwrap();
            assert!(close(t, expected, 0.0005), "df={df}: {t} vs {expected}");
        }
    }

    #[test]
    fn small_degrees_of_freedom_match_the_nine_decimal_table() {
        // The exact quantiles the hand-written table carried (R: qt(0.975, df)).
        for (df, expected) in [
            (1, 12.706_204_736),
            (2, 4.302_652_730),
            (3, 3.182_446_305),
            (4, 2.776_445_105),
            (10, 2.228_138_852),
            (29, 2.045_229_642),
            (30, 2.042_272_456),
        ] {
            let t = t_critical_95(df).unwrap();
            assert!(close(t, expected, 1e-8), "df={df}: {t} vs {expected}");
        }
    }

    #[test]
    fn large_degrees_of_freedom_match_within_a_millionth() {
        // Exact quantiles (R: qt(0.975, df)).
        for (df, expected) in [
            (31, 2.039_513_446),
            (40, 2.021_075_390),
            (60, 2.000_297_822),
            (120, 1.979_930_405),
            (1000, 1.962_339_081),
        ] {
            let t = t_critical_95(df).unwrap();
            assert!(close(t, expected, 1e-6), "df={df}: {t} vs {expected}");
        }
    }

    #[test]
    fn the_large_sample_formula_joins_statrs_without_a_jump() {
        let last = t_critical_95(LARGE_DEGREES_OF_FREEDOM).unwrap();
        let next = t_critical_95(LARGE_DEGREES_OF_FREEDOM + 1).unwrap();
        assert!(last > next && last - next < 1e-7, "{last} vs {next}");
        // R: qt(0.975, 1e6) = 1.959966.
        assert!(close(t_critical_95(1_000_000).unwrap(), 1.959_966_4, 1e-7));
    }

    #[test]
    fn very_large_degrees_of_freedom_approach_the_normal_quantile() {
        let t = t_critical_95(10_000_000).unwrap();
        assert!(close(t, 1.960, 0.0005));
        assert!(t > NORMAL_QUANTILE_975);
    }

    #[test]
    fn any_confidence_level_has_its_quantile() {
        // R: qt(0.995, c(2, 9)) = 9.924843, 3.249836.
        assert!(close(t_critical(0.99, 2).unwrap(), 9.924_843, 1e-5));
        assert!(close(t_critical(0.99, 9).unwrap(), 3.249_836, 1e-5));
        assert_eq!(t_critical(0.95, 4), t_critical_95(4));
        assert_eq!(t_critical(1.0, 4), None);
        assert_eq!(t_critical(0.99, 0), None);
    }

    #[test]
    fn p_values_match_the_textbook_and_the_critical_values() {
        // R: 2 * pt(-22.5167, 2) = 0.001967.
        assert!(close(
            two_sided_p_value(-22.5167, 2).unwrap(),
            0.001_967,
            2e-6
        ));
        // At the 95 % critical value the p-value is 0.05.
        for df in [1, 2, 5, 30] {
            let p = two_sided_p_value(t_critical_95(df).unwrap(), df).unwrap();
            assert!(close(p, 0.05, 1e-9), "df={df}: {p}");
        }
        assert_eq!(two_sided_p_value(0.0, 3), Some(1.0));
        assert_eq!(two_sided_p_value(f64::INFINITY, 3), None);
        assert_eq!(two_sided_p_value(1.0, 0), None);
    }

    #[test]
    fn critical_values_decrease_with_degrees_of_freedom() {
        let values: Vec<f64> = (1..200).map(|df| t_critical_95(df).unwrap()).collect();
        assert!(values.windows(2).all(|pair| pair[0] > pair[1]));
    }
}
