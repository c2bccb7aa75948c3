//! Words for what weakens a comparison ([`ComparisonWarning`], typed by the
//! stats stage): a full sentence for tables with room, and a short form
//! ("IPv4 unstable") for narrow cells, with the full one on hover.

use dualperf_model::{Comparison, ComparisonWarning, Quantity};

use super::arms::ArmNames;
use super::contention::{contended_trials, contention_cause};
use super::value::{format_quantity, p_value, percent};

/// The full sentence of `warning` on `comparison`, arms named by `names`.
pub fn warning(warning: &ComparisonWarning, comparison: &Comparison, names: &ArmNames) -> String {
    match warning {
        ComparisonWarning::Unpaired => format!(
            "no repetition succeeded on both {} and {}: difference of the means, unpaired",
            names.label(&comparison.arm),
            names.label(&comparison.baseline)
        ),
        ComparisonWarning::FewPairs { pairs } => format!(
            "only {pairs} paired repetition{}: no confidence interval (use --repeat 3 or more)",
            if *pairs == 1 { "" } else { "s" }
        ),
        ComparisonWarning::Unstable {
            arm,
            coefficient_of_variation,
            threshold,
        } => format!(
            "{} unstable: CV {} % > {} %; repeat more or run longer",
            names.label(arm),
            percent(*coefficient_of_variation),
            percent(*threshold)
        ),
        ComparisonWarning::FailedTrials {
            arm,
            failed,
            trials,
        } => format!("{}: {failed} of {trials} trials failed", names.label(arm)),
        ComparisonWarning::UnequalRepetitions {
            arm_count,
            baseline_count,
            pairs,
        } => format!(
            "unequal repetitions: {} {arm_count}, {} {baseline_count}; {pairs} paired",
            names.label(&comparison.arm),
            names.label(&comparison.baseline)
        ),
        ComparisonWarning::Contended {
            arm,
            contended,
            trials,
            evidence,
        } => format!(
            "not significant: {} ran while {}",
            contended_trials(names.label(arm), *contended, *trials),
            contention_cause(evidence)
        ),
        ComparisonWarning::WireMismatch {
            arm,
            failed,
            checked,
            finding,
        } => super::wire::wire_warning(names.label(arm), *failed, *checked, finding),
        ComparisonWarning::BeyondLink {
            arm,
            link_share,
            link_bits_per_second,
        } => format!(
            "not significant: {}",
            beyond_link(names.label(arm), *link_share, *link_bits_per_second)
        ),
        ComparisonWarning::MultipleComparisons {
            comparisons,
            p_value: p,
            adjusted_p_value,
        } => format!(
            "not significant after Holm adjustment over {comparisons} headline comparisons \
             (p = {}, adjusted {})",
            p_value(*p),
            p_value(*adjusted_p_value)
        ),
        ComparisonWarning::OffRate {
            arm,
            off,
            trials,
            asked_bps,
            worst_trial_ratio,
            worst_interval_ratio,
        } => off_rate(
            names.label(arm),
            (*off, *trials),
            *asked_bps,
            *worst_trial_ratio,
            *worst_interval_ratio,
        ),
    }
}

/// "the IPv4 trials delivered 104 % of the 10 Mbit/s bottleneck: the
/// path's queue was still filling and held the end of the measured
/// interval, which the receiver counted after (pace further above the
/// link, -b, or run longer, -t)".
pub fn beyond_link(arm: &str, link_share: f64, link_bits_per_second: u64) -> String {
    format!(
        "the {arm} trials delivered {} % of the {} bottleneck: the path's queue was still \
         filling and held the end of the measured interval, which the receiver counted after \
         (pace further above the link, -b, or run longer, -t)",
        (link_share * 100.0).round(),
        format_quantity(Quantity::BitRate, link_bits_per_second as f64)
    )
}

