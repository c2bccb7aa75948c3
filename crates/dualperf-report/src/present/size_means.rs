//! Means over a sweep of sizes, one row per arm: the Gigabit UDP study's
//! Tables 2 and 3 (seed 004), which print each family's throughput and
//! delay averaged over its packet sizes (128–1408 B).
//!
//! For every arm and metric the value is the mean, over the sizes of the
//! sweep, of each size's mean over its repetitions (each size weighs the
//! same, as the paper's tables). A metric that some size lacks has no mean
//! over sizes: averaging the sizes that happen to have it would compare
//! different sweeps. [`size_means`] computes the numbers;
//! [`SizeMeans::lines`] formats the one table the terminal and the HTML
//! both render (each with its own mark for a missing value).

use dualperf_model::{Analysis, ArmId, MetricId, RunResult, TestKind};

use super::arms::ArmNames;
use super::value::{format_value, signed_percent};

/// The columns of the study's tables that dualperf measures: throughput
/// (goodput), loss, jitter (RFC 3550, of the stream), delay (the paper's
/// "packet delay" was a round trip during the runs; here the median
/// one-way delay of a probe stream beside the stream, which the lab's one
/// clock gives exactly), and the CPU of both ends.
pub const STUDY_METRICS: [MetricId; 6] = [
    MetricId::GoodputBps,
    MetricId::LossRatio,
    MetricId::JitterNs,
    MetricId::LoadedOwdP50Ns,
    MetricId::ClientCpuCores,
    MetricId::ServerCpuCores,
];

/// One arm's means over the sizes of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeMeansRow {
    /// The arm.
    pub arm: ArmId,
    /// Its label ("IPv4").
    pub label: String,
    /// Per metric of [`SizeMeans::metrics`], the mean over sizes, `None`
    /// when a size has no value of it.
    pub means: Vec<Option<f64>>,
}

/// The per-arm means over the sizes of one test kind's sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeMeans {
    /// The test kind swept.
    pub kind: TestKind,
    /// The sizes averaged over, bytes, in plan order.
    pub sizes: Vec<u32>,
    /// The metrics, one per column.
    pub metrics: Vec<MetricId>,
    /// One row per arm, in configuration order.
    pub rows: Vec<SizeMeansRow>,
}

impl SizeMeans {
    /// The relative difference of `arm`'s mean from the baseline's for the
    /// metric in column `column`: (arm − baseline) / baseline; `None` when
    /// either lacks it or the baseline is 0.
    pub fn relative_to_baseline(
        &self,
        arm: &ArmId,
        baseline: &ArmId,
        column: usize,
    ) -> Option<f64> {
        let value = |id: &ArmId| {
            self.rows
                .iter()
                .find(|row| &row.arm == id)
                .and_then(|row| row.means.get(column).copied().flatten())
        };
        let (a, b) = (value(arm)?, value(baseline)?);
        (b != 0.0).then(|| (a - b) / b)
    }
}

/// One formatted row of the means-over-sizes table.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeMeansLine {
    /// The row's label: an arm's ("IPv4"), or a difference's ("IPv6 − IPv4").
    pub label: String,
    /// Per metric of [`SizeMeans::metrics`], the formatted cell; `None`
    /// where there is no value (the renderer prints its own mark).
    pub cells: Vec<Option<String>>,
}

impl SizeMeans {
    /// The table's rows: every arm with its formatted means, then, when the
    /// `baseline` arm has a row, every other arm's difference from it in
    /// percent ("IPv6 − IPv4": "−2.5 %").
    pub fn lines(&self, baseline: &ArmId) -> Vec<SizeMeansLine> {
        let mut lines: Vec<SizeMeansLine> = self
            .rows
            .iter()
            .map(|row| SizeMeansLine {
                label: row.label.clone(),
                cells: row
                    .means
                    .iter()
                    .zip(&self.metrics)
                    .map(|(mean, metric)| mean.map(|value| format_value(*metric, value)))
                    .collect(),
            })
            .collect();
        let Some(base) = self.rows.iter().find(|row| &row.arm == baseline) else {
            return lines;
        };
        for row in self.rows.iter().filter(|row| &row.arm != baseline) {
            lines.push(SizeMeansLine {
                label: format!("{} − {}", row.label, base.label),
                cells: (0..self.metrics.len())
                    .map(|column| {
                        self.relative_to_baseline(&row.arm, baseline, column)
                            .map(|r| format!("{} %", signed_percent(r)))
                    })
                    .collect(),
            });
        }
        lines
    }
}

/// The means over sizes of every `kind` point of `result` without a load,
/// per arm, for `metrics`; `None` when the run sweeps fewer than two sizes
/// of `kind` (one size has no mean over sizes).
pub fn size_means(
    result: &RunResult,
    analysis: &Analysis,
    kind: TestKind,
    metrics: &[MetricId],
) -> Option<SizeMeans> {
    let points: Vec<(usize, u32)> = result
        .config
        .points
        .iter()
        .enumerate()
        .filter(|(_, spec)| spec.kind == kind)
        .map(|(index, spec)| (index, spec.size_bytes))
        .collect();
    let mut sizes: Vec<u32> = points.iter().map(|(_, size)| *size).collect();
    sizes.dedup();
    if sizes.len() < 2 {
        return None;
    }
    let names = ArmNames::new(&result.config);
    let rows = result
        .config
        .arms
        .iter()
        .map(|arm| SizeMeansRow {
            arm: arm.id.clone(),
            label: names.label(&arm.id).to_string(),
            means: metrics
                .iter()
                .map(|&metric| {
                    let per_size: Option<Vec<f64>> = points
                        .iter()
                        .map(|(point, _)| {
                            analysis
                                .summaries
                                .iter()
                                .find(|s| {
                                    s.point == *point && s.arm == arm.id && s.metric == metric
                                })
                                .map(|s| s.summary.mean)
                        })
                        .collect();
                    per_size.map(|values| values.iter().sum::<f64>() / values.len() as f64)
                })
                .collect(),
        })
        .collect();
    Some(SizeMeans {
        kind,
        sizes,
        metrics: metrics.to_vec(),
        rows,
    })
}

