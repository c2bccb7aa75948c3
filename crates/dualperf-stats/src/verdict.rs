//! One-line verdicts for people: "IPv6 is 4.8 % slower (95 % CI 3.9–5.7 %,
//! significant); the header explains 1.4 %".
//!
//! Words follow the metric's direction ([`crate::catalogue::Wording`]):
//! slower/faster for rates, higher/lower latency for delays, more/less loss
//! for loss. The percentage is the relative difference against the IPv4
//! mean; when the IPv4 mean is 0 (e.g. no loss at all over IPv4) the verdict
//! compares the values themselves.

use crate::catalogue::{significant, MetricDefinition};

/// What a verdict is built from: a comparison's numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VerdictInput {
    /// IPv4 mean.
    pub v4_mean: f64,
    /// IPv6 mean.
    pub v6_mean: f64,
    /// Mean paired difference v6 − v4.
    pub difference_mean: f64,
    /// 95 % CI of the difference.
    pub difference_ci95: Option<(f64, f64)>,
    /// difference / IPv4 mean.
    pub relative_difference: Option<f64>,
    /// 95 % CI of the relative difference.
    pub relative_difference_ci95: Option<(f64, f64)>,
    /// The CI excludes 0.
    pub significant: bool,
    /// The header model's expected relative difference.
    pub theoretical_relative_difference: Option<f64>,
}

/// A percentage of a ratio with sensible precision: "36", "4.8", "0.35",
/// "0.000017" (two significant digits below 1 %).
pub fn percent(ratio: f64) -> String {
    let value = ratio * 100.0;
    let magnitude = value.abs();
    if magnitude >= 10.0 {
        format!("{value:.0}")
    } else if magnitude >= 1.0 {
        format!("{value:.1}")
    } else if magnitude == 0.0 {
        "0".to_string()
    } else {
        let decimals = (1 - magnitude.log10().floor() as i64).clamp(2, 9) as usize;
        format!("{value:.decimals$}")
    }
}

/// A signed percentage: "+1.2", "−0.40" (with a real minus sign); "0"
/// below 0.005 %.
fn signed_percent(ratio: f64) -> String {
    if (ratio * 100.0).abs() < 0.005 {
        return "0".to_string();
    }
    let text = percent(ratio.abs());
    if ratio < 0.0 {
        format!("−{text}")
    } else {
        format!("+{text}")
    }
}

/// Builds the verdict line of one comparison.
pub fn verdict(definition: &MetricDefinition, input: &VerdictInput) -> String {
    let wording = definition.wording;
    let mut line = match input.relative_difference {
        Some(relative) if relative == 0.0 && input.difference_ci95.is_none_or(|(l, h)| l == h) => {
            "IPv6 and IPv4 measured the same".to_string()
        }
        Some(relative) => {
            let word = if relative > 0.0 {
                wording.more
            } else {
                wording.less
            };
            let claim = format!(
                "IPv6 {} {} % {}",
                wording.verb,
                percent(relative.abs()),
                word
            );
            match input.relative_difference_ci95 {
                Some((low, high)) if input.significant => {
                    let (a, b) = (low.abs().min(high.abs()), low.abs().max(high.abs()));
                    format!(
                        "{claim} (95 % CI {}–{} %, significant)",
                        percent(a),
                        percent(b)
                    )
                }
                Some((low, high)) => format!(
                    "No significant difference: {claim} (95 % CI {} to {} %)",
                    signed_percent(low),
                    signed_percent(high)
                ),
                None => {
                    format!("{claim} (no confidence interval: fewer than 2 paired repetitions)")
                }
            }
        }
        None if input.v4_mean == 0.0 && input.v6_mean == 0.0 => {
            "IPv6 and IPv4 both measured 0".to_string()
        }
        None => {
            let word = if input.difference_mean > 0.0 {
                wording.more
            } else {
                wording.less
            };
            let values = format!(
                "{} vs {} over IPv4",
                definition.format_value(input.v6_mean),
                definition.format_value(input.v4_mean)
            );
            let claim = format!("IPv6 {} {word}: {values}", wording.verb);
            match input.difference_ci95 {
                Some(_) if input.significant => format!("{claim} (significant)"),
                Some(_) => format!("No significant difference: {claim}"),
                None => {
                    format!("{claim} (no confidence interval: fewer than 2 paired repetitions)")
                }
            }
        }
    };
    if let (Some(theory), Some(relative)) = (
        input.theoretical_relative_difference,
        input.relative_difference,
    ) {
        line.push_str("; ");
        line.push_str(&theory_clause(
            definition,
            theory,
            relative,
            input.significant,
        ));
    }
    line
}

