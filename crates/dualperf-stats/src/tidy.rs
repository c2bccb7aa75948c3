//! Tidy data: one row per point × arm × metric, ready for pandas, R or a
//! spreadsheet. Numbers only, in plain serde-friendly types.
//!
//! Columns (`None` = not applicable or not computable):
//!
//! | column | meaning |
//! |---|---|
//! | run_id, point, kind, size_bytes | which run and point |
//! | arm, arm_label, family, path | the arm: machine key, label, family, path label |
//! | metric, unit | the metric ([`MetricId`], serialised as its name) and its unit |
//! | count, mean, sd, cv, min, max, median, ci95_low, ci95_high | the arm's summary over repetitions |
//! | baseline | the arm it is compared with (compared arms only; `None` on the baseline's own row) |
//! | pairs | paired repetitions behind the difference |
//! | difference_mean, difference_ci95_low, difference_ci95_high | paired arm − baseline, metric's unit |
//! | relative_difference, relative_ci95_low, relative_ci95_high | (arm − baseline) / baseline mean |
//! | significant | the difference CI excludes 0 |
//! | theoretical_relative_difference | the header model's prediction |
//!
//! The rows are built here (pure). Writing them as CSV (one layout for
//! `run --csv` and `report --format csv`), and every word about them, is the
//! report crate's job: stats has no CSV writer since the arms redesign.

use dualperf_model::{Analysis, ArmId, IpFamily, MetricId, RunResult, TestKind};
use serde::{Deserialize, Serialize};

/// One row of the tidy export: one metric of one arm at one point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TidyRow {
    /// The run.
    pub run_id: String,
    /// Index of the point in the run's config.
    pub point: usize,
    /// Test kind, serialised as e.g. `tcp-stream`.
    pub kind: TestKind,
    /// The point's size parameter, bytes.
    pub size_bytes: u32,
    /// The arm's machine key, e.g. `v6-6in4-router-router`.
    pub arm: ArmId,
    /// The arm's label, e.g. "IPv6 via 6in4, router to router".
    pub arm_label: String,
    /// The arm's family.
    pub family: IpFamily,
    /// The arm's path, e.g. "native", "6in4 router to router".
    pub path: String,
    /// The metric, serialised as its name, e.g. `goodput_bps`.
    pub metric: MetricId,
    /// Unit, e.g. `bit/s`.
    pub unit: String,
    /// Repetitions summarised.
    pub count: u64,
    /// Mean over repetitions.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: Option<f64>,
    /// Coefficient of variation.
    pub cv: Option<f64>,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Median.
    pub median: f64,
    /// Lower end of the 95 % CI of the mean.
    pub ci95_low: Option<f64>,
    /// Upper end of the 95 % CI of the mean.
    pub ci95_high: Option<f64>,
    /// The baseline arm this arm is compared with; `None` on the baseline's
    /// rows and where no comparison exists.
    pub baseline: Option<ArmId>,
    /// Paired repetitions behind the difference.
    pub pairs: Option<u64>,
    /// Mean paired difference arm − baseline, in the metric's unit.
    pub difference_mean: Option<f64>,
    /// Lower end of the difference's 95 % CI.
    pub difference_ci95_low: Option<f64>,
    /// Upper end of the difference's 95 % CI.
    pub difference_ci95_high: Option<f64>,
    /// (arm − baseline) / baseline mean.
    pub relative_difference: Option<f64>,
    /// Lower end of the relative difference's 95 % CI.
    pub relative_ci95_low: Option<f64>,
    /// Upper end of the relative difference's 95 % CI.
    pub relative_ci95_high: Option<f64>,
    /// The difference CI excludes 0.
    pub significant: Option<bool>,
    /// The header model's expected relative difference.
    pub theoretical_relative_difference: Option<f64>,
}

/// The tidy rows of a run's analysis, one per summary, in the analysis'
/// order (point, metric, arm).
pub fn tidy_rows(result: &RunResult, analysis: &Analysis) -> Vec<TidyRow> {
    let mut rows = Vec::with_capacity(analysis.summaries.len());
    for summary in &analysis.summaries {
        let spec = result.config.points.get(summary.point).or_else(|| {
            result
                .trials
                .iter()
                .find(|t| t.point == summary.point)
                .map(|t| &t.spec)
        });
        let arm = result.config.arm(&summary.arm);
        let family = arm.map(|a| a.family).or_else(|| {
            result
                .trials
                .iter()
                .find(|t| t.arm == summary.arm)
                .map(|t| t.family)
        });
        // Every summary comes from a trial, which carries its spec and family.
        let (Some(spec), Some(family)) = (spec, family) else {
            continue;
        };
        let comparison = analysis.comparisons.iter().find(|c| {
            c.point == summary.point && c.metric == summary.metric && c.arm == summary.arm
        });
        let s = &summary.summary;
        rows.push(TidyRow {
            run_id: result.run_id.clone(),
            point: summary.point,
            kind: spec.kind,
            size_bytes: spec.size_bytes,
            arm: summary.arm.clone(),
            arm_label: arm.map_or_else(|| summary.arm.to_string(), |a| a.label.clone()),
            family,
            path: arm.map(|a| a.path.label()).unwrap_or_default(),
            metric: summary.metric,
            unit: summary.metric.unit().to_string(),
            count: s.count,
            mean: s.mean,
            sd: s.standard_deviation,
            cv: s.coefficient_of_variation,
            min: s.min,
            max: s.max,
            median: s.median,
            ci95_low: s.ci95_low,
            ci95_high: s.ci95_high,
            baseline: comparison.map(|c| c.baseline.clone()),
            pairs: comparison.map(|c| c.pairs),
            difference_mean: comparison.map(|c| c.difference_mean),
            difference_ci95_low: comparison
                .and_then(|c| c.difference_ci95)
                .map(|(low, _)| low),
            difference_ci95_high: comparison
                .and_then(|c| c.difference_ci95)
                .map(|(_, high)| high),
            relative_difference: comparison.and_then(|c| c.relative_difference),
            relative_ci95_low: comparison
                .and_then(|c| c.relative_difference_ci95)
                .map(|(low, _)| low),
            relative_ci95_high: comparison
                .and_then(|c| c.relative_difference_ci95)
                .map(|(_, high)| high),
            significant: comparison.map(|c| c.significant),
            theoretical_relative_difference: comparison
                .and_then(|c| c.theoretical_relative_difference),
        });
    }
    rows
}

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
