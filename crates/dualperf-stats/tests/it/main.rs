//! Integration tests of dualperf-stats on a stored run: the fixture is a
//! schema-v1 `RunResult` as `--json` writes it (a udp-probe point and a
//! tcp-stream point, 3 interleaved repetitions per family, hand-made
//! observations whose answers are worked out below).

mod generate;

use dualperf_model::RunResult;
use dualperf_stats::{analyse, tidy_rows, write_tidy_csv};

const FIXTURE: &str = include_str!("../fixtures/run_v1_lab_probe_and_tcp_stream.json");

fn fixture() -> RunResult {
    serde_json::from_str(FIXTURE).expect("the v1 fixture still loads")
}

fn comparison<'a>(
    analysis: &'a dualperf_model::Analysis,
    point: usize,
    metric: &str,
) -> &'a dualperf_model::Comparison {
    analysis
        .comparisons
        .iter()
        .find(|c| c.point == point && c.metric.name == metric)
        .unwrap_or_else(|| panic!("no comparison of {metric} at point {point}"))
}

#[test]
fn the_stored_fixture_matches_what_the_builder_makes() {
    assert_eq!(fixture(), generate::fixture_run());
}

#[test]
fn probe_delay_loss_and_reordering_come_out_as_worked_by_hand() {
    let analysis = analyse(&fixture());
    // IPv6 loses probe 12 of 20 in every repetition: 5 %.
    let loss = comparison(&analysis, 0, "loss_ratio");
    assert_eq!(loss.per_family.v6.mean, 0.05);
    assert_eq!(loss.per_family.v4.mean, 0.0);
    assert!(loss.significant);
    // IPv4 swaps probes 5 and 6: 1 reordered of 20.
    let reordered = comparison(&analysis, 0, "reordered_ratio");
    assert_eq!(reordered.per_family.v4.mean, 0.05);
    // Base one-way delay 30/32 µs (+0.5 µs per repetition) + wobble 0–4 µs:
    // minimum over a repetition 30.0/32.0 µs + repetition × 0.5 µs.
    let owd_min = comparison(&analysis, 0, "owd_min_ns");
    assert_eq!(owd_min.per_family.v4.mean, 30_500.0);
    assert_eq!(owd_min.difference_mean, 2_000.0);
    // PDV needs no synchronised clock and is the same pattern in both families.
    let pdv = comparison(&analysis, 0, "pdv_999_ns");
    assert!(pdv.per_family.v4.mean <= 4_000.0);
}

#[test]
fn probe_loss_costs_voice_quality_by_the_e_model() {
    let analysis = analyse(&fixture());
    let mos = comparison(&analysis, 0, "voice_mos");
    // IPv6: Ta ≈ 0.032 ms + ≤0.004 ms + 10 ms → Id ≈ 0.241; Ppl = 5 % + 0.1 %
    // of 95 % = 5.095 % → Ie_eff = 95·5.095 / (5.095 + 25.1) = 16.03;
    // R ≈ 76.93 → MOS ≈ 3.90. IPv4 (0.1 % late discards only): MOS ≈ 4.39.
    assert!(
        (mos.per_family.v6.mean - 3.90).abs() < 0.01,
        "{}",
        mos.per_family.v6.mean
    );
    assert!(
        (mos.per_family.v4.mean - 4.39).abs() < 0.01,
        "{}",
        mos.per_family.v4.mean
    );
    assert!(
        mos.verdict.contains("worse voice quality"),
        "{}",
        mos.verdict
    );
}

#[test]
fn tcp_stream_verdict_names_the_gap_and_the_header_share() {
    let analysis = analyse(&fixture());
    let goodput = comparison(&analysis, 1, "goodput_bps");
    // v4 9.40/9.42/9.38, v6 9.27/9.30/9.24 Gbit/s: differences −0.13, −0.12,
    // −0.14 → mean −0.13 Gbit/s = −1.38 % of 9.40.
    assert!(
        (goodput.difference_mean + 0.13e9).abs() < 10.0,
        "{}",
        goodput.difference_mean
    );
    assert!(goodput.significant);
    assert_eq!(
        goodput.verdict,
        "IPv6 is 1.4 % slower (95 % CI 1.1–1.6 %, significant); the header explains 1.4 %"
    );
    let efficiency = comparison(&analysis, 1, "tcp_efficiency_ratio");
    assert!(efficiency.per_family.v4.mean > 0.99998);
}

#[test]
fn analysis_json_round_trips_inside_the_result_without_nan() {
    let mut result = fixture();
    result.analysis = Some(analyse(&result));
    let json = serde_json::to_string(&result).unwrap();
    assert!(!json.contains("NaN"));
    let back: RunResult = serde_json::from_str(&json).unwrap();
    assert_eq!(back, result);
}

#[test]
fn tidy_csv_has_three_rows_per_compared_metric() {
    let result = fixture();
    let analysis = analyse(&result);
    let rows = tidy_rows(&result, &analysis);
    let compared = analysis.comparisons.len();
    let single = analysis
        .summaries
        .iter()
        .filter(|s| s.per_family.v4.is_none() || s.per_family.v6.is_none())
        .count();
    assert_eq!(rows.len(), 3 * compared + single);
    let mut csv = Vec::new();
    write_tidy_csv(&rows, &mut csv).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap().lines().count(),
        rows.len() + 1
    );
}
