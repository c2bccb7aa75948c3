//! One-line verdicts for people, numbers first: "IPv6 941 Mbit/s, IPv4
//! 955 Mbit/s: 1.5 % slower (95 % CI 1.2–1.8 %, significant); the header
//! explains 1.4 %" (both arms' means, then the relative difference).
//!
//! Words follow the metric's direction ([`Wording`], keyed by
//! [`MetricId`]): slower/faster for rates, higher/lower latency for
//! delays, more/less loss for loss. The percentage is the relative
//! difference against the baseline arm's mean; when that mean is 0 (e.g.
//! no loss at all on the baseline) the verdict compares the values.
//!
//! Honesty rules (issue 14):
//! - a difference that was the same in every paired repetition has no
//!   spread, so no confidence interval: the verdict says "in each of the N
//!   paired repetitions" instead of printing "95 % CI 22–22 %";
//! - fewer than 3 pairs never make a significance claim: the verdict
//!   starts "Indicative only:" and says how many pairs there were;
//! - the header model "explains" a gap only when the gap is a significance
//!   claim in the predicted direction at least as large as predicted;
//! - a comparison resting on contended trials (other programs took the
//!   CPUs the tool needed) starts "Not significant:" and says which trials
//!   ran beside what.

use dualperf_model::{Analysis, Comparison, ComparisonWarning, MetricId};

use super::attribution::attribution_clause;
use super::contention::contention_clause;
use super::value::{format_value, p_value as format_p, percent, signed_percent, upper_bound};
pub use super::wording::{
    claims_significance, has_no_spread, wording, Wording, MIN_PAIRS_FOR_SIGNIFICANCE,
};

/// The verdict line of one comparison, naming the arm and its baseline by
/// their labels.
pub fn verdict(comparison: &Comparison, arm: &str, baseline: &str) -> String {
    let c = comparison;
    let wording = wording(c.metric);
    let pairs = c.pairs;
    let repetitions = |pairs: u64| {
        if pairs == 2 {
            "in both paired repetitions".to_string()
        } else {
            format!("in each of the {pairs} paired repetitions")
        }
    };
    let indicative = |claim: String, detail: String| {
        format!(
            "Indicative only: {claim} ({detail}{pairs} paired repetition{}; {MIN_PAIRS_FOR_SIGNIFICANCE} or more are needed to call a difference significant)",
            if pairs == 1 { "" } else { "s" }
        )
    };
    let no_interval = "no confidence interval: fewer than 2 paired repetitions";
    // Numbers first (issue 23): both arms' means, then the difference.
    let values = format!(
        "{arm} {}, {baseline} {}",
        format_value(c.metric, c.arm_summary.mean),
        format_value(c.metric, c.baseline_summary.mean)
    );
    let mut line = match c.relative_difference {
        Some(relative) if relative == 0.0 && c.difference_ci95.is_none_or(|(l, h)| l == h) => {
            format!("{values}: the same")
        }
        Some(relative) => {
            let word = if relative > 0.0 {
                wording.more
            } else {
                wording.less
            };
            let claim = format!("{values}: {} % {word}", percent(relative.abs()));
            match c.relative_difference_ci95 {
                _ if has_no_spread(c) => format!(
                    "{claim} {} (no spread between repetitions, so no confidence interval)",
                    repetitions(pairs)
                ),
                Some((low, high)) if pairs < MIN_PAIRS_FOR_SIGNIFICANCE => indicative(
                    claim,
                    format!(
                        "95 % CI {} to {} %; ",
                        signed_percent(low),
                        upper_bound(high)
                    ),
                ),
                Some((low, high)) if c.significant => {
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
                    upper_bound(high)
                ),
                None => format!("{claim} ({no_interval})"),
            }
        }
        None if c.arm_summary.mean == 0.0 && c.baseline_summary.mean == 0.0 => {
            format!("{values}: both 0")
        }
        None => {
            let word = if c.difference_mean > 0.0 {
                wording.more
            } else {
                wording.less
            };
            let claim = format!("{values}: {word}");
            match c.difference_ci95 {
                _ if has_no_spread(c) => format!("{claim}, {}", repetitions(pairs)),
                Some(_) if pairs < MIN_PAIRS_FOR_SIGNIFICANCE => indicative(claim, String::new()),
                Some(_) if c.significant => format!("{claim} (significant)"),
                Some(_) => format!("No significant difference: {claim}"),
                None => format!("{claim} ({no_interval})"),
            }
        }
    };
    if let Some((m, p, adjusted)) = c.warnings.iter().find_map(|w| match w {
        ComparisonWarning::MultipleComparisons {
            comparisons,
            p_value,
            adjusted_p_value,
        } => Some((*comparisons, *p_value, *adjusted_p_value)),
        _ => None,
    }) {
        if let Some(rest) = line.strip_prefix("No significant difference: ") {
            line = format!(
                "No significant difference after Holm adjustment over {m} headline comparisons \
                 (p = {}, adjusted {}): {rest}",
                format_p(p),
                format_p(adjusted)
            );
        }
    }
    let beyond_link = c.warnings.iter().find_map(|w| match w {
        dualperf_model::ComparisonWarning::BeyondLink {
            arm: id,
            link_share,
            link_bits_per_second,
        } => Some(super::warning::beyond_link(
            if *id == c.arm { arm } else { baseline },
            *link_share,
            *link_bits_per_second,
        )),
        _ => None,
    });
    if let Some(clause) = contention_clause(c, arm, baseline).or(beyond_link) {
        // Contended trials: the difference may be the scheduler's, so the
        // verdict starts with why it is not significant.
        let rest = line
            .strip_prefix("No significant difference: ")
            .map(str::to_string)
            .or_else(|| {
                line.strip_prefix("Indicative only: ")
                    .map(|rest| format!("indicative only: {rest}"))
            })
            .unwrap_or_else(|| line.clone());
        line = format!("Not significant: {clause}; {rest}");
    }
    if let Some(why) = attribution_clause(c) {
        // Issue 14: every verdict carries what explains it.
        line.push_str("; ");
        line.push_str(&why);
    } else if let (Some(theory), Some(relative)) =
        (c.theoretical_relative_difference, c.relative_difference)
    {
        line.push_str("; ");
        line.push_str(&theory_clause(
            c.metric,
            theory,
            relative,
            claims_significance(c),
        ));
    }
    line
}

