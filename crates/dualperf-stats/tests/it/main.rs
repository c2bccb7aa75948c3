//! Integration tests of dualperf-stats on a stored run: the fixture is a
//! `RunResult` as `--json` writes it (a udp-probe point and a tcp-stream
//! point, 3 interleaved repetitions on the native IPv4 and IPv6 arms, IPv4
//! the baseline, hand-made observations whose answers are worked out
//! below), stored at schema v1 (families, upgraded to arms on load) and at
//! schema v2 (arms).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

mod generate;

use dualperf_fixtures::{analysed, synthetic};
use dualperf_model::{Analysis, ArmId, Comparison, IpFamily, MetricId, RunResult};
use dualperf_stats::{analyse, tidy_rows};

const FIXTURE_V1: &str = include_str!("../fixtures/run_v1_lab_probe_and_tcp_stream.json");
const FIXTURE_V2: &str = include_str!("../fixtures/run_v2_lab_probe_and_tcp_stream.json");

fn fixture() -> RunResult {
    serde_json::from_str(FIXTURE_V2).expect("the v2 fixture loads")
}

/// The comparison of IPv6 with the IPv4 baseline.
fn comparison(analysis: &Analysis, point: usize, metric: MetricId) -> &Comparison {
    analysis
        .comparisons
        .iter()
        .find(|c| c.point == point && c.metric == metric && c.arm == ArmId::native(IpFamily::V6))
        .unwrap_or_else(|| panic!("no comparison of {metric} at point {point}"))
}

#[test]
fn the_stored_v1_fixture_upgrades_to_what_the_builder_makes() {
    let v1: RunResult = serde_json::from_str(FIXTURE_V1).expect("the v1 fixture still loads");
    let expected = RunResult {
        schema_version: 1,
        ..generate::fixture_run()
    };
    assert_eq!(v1, expected);
}

#[test]
fn the_stored_v2_fixture_matches_what_the_builder_makes() {
    assert_eq!(fixture(), generate::fixture_run());
}

#[test]
fn both_schema_versions_analyse_alike() {
    let v1: RunResult = serde_json::from_str(FIXTURE_V1).unwrap();
    assert_eq!(analyse(&v1), analyse(&fixture()));
}

#[test]
fn probe_delay_loss_and_reordering_come_out_as_worked_by_hand() {
    let analysis = analyse(&fixture());
    // IPv6 loses probe 12 of 20 in every repetition: 5 %.
    let loss = comparison(&analysis, 0, MetricId::LossRatio);
    assert_eq!(loss.arm_summary.mean, 0.05);
    assert_eq!(loss.baseline_summary.mean, 0.0);
    assert!(loss.significant);
    // IPv4 swaps probes 5 and 6: 1 reordered of 20.
    let reordered = comparison(&analysis, 0, MetricId::ReorderedRatio);
    assert_eq!(reordered.baseline_summary.mean, 0.05);
    // Base one-way delay 30/32 µs (+0.5 µs per repetition) + wobble 0–4 µs:
    // minimum over a repetition 30.0/32.0 µs + repetition × 0.5 µs.
    let owd_min = comparison(&analysis, 0, MetricId::OwdMinNs);
    assert_eq!(owd_min.baseline_summary.mean, 30_500.0);
    assert_eq!(owd_min.difference_mean, 2_000.0);
    // PDV needs no synchronised clock and is the same pattern on both arms.
    let pdv = comparison(&analysis, 0, MetricId::Pdv999Ns);
    assert!(pdv.baseline_summary.mean <= 4_000.0);
}

