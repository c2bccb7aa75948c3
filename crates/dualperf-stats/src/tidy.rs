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
    use crate::analyse;
    use dualperf_fixtures::{arm, native_arms, stream_run};
    use dualperf_model::{ArmPath, PerFamily, TunnelPlacement};

    fn run() -> RunResult {
        let mut arms = native_arms(PerFamily::default());
        arms.push(arm(
            "v6-6in4",
            IpFamily::V6,
            ArmPath::SixInFour {
                placement: TunnelPlacement::RouterRouter,
            },
        ));
        stream_run(
            arms,
            &[
                &[Some(10.0), Some(10.2), Some(9.8)],
                &[Some(9.5), Some(9.7), Some(9.3)],
                &[Some(9.0), Some(9.2), Some(8.8)],
            ],
        )
    }

    fn goodput_rows(rows: &[TidyRow]) -> Vec<&TidyRow> {
        rows.iter()
            .filter(|r| r.metric == MetricId::GoodputBps)
            .collect()
    }

    #[test]
    fn one_row_per_point_arm_and_metric() {
        let result = run();
        let analysis = analyse(&result);
        let rows = tidy_rows(&result, &analysis);
        assert_eq!(rows.len(), analysis.summaries.len());
        let goodput = goodput_rows(&rows);
        let arms: Vec<&str> = goodput.iter().map(|r| r.arm.as_str()).collect();
        assert_eq!(arms, ["v4", "v6", "v6-6in4"]);
        let v4 = goodput[0];
        assert_eq!(v4.kind, TestKind::TcpStream);
        assert_eq!(v4.size_bytes, 131_072);
        assert_eq!(
            (v4.arm_label.as_str(), v4.path.as_str()),
            ("IPv4", "native")
        );
        assert_eq!(v4.unit, "bit/s");
        assert_eq!(v4.count, 3);
        assert!((v4.mean - 10e9).abs() < 1.0);
        // The baseline's own row has no comparison.
        assert_eq!(v4.baseline, None);
        assert_eq!(v4.difference_mean, None);
        assert_eq!(v4.significant, None);
    }

    #[test]
    fn compared_arms_carry_their_difference_from_the_baseline() {
        let result = run();
        let analysis = analyse(&result);
        let rows = tidy_rows(&result, &analysis);
        let tunnel = goodput_rows(&rows)[2];
        assert_eq!(tunnel.family, IpFamily::V6);
        assert_eq!(tunnel.path, "6in4 router to router");
        assert_eq!(tunnel.arm_label, "IPv6 via 6in4 router to router");
        assert_eq!(tunnel.baseline.as_ref().map(ArmId::as_str), Some("v4"));
        assert_eq!(tunnel.pairs, Some(3));
        assert!((tunnel.difference_mean.unwrap() + 1e9).abs() < 1.0);
        assert!((tunnel.relative_difference.unwrap() + 0.1).abs() < 1e-9);
        assert_eq!(tunnel.significant, Some(true));
        assert!(tunnel.difference_ci95_low.unwrap() <= tunnel.difference_ci95_high.unwrap());
        assert!(tunnel.relative_ci95_low.unwrap() <= tunnel.relative_ci95_high.unwrap());
        let theory = tunnel.theoretical_relative_difference.unwrap();
        assert!((theory - (1408.0 / 1448.0 - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn rows_serialise_as_plain_values() {
        let result = run();
        let rows = tidy_rows(&result, &analyse(&result));
        let json = serde_json::to_value(goodput_rows(&rows)[1]).unwrap();
        assert_eq!(json["metric"], MetricId::GoodputBps.name());
        assert_eq!(json["kind"], "tcp-stream");
        assert_eq!(json["arm"], "v6");
        assert_eq!(json["family"], "v6");
        assert_eq!(json["baseline"], "v4");
        assert!(json
            .as_object()
            .unwrap()
            .values()
            .all(|v| !v.is_object() && !v.is_array()));
        let back: TidyRow = serde_json::from_value(json).unwrap();
        assert_eq!(&back, goodput_rows(&rows)[1]);
    }
}
