//! Snapshot tests of the text formats: any change to Markdown or CSV output
//! shows up as a reviewable diff (`cargo insta review`). Runs are SYNTHETIC
//! (`dualperf_fixtures::synthetic`).

use dualperf_fixtures::synthetic;
use dualperf_report::{render, render_comparison, Format};

#[test]
fn markdown_of_a_small_run_matches_the_snapshot() {
    let run = synthetic::small_synthetic_run();
    insta::assert_snapshot!(render(&run, Format::Markdown).unwrap());
}

#[test]
fn csv_of_a_small_run_matches_the_snapshot() {
    let run = synthetic::small_synthetic_run();
    insta::assert_snapshot!(render(&run, Format::Csv).unwrap());
}

#[test]
fn markdown_comparison_of_two_runs_matches_the_snapshot() {
    let before = synthetic::small_synthetic_run();
    // Keep the snapshot short: only the points the small run has.
    let after = synthetic::SyntheticLab {
        stream_sizes: vec![64, 1472],
        rr_sizes: vec![64],
        probe: false,
        ..synthetic::after_upgrade()
    }
    .build();
    insta::assert_snapshot!(render_comparison(&before, &after, Format::Markdown).unwrap());
}

#[test]
fn csv_is_tidy_one_row_per_point_metric_and_arm() {
    let run = synthetic::small_synthetic_run();
    let csv = render(&run, Format::Csv).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Summaries are per point × arm × metric since the arms redesign (two
    // native arms: as many rows as the per-family layout had).
    let summaries = run.analysis.as_ref().unwrap().summaries.len();
    assert_eq!(rows.len(), summaries, "one row per metric summary and arm");
    let arm = header.iter().position(|h| *h == "arm").unwrap();
    assert!(rows.iter().all(|r| r[arm] == "v4" || r[arm] == "v6"));
    assert!(
        rows.iter().all(|r| r.len() == header.len()),
        "every row has every column"
    );
    let family = header.iter().position(|h| *h == "family").unwrap();
    assert!(rows.iter().all(|r| r[family] == "v4" || r[family] == "v6"));
    assert!(!csv.contains("NaN") && !csv.contains("inf"));
}
