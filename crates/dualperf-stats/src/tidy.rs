//! Tidy data: one row per point × metric × family, plus one `diff` row per
//! compared metric, ready for pandas, R or a spreadsheet (`--csv`).
//!
//! Columns (empty cell = not applicable or not computable):
//!
//! | column | meaning |
//! |---|---|
//! | run_id, point, test, size_bytes | which run and point |
//! | metric, unit | the metric's machine name and unit |
//! | family | `v4`, `v6`, or `diff` (paired v6 − v4) |
//! | n | repetitions summarised (pairs for `diff`) |
//! | mean, sd, ci_low, ci_high | summary in the metric's unit (diff: mean difference and its CI) |
//! | min, max, median, cv | family rows only |
//! | relative_diff, relative_ci_low, relative_ci_high | diff rows: (v6 − v4) / v4 mean |
//! | significant | diff rows: `true` when the CI excludes 0 |
//! | theory_relative_diff | diff rows: the header model's prediction |
//! | verdict, warnings | diff rows: the verdict line; warnings joined by ` | ` |
//!
//! The rows are built here (pure); [`write_tidy_csv`] serialises them with
//! the `csv` crate into any writer the caller supplies.

use std::io::Write;

use dualperf_model::{Analysis, IpFamily, RunResult, Summary};
use serde::Serialize;

use crate::error::StatsError;

/// One row of the tidy export.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TidyRow {
    /// The run.
    pub run_id: String,
    /// Index of the point in the run's config.
    pub point: usize,
    /// Test kind, e.g. `tcp-stream`.
    pub test: String,
    /// The point's size parameter, bytes.
    pub size_bytes: u32,
    /// Metric name, e.g. `goodput_bps`.
    pub metric: String,
    /// Unit, e.g. `bit/s`.
    pub unit: String,
    /// `v4`, `v6` or `diff`.
    pub family: String,
    /// Repetitions (family rows) or pairs (diff rows).
    pub n: u64,
    /// Mean, or mean paired difference.
    pub mean: f64,
    /// Sample standard deviation (family rows).
    pub sd: Option<f64>,
    /// Lower end of the 95 % CI.
    pub ci_low: Option<f64>,
    /// Upper end of the 95 % CI.
    pub ci_high: Option<f64>,
    /// Minimum (family rows).
    pub min: Option<f64>,
    /// Maximum (family rows).
    pub max: Option<f64>,
    /// Median (family rows).
    pub median: Option<f64>,
    /// Coefficient of variation (family rows).
    pub cv: Option<f64>,
    /// (v6 − v4) / v4 mean (diff rows).
    pub relative_diff: Option<f64>,
    /// Lower end of the relative difference's CI (diff rows).
    pub relative_ci_low: Option<f64>,
    /// Upper end of the relative difference's CI (diff rows).
    pub relative_ci_high: Option<f64>,
    /// CI excludes 0 (diff rows).
    pub significant: Option<bool>,
    /// The header model's expected relative difference (diff rows).
    pub theory_relative_diff: Option<f64>,
    /// Verdict line (diff rows).
    pub verdict: Option<String>,
    /// Warnings joined by " | " (diff rows).
    pub warnings: Option<String>,
}

/// The tidy rows of a run's analysis, in point, metric, family order.
pub fn tidy_rows(result: &RunResult, analysis: &Analysis) -> Vec<TidyRow> {
    let mut rows = Vec::new();
    for summary in &analysis.summaries {
        let spec = result.config.points.get(summary.point).or_else(|| {
            result
                .trials
                .iter()
                .find(|t| t.point == summary.point)
                .map(|t| &t.spec)
        });
        let base = TidyRow {
            run_id: result.run_id.clone(),
            point: summary.point,
            test: spec.map(|s| s.kind.name().to_string()).unwrap_or_default(),
            size_bytes: spec.map_or(0, |s| s.size_bytes),
            metric: summary.metric.name.clone(),
            unit: summary.metric.unit.clone(),
            ..TidyRow::default()
        };
        for family in IpFamily::ALL {
            if let Some(s) = summary.per_family.get(family) {
                rows.push(family_row(&base, family, s));
            }
        }
        let comparison = analysis
            .comparisons
            .iter()
            .find(|c| c.point == summary.point && c.metric.name == summary.metric.name);
        if let Some(c) = comparison {
            rows.push(TidyRow {
                family: "diff".to_string(),
                n: c.pairs,
                mean: c.difference_mean,
                ci_low: c.difference_ci95.map(|(low, _)| low),
                ci_high: c.difference_ci95.map(|(_, high)| high),
                relative_diff: c.relative_difference,
                relative_ci_low: c.relative_difference_ci95.map(|(low, _)| low),
                relative_ci_high: c.relative_difference_ci95.map(|(_, high)| high),
                significant: Some(c.significant),
                theory_relative_diff: c.theoretical_relative_difference,
                verdict: Some(c.verdict.clone()),
                warnings: Some(c.warnings.join(" | ")),
                ..base.clone()
            });
        }
    }
    rows
}

fn family_row(base: &TidyRow, family: IpFamily, s: &Summary) -> TidyRow {
    TidyRow {
        family: family.key().to_string(),
        n: s.count,
        mean: s.mean,
        sd: s.standard_deviation,
        ci_low: s.ci95_low,
        ci_high: s.ci95_high,
        min: Some(s.min),
        max: Some(s.max),
        median: Some(s.median),
        cv: s.coefficient_of_variation,
        ..base.clone()
    }
}

