//! Tests of [`analyse`] on hand-built runs.

use dualperf_model::observation::{FlowCounters, Observations};
use dualperf_model::{
    HostFacts, IpFamily, PerFamily, RepetitionOrder, RunConfig, RunResult, TestKind, TestSpec,
    Trial, TrialOutcome,
};
use proptest::prelude::*;

use super::*;

fn spec() -> TestSpec {
    TestSpec {
        kind: TestKind::TcpStream,
        size_bytes: 131_072,
        duration_ms: 1000,
        warmup_ms: 0,
        parallel_streams: 1,
        reverse: false,
        rate: None,
        sample_interval_ms: 100,
        probe_interval_us: None,
    }
}

/// A tcp-stream trial whose goodput is `gbps` Gbit/s over 1 s.
fn trial(family: IpFamily, repetition: u32, gbps: Option<f64>) -> Trial {
    let outcome = match gbps {
        Some(gbps) => {
            let bytes = (gbps * 1e9 / 8.0).round() as u64;
            TrialOutcome::Ok(Box::new(Observations {
                measured_ns: 1_000_000_000,
                sender: FlowCounters { bytes, packets: 1 },
                receiver: FlowCounters { bytes, packets: 1 },
                ..Observations::default()
            }))
        }
        None => TrialOutcome::Failed {
            error: "connection refused".to_string(),
        },
    };
    Trial {
        point: 0,
        spec: spec(),
        family,
        repetition,
        started_at_unix_ms: 0,
        local_address: None,
        remote_address: None,
        server_seen_family: None,
        outcome,
    }
}

/// A run of one tcp-stream point with the given goodputs (None = failed).
fn run(v4: &[Option<f64>], v6: &[Option<f64>]) -> RunResult {
    let mut trials = Vec::new();
    for repetition in 0..v4.len().max(v6.len()) {
        if let Some(&g) = v4.get(repetition) {
            trials.push(trial(IpFamily::V4, repetition as u32, g));
        }
        if let Some(&g) = v6.get(repetition) {
            trials.push(trial(IpFamily::V6, repetition as u32, g));
        }
    }
    RunResult {
        schema: dualperf_model::RESULT_SCHEMA.to_string(),
        schema_version: dualperf_model::RESULT_SCHEMA_VERSION,
        run_id: "test-run".to_string(),
        started_at_unix_ms: 0,
        finished_at_unix_ms: 0,
        config: RunConfig {
            points: vec![spec()],
            families: IpFamily::ALL.to_vec(),
            repeat: v4.len() as u32,
            order: RepetitionOrder::Interleaved,
            targets: PerFamily::default(),
            host: None,
            port: 5201,
            client_cpus: vec![],
            server_cpus: vec![],
            command_line: vec![],
        },
        client_host: HostFacts::default(),
        server_host: None,
        testbed: None,
        trials,
        analysis: None,
        complete: true,
        errors: vec![],
    }
}

fn goodput_comparison(analysis: &Analysis) -> &Comparison {
    analysis
        .comparisons
        .iter()
        .find(|c| c.metric.name == "goodput_bps")
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
    assert!(close(rel_low, low / 21e9, 1e-12) && close(rel_high, high / 21e9, 1e-12));
    // MSS 1428 vs 1448 on a 1500-byte Ethernet path.
    assert!(close(
        c.theoretical_relative_difference.unwrap(),
        1428.0 / 1448.0 - 1.0,
        1e-12
    ));
    assert_eq!(
        c.verdict,
        "IPv6 is 4.1 % slower (95 % CI 1.4–6.9 %, significant); the header explains 1.4 %"
    );
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
        c.warnings.iter().any(|w| w == "IPv4: 1 of 3 trials failed"),
        "{:?}",
        c.warnings
    );
    assert!(
        c.warnings
            .iter()
            .any(|w| w.starts_with("unequal repetitions")),
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
    assert_eq!(c.per_family.v6.mean, 9e9);
    assert!(
        c.warnings.iter().any(|w| w == "IPv6: 1 of 2 trials failed"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn an_unstable_family_gets_a_cv_warning() {
    // IPv4 5, 10, 15: mean 10, sd 5, CV 50 %.
    let analysis = analyse(&run(
        &[Some(5.0), Some(10.0), Some(15.0)],
        &[Some(9.0), Some(9.1), Some(9.2)],
    ));
    let c = goodput_comparison(&analysis);
    assert!(
        c.warnings
            .contains(&"IPv4 unstable: CV 50 % > 10 %; repeat more or run longer".to_string()),
        "{:?}",
        c.warnings
    );
    assert!(!c.warnings.iter().any(|w| w.starts_with("IPv6 unstable")));
}

#[test]
fn a_single_repetition_has_no_interval_and_says_why() {
    let analysis = analyse(&run(&[Some(10.0)], &[Some(9.0)]));
    let c = goodput_comparison(&analysis);
    assert_eq!(c.difference_ci95, None);
    assert!(!c.significant);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("only 1 paired repetition")),
        "{:?}",
        c.warnings
    );
    assert!(
        c.verdict.contains("no confidence interval"),
        "{}",
        c.verdict
    );
}

#[test]
fn a_family_whose_trials_all_failed_is_missing_with_the_error() {
    let analysis = analyse(&run(&[Some(10.0), Some(11.0)], &[None, None]));
    assert!(analysis.comparisons.is_empty());
    let summary = analysis
        .summaries
        .iter()
        .find(|s| s.metric.name == "goodput_bps")
        .unwrap();
    assert!(summary.per_family.v4.is_some() && summary.per_family.v6.is_none());
    assert!(analysis
        .missing
        .iter()
        .any(|(point, metric, reason)| *point == 0
            && metric == "goodput_bps"
            && reason == "IPv6: all 2 trials failed (first error: connection refused)"));
}

#[test]
fn metrics_that_apply_but_were_not_recorded_are_listed_with_a_reason() {
    let analysis = analyse(&run(&[Some(10.0), Some(11.0)], &[Some(9.0), Some(9.5)]));
    let reason = analysis
        .missing
        .iter()
        .find(|(_, metric, _)| metric == "tcp_efficiency_ratio")
        .map(|(_, _, reason)| reason.as_str());
    assert_eq!(reason, Some("IPv4: no TCP_INFO counters were recorded"));
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
        summary
            .per_family
            .v4
            .as_ref()
            .into_iter()
            .for_each(&mut summary_numbers);
        summary
            .per_family
            .v6
            .as_ref()
            .into_iter()
            .for_each(&mut summary_numbers);
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
    assert_eq!(c.verdict, "IPv6 and IPv4 both measured 0");
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
    fn permuting_repetitions_within_a_family_changes_no_summary(
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
        for (a, b) in original.summaries.iter().zip(&permuted.summaries) {
            let (a, b) = (a.per_family.v4.unwrap(), b.per_family.v4.unwrap());
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
