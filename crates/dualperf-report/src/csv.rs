//! Tidy CSV for pandas or a spreadsheet: one row per point × metric ×
//! family, the comparison columns repeated on both family rows. Empty cells
//! are values that do not exist (never NaN). Numbers are printed in full
//! precision, in the metric's unit (the `unit` column).

use std::fmt::Write;

use dualperf_model::{Comparison, RunResult, Summary};

use crate::compare::RunComparison;

const HEADER: &str = "run_id,point,kind,size_bytes,parallel_streams,reverse,rate_bps,metric,unit,higher_is_better,family,count,mean,standard_deviation,coefficient_of_variation,min,median,max,ci95_low,ci95_high,difference_mean,relative_difference,relative_difference_ci95_low,relative_difference_ci95_high,significant,theoretical_relative_difference";

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

fn summary_fields(summary: Option<&Summary>) -> String {
    match summary {
        None => ",,,,,,,,".to_string(),
        Some(s) => [
            s.count.to_string(),
            number(Some(s.mean)),
            number(s.standard_deviation),
            number(s.coefficient_of_variation),
            number(Some(s.min)),
            number(Some(s.median)),
            number(Some(s.max)),
            number(s.ci95_low),
            number(s.ci95_high),
        ]
        .join(","),
    }
}

fn comparison_fields(comparison: Option<&Comparison>) -> String {
    match comparison {
        None => ",,,,,".to_string(),
        Some(c) => [
            number(Some(c.difference_mean)),
            number(c.relative_difference),
            number(c.relative_difference_ci95.map(|p| p.0)),
            number(c.relative_difference_ci95.map(|p| p.1)),
            c.significant.to_string(),
            number(c.theoretical_relative_difference),
        ]
        .join(","),
    }
}

/// Renders one run.
pub(crate) fn render(run: &RunResult) -> String {
    let mut csv = format!("{HEADER}\n");
    let Some(analysis) = &run.analysis else {
        return csv;
    };
    for summary in &analysis.summaries {
        let Some(spec) = run.config.points.get(summary.point) else {
            continue;
        };
        let comparison = analysis
            .comparisons
            .iter()
            .find(|c| c.point == summary.point && c.metric.name == summary.metric.name);
        for (family, values) in summary.per_family.iter() {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                field(&run.run_id),
                summary.point,
                spec.kind,
                spec.size_bytes,
                spec.parallel_streams,
                spec.reverse,
                spec.rate
                    .map_or(String::new(), |r| r.bits_per_second().to_string()),
                field(&summary.metric.name),
                field(&summary.metric.unit),
                summary.metric.higher_is_better,
                family.key(),
                summary_fields(values.as_ref()),
                comparison_fields(comparison),
            );
        }
    }
    csv
}

/// Renders a comparison of two runs: one row per point × metric × family.
pub(crate) fn render_comparison(comparison: &RunComparison<'_>) -> String {
    let mut csv = String::from("before_run_id,after_run_id,point,kind,size_bytes,metric,unit,family,before_count,before_mean,before_standard_deviation,after_count,after_mean,after_standard_deviation,difference,relative_difference,welch_t,welch_degrees_of_freedom,welch_p_value,significant\n");
    for row in &comparison.rows {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&comparison.before.run_id),
            field(&comparison.after.run_id),
            field(&row.point),
            row.kind,
            row.size_bytes,
            field(&row.metric.name),
            field(&row.metric.unit),
            row.family.key(),
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
            row.welch
                .map_or(String::new(), |w| w.is_significant().to_string()),
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