/// "the header explains 1.4 %" (a significant difference in the predicted
/// direction, at least as large as predicted), "the header model predicts
/// no difference", or "the header predicts 1.4 % slower".
fn theory_clause(
    definition: &MetricDefinition,
    theory: f64,
    measured: f64,
    significant: bool,
) -> String {
    if theory == 0.0 {
        return "the header model predicts no difference".to_string();
    }
    let same_direction = theory.signum() == measured.signum();
    if significant && same_direction && theory.abs() <= measured.abs() {
        format!("the header explains {} %", percent(theory.abs()))
    } else {
        let word = if theory > 0.0 {
            definition.wording.more
        } else {
            definition.wording.less
        };
        format!("the header predicts {} % {word}", percent(theory.abs()))
    }
}

/// A compact form for narrow tables: "−4.8 % [−5.7, −3.9]".
pub fn compact_relative(relative: f64, ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((low, high)) => {
            format!(
                "{} % [{}, {}]",
                signed_percent(relative),
                signed_percent(low),
                signed_percent(high)
            )
        }
        None => format!("{} %", signed_percent(relative)),
    }
}

/// Rounds for display without trailing noise; exposed for renderers.
pub fn display_number(value: f64) -> String {
    significant(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::definition;

    fn goodput() -> &'static MetricDefinition {
        definition("goodput_bps").unwrap()
    }

    #[test]
    fn the_issue_example_reads_as_written() {
        let input = VerdictInput {
            v4_mean: 100.0,
            v6_mean: 95.2,
            difference_mean: -4.8,
            difference_ci95: Some((-5.7, -3.9)),
            relative_difference: Some(-0.048),
            relative_difference_ci95: Some((-0.057, -0.039)),
            significant: true,
            theoretical_relative_difference: Some(-0.014),
        };
        assert_eq!(
            verdict(goodput(), &input),
            "IPv6 is 4.8 % slower (95 % CI 3.9–5.7 %, significant); the header explains 1.4 %"
        );
    }

    #[test]
    fn latency_uses_higher_and_lower_latency() {
        let input = VerdictInput {
            v4_mean: 40_000.0,
            v6_mean: 41_000.0,
            difference_mean: 1_000.0,
            difference_ci95: Some((500.0, 1_500.0)),
            relative_difference: Some(0.025),
            relative_difference_ci95: Some((0.013, 0.037)),
            significant: true,
            theoretical_relative_difference: None,
        };
        assert_eq!(
            verdict(definition("rtt_p50_ns").unwrap(), &input),
            "IPv6 has 2.5 % higher latency (95 % CI 1.3–3.7 %, significant)"
        );
    }

    #[test]
    fn an_interval_across_zero_is_not_significant_and_shows_signs() {
        let input = VerdictInput {
            v4_mean: 100.0,
            v6_mean: 99.5,
            difference_mean: -0.5,
            difference_ci95: Some((-1.2, 0.2)),
            relative_difference: Some(-0.005),
            relative_difference_ci95: Some((-0.012, 0.002)),
            significant: false,
            theoretical_relative_difference: Some(-0.0138),
        };
        assert_eq!(
            verdict(goodput(), &input),
            "No significant difference: IPv6 is 0.50 % slower (95 % CI −1.2 to +0.20 %); \
             the header predicts 1.4 % slower"
        );
    }

    #[test]
    fn zero_ipv4_loss_compares_values_instead_of_ratios() {
        let input = VerdictInput {
            v4_mean: 0.0,
            v6_mean: 0.0012,
            difference_mean: 0.0012,
            difference_ci95: Some((0.0008, 0.0016)),
            significant: true,
            ..VerdictInput::default()
        };
        assert_eq!(
            verdict(definition("loss_ratio").unwrap(), &input),
            "IPv6 has more loss: 0.12 % vs 0 % over IPv4 (significant)"
        );
    }

    #[test]
    fn a_single_pair_says_why_there_is_no_interval() {
        let input = VerdictInput {
            v4_mean: 10.0,
            v6_mean: 11.0,
            difference_mean: 1.0,
            relative_difference: Some(0.1),
            ..VerdictInput::default()
        };
        let line = verdict(goodput(), &input);
        assert!(
            line.starts_with("IPv6 is 10 % faster (no confidence interval"),
            "{line}"
        );
    }

    #[test]
    fn predicted_zero_is_said_plainly() {
        let input = VerdictInput {
            v4_mean: 10.0,
            v6_mean: 9.0,
            difference_mean: -1.0,
            difference_ci95: Some((-1.5, -0.5)),
            relative_difference: Some(-0.1),
            relative_difference_ci95: Some((-0.15, -0.05)),
            significant: true,
            theoretical_relative_difference: Some(0.0),
        };
        assert!(verdict(goodput(), &input).ends_with("; the header model predicts no difference"));
    }
}
