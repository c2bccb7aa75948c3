//! Tests of [`analyse`] on hand-built runs (builders from `dualperf-fixtures`).
//!
//! The classic shape is two native arms: `v4` is the baseline, `v6` the
//! compared arm, so "IPv6 − IPv4" of the family era is "arm − baseline".

use dualperf_fixtures::{arm, arm_id, native_arms, stream_run};
use dualperf_model::{ArmPath, PerFamily, TestKind, TunnelPlacement};
use proptest::prelude::*;

use super::*;

/// A run of one tcp-stream point with the given goodputs in Gbit/s (None =
/// failed) on the native arms, IPv4 the baseline.
fn run(v4: &[Option<f64>], v6: &[Option<f64>]) -> RunResult {
    stream_run(native_arms(PerFamily::default()), &[v4, v6])
}

fn v4() -> ArmId {
    ArmId::native(IpFamily::V4)
}

fn v6() -> ArmId {
    ArmId::native(IpFamily::V6)
}

fn six_in_four() -> Arm {
    arm(
        "v6-6in4",
        IpFamily::V6,
        ArmPath::SixInFour {
            placement: TunnelPlacement::RouterRouter,
        },
    )
}

fn goodput_comparison(analysis: &Analysis) -> &Comparison {
    analysis
        .comparisons
        .iter()
        .find(|c| c.metric == MetricId::GoodputBps)
        .unwrap()
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

#[test]
fn paired_differences_give_the_hand_computed_interval() {
    // v4 20, 22, 21 Gbit/s; v6 19, 21, 20.4. Differences −1, −1, −0.6:
    // mean −0.866667, sd 0.230940, t(0.975, 2) = 4.302653,
    // half width 4.302653 · 0.230940 / √3 = 0.573687.
    let analysis = analyse(&run(
        &[Some(20.0), Some(22.0), Some(21.0)],
        &[Some(19.0), Some(21.0), Some(20.4)],
    ));
    let c = goodput_comparison(&analysis);
    assert_eq!((&c.arm, &c.baseline), (&v6(), &v4()));
    assert_eq!(c.pairs, 3);
    assert!(
        close(c.difference_mean, -0.866_667e9, 1e3),
        "{}",
        c.difference_mean
    );
    let (low, high) = c.difference_ci95.unwrap();
    assert!(close(low, (-0.866_667 - 0.573_687) * 1e9, 2e3), "{low}");
    assert!(close(high, (-0.866_667 + 0.573_687) * 1e9, 2e3), "{high}");
    assert!(c.significant);
    // Relative to the IPv4 mean of 21 Gbit/s: −4.13 %.
    assert!(close(
        c.relative_difference.unwrap(),
        -0.866_667 / 21.0,
        1e-6
    ));
    let (rel_low, rel_high) = c.relative_difference_ci95.unwrap();
    // On the log scale (`relative`): R = 20.1333/21 = 0.958730, linear
    // half width 0.573687/21 = 0.027318, h = 0.027318 · ln R / (R − 1) =
    // 0.027318 · 1.021325 = 0.027901; CI R·e^(∓h) − 1.
    assert!(close(rel_low, -0.067_647, 1e-5) && close(rel_high, -0.014_146, 1e-5));
    // What the verdict "IPv6 is 4.1 % slower (95 % CI 1.3–6.9 %, significant);
    // the header explains 1.4 %" is made of (the report words it):
    assert!(rel_low > -1.0 && rel_low < c.relative_difference.unwrap());
    // MSS 1428 vs 1448 on a 1500-byte Ethernet path.
    let theory = c.theoretical_relative_difference.unwrap();
    assert!(close(theory, 1428.0 / 1448.0 - 1.0, 1e-12));
    assert!(theory.abs() <= c.relative_difference.unwrap().abs());
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn pairing_follows_repetition_numbers_not_positions() {
    // IPv4 repetition 1 failed: only repetitions 0 and 2 pair.
    let analysis = analyse(&run(
        &[Some(10.0), None, Some(11.0)],
        &[Some(9.0), Some(5.0), Some(10.0)],
    ));
    let c = goodput_comparison(&analysis);
    assert_eq!(c.pairs, 2);
    assert!(close(c.difference_mean, -1e9, 1.0));
    assert!(
        c.warnings.contains(&ComparisonWarning::FailedTrials {
            arm: v4(),
            failed: 1,
            trials: 3
        }),
        "{:?}",
        c.warnings
    );
    assert!(
        c.warnings.contains(&ComparisonWarning::UnequalRepetitions {
            arm_count: 3,
            baseline_count: 2,
            pairs: 2
        }),
        "{:?}",
        c.warnings
    );
}

#[test]
fn a_trial_the_server_saw_over_the_other_family_is_excluded() {
    let mut result = run(&[Some(10.0), Some(10.0)], &[Some(9.0), Some(12.0)]);
    let mapped = result
        .trials
        .iter_mut()
        .find(|t| t.family == IpFamily::V6 && t.repetition == 1)
        .unwrap();
    mapped.server_seen_family = Some(IpFamily::V4);
    let analysis = analyse(&result);
    let c = goodput_comparison(&analysis);
    assert_eq!(c.pairs, 1);
    assert_eq!(c.arm_summary.mean, 9e9);
    assert!(
        c.warnings.contains(&ComparisonWarning::FailedTrials {
            arm: v6(),
            failed: 1,
            trials: 2
        }),
        "{:?}",
        c.warnings
    );
}

#[test]
fn a_nat64_arm_is_expected_to_reach_the_server_over_ipv4() {
    let nat64 = arm(
        "v6-nat64",
        IpFamily::V6,
        ArmPath::Nat64 {
            prefix: "64:ff9b::/96".into(),
        },
    );
    let mut result = stream_run(
        vec![Arm::native(IpFamily::V4, None), nat64],
        &[&[Some(10.0), Some(10.0)], &[Some(9.0), Some(9.0)]],
    );
    for trial in &mut result.trials {
        trial.server_seen_family = Some(IpFamily::V4);
    }
    let c = goodput_comparison(&analyse(&result)).clone();
    assert_eq!(c.pairs, 2);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn an_unstable_arm_gets_a_cv_warning() {
    // IPv4 5, 10, 15: mean 10, sd 5, CV 50 %.
    let analysis = analyse(&run(
        &[Some(5.0), Some(10.0), Some(15.0)],
        &[Some(9.0), Some(9.1), Some(9.2)],
    ));
    let c = goodput_comparison(&analysis);
    assert!(
        c.warnings.contains(&ComparisonWarning::Unstable {
            arm: v4(),
            coefficient_of_variation: 0.5,
            threshold: 0.10
        }),
        "{:?}",
        c.warnings
    );
    assert!(!c
        .warnings
        .iter()
        .any(|w| matches!(w, ComparisonWarning::Unstable { arm, .. } if *arm == v6())));
}

#[test]
fn a_single_repetition_has_no_interval_and_says_why() {
    let analysis = analyse(&run(&[Some(10.0)], &[Some(9.0)]));
    let c = goodput_comparison(&analysis);
    assert_eq!(c.difference_ci95, None);
    assert_eq!(c.relative_difference_ci95, None);
    assert!(!c.significant);
    assert_eq!(c.warnings, vec![ComparisonWarning::FewPairs { pairs: 1 }]);
}

#[test]
fn no_common_repetition_gives_an_unpaired_difference_of_the_means() {
    let analysis = analyse(&run(&[Some(10.0), None], &[None, Some(8.0)]));
    let c = goodput_comparison(&analysis);
    assert_eq!(c.pairs, 0);
    assert!(close(c.difference_mean, -2e9, 1.0));
    assert_eq!(
        c.warnings,
        vec![
            ComparisonWarning::Unpaired,
            ComparisonWarning::FewPairs { pairs: 0 },
            ComparisonWarning::FailedTrials {
                arm: v4(),
                failed: 1,
                trials: 2
            },
            ComparisonWarning::FailedTrials {
                arm: v6(),
                failed: 1,
                trials: 2
            },
        ]
    );
}

#[test]
fn typed_warnings_serialise_with_their_kind() {
    let warning = ComparisonWarning::FailedTrials {
        arm: v6(),
        failed: 1,
        trials: 3,
    };
    let json = serde_json::to_string(&warning).unwrap();
    assert_eq!(
        json,
        r#"{"kind":"failed-trials","arm":"v6","failed":1,"trials":3}"#
    );
}

#[test]
fn an_arm_whose_trials_all_failed_is_missing_with_the_error() {
    let analysis = analyse(&run(&[Some(10.0), Some(11.0)], &[None, None]));
    assert!(analysis.comparisons.is_empty());
    let goodput: Vec<&ArmId> = analysis
        .summaries
        .iter()
        .filter(|s| s.metric == MetricId::GoodputBps)
        .map(|s| &s.arm)
        .collect();
    assert_eq!(goodput, vec![&v4()]);
    assert!(analysis.missing.contains(&MissingMetric {
        point: 0,
        arm: v6(),
        metric: MetricId::GoodputBps,
        reason: "all 2 trials failed (first error: connection refused)".to_string(),
    }));
}

#[test]
fn metrics_that_apply_but_were_not_recorded_are_listed_with_a_reason() {
    let analysis = analyse(&run(&[Some(10.0), Some(11.0)], &[Some(9.0), Some(9.5)]));
    let missing = analysis
        .missing
        .iter()
        .find(|m| m.metric == MetricId::TcpEfficiencyRatio && m.arm == v4())
        .unwrap();
    assert_eq!(missing.reason, "no TCP_INFO counters were recorded");
}

#[test]
fn three_arms_give_two_comparisons_against_the_baseline() {
    let arms = vec![
        Arm::native(IpFamily::V4, None),
        Arm::native(IpFamily::V6, None),
        six_in_four(),
    ];
    let analysis = analyse(&stream_run(
        arms,
        &[
            &[Some(20.0), Some(22.0), Some(21.0)],
            &[Some(19.0), Some(21.0), Some(20.4)],
            &[Some(18.0), Some(20.0), Some(19.5)],
        ],
    ));
    let goodput: Vec<&Comparison> = analysis
        .comparisons
        .iter()
        .filter(|c| c.metric == MetricId::GoodputBps)
        .collect();
    let arms: Vec<&str> = goodput.iter().map(|c| c.arm.as_str()).collect();
    assert_eq!(arms, ["v6", "v6-6in4"]);
    assert!(goodput.iter().all(|c| c.baseline == v4()));
    // The IPv6 comparison is the two-arm one.
    assert!(close(goodput[0].difference_mean, -0.866_667e9, 1e3));
    // 6in4: differences −2, −2, −1.5 Gbit/s.
    assert!(close(goodput[1].difference_mean, -1.833_333e9, 1e3));
    // The tunnel's outer IPv4 header: 1408 payload bytes per 1500-byte
    // packet against IPv4's 1448.
    let theory = goodput[1].theoretical_relative_difference.unwrap();
    assert!(close(theory, 1408.0 / 1448.0 - 1.0, 1e-12), "{theory}");
    // One summary per arm.
    let summaries = analysis
        .summaries
        .iter()
        .filter(|s| s.metric == MetricId::GoodputBps)
        .count();
    assert_eq!(summaries, 3);
}

#[test]
fn a_custom_baseline_flips_the_sign() {
    let mut result = run(
        &[Some(20.0), Some(22.0), Some(21.0)],
        &[Some(19.0), Some(21.0), Some(20.4)],
    );
    result.config.baseline = v6();
    let analysis = analyse(&result);
    let c = goodput_comparison(&analysis);
    assert_eq!((&c.arm, &c.baseline), (&v4(), &v6()));
    assert!(close(c.difference_mean, 0.866_667e9, 1e3));
    let (low, high) = c.difference_ci95.unwrap();
    assert!(close(low, (0.866_667 - 0.573_687) * 1e9, 2e3), "{low}");
    assert!(close(high, (0.866_667 + 0.573_687) * 1e9, 2e3), "{high}");
    // Relative to the IPv6 mean of 20.1333 Gbit/s.
    assert!(close(
        c.relative_difference.unwrap(),
        0.866_667 / 20.133_333,
        1e-6
    ));
    let theory = c.theoretical_relative_difference.unwrap();
    assert!(close(theory, 1448.0 / 1428.0 - 1.0, 1e-12), "{theory}");
    assert_eq!(c.baseline_summary.mean, 20.133_333_333_333_333e9);
}

#[test]
fn a_configured_arm_without_trials_is_missing() {
    let mut result = run(&[Some(10.0), Some(11.0)], &[Some(9.0), Some(9.5)]);
    result.config.arms.push(six_in_four());
    let analysis = analyse(&result);
    assert!(analysis.missing.contains(&MissingMetric {
        point: 0,
        arm: arm_id("v6-6in4"),
        metric: MetricId::GoodputBps,
        reason: "no trials ran".to_string(),
    }));
    assert!(analysis
        .comparisons
        .iter()
        .all(|c| c.arm == v6() && c.baseline == v4()));
}

#[test]
fn a_missing_baseline_gives_no_comparison() {
    let mut result = run(&[None, None], &[Some(9.0), Some(9.5)]);
    result.trials.retain(|t| t.arm == v6());
    let analysis = analyse(&result);
    assert!(analysis.comparisons.is_empty());
    assert!(analysis
        .missing
        .iter()
        .any(|m| m.arm == v4() && m.metric == MetricId::GoodputBps && m.reason == "no trials ran"));
}

#[test]
fn the_analysis_records_its_method() {
    let method = analyse(&run(&[Some(1.0)], &[Some(1.0)])).method.unwrap();
    assert_eq!(method.confidence_level, 0.95);
    assert_eq!(method.cv_warning_ratio, 0.10);
    assert_eq!(method.default_loss_waiting_time_ms, 2000);
}

/// Every floating-point number in an analysis.
fn numbers(analysis: &Analysis) -> Vec<f64> {
    let mut all = Vec::new();
    let mut summary_numbers = |s: &Summary| {
        all.extend([s.mean, s.min, s.max, s.median]);
        all.extend(
            s.standard_deviation
                .into_iter()
                .chain(s.coefficient_of_variation),
        );
        all.extend(s.ci95_low.into_iter().chain(s.ci95_high));
    };
    for summary in &analysis.summaries {
        summary_numbers(&summary.summary);
    }
    for c in &analysis.comparisons {
        summary_numbers(&c.arm_summary);
        summary_numbers(&c.baseline_summary);
    }
    for c in &analysis.comparisons {
        all.push(c.difference_mean);
        all.extend(c.difference_ci95.into_iter().flat_map(|(a, b)| [a, b]));
        all.extend(c.relative_difference);
        all.extend(
            c.relative_difference_ci95
                .into_iter()
                .flat_map(|(a, b)| [a, b]),
        );
        all.extend(c.theoretical_relative_difference);
    }
    all
}

#[test]
fn zero_goodput_gives_no_nan_in_json() {
    let analysis = analyse(&run(&[Some(0.0), Some(0.0)], &[Some(0.0), Some(0.0)]));
    assert!(numbers(&analysis).iter().all(|v| v.is_finite()));
    let c = goodput_comparison(&analysis);
    assert_eq!(c.relative_difference, None);
    // Both measured 0 (the report says so).
    assert_eq!((c.arm_summary.mean, c.baseline_summary.mean), (0.0, 0.0));
    assert_eq!(c.difference_mean, 0.0);
}

proptest! {
    #[test]
    fn a_confidence_interval_contains_the_mean(values in prop::collection::vec(-1e12f64..1e12, 2..40)) {
        let summary = summarise(&values).unwrap();
        let (low, high) = (summary.ci95_low.unwrap(), summary.ci95_high.unwrap());
        prop_assert!(low <= summary.mean && summary.mean <= high);
        prop_assert!(summary.min <= summary.median && summary.median <= summary.max);
    }

    #[test]
    fn permuting_repetitions_within_an_arm_changes_no_summary(
        v4 in prop::collection::vec(0.1f64..100.0, 1..8),
        v6 in prop::collection::vec(0.1f64..100.0, 1..8),
        rotation in 0usize..8,
    ) {
        let original = analyse(&run(
            &v4.iter().map(|&g| Some(g)).collect::<Vec<_>>(),
            &v6.iter().map(|&g| Some(g)).collect::<Vec<_>>(),
        ));
        let mut rotated = v4.clone();
        let k = rotation % rotated.len();
        rotated.rotate_left(k);
        let permuted = analyse(&run(
            &rotated.iter().map(|&g| Some(g)).collect::<Vec<_>>(),
            &v6.iter().map(|&g| Some(g)).collect::<Vec<_>>(),
        ));
        let baseline = |analysis: &Analysis| -> Vec<Summary> {
            analysis
                .summaries
                .iter()
                .filter(|s| s.arm == ArmId::native(IpFamily::V4))
                .map(|s| s.summary)
                .collect()
        };
        let (before, after) = (baseline(&original), baseline(&permuted));
        prop_assert_eq!(before.len(), after.len());
        for (a, b) in before.into_iter().zip(after) {
            prop_assert_eq!(a.count, b.count);
            prop_assert!(close(a.mean, b.mean, 1e-6 * a.mean.abs()));
            prop_assert_eq!((a.min, a.max, a.median), (b.min, b.max, b.median));
            let sd = |s: Summary| s.standard_deviation.unwrap_or(0.0);
            prop_assert!(close(sd(a), sd(b), 1e-6 * a.mean.abs()));
        }
    }

    #[test]
    fn every_number_in_an_analysis_is_finite(
        v4 in prop::collection::vec(prop::option::of(0.0f64..1e3), 1..6),
        v6 in prop::collection::vec(prop::option::of(0.0f64..1e3), 1..6),
    ) {
        let analysis = analyse(&run(&v4, &v6));
        prop_assert!(numbers(&analysis).iter().all(|v| v.is_finite()));
        let json = serde_json::to_string(&analysis).unwrap();
        prop_assert!(!json.contains("NaN"));
    }
}

/// Marks the trials of `arm` listed in `repetitions` as run while other
/// programs used 80 % of a 2-CPU machine (the tool, one process, used 0.4
/// of its 2 cores; the machine was never idle); the others ran on a quiet
/// machine.
fn contend(result: &mut RunResult, arm: &ArmId, repetitions: &[u32]) {
    use dualperf_model::{CpuObservations, EndsPlacement, ProcessCpu, SystemCpu};
    for trial in &mut result.trials {
        let TrialOutcome::Ok(o) = &mut trial.outcome else {
            continue;
        };
        o.placement = Some(EndsPlacement::SameProcess);
        let busy = if &trial.arm == arm && repetitions.contains(&trial.repetition) {
            200
        } else {
            40
        };
        o.cpu = CpuObservations {
            client: ProcessCpu {
                user_ns: 400_000_000,
                wall_ns: 1_000_000_000,
                ..ProcessCpu::default()
            },
            system: Some(SystemCpu {
                user: busy,
                idle: 200 - busy,
                cpus: 2,
                ..SystemCpu::default()
            }),
            ..CpuObservations::default()
        };
    }
}

#[test]
fn a_difference_resting_on_contended_trials_is_never_significant() {
    // The same clear difference as the hand-computed one …
    let mut result = run(
        &[Some(20.0), Some(22.0), Some(21.0)],
        &[Some(19.0), Some(21.0), Some(20.4)],
    );
    contend(&mut result, &v4(), &[]);
    assert!(goodput_comparison(&analyse(&result)).significant);
    // … with 2 of the 3 IPv4 trials run beside programs using 80 % of the CPUs.
    contend(&mut result, &v4(), &[0, 2]);
    let analysis = analyse(&result);
    let c = goodput_comparison(&analysis);
    assert!(!c.significant);
    let contended: Vec<_> = c
        .warnings
        .iter()
        .filter_map(|w| match w {
            ComparisonWarning::Contended {
                arm,
                contended,
                trials,
                evidence,
            } => Some((arm.clone(), *contended, *trials, evidence.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(contended.len(), 1, "{:?}", c.warnings);
    let (arm, count, trials, evidence) = &contended[0];
    assert_eq!((arm, *count, *trials), (&v4(), 2, 3));
    assert_eq!(evidence.cause, dualperf_model::ContentionCause::ForeignCpu);
    assert!((evidence.foreign_cpu_ratio.unwrap() - 0.8).abs() < 1e-9);
    // Every metric of the point carries it, and the thresholds are recorded.
    assert!(analysis.comparisons.iter().all(|c| !c.significant));
    let thresholds = analysis.method.unwrap().contention.unwrap();
    assert_eq!(thresholds.foreign_cpu_ratio, 0.25);
}

#[test]
fn paced_trials_that_missed_their_rate_are_named_per_arm() {
    use dualperf_model::{BitRate, IntervalSample};
    // 85 Mbit/s asked; IPv4 sent 94 Mbit/s in repetition 1, IPv6 kept it.
    let mut result = run(
        &[Some(0.085), Some(0.094), Some(0.085)],
        &[Some(0.085), Some(0.085), Some(0.085)],
    );
    for trial in &mut result.trials {
        trial.spec.kind = TestKind::UdpStream;
        trial.spec.rate = Some(BitRate::from_mbit(85));
        let TrialOutcome::Ok(o) = &mut trial.outcome else {
            continue;
        };
        let per_interval = o.sender.bytes / 10;
        o.intervals = (1..=10)
            .map(|i| IntervalSample {
                end_ns: i * 100_000_000,
                length_ns: 100_000_000,
                sent_bytes: per_interval,
                ..IntervalSample::default()
            })
            .collect();
    }
    for spec in &mut result.config.points {
        spec.kind = TestKind::UdpStream;
        spec.rate = Some(BitRate::from_mbit(85));
    }
    let analysis = analyse(&result);
    let c = goodput_comparison(&analysis);
    let off: Vec<_> = c
        .warnings
        .iter()
        .filter(|w| matches!(w, ComparisonWarning::OffRate { .. }))
        .collect();
    assert_eq!(off.len(), 1, "{:?}", c.warnings);
    let ComparisonWarning::OffRate {
        arm,
        off,
        trials,
        asked_bps,
        worst_trial_ratio,
        worst_interval_ratio,
    } = off[0]
    else {
        unreachable!()
    };
    assert_eq!((arm, *off, *trials, *asked_bps), (&v4(), 1, 3, 85e6));
    assert!((worst_trial_ratio - (94.0 / 85.0 - 1.0)).abs() < 1e-6);
    assert!((worst_interval_ratio.unwrap() - (94.0 / 85.0 - 1.0)).abs() < 1e-6);
}

#[test]
fn holm_matches_r_p_adjust() {
    // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
    let adjusted = holm_adjusted(&[0.01, 0.04, 0.03, 0.005]);
    for (a, e) in adjusted.iter().zip([0.03, 0.06, 0.06, 0.02]) {
        assert!(close(*a, e, 1e-12), "{adjusted:?}");
    }
    assert!(holm_adjusted(&[]).is_empty());
    assert_eq!(holm_adjusted(&[0.7, 0.9]), vec![1.0, 1.0]);
}

/// A run of tcp-stream points (sizes 1, 2, … KiB), each with the given
/// goodputs in Gbit/s on v4 and v6.
fn sweep(points: &[(&[f64], &[f64])]) -> RunResult {
    use dualperf_fixtures::{config, ok, result, spec, stream, trial};
    let arms = native_arms(PerFamily::default());
    let specs: Vec<_> = (0..points.len())
        .map(|i| spec(TestKind::TcpStream, 1024 * (i as u32 + 1)))
        .collect();
    let mut trials = Vec::new();
    for (index, (v4, v6)) in points.iter().enumerate() {
        for repetition in 0..v4.len() {
            for (arm, values) in arms.iter().zip([v4, v6]) {
                let outcome = ok(stream(values[repetition] * 1e9));
                trials.push(trial(index, &specs[index], arm, repetition as u32, outcome));
            }
        }
    }
    result(config(specs, arms), trials)
}

#[test]
fn a_weak_difference_among_several_headline_comparisons_loses_significance_under_holm() {
    // Differences 0.3, 0.2, 0.4: t = 5.196 with 2 df, p = 0.0352 each.
    let weak: (&[f64], &[f64]) = (&[10.0, 10.2, 9.9], &[10.3, 10.4, 10.3]);
    let alone = analyse(&sweep(&[weak]));
    let c = goodput_comparison(&alone);
    assert!(c.significant);
    assert!(close(c.p_value.unwrap(), 0.0352, 5e-4), "{:?}", c.p_value);
    assert_eq!(c.adjusted_p_value, c.p_value);

    let three = analyse(&sweep(&[weak, weak, weak]));
    let control = three
        .method
        .as_ref()
        .unwrap()
        .multiple_comparisons
        .clone()
        .unwrap();
    assert_eq!(control.comparisons, 3);
    assert_eq!(control.method, dualperf_model::AdjustmentMethod::Holm);
    for c in three
        .comparisons
        .iter()
        .filter(|c| c.metric == MetricId::GoodputBps)
    {
        assert!(!c.significant);
        assert!(close(c.adjusted_p_value.unwrap(), 3.0 * 0.0352, 2e-3));
        assert!(c.warnings.iter().any(|w| matches!(
            w,
            ComparisonWarning::MultipleComparisons { comparisons: 3, .. }
        )));
    }
    // Secondary metrics are outside the family: their own test decides.
    let sender = three
        .comparisons
        .iter()
        .find(|c| c.metric == MetricId::SenderThroughputBps)
        .unwrap();
    assert!(sender.significant && sender.adjusted_p_value.is_none());
}

#[test]
fn no_spread_has_no_p_value_and_stays_outside_the_family() {
    let analysis = analyse(&run(
        &[Some(10.0), Some(11.0), Some(12.0)],
        &[Some(9.0), Some(10.0), Some(11.0)],
    ));
    let c = goodput_comparison(&analysis);
    assert_eq!(c.p_value, None);
    assert_eq!(c.adjusted_p_value, None);
    assert_eq!(
        analysis
            .method
            .unwrap()
            .multiple_comparisons
            .unwrap()
            .comparisons,
        0
    );
}

proptest! {
    /// Issue 24: no CI of a rate or ratio below −100 % anywhere in the
    /// analysis, and every relative point estimate inside its CI.
    #[test]
    fn no_relative_ci_of_the_analysis_falls_below_minus_100_percent(
        v4 in prop::collection::vec(0.001f64..100.0, 2..6),
        v6 in prop::collection::vec(0.001f64..100.0, 2..6),
    ) {
        let v4: Vec<Option<f64>> = v4.into_iter().map(Some).collect();
        let v6: Vec<Option<f64>> = v6.into_iter().map(Some).collect();
        let analysis = analyse(&run(&v4, &v6));
        prop_assert!(!analysis.comparisons.is_empty());
        for c in &analysis.comparisons {
            let (Some((low, high)), Some(relative)) = (c.relative_difference_ci95, c.relative_difference)
            else {
                continue;
            };
            prop_assert!(low >= -1.0, "{:?}: low {}", c.metric, low);
            let slack = 1e-9 * relative.abs().max(1.0);
            prop_assert!(
                low <= relative + slack && relative - slack <= high,
                "{:?}: {} not in [{}, {}]", c.metric, relative, low, high
            );
        }
    }
}