/// "IPv4 missed the asked 85 Mbit/s in 2 of 3 trials: 11 % above it over
/// a whole trial, 20 % below it in one sampling interval".
fn off_rate(
    arm: &str,
    (off, trials): (u64, u64),
    asked_bps: f64,
    trial: f64,
    interval: Option<f64>,
) -> String {
    let side = |ratio: f64| if ratio > 0.0 { "above" } else { "below" };
    let mut parts = Vec::new();
    if trial.abs() > 0.02 {
        parts.push(format!(
            "{} % {} it over a whole trial",
            percent(trial.abs()),
            side(trial)
        ));
    }
    if let Some(interval) = interval.filter(|i| *i != 0.0) {
        parts.push(format!(
            "{} % {} it in one sampling interval",
            percent(interval.abs()),
            side(interval)
        ));
    }
    let counted = if off == trials {
        format!("in all {trials} paced trials")
    } else {
        format!("in {off} of {trials} paced trials")
    };
    let mut text = format!(
        "{arm} missed the asked {} {counted}",
        format_quantity(Quantity::BitRate, asked_bps)
    );
    if !parts.is_empty() {
        text.push_str(": ");
        text.push_str(&parts.join(", "));
    }
    text
}

/// A few words for a narrow cell: "IPv4 unstable", "IPv6 trials failed",
/// "unpaired", "1 pair", "unequal repetitions".
pub fn warning_short(warning: &ComparisonWarning, names: &ArmNames) -> String {
    match warning {
        ComparisonWarning::Unpaired => "unpaired".to_string(),
        ComparisonWarning::FewPairs { pairs } => {
            format!("{pairs} pair{}", if *pairs == 1 { "" } else { "s" })
        }
        ComparisonWarning::Unstable { arm, .. } => format!("{} unstable", names.label(arm)),
        ComparisonWarning::FailedTrials { arm, .. } => {
            format!("{} trials failed", names.label(arm))
        }
        ComparisonWarning::UnequalRepetitions { .. } => "unequal repetitions".to_string(),
        ComparisonWarning::Contended { arm, .. } => format!("{} contended", names.label(arm)),
        ComparisonWarning::OffRate { arm, .. } => format!("{} off rate", names.label(arm)),
        ComparisonWarning::WireMismatch { arm, .. } => {
            format!("{} wire mismatch", names.label(arm))
        }
        ComparisonWarning::BeyondLink { arm, .. } => {
            format!("{} beyond the link", names.label(arm))
        }
        ComparisonWarning::MultipleComparisons { .. } => "Holm-adjusted".to_string(),
    }
}

/// Every warning of `comparison` as full sentences.
pub fn warnings(comparison: &Comparison, names: &ArmNames) -> Vec<String> {
    comparison
        .warnings
        .iter()
        .map(|w| warning(w, comparison, names))
        .collect()
}

