//! Tidy CSV for pandas, R or a spreadsheet: one row per point × arm ×
//! metric, the same layout for `dualperf run --csv` and `dualperf report
//! --format csv` ([`tidy_csv`] writes both). Columns: [`TIDY_COLUMNS`].
//!
//! - Empty cells are values that do not exist (never NaN): the comparison
//!   columns of the baseline arm's rows, a CI with fewer than 2 values.
//! - The first 29 columns are the stats stage's `TidyRow` fields, same
//!   names, same values; the rest (streams, direction, rate, marking, load,
//!   direction of better, warnings) tell points and arms apart.
//! - `significant` is always `true` or `false` (pandas reads a bool
//!   column): on the baseline's rows, where `TidyRow` has none, it is
//!   `false` (no difference from itself). It is the stats stage's test — the 95 % CI of the paired
//!   difference excludes 0; a claim in words also needs 3 pairs and some
//!   spread (see [`crate::present::verdict`]).
//! - Numbers are printed in full precision, in the metric's unit (the
//!   `unit` column; `ratio` is 0..1, not percent).
//! - `warnings` are machine keys joined by `;` (`unstable:v4;few-pairs`).

use std::fmt::Write;

use dualperf_model::{Analysis, Arm, Comparison, LoadCondition, RunResult, Summary};

use crate::compare::RunComparison;
use crate::present::warning_key;

/// The columns of the tidy CSV, in order: first the fields of the stats
/// stage's `TidyRow` under the same names (a test keeps them in step), then
/// what tells points and arms apart beyond them.
pub const TIDY_COLUMNS: [&str; 37] = [
    "run_id",
    "point",
    "kind",
    "size_bytes",
    "arm",
    "arm_label",
    "family",
    "path",
    "metric",
    "unit",
    "count",
    "mean",
    "sd",
    "cv",
    "min",
    "max",
    "median",
    "ci95_low",
    "ci95_high",
    "baseline",
    "pairs",
    "difference_mean",
    "difference_ci95_low",
    "difference_ci95_high",
    "relative_difference",
    "relative_ci95_low",
    "relative_ci95_high",
    "significant",
    "theoretical_relative_difference",
    "parallel_streams",
    "reverse",
    "rate_bps",
    "dscp",
    "flow_label",
    "load",
    "higher_is_better",
    "warnings",
];

/// The columns of a two-run comparison CSV, in order.
pub const COMPARISON_COLUMNS: [&str; 21] = [
    "before_run_id",
    "after_run_id",
    "point",
    "kind",
    "size_bytes",
    "arm",
    "arm_label",
    "metric",
    "unit",
    "before_count",
    "before_mean",
    "before_standard_deviation",
    "after_count",
    "after_mean",
    "after_standard_deviation",
    "difference",
    "relative_difference",
    "welch_t",
    "welch_degrees_of_freedom",
    "welch_p_value",
    "significant",
];

/// Quotes a field when it holds a comma, quote or line break (RFC 4180).
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn number(value: Option<f64>) -> String {
    value
        .filter(|v| v.is_finite())
        .map_or(String::new(), |v| v.to_string())
}

fn marking_fields(arm: Option<&Arm>) -> [String; 3] {
    match arm {
        None => Default::default(),
        Some(arm) => [
            arm.marking
                .dscp
                .map_or(String::new(), |d| d.value().to_string()),
            arm.marking
                .flow_label
                .map_or(String::new(), |l| l.value().to_string()),
            match &arm.load {
                LoadCondition::Idle => "idle".to_string(),
                LoadCondition::Under { load } => load.clone(),
            },
        ],
    }
}

fn summary_fields(s: &Summary) -> [String; 9] {
    [
        s.count.to_string(),
        number(Some(s.mean)),
        number(s.standard_deviation),
        number(s.coefficient_of_variation),
        number(Some(s.min)),
        number(Some(s.max)),
        number(Some(s.median)),
        number(s.ci95_low),
        number(s.ci95_high),
    ]
}

fn comparison_fields(comparison: Option<&Comparison>) -> [String; 10] {
    match comparison {
        None => {
            let mut empty: [String; 10] = Default::default();
            empty[8] = "false".to_string();
            empty
        }
        Some(c) => [
            field(c.baseline.as_str()),
            c.pairs.to_string(),
            number(Some(c.difference_mean)),
            number(c.difference_ci95.map(|p| p.0)),
            number(c.difference_ci95.map(|p| p.1)),
            number(c.relative_difference),
            number(c.relative_difference_ci95.map(|p| p.0)),
            number(c.relative_difference_ci95.map(|p| p.1)),
            c.significant.to_string(),
            number(c.theoretical_relative_difference),
        ],
    }
}

