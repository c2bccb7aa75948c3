//! Critical values of Student's t distribution for two-sided 95 % confidence
//! intervals.
//!
//! A confidence interval of a mean over `n` repetitions is
//! `mean ± t(0.975, n − 1) · sd / √n`. With the 3 to 10 repetitions a
//! measurement campaign affords, `t` is far from the normal 1.96 (12.706 for
//! two values), so it must be right.
//!
//! Method: for 1 ≤ df ≤ 30 the exact quantiles (the textbook table, to nine
//! decimals); beyond, the Cornish–Fisher expansion of the t quantile in powers
//! of 1/df (Abramowitz & Stegun 26.7.5), whose error at df = 31 is below 1e-6
//! and shrinks as df grows. At df = ∞ the value is the normal quantile 1.959964.

/// The 0.975 quantile of the standard normal distribution.
pub const NORMAL_QUANTILE_975: f64 = 1.959_963_984_540_054;

/// `t(0.975, df)` for df = 1..=30 (index df − 1).
const TABLE_975: [f64; 30] = [
    12.706_204_736,
    4.302_652_730,
    3.182_446_305,
    2.776_445_105,
    2.570_581_836,
    2.446_911_851,
    2.364_624_252,
    2.306_004_135,
    2.262_157_163,
    2.228_138_852,
    2.200_985_160,
    2.178_812_830,
    2.160_368_656,
    2.144_786_688,
    2.131_449_546,
    2.119_905_299,
    2.109_815_578,
    2.100_922_040,
    2.093_024_054,
    2.085_963_447,
    2.079_613_845,
    2.073_873_068,
    2.068_657_610,
    2.063_898_562,
    2.059_538_553,
    2.055_529_439,
    2.051_830_516,
    2.048_407_142,
    2.045_229_642,
    2.042_272_456,
];

/// The critical value `t(0.975, degrees_of_freedom)`: the half-width of a
/// two-sided 95 % confidence interval in units of the standard error.
///
/// Returns `None` for 0 degrees of freedom (a single value has no interval).
pub fn t_critical_95(degrees_of_freedom: u64) -> Option<f64> {
    match degrees_of_freedom {
        0 => None,
        1..=30 => Some(TABLE_975[(degrees_of_freedom - 1) as usize]),
        _ => Some(cornish_fisher_975(degrees_of_freedom as f64)),
    }
}

/// Cornish–Fisher expansion of the t quantile around the normal quantile
/// (Abramowitz & Stegun 26.7.5), four correction terms.
fn cornish_fisher_975(df: f64) -> f64 {
    let z = NORMAL_QUANTILE_975;
    let z3 = z.powi(3);
    let z5 = z.powi(5);
    let z7 = z.powi(7);
    let z9 = z.powi(9);
    let g1 = (z3 + z) / 4.0;
    let g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
    let g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
    let g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / 92160.0;
    z + g1 / df + g2 / df.powi(2) + g3 / df.powi(3) + g4 / df.powi(4)
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
    fn large_degrees_of_freedom_follow_the_expansion_within_a_millionth() {
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
    fn expansion_joins_the_table_without_a_jump() {
        let table_30 = t_critical_95(30).unwrap();
        let expansion_30 = cornish_fisher_975(30.0);
        assert!(
            close(table_30, expansion_30, 2e-6),
            "{table_30} vs {expansion_30}"
        );
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
