//! The verdict of a comparison in one compact cell, for tables that show
//! many arms at once: the headline difference and a mark,
//! `+3.1 % ✓` (significant), `−0.4 % ~` (not significant), `+2.0 % !`
//! (contended trials: never significant), `+5.0 % ?` (indicative only:
//! too few pairs or no spread for a confidence interval). The sentences
//! ([`super::verdict`]) say the same at length.

use dualperf_model::{Comparison, ComparisonWarning};

use super::value::{compact_relative, signed_difference};
use super::verdict::{claims_significance, has_no_spread, MIN_PAIRS_FOR_SIGNIFICANCE};

/// What a comparison's mark says.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Mark {
    /// Significant at 95 % (after the Holm adjustment, on enough pairs).
    Significant,
    /// A confidence interval on enough pairs that includes no difference.
    NotSignificant,
    /// Trials ran beside other load: never called significant.
    Contended,
    /// Too few pairs, or no spread between them: no claim either way.
    Indicative,
}

impl Mark {
    /// The mark of `comparison`.
    pub fn of(comparison: &Comparison) -> Mark {
        let contended = comparison
            .warnings
            .iter()
            .any(|w| matches!(w, ComparisonWarning::Contended { .. }));
        if contended {
            Mark::Contended
        } else if claims_significance(comparison) {
            Mark::Significant
        } else if comparison.difference_ci95.is_some()
            && comparison.pairs >= MIN_PAIRS_FOR_SIGNIFICANCE
            && !has_no_spread(comparison)
        {
            Mark::NotSignificant
        } else {
            Mark::Indicative
        }
    }

    /// One character for a table cell.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Significant => "✓",
            Mark::NotSignificant => "~",
            Mark::Contended => "!",
            Mark::Indicative => "?",
        }
    }
}

/// What the marks mean, for the line under a table of [`headline_cell`]s.
pub const MARK_LEGEND: &str =
    "✓ significant · ~ not significant · ! contended trials · ? too few pairs or no spread";

/// `+3.1 % ✓`: the relative difference from the baseline (the absolute one
/// when the baseline measured 0) and the [`Mark`].
pub fn headline_cell(comparison: &Comparison) -> String {
    let value = match comparison.relative_difference {
        Some(relative) => compact_relative(relative, None),
        None => signed_difference(comparison.metric, comparison.difference_mean),
    };
    format!("{value} {}", Mark::of(comparison).symbol())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::MetricId;

    /// A real comparison of the synthetic run, reshaped.
    fn comparison(
        relative: f64,
        ci: Option<(f64, f64)>,
        significant: bool,
        pairs: u64,
    ) -> Comparison {
        let run = dualperf_fixtures::synthetic::small_synthetic_run();
        let mut c = run.analysis.unwrap().comparisons.remove(0);
        c.metric = MetricId::GoodputBps;
        c.relative_difference = Some(relative);
        c.relative_difference_ci95 = ci;
        c.difference_ci95 = ci;
        c.significant = significant;
        c.pairs = pairs;
        c.warnings.clear();
        c
    }

    #[test]
    fn cells_carry_the_difference_and_the_mark() {
        let cell = |r, ci, s, p| headline_cell(&comparison(r, ci, s, p));
        assert_eq!(cell(0.031, Some((0.02, 0.04)), true, 5), "+3.1 % ✓");
        assert_eq!(cell(-0.004, Some((-0.01, 0.002)), false, 5), "−0.40 % ~");
        assert_eq!(cell(0.05, Some((0.01, 0.09)), true, 2), "+5.0 % ?");
        assert_eq!(cell(0.05, None, false, 1), "+5.0 % ?");
    }
}
