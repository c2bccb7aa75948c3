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

#[test]
fn csv_columns_are_the_stats_tidy_rows_then_the_point_and_arm_facts() {
    // One layout: the report writes the stats stage's TidyRow fields under
    // their names, in their order, with their values.
    let run = synthetic::small_synthetic_run();
    let analysis = run.analysis.as_ref().unwrap();
    let csv = dualperf_report::tidy_csv(&run, analysis);
    assert_eq!(
        csv,
        render(&run, Format::Csv).unwrap(),
        "run --csv = report --format csv"
    );
    let tidy = dualperf_stats::tidy_rows(&run, analysis);
    let first = serde_json::to_string(&tidy[0]).unwrap();
    let fields: Vec<&str> = dualperf_report::TIDY_COLUMNS
        .iter()
        .copied()
        .filter(|c| first.contains(&format!("\"{c}\":")))
        .collect();
    let count = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&first)
        .unwrap()
        .len();
    assert_eq!(fields.len(), count, "every TidyRow field is a column");
    assert_eq!(
        fields,
        dualperf_report::TIDY_COLUMNS[..count],
        "first, in order"
    );
    let positions: Vec<usize> = fields
        .iter()
        .map(|f| first.find(&format!("\"{f}\":")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "TidyRow order");

    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), tidy.len());
    for (row, expected) in rows.iter().zip(&tidy) {
        let value = serde_json::to_value(expected).unwrap();
        for (index, column) in fields.iter().enumerate() {
            let cell = row[index];
            match &value[*column] {
                serde_json::Value::Null if *column == "significant" => {
                    assert_eq!(cell, "false", "the baseline's rows are not significant")
                }
                serde_json::Value::Null => assert_eq!(cell, "", "{column}"),
                serde_json::Value::Number(n) => {
                    let got: f64 = cell.parse().unwrap();
                    assert_eq!(got, n.as_f64().unwrap(), "{column}");
                }
                serde_json::Value::String(s) => assert_eq!(cell, s, "{column}"),
                serde_json::Value::Bool(b) => assert_eq!(cell, b.to_string(), "{column}"),
                other => panic!("{column}: unexpected {other}"),
            }
        }
    }
}