/// How significance was decided in `analysis`, for a line under the
/// verdicts: "Significance: paired t-tests at 95 %, Holm-adjusted over 5
/// headline comparisons (family-wise 5 %); trials that ran beside other
/// programs' CPU load never count as significant." `None` for an analysis
/// made before multiple-comparison control.
pub fn significance_note(analysis: &Analysis) -> Option<String> {
    let method = analysis.method.as_ref()?;
    let control = method.multiple_comparisons.as_ref()?;
    let level = percent(method.confidence_level);
    let adjusted = match control.comparisons {
        0 => "no headline comparison had a p-value to adjust".to_string(),
        1 => "one headline comparison, so no adjustment".to_string(),
        m => format!(
            "Holm-adjusted over {m} headline comparisons (family-wise {} %)",
            super::value::significant(control.alpha * 100.0)
        ),
    };
    let contention = if method.contention.is_some() {
        "; a comparison resting on contended trials is never significant"
    } else {
        ""
    };
    Some(format!(
        "Significance: paired t-tests at {level} %, {adjusted}{contention}."
    ))
}

/// "the header explains 1.4 %" (a significant difference in the predicted
/// direction, at least as large as predicted), "the header model predicts
/// no difference", or "the header predicts 1.4 % slower".
fn theory_clause(metric: MetricId, theory: f64, measured: f64, significant: bool) -> String {
    if theory == 0.0 {
        return "the header model predicts no difference".to_string();
    }
    let same_direction = theory.signum() == measured.signum();
    if significant && same_direction && theory.abs() <= measured.abs() {
        format!("the header explains {} %", percent(theory.abs()))
    } else {
        let wording = wording(metric);
        let word = if theory > 0.0 {
            wording.more
        } else {
            wording.less
        };
        format!("the header predicts {} % {word}", percent(theory.abs()))
    }
}

