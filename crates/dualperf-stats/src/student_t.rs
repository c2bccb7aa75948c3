//! Critical values of Student's t distribution for two-sided 95 % confidence
//! intervals.
//!
//! A confidence interval of a mean over `n` repetitions is
//! `mean ± t(0.975, n − 1) · sd / √n`. With the 3 to 10 repetitions a
//! measurement campaign affords, `t` is far from the normal 1.96 (12.706 for
//! two values), so it must be right.
//!
//! Method: the 0.975 quantile of statrs' [`StudentsT`] (the inverse of the
//! regularised incomplete beta function), accurate to about 1e-9 for every
//! degree of freedom. At df = ∞ the value is the normal quantile 1.959964.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The 0.975 quantile of the standard normal distribution.
pub const NORMAL_QUANTILE_975: f64 = 1.959_963_984_540_054;

/// The critical value `t(0.975, degrees_of_freedom)`: the half-width of a
/// two-sided 95 % confidence interval in units of the standard error.
///
/// Returns `None` for 0 degrees of freedom (a single value has no interval).
pub fn t_critical_95(degrees_of_freedom: u64) -> Option<f64> {
    if degrees_of_freedom == 0 {
        return None;
    }
    let distribution = StudentsT::new(0.0, 1.0, degrees_of_freedom as f64).ok()?;
    let t = distribution.inverse_cdf(0.975);
    t.is_finite().then_some(t)
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
    fn very_large_degrees_of_freedom_approach_the_normal_quantile() {
        let t = t_critical_95(10_000_000).unwrap();
        assert!(close(t, 1.960, 0.0005));
        assert!(t > NORMAL_QUANTILE_975);
    }

    #[test]
    fn critical_values_decrease_with_degrees_of_freedom() {
        let values: Vec<f64> = (1..200).map(|df| t_critical_95(df).unwrap()).collect();
        assert!(values.windows(2).all(|pair| pair[0] > pair[1]));
    }
}