/// Writes `rows` as CSV with a header line into `writer`.
///
/// # Errors
/// [`StatsError::Csv`] when the writer fails.
pub fn write_tidy_csv(rows: &[TidyRow], writer: impl Write) -> Result<(), StatsError> {
    let mut csv = csv::Writer::from_writer(writer);
    for row in rows {
        csv.serialize(row)
            .map_err(|source| StatsError::Csv { source })?;
    }
    if rows.is_empty() {
        // serde writes the header with the first row; an empty export still gets one.
        csv.write_record(HEADER)
            .map_err(|source| StatsError::Csv { source })?;
    }
    csv.flush().map_err(|source| StatsError::Csv {
        source: source.into(),
    })?;
    Ok(())
}

/// The CSV header, in column order (the fields of [`TidyRow`]; a test keeps them in step).
pub const HEADER: [&str; 23] = [
    "run_id",
    "point",
    "test",
    "size_bytes",
    "metric",
    "unit",
    "family",
    "n",
    "mean",
    "sd",
    "ci_low",
    "ci_high",
    "min",
    "max",
    "median",
    "cv",
    "relative_diff",
    "relative_ci_low",
    "relative_ci_high",
    "significant",
    "theory_relative_diff",
    "verdict",
    "warnings",
];

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{
        Comparison, HostFacts, Metric, MetricSummary, PerFamily, RepetitionOrder, RunConfig,
        TestKind, TestSpec,
    };

    fn summary(mean: f64) -> Summary {
        Summary {
            count: 3,
            mean,
            standard_deviation: Some(1.0),
            coefficient_of_variation: Some(1.0 / mean),
            min: mean - 1.0,
            max: mean + 1.0,
            median: mean,
            ci95_low: Some(mean - 2.5),
            ci95_high: Some(mean + 2.5),
        }
    }

    fn analysis() -> Analysis {
        let metric = Metric {
            name: "goodput_bps".into(),
            unit: "bit/s".into(),
            higher_is_better: true,
            definition: "d".into(),
        };
        let per_family = PerFamily {
            v4: summary(100.0),
            v6: summary(95.0),
        };
        Analysis {
            summaries: vec![MetricSummary {
                point: 0,
                metric: metric.clone(),
                per_family: PerFamily {
                    v4: Some(per_family.v4),
                    v6: Some(per_family.v6),
                },
            }],
            comparisons: vec![Comparison {
                point: 0,
                metric,
                per_family,
                pairs: 3,
                difference_mean: -5.0,
                difference_ci95: Some((-7.0, -3.0)),
                relative_difference: Some(-0.05),
                relative_difference_ci95: Some((-0.07, -0.03)),
                significant: true,
                theoretical_relative_difference: Some(-0.0138),
                verdict: "IPv6 is 5.0 % slower".into(),
                warnings: vec!["a, with comma".into(), "b".into()],
            }],
            ..Analysis::default()
        }
    }

    fn result() -> RunResult {
        let spec = TestSpec {
            kind: TestKind::TcpStream,
            size_bytes: 1024,
            duration_ms: 1000,
            warmup_ms: 0,
            parallel_streams: 1,
            reverse: false,
            rate: None,
            sample_interval_ms: 100,
            probe_interval_us: None,
        };
        RunResult {
            schema: dualperf_model::RESULT_SCHEMA.to_string(),
            schema_version: dualperf_model::RESULT_SCHEMA_VERSION,
            run_id: "r1".to_string(),
            started_at_unix_ms: 0,
            finished_at_unix_ms: 0,
            config: RunConfig {
                points: vec![spec],
                families: IpFamily::ALL.to_vec(),
                repeat: 3,
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
            trials: vec![],
            analysis: None,
            complete: true,
            errors: vec![],
        }
    }

    #[test]
    fn one_row_per_family_and_one_diff_row() {
        let rows = tidy_rows(&result(), &analysis());
        let families: Vec<&str> = rows.iter().map(|r| r.family.as_str()).collect();
        assert_eq!(families, vec!["v4", "v6", "diff"]);
        assert_eq!(rows[0].test, "tcp-stream");
        assert_eq!(rows[0].size_bytes, 1024);
        assert_eq!(rows[2].mean, -5.0);
        assert_eq!(rows[2].significant, Some(true));
        assert_eq!(rows[2].sd, None);
    }

    #[test]
    fn csv_has_the_documented_header_and_quotes_commas() {
        let rows = tidy_rows(&result(), &analysis());
        let mut out = Vec::new();
        write_tidy_csv(&rows, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert_eq!(header, HEADER.join(","));
        let v4 = lines.next().unwrap();
        assert!(
            v4.starts_with("r1,0,tcp-stream,1024,goodput_bps,bit/s,v4,3,100.0,1.0,97.5,102.5,"),
            "{v4}"
        );
        let diff = lines.nth(1).unwrap();
        assert!(
            diff.ends_with(",true,-0.0138,IPv6 is 5.0 % slower,\"a, with comma | b\""),
            "{diff}"
        );
    }

    #[test]
    fn an_empty_export_still_has_a_header() {
        let mut out = Vec::new();
        write_tidy_csv(&[], &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().trim_end(), HEADER.join(","));
    }
}