/// A gigabit-like sweep for the tests of the size-means table here, in
/// the terminal and in the HTML: udp-stream at `sizes` on native v4 and v6
/// (each point with `budget`), and an analysis holding each arm's goodput
/// mean per size from `goodputs` (arm id, one mean per size).
#[cfg(test)]
pub(crate) fn sweep_run(
    sizes: &[u32],
    goodputs: &[(&str, &[f64])],
    budget: Option<dualperf_model::SendBudget>,
) -> RunResult {
    use dualperf_fixtures as fx;
    let points = sizes
        .iter()
        .map(|&size| dualperf_model::TestSpec {
            send_budget: budget,
            ..fx::spec(TestKind::UdpStream, size)
        })
        .collect();
    let arms = fx::native_arms(dualperf_model::PerFamily { v4: None, v6: None });
    let mut result = fx::result(fx::config(points, arms), Vec::new());
    let mut analysis = Analysis::default();
    for (arm, values) in goodputs {
        for (point, &mean) in values.iter().enumerate() {
            analysis.summaries.push(dualperf_model::MetricSummary {
                point,
                arm: fx::arm_id(arm),
                metric: MetricId::GoodputBps,
                summary: tests::summary(mean),
            });
        }
    }
    result.analysis = Some(analysis);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{MetricSummary, Summary};

    fn fx_arm(id: &str) -> ArmId {
        dualperf_fixtures::arm_id(id)
    }

    /// A summary of ten repetitions that all gave `mean`.
    pub(super) fn summary(mean: f64) -> Summary {
        Summary {
            count: 10,
            mean,
            standard_deviation: None,
            coefficient_of_variation: None,
            min: mean,
            max: mean,
            median: mean,
            ci95_low: None,
            ci95_high: None,
        }
    }

    /// A gigabit-like run: udp-stream at 128, 768 and 1408 B on v4 and v6,
    /// loss known at two of the three sizes only.
    fn run(goodputs: &[(&str, &[f64])]) -> (RunResult, Analysis) {
        let mut result = sweep_run(&[128, 768, 1408], goodputs, None);
        let mut analysis = result.analysis.take().unwrap_or_default();
        for (arm, _) in goodputs {
            for point in 0..2 {
                analysis.summaries.push(MetricSummary {
                    point,
                    arm: fx_arm(arm),
                    metric: MetricId::LossRatio,
                    summary: summary(0.01),
                });
            }
        }
        (result, analysis)
    }

    #[test]
    fn each_arm_gets_the_mean_of_its_size_means_and_a_gap_leaves_no_mean() {
        let (result, analysis) = run(&[
            ("v4", &[100e6, 400e6, 700e6]),
            ("v6", &[90e6, 380e6, 690e6]),
        ]);
        let means = size_means(
            &result,
            &analysis,
            TestKind::UdpStream,
            &[MetricId::GoodputBps, MetricId::LossRatio],
        )
        .unwrap();
        assert_eq!(means.sizes, vec![128, 768, 1408]);
        let v4 = &means.rows[0];
        assert_eq!((v4.arm.as_str(), v4.label.as_str()), ("v4", "IPv4"));
        assert!((v4.means[0].unwrap() - 400e6).abs() < 1e-3);
        assert!((means.rows[1].means[0].unwrap() - 386.666_666e6).abs() < 1.0);
        assert_eq!(v4.means[1], None, "loss is missing at 1408 B");
        let relative = means
            .relative_to_baseline(&fx_arm("v6"), &fx_arm("v4"), 0)
            .unwrap();
        assert!((relative - (386.666_666e6 / 400e6 - 1.0)).abs() < 1e-6);
        let lines = means.lines(&fx_arm("v4"));
        let labels: Vec<&str> = lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["IPv4", "IPv6", "IPv6 − IPv4"]);
        assert_eq!(lines[0].cells[0].as_deref(), Some("400 Mbit/s"));
        assert_eq!(lines[0].cells[1], None, "no mean, no cell");
        assert_eq!(lines[2].cells[0].as_deref(), Some("−3.3 %"));
        assert_eq!(
            means.lines(&fx_arm("v9")).len(),
            2,
            "no baseline, no differences"
        );
    }

    #[test]
    fn one_size_or_another_kind_has_no_mean_over_sizes() {
        let (result, analysis) = run(&[("v4", &[1.0, 2.0, 3.0])]);
        assert!(size_means(&result, &analysis, TestKind::TcpStream, &STUDY_METRICS).is_none());
        let mut single = result.clone();
        single.config.points.truncate(1);
        assert!(size_means(&single, &analysis, TestKind::UdpStream, &STUDY_METRICS).is_none());
    }
}