/// A machine key of `warning` for CSV cells: `unstable:v4`,
/// `failed-trials:v6`, `few-pairs`, `unpaired`, `unequal-repetitions`,
/// `contended:v4`, `off-rate:v6`, `multiple-comparisons`.
pub fn warning_key(warning: &ComparisonWarning) -> String {
    match warning {
        ComparisonWarning::Unpaired => "unpaired".to_string(),
        ComparisonWarning::FewPairs { .. } => "few-pairs".to_string(),
        ComparisonWarning::Unstable { arm, .. } => format!("unstable:{arm}"),
        ComparisonWarning::FailedTrials { arm, .. } => format!("failed-trials:{arm}"),
        ComparisonWarning::UnequalRepetitions { .. } => "unequal-repetitions".to_string(),
        ComparisonWarning::Contended { arm, .. } => format!("contended:{arm}"),
        ComparisonWarning::OffRate { arm, .. } => format!("off-rate:{arm}"),
        ComparisonWarning::WireMismatch { arm, .. } => format!("wire-mismatch:{arm}"),
        ComparisonWarning::BeyondLink { arm, .. } => format!("beyond-link:{arm}"),
        ComparisonWarning::MultipleComparisons { .. } => "multiple-comparisons".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{Arm, ArmId, IpFamily, MetricId, Summary};

    fn comparison(warnings: Vec<ComparisonWarning>) -> Comparison {
        Comparison {
            point: 0,
            metric: MetricId::GoodputBps,
            arm: ArmId::native(IpFamily::V6),
            baseline: ArmId::native(IpFamily::V4),
            arm_summary: Summary::default(),
            baseline_summary: Summary::default(),
            pairs: 3,
            difference_mean: 0.0,
            difference_ci95: None,
            relative_difference: None,
            relative_difference_ci95: None,
            significant: false,
            theoretical_relative_difference: None,
            warnings,
            p_value: None,
            adjusted_p_value: None,
            attribution: None,
        }
    }

    #[test]
    fn every_warning_names_its_arm_by_label() {
        let arms = [
            Arm::native(IpFamily::V4, None),
            Arm::native(IpFamily::V6, None),
        ];
        let names = ArmNames::from_arms(&arms);
        let c = comparison(vec![
            ComparisonWarning::Unpaired,
            ComparisonWarning::FewPairs { pairs: 1 },
            ComparisonWarning::Unstable {
                arm: ArmId::native(IpFamily::V4),
                coefficient_of_variation: 0.25,
                threshold: 0.10,
            },
            ComparisonWarning::FailedTrials {
                arm: ArmId::native(IpFamily::V6),
                failed: 1,
                trials: 3,
            },
            ComparisonWarning::UnequalRepetitions {
                arm_count: 2,
                baseline_count: 3,
                pairs: 2,
            },
            ComparisonWarning::Contended {
                arm: ArmId::native(IpFamily::V4),
                contended: 2,
                trials: 3,
                evidence: dualperf_model::ContentionEvidence {
                    foreign_cpu_ratio: Some(0.6),
                    machine_cpus: 2,
                    ..Default::default()
                },
            },
            ComparisonWarning::OffRate {
                arm: ArmId::native(IpFamily::V6),
                off: 2,
                trials: 3,
                asked_bps: 85e6,
                worst_trial_ratio: 0.106,
                worst_interval_ratio: Some(-0.2),
            },
            ComparisonWarning::MultipleComparisons {
                comparisons: 5,
                p_value: 0.031,
                adjusted_p_value: 0.124,
            },
        ]);
        assert_eq!(
            warnings(&c, &names),
            [
                "no repetition succeeded on both IPv6 and IPv4: difference of the means, unpaired",
                "only 1 paired repetition: no confidence interval (use --repeat 3 or more)",
                "IPv4 unstable: CV 25 % > 10 %; repeat more or run longer",
                "IPv6: 1 of 3 trials failed",
                "unequal repetitions: IPv6 2, IPv4 3; 2 paired",
                "not significant: 2 of 3 IPv4 trials ran while other programs used 60 % of the CPUs",
                "IPv6 missed the asked 85 Mbit/s in 2 of 3 paced trials: 11 % above it over a \
                 whole trial, 20 % below it in one sampling interval",
                "not significant after Holm adjustment over 5 headline comparisons (p = 0.031, \
                 adjusted 0.124)",
            ]
        );
        let short: Vec<String> = c
            .warnings
            .iter()
            .map(|w| warning_short(w, &names))
            .collect();
        assert_eq!(
            short,
            [
                "unpaired",
                "1 pair",
                "IPv4 unstable",
                "IPv6 trials failed",
                "unequal repetitions",
                "IPv4 contended",
                "IPv6 off rate",
                "Holm-adjusted"
            ]
        );
        let keys: Vec<String> = c.warnings.iter().map(warning_key).collect();
        assert_eq!(
            keys,
            [
                "unpaired",
                "few-pairs",
                "unstable:v4",
                "failed-trials:v6",
                "unequal-repetitions",
                "contended:v4",
                "off-rate:v6",
                "multiple-comparisons"
            ]
        );
    }
}