/// For analyses without an attribution (made before issue 14's), why a
/// throughput gap may exist beyond the header: what the CPU cost per MiB at
/// both ends says, from the comparisons of the same
/// point and arm in `analysis`. Only a cost difference that points the same
/// way as the gap (slower and dearer, or faster and cheaper) is named, and
/// only when it is a significance claim; the words say "coincide", not
/// "cause": a CPU cost explains throughput only where the CPU was the limit.
///
/// E.g. "the other 2.0 % coincide with 3.5 % more client CPU per MiB on
/// IPv6 (significant)". `None` when the comparison is not a significant
/// throughput gap or no such cost difference exists.
pub fn why_clause(analysis: &Analysis, comparison: &Comparison, arm: &str) -> Option<String> {
    if comparison.attribution.is_some() {
        // The verdict itself says what explains it (attribution_clause).
        return None;
    }
    if !matches!(
        comparison.metric,
        MetricId::GoodputBps | MetricId::SenderThroughputBps
    ) || !claims_significance(comparison)
    {
        return None;
    }
    let measured = comparison.relative_difference?;
    let mut parts = Vec::new();
    for (metric, end) in [
        (MetricId::ClientServiceDemandUsPerMib, "client"),
        (MetricId::ServerServiceDemandUsPerMib, "server"),
    ] {
        let Some(cost) = analysis.comparisons.iter().find(|c| {
            c.point == comparison.point
                && c.arm == comparison.arm
                && c.baseline == comparison.baseline
                && c.metric == metric
        }) else {
            continue;
        };
        let Some(relative) = cost
            .relative_difference
            .filter(|r| claims_significance(cost) && (*r > 0.0) == (measured < 0.0))
        else {
            continue;
        };
        let word = if relative > 0.0 { "more" } else { "less" };
        parts.push(format!(
            "{} % {word} {end} CPU per MiB",
            percent(relative.abs())
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let parts = parts.join(" and ");
    let rest = comparison
        .theoretical_relative_difference
        .map(|theory| measured - theory)
        .filter(|rest| rest.signum() == measured.signum() && *rest != 0.0);
    Some(match rest {
        Some(rest) => format!(
            "the other {} % coincide with {parts} on {arm} (significant)",
            percent(rest.abs())
        ),
        None => format!("it coincides with {parts} on {arm} (significant)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{ArmId, IpFamily, Summary};

    fn summary(mean: f64) -> Summary {
        Summary {
            count: 3,
            mean,
            ..Summary::default()
        }
    }

    /// A comparison of `metric` with baseline mean `base` and arm mean `arm`.
    fn comparison(metric: MetricId, base: f64, arm: f64) -> Comparison {
        Comparison {
            point: 0,
            metric,
            arm: ArmId::native(IpFamily::V6),
            baseline: ArmId::native(IpFamily::V4),
            arm_summary: summary(arm),
            baseline_summary: summary(base),
            pairs: 3,
            difference_mean: arm - base,
            difference_ci95: None,
            relative_difference: None,
            relative_difference_ci95: None,
            significant: false,
            theoretical_relative_difference: None,
            warnings: Vec::new(),
            p_value: None,
            adjusted_p_value: None,
            attribution: None,
        }
    }

    fn ipv6(c: &Comparison) -> String {
        verdict(c, "IPv6", "IPv4")
    }

    #[test]
    fn the_issue_example_reads_as_written() {
        let c = Comparison {
            difference_ci95: Some((-17.2e6, -11.5e6)),
            relative_difference: Some(-0.0147),
            relative_difference_ci95: Some((-0.018, -0.012)),
            significant: true,
            theoretical_relative_difference: Some(-0.014),
            ..comparison(MetricId::GoodputBps, 955e6, 941e6)
        };
        // Issue 23: both arms' values, then the difference.
        assert_eq!(
            ipv6(&c),
            "IPv6 941 Mbit/s, IPv4 955 Mbit/s: 1.5 % slower (95 % CI 1.2–1.8 %, significant); \
             the header explains 1.4 %"
        );
    }

    #[test]
    fn arms_are_named_by_their_labels() {
        let c = Comparison {
            difference_ci95: Some((-5.7, -3.9)),
            relative_difference: Some(-0.048),
            relative_difference_ci95: Some((-0.057, -0.039)),
            significant: true,
            ..comparison(MetricId::GoodputBps, 100.0, 95.2)
        };
        assert_eq!(
            verdict(&c, "IPv6 via 6in4, router to router", "IPv6"),
            "IPv6 via 6in4, router to router 95.2 bit/s, IPv6 100 bit/s: 4.8 % slower (95 % CI 3.9–5.7 %, significant)"
        );
    }

    #[test]
    fn latency_uses_higher_and_lower_latency() {
        let c = Comparison {
            difference_ci95: Some((500.0, 1_500.0)),
            relative_difference: Some(0.025),
            relative_difference_ci95: Some((0.013, 0.037)),
            significant: true,
            ..comparison(MetricId::RttP50Ns, 40_000.0, 41_000.0)
        };
        assert_eq!(
            ipv6(&c),
            "IPv6 41 µs, IPv4 40 µs: 2.5 % higher latency (95 % CI 1.3–3.7 %, significant)"
        );
    }

    #[test]
    fn an_interval_across_zero_is_not_significant_and_shows_signs() {
        let c = Comparison {
            difference_ci95: Some((-1.2, 0.2)),
            relative_difference: Some(-0.005),
            relative_difference_ci95: Some((-0.012, 0.002)),
            theoretical_relative_difference: Some(-0.0138),
            ..comparison(MetricId::GoodputBps, 100.0, 99.5)
        };
        assert_eq!(
            ipv6(&c),
            "No significant difference: IPv6 99.5 bit/s, IPv4 100 bit/s: 0.50 % slower \
             (95 % CI −1.2 to +0.20 %); the header predicts 1.4 % slower"
        );
    }

    #[test]
    fn zero_baseline_loss_compares_values_instead_of_ratios() {
        let c = Comparison {
            difference_ci95: Some((0.0008, 0.0016)),
            significant: true,
            ..comparison(MetricId::LossRatio, 0.0, 0.0012)
        };
        assert_eq!(ipv6(&c), "IPv6 0.12 %, IPv4 0 %: more loss (significant)");
    }

    #[test]
    fn a_single_pair_says_why_there_is_no_interval() {
        let c = Comparison {
            pairs: 1,
            relative_difference: Some(0.1),
            ..comparison(MetricId::GoodputBps, 10.0, 11.0)
        };
        let line = ipv6(&c);
        assert!(
            line.starts_with("IPv6 11 bit/s, IPv4 10 bit/s: 10 % faster (no confidence interval"),
            "{line}"
        );
    }

    #[test]
    fn predicted_zero_is_said_plainly() {
        let c = Comparison {
            difference_ci95: Some((-1.5, -0.5)),
            relative_difference: Some(-0.1),
            relative_difference_ci95: Some((-0.15, -0.05)),
            significant: true,
            theoretical_relative_difference: Some(0.0),
            ..comparison(MetricId::GoodputBps, 10.0, 9.0)
        };
        assert!(ipv6(&c).ends_with("; the header model predicts no difference"));
    }

    #[test]
    fn zero_variance_is_not_printed_as_an_interval() {
        // Issue 14: "95 % CI 22–22 %, significant" for pairs without spread.
        let c = Comparison {
            difference_ci95: Some((0.22, 0.22)),
            relative_difference: Some(0.22),
            relative_difference_ci95: Some((0.22, 0.22)),
            significant: true,
            ..comparison(MetricId::SoftirqRatio, 1.0, 1.22)
        };
        let line = ipv6(&c);
        assert_eq!(
            line,
            "IPv6 122 %, IPv4 100 %: 22 % more softirq time in each of the 3 paired repetitions \
             (no spread between repetitions, so no confidence interval)"
        );
        assert!(
            !line.contains("22–22") && !line.contains("significant"),
            "{line}"
        );
        assert!(!claims_significance(&c));
    }

    #[test]
    fn zero_variance_without_a_relative_difference_says_so_too() {
        let c = Comparison {
            difference_ci95: Some((3.0, 3.0)),
            significant: true,
            ..comparison(MetricId::LossEpisodes, 0.0, 3.0)
        };
        assert_eq!(
            ipv6(&c),
            "IPv6 3 episodes, IPv4 0 episodes: more loss episodes, in each of the 3 paired repetitions"
        );
    }

    #[test]
    fn two_pairs_are_indicative_never_significant() {
        // Issue 14: --quick used 2 repetitions (t = 12.7).
        let c = Comparison {
            pairs: 2,
            difference_ci95: Some((-3.39, -0.2)),
            relative_difference: Some(-0.12),
            relative_difference_ci95: Some((-0.339, -0.002)),
            significant: true,
            theoretical_relative_difference: Some(-0.014),
            ..comparison(MetricId::GoodputBps, 10.0, 8.8)
        };
        let line = ipv6(&c);
        assert_eq!(
            line,
            "Indicative only: IPv6 8.80 bit/s, IPv4 10 bit/s: 12 % slower (95 % CI −34 to −0.20 %; 2 paired \
             repetitions; 3 or more are needed to call a difference significant); \
             the header predicts 1.4 % slower"
        );
        assert!(!claims_significance(&c));
    }

    #[test]
    fn contended_trials_are_named_as_the_reason_for_no_significance() {
        // Issue 14: "IPv6 is 367 % faster, significant" from a starved IPv4 client.
        let c = Comparison {
            difference_ci95: Some((2.0, 5.34)),
            relative_difference: Some(3.67),
            relative_difference_ci95: Some((2.0, 5.34)),
            significant: false,
            warnings: vec![dualperf_model::ComparisonWarning::Contended {
                arm: ArmId::native(IpFamily::V4),
                contended: 2,
                trials: 3,
                evidence: dualperf_model::ContentionEvidence {
                    foreign_cpu_ratio: Some(0.6),
                    machine_cpus: 2,
                    ..Default::default()
                },
            }],
            ..comparison(MetricId::GoodputBps, 1.0, 4.67)
        };
        assert_eq!(
            ipv6(&c),
            "Not significant: 2 of 3 IPv4 trials ran while other programs used 60 % of the CPUs; \
             IPv6 4.67 bit/s, IPv4 1 bit/s: 367 % faster (95 % CI +200 to +534 %)"
        );
        assert!(!claims_significance(&c));
        let two_pairs = Comparison { pairs: 2, ..c };
        assert!(ipv6(&two_pairs).starts_with(
            "Not significant: 2 of 3 IPv4 trials ran while other programs used 60 % of the CPUs; \
             indicative only: IPv6 4.67 bit/s, IPv4 1 bit/s: 367 % faster"
        ));
    }

    #[test]
    fn a_difference_lost_to_holm_adjustment_says_so() {
        let c = Comparison {
            difference_ci95: Some((0.9, 5.1)),
            relative_difference: Some(0.03),
            relative_difference_ci95: Some((0.009, 0.051)),
            significant: false,
            p_value: Some(0.0352),
            adjusted_p_value: Some(0.1056),
            warnings: vec![ComparisonWarning::MultipleComparisons {
                comparisons: 3,
                p_value: 0.0352,
                adjusted_p_value: 0.1056,
            }],
            ..comparison(MetricId::GoodputBps, 100.0, 103.0)
        };
        assert_eq!(
            ipv6(&c),
            "No significant difference after Holm adjustment over 3 headline comparisons \
             (p = 0.035, adjusted 0.106): IPv6 103 bit/s, IPv4 100 bit/s: 3.0 % faster \
             (95 % CI +0.90 to +5.1 %)"
        );
    }

    #[test]
    fn the_significance_note_names_the_adjustment() {
        let mut analysis = Analysis {
            method: Some(dualperf_model::AnalysisMethod {
                confidence_level: 0.95,
                multiple_comparisons: Some(dualperf_model::MultipleComparisonControl {
                    method: dualperf_model::AdjustmentMethod::Holm,
                    family: "headline comparisons".into(),
                    comparisons: 5,
                    alpha: 0.05,
                }),
                contention: Some(dualperf_model::ContentionThresholds {
                    foreign_cpu_ratio: 0.25,
                    steal_ratio: 0.05,
                    pressure_ratio: 0.5,
                    pressure_foreign_cpu_ratio: 0.1,
                    run_queue_wait_ratio: None,
                    busiest_thread_demand_ratio: None,
                    wait_per_transaction_ratio: None,
                    pacer_stall_ratio: None,
                    pacer_owed_ratio: None,
                }),
                ..Default::default()
            }),
            ..Analysis::default()
        };
        assert_eq!(
            significance_note(&analysis).unwrap(),
            "Significance: paired t-tests at 95 %, Holm-adjusted over 5 headline comparisons \
             (family-wise 5 %); a comparison resting on contended trials is never significant."
        );
        analysis.method.as_mut().unwrap().multiple_comparisons = None;
        assert_eq!(significance_note(&analysis), None);
    }

    /// The issue's example as stats attributes it: 6.4 % slower, the header
    /// 1.4 %, 5 % more CPU per packet on a CPU-bound receiver.
    fn attributed(pairs: u64, ci: (f64, f64)) -> Comparison {
        Comparison {
            pairs,
            difference_ci95: Some((ci.0 * 100.0, ci.1 * 100.0)),
            relative_difference: Some(-0.064),
            relative_difference_ci95: Some(ci),
            significant: ci.1 < 0.0,
            theoretical_relative_difference: Some(-0.0138),
            attribution: Some(dualperf_model::Attribution {
                measured: -0.064,
                header: Some(-0.0138),
                cpu: Some(dualperf_model::CpuPart {
                    end: dualperf_model::CpuEnd::Receiver,
                    per: dualperf_model::CostUnit::Packet,
                    cost_difference: 0.05,
                    explained: 1.0 / 1.05 - 1.0,
                }),
                unexplained: -0.064 + 0.0138 - (1.0 / 1.05 - 1.0),
                ..Default::default()
            }),
            ..comparison(MetricId::GoodputBps, 100.0, 93.6)
        }
    }

    #[test]
    fn every_verdict_carries_its_attribution() {
        let c = attributed(3, (-0.077, -0.051));
        assert_eq!(
            ipv6(&c),
            "IPv6 93.6 bit/s, IPv4 100 bit/s: 6.4 % slower (95 % CI 5.1–7.7 %, significant); the header \
             explains 1.4 %, 5.0 % more CPU per packet on the receiver explains 4.8 %; \
             0.26 % is unexplained"
        );
        // The why is in the verdict: no second clause beside it.
        let analysis = Analysis {
            comparisons: vec![c.clone()],
            ..Analysis::default()
        };
        assert_eq!(why_clause(&analysis, &c, "IPv6"), None);
    }

    #[test]
    fn two_pairs_and_zero_spread_carry_predictions_not_explanations() {
        let two = attributed(2, (-0.34, -0.002));
        assert_eq!(
            ipv6(&two),
            "Indicative only: IPv6 93.6 bit/s, IPv4 100 bit/s: 6.4 % slower (95 % CI −34 to −0.20 %; 2 paired \
             repetitions; 3 or more are needed to call a difference significant); the header \
             predicts 1.4 % slower, 5.0 % more CPU per packet on the receiver would make it \
             4.8 % slower"
        );
        let flat = attributed(3, (-0.064, -0.064));
        assert_eq!(
            ipv6(&flat),
            "IPv6 93.6 bit/s, IPv4 100 bit/s: 6.4 % slower in each of the 3 paired repetitions (no spread \
             between repetitions, so no confidence interval); the header predicts 1.4 % \
             slower, 5.0 % more CPU per packet on the receiver would make it 4.8 % slower"
        );
    }

    #[test]
    fn equal_values_read_as_the_same() {
        let c = Comparison {
            difference_ci95: Some((0.0, 0.0)),
            relative_difference: Some(0.0),
            relative_difference_ci95: Some((0.0, 0.0)),
            ..comparison(MetricId::RetransmittedSegments, 7.0, 7.0)
        };
        assert_eq!(ipv6(&c), "IPv6 7 segments, IPv4 7 segments: the same");
    }

    #[test]
    fn every_metric_has_words_of_its_own_direction() {
        for metric in MetricId::ALL {
            let w = wording(*metric);
            assert_ne!(w.more, w.less, "{metric}");
            assert_ne!(w.more, "a higher value", "{metric} has no wording");
        }
    }

    #[test]
    fn the_cpu_cost_is_named_beside_a_throughput_gap() {
        let gap = Comparison {
            difference_ci95: Some((-5.7, -3.9)),
            relative_difference: Some(-0.048),
            relative_difference_ci95: Some((-0.057, -0.039)),
            significant: true,
            theoretical_relative_difference: Some(-0.014),
            ..comparison(MetricId::GoodputBps, 100.0, 95.2)
        };
        let cost = Comparison {
            difference_ci95: Some((2.0, 5.0)),
            relative_difference: Some(0.035),
            relative_difference_ci95: Some((0.02, 0.05)),
            significant: true,
            ..comparison(MetricId::ClientServiceDemandUsPerMib, 100.0, 103.5)
        };
        let analysis = Analysis {
            comparisons: vec![gap.clone(), cost],
            ..Analysis::default()
        };
        assert_eq!(
            why_clause(&analysis, &gap, "IPv6").as_deref(),
            Some(
                "the other 3.4 % coincide with 3.5 % more client CPU per MiB on IPv6 (significant)"
            )
        );
    }
}