#[test]
fn probe_loss_costs_voice_quality_by_the_e_model() {
    let analysis = analyse(&fixture());
    let mos = comparison(&analysis, 0, MetricId::VoiceMos);
    // IPv6: Ta ≈ 0.032 ms + ≤0.004 ms + 10 ms → Id ≈ 0.241; Ppl = 5 % + 0.1 %
    // of 95 % = 5.095 % → Ie_eff = 95·5.095 / (5.095 + 25.1) = 16.03;
    // R ≈ 76.93 → MOS ≈ 3.90. IPv4 (0.1 % late discards only): MOS ≈ 4.39.
    assert!(
        (mos.arm_summary.mean - 3.90).abs() < 0.01,
        "{}",
        mos.arm_summary.mean
    );
    assert!(
        (mos.baseline_summary.mean - 4.39).abs() < 0.01,
        "{}",
        mos.baseline_summary.mean
    );
    // Worse voice quality over IPv6 (the report words it): a lower MOS,
    // where higher is better.
    assert!(MetricId::VoiceMos.higher_is_better());
    assert!(mos.difference_mean < 0.0);
}

#[test]
fn tcp_stream_difference_and_the_header_share() {
    let analysis = analyse(&fixture());
    let goodput = comparison(&analysis, 1, MetricId::GoodputBps);
    // v4 9.40/9.42/9.38, v6 9.27/9.30/9.24 Gbit/s: differences −0.13, −0.12,
    // −0.14 → mean −0.13 Gbit/s = −1.38 % of 9.40.
    assert!(
        (goodput.difference_mean + 0.13e9).abs() < 10.0,
        "{}",
        goodput.difference_mean
    );
    assert!(goodput.significant);
    // The verdict "IPv6 is 1.4 % slower (95 % CI 1.1–1.6 %, significant);
    // the header explains 1.4 %" is made of these numbers:
    let relative = goodput.relative_difference.unwrap();
    assert!((relative + 0.0138).abs() < 5e-4, "{relative}");
    let (low, high) = goodput.relative_difference_ci95.unwrap();
    assert!(
        (low + 0.016).abs() < 5e-4 && (high + 0.011).abs() < 5e-4,
        "{low} {high}"
    );
    let theory = goodput.theoretical_relative_difference.unwrap();
    assert!((theory - (1428.0 / 1448.0 - 1.0)).abs() < 1e-12);
    assert!(theory.abs() <= relative.abs());
    let efficiency = comparison(&analysis, 1, MetricId::TcpEfficiencyRatio);
    assert!(efficiency.baseline_summary.mean > 0.99998);
}

#[test]
fn analysis_json_round_trips_inside_the_result_without_nan() {
    let result = analysed(fixture());
    let json = serde_json::to_string(&result).unwrap();
    assert!(!json.contains("NaN"));
    let back: RunResult = serde_json::from_str(&json).unwrap();
    assert_eq!(back, result);
}

#[test]
fn tidy_rows_are_one_per_point_arm_and_metric() {
    let result = fixture();
    let analysis = analyse(&result);
    let rows = tidy_rows(&result, &analysis);
    assert_eq!(rows.len(), analysis.summaries.len());
    // Every comparison is on the IPv6 row of its point and metric.
    let compared: Vec<_> = rows.iter().filter(|r| r.baseline.is_some()).collect();
    assert_eq!(compared.len(), analysis.comparisons.len());
    assert!(compared.iter().all(|r| r.arm.as_str() == "v6"));
    // Each compared metric has a baseline row and an IPv6 row.
    for row in &compared {
        assert!(rows
            .iter()
            .any(|r| r.point == row.point && r.metric == row.metric && r.arm.as_str() == "v4"));
    }
}

#[test]
fn the_synthetic_run_analyses_every_arm_against_the_baseline() {
    let run = synthetic::synthetic_run();
    let analysis = run.analysis.as_ref().unwrap();
    assert_eq!(analysis, &analyse(&run));
    assert!(analysis
        .comparisons
        .iter()
        .all(|c| c.arm.as_str() == "v6" && c.baseline.as_str() == "v4"));
    // TCP at the largest write: the link caps both, IPv6 ≈ 1.4 % below.
    let last_tcp = run
        .config
        .points
        .iter()
        .rposition(|p| p.kind == dualperf_model::TestKind::TcpStream)
        .unwrap();
    let goodput = comparison(analysis, last_tcp, MetricId::GoodputBps);
    let relative = goodput.relative_difference.unwrap();
    assert!((-0.02..-0.008).contains(&relative), "{relative}");
}