/// The tidy CSV of a run's analysis, header first: one row per summary
/// (point × arm × metric) in the analysis' order. A row for an arm the
/// configuration does not list keeps its id, its trials' family and empty
/// arm facts.
pub fn tidy_csv(run: &RunResult, analysis: &Analysis) -> String {
    let mut csv = TIDY_COLUMNS.join(",");
    csv.push('\n');
    for summary in &analysis.summaries {
        let spec = run.config.points.get(summary.point).or_else(|| {
            run.trials
                .iter()
                .find(|t| t.point == summary.point)
                .map(|t| &t.spec)
        });
        let arm = run.config.arm(&summary.arm);
        let family = arm.map(|a| a.family).or_else(|| {
            run.trials
                .iter()
                .find(|t| t.arm == summary.arm)
                .map(|t| t.family)
        });
        let (Some(spec), Some(family)) = (spec, family) else {
            continue;
        };
        let comparison = analysis.comparisons.iter().find(|c| {
            c.point == summary.point && c.metric == summary.metric && c.arm == summary.arm
        });
        let mut cells: Vec<String> = vec![
            field(&run.run_id),
            summary.point.to_string(),
            spec.kind.to_string(),
            spec.size_bytes.to_string(),
            field(summary.arm.as_str()),
            field(arm.map_or(summary.arm.as_str(), |a| a.label.as_str())),
            family.key().to_string(),
            field(&arm.map(|a| a.path.label()).unwrap_or_default()),
            summary.metric.name().to_string(),
            field(summary.metric.unit()),
        ];
        cells.extend(summary_fields(&summary.summary));
        cells.extend(comparison_fields(comparison));
        cells.extend([
            spec.parallel_streams.to_string(),
            spec.reverse.to_string(),
            spec.rate
                .map_or(String::new(), |r| r.bits_per_second().to_string()),
        ]);
        cells.extend(marking_fields(arm).iter().map(|f| field(f)));
        cells.push(summary.metric.higher_is_better().to_string());
        cells.push(field(
            &comparison
                .map(|c| {
                    c.warnings
                        .iter()
                        .map(warning_key)
                        .collect::<Vec<_>>()
                        .join(";")
                })
                .unwrap_or_default(),
        ));
        debug_assert_eq!(cells.len(), TIDY_COLUMNS.len());
        csv.push_str(&cells.join(","));
        csv.push('\n');
    }
    csv
}

/// Renders one run: [`tidy_csv`] of its analysis, or the header alone.
pub(crate) fn render(run: &RunResult) -> String {
    match &run.analysis {
        Some(analysis) => tidy_csv(run, analysis),
        None => format!("{}\n", TIDY_COLUMNS.join(",")),
    }
}

/// Renders a comparison of two runs: one row per point × arm × metric;
/// `significant` is `false` where there was no test (fewer than 2
/// repetitions in a run).
pub(crate) fn render_comparison(comparison: &RunComparison<'_>) -> String {
    let mut csv = COMPARISON_COLUMNS.join(",");
    csv.push('\n');
    for row in &comparison.rows {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&comparison.before.run_id),
            field(&comparison.after.run_id),
            field(&row.point),
            row.kind,
            row.size_bytes,
            field(row.arm.as_str()),
            field(&row.arm_label),
            row.metric.name(),
            field(row.metric.unit()),
            row.before.count,
            number(Some(row.before.mean)),
            number(row.before.standard_deviation),
            row.after.count,
            number(Some(row.after.mean)),
            number(row.after.standard_deviation),
            number(Some(row.difference)),
            number(row.relative_difference),
            number(row.welch.map(|w| w.t)),
            number(row.welch.map(|w| w.degrees_of_freedom)),
            number(row.welch.map(|w| w.p_value)),
            row.is_significant(),
        );
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("plain"), "plain");
    }

    #[test]
    fn missing_and_non_finite_numbers_are_empty_cells() {
        assert_eq!(number(None), "");
        assert_eq!(number(Some(f64::NAN)), "");
        assert_eq!(number(Some(0.5)), "0.5");
    }
}
