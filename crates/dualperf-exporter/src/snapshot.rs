//! One analysed run as samples: what a comparison of one target adds to the
//! exposition. Values come from the run's [`Analysis`] (means over
//! repetitions, the arm-against-baseline comparisons); the only numbers
//! read from raw trials are the transaction counts and exact latency sums
//! that summaries' `_count` and `_sum` add up. Units are converted to the
//! base units Prometheus expects: bits to bytes, nanoseconds to seconds.

use std::collections::HashMap;

use dualperf_model::{Analysis, ArmId, MetricId, RunResult, TestKind, TrialOutcome};

use crate::openmetrics::{encode, Family, Format, Labels, Part, Quantile, Sample};

/// A summary's `_count` and `_sum` increments from one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Total {
    /// The summary family.
    pub family: Family,
    /// Its labels.
    pub labels: Labels,
    /// Observations (transactions, connections) timed.
    pub count: u64,
    /// Their exact sum, seconds.
    pub sum_seconds: f64,
}

/// What one comparison of one target adds to the exposition.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSnapshot {
    /// The target's name (the `target` label).
    pub target: String,
    /// When the comparison ended, milliseconds since the Unix epoch.
    pub finished_at_unix_ms: u64,
    /// How long it took, seconds.
    pub duration_seconds: f64,
    /// True when every planned trial ran and succeeded.
    pub success: bool,
    /// Gauges and summary quantiles.
    pub samples: Vec<Sample>,
    /// Summary `_count`/`_sum` increments.
    pub totals: Vec<Total>,
}

/// Nanoseconds per second (dividing by it rounds once, so 20787 ns
/// prints as 0.000020787).
const NS_PER_S: f64 = 1e9;

/// The summaries each test kind feeds, with the metric behind every quantile.
fn summary_of(kind: TestKind) -> Option<(Family, &'static [(Quantile, MetricId)])> {
    const RTT: &[(Quantile, MetricId)] = &[
        (Quantile::Min, MetricId::RttMinNs),
        (Quantile::P50, MetricId::RttP50Ns),
        (Quantile::P90, MetricId::RttP90Ns),
        (Quantile::P99, MetricId::RttP99Ns),
        (Quantile::P999, MetricId::RttP999Ns),
    ];
    const CONNECT: &[(Quantile, MetricId)] = &[
        (Quantile::Min, MetricId::ConnectMinNs),
        (Quantile::P50, MetricId::ConnectP50Ns),
        (Quantile::P90, MetricId::ConnectP90Ns),
        (Quantile::P99, MetricId::ConnectP99Ns),
    ];
    const OWD: &[(Quantile, MetricId)] = &[
        (Quantile::Min, MetricId::OwdMinNs),
        (Quantile::P50, MetricId::OwdP50Ns),
        (Quantile::P99, MetricId::OwdP99Ns),
    ];
    match kind {
        TestKind::TcpRr | TestKind::UdpRr => Some((Family::Rtt, RTT)),
        TestKind::TcpConnect => Some((Family::Connect, CONNECT)),
        TestKind::UdpProbe => Some((Family::OneWayDelay, OWD)),
        TestKind::TcpStream | TestKind::UdpStream | TestKind::Media => None,
    }
}

/// Gauges: the family, the metric it shows and the divisor to its base unit.
const GAUGES: &[(Family, MetricId, f64)] = &[
    (Family::Goodput, MetricId::GoodputBps, 8.0),
    (Family::Loss, MetricId::LossRatio, 1.0),
    (Family::Jitter, MetricId::JitterNs, NS_PER_S),
];

impl RunSnapshot {
    /// The samples of an analysed run of `target` (a run without analysis
    /// contributes only its outcome). Points that repeat an earlier
    /// point's test and size are left out: their series would collide.
    pub fn of_run(target: &str, result: &RunResult) -> RunSnapshot {
        let mut snapshot = RunSnapshot {
            target: target.to_string(),
            finished_at_unix_ms: result.finished_at_unix_ms,
            duration_seconds: result
                .finished_at_unix_ms
                .saturating_sub(result.started_at_unix_ms) as f64
                / 1000.0,
            success: result.complete && result.analysis.is_some(),
            samples: Vec::new(),
            totals: Vec::new(),
        };
        let Some(analysis) = &result.analysis else {
            return snapshot;
        };
        let points = distinct_points(result);
        let means = means(analysis);
        for &point in &points {
            let spec = &result.config.points[point];
            for arm in &result.config.arms {
                let labels = series_labels(target, arm.id.as_str(), arm.family.key(), spec);
                let mean = |metric| means.get(&(point, &arm.id, metric)).copied();
                for &(family, metric, divisor) in GAUGES {
                    if let Some(value) = mean(metric) {
                        snapshot.samples.push(Sample {
                            family,
                            labels: labels.clone(),
                            part: Part::Value,
                            value: value / divisor,
                        });
                    }
                }
                if let Some((family, quantiles)) = summary_of(spec.kind) {
                    for &(quantile, metric) in quantiles {
                        if let Some(value) = mean(metric) {
                            snapshot.samples.push(Sample {
                                family,
                                labels: labels.clone(),
                                part: Part::Quantile(quantile),
                                value: value / NS_PER_S,
                            });
                        }
                    }
                    if family != Family::OneWayDelay {
                        snapshot
                            .totals
                            .push(latency_total(result, point, &arm.id, family, labels));
                    }
                }
            }
            let headline = MetricId::headline(spec.kind);
            for comparison in analysis
                .comparisons
                .iter()
                .filter(|c| c.point == point && c.metric == headline)
            {
                let Some(arm) = result.config.arm(&comparison.arm) else {
                    continue;
                };
                let baseline = comparison.baseline_summary.mean;
                let mut labels = series_labels(target, arm.id.as_str(), arm.family.key(), spec);
                labels.insert(3, ("baseline", comparison.baseline.as_str().to_string()));
                labels.push(("metric", headline.name().to_string()));
                if baseline != 0.0 {
                    snapshot.samples.push(Sample {
                        family: Family::HeadlineRatio,
                        labels: labels.clone(),
                        part: Part::Value,
                        value: comparison.arm_summary.mean / baseline,
                    });
                }
                snapshot.samples.push(Sample {
                    family: Family::HeadlineSignificant,
                    labels,
                    part: Part::Value,
                    value: f64::from(u8::from(comparison.significant)),
                });
            }
        }
        snapshot
    }

    /// A comparison that could not run at all (e.g. the name did not resolve).
    pub fn failed(target: &str, started_at_unix_ms: u64, finished_at_unix_ms: u64) -> RunSnapshot {
        RunSnapshot {
            target: target.to_string(),
            finished_at_unix_ms,
            duration_seconds: finished_at_unix_ms.saturating_sub(started_at_unix_ms) as f64
                / 1000.0,
            success: false,
            samples: Vec::new(),
            totals: Vec::new(),
        }
    }

    /// The run-level gauges: last run's timestamp, success and duration.
    pub fn outcome_samples(&self) -> Vec<Sample> {
        let labels = vec![("target", self.target.clone())];
        [
            (
                Family::LastRunTimestamp,
                self.finished_at_unix_ms as f64 / 1000.0,
            ),
            (Family::LastRunSuccess, f64::from(u8::from(self.success))),
            (Family::LastRunDuration, self.duration_seconds),
        ]
        .into_iter()
        .map(|(family, value)| Sample {
            family,
            labels: labels.clone(),
            part: Part::Value,
            value,
        })
        .collect()
    }
}

/// The exposition of one run on its own, for node_exporter's textfile
/// collector (`dualperf run --openmetrics FILE`): the run's gauges and
/// summaries (`_count`/`_sum` of this run alone) and its outcome; no
/// counters, so the text is valid OpenMetrics and valid 0.0.4 text alike.
pub fn render_run(target: &str, result: &RunResult) -> String {
    let snapshot = RunSnapshot::of_run(target, result);
    let mut samples = snapshot.outcome_samples();
    samples.extend(snapshot.samples.iter().cloned());
    for total in &snapshot.totals {
        samples.extend(total_samples(
            total.family,
            &total.labels,
            total.count,
            total.sum_seconds,
        ));
    }
    encode(&samples, Format::OpenMetrics)
}

/// The `_count` and `_sum` samples of a summary series.
pub(crate) fn total_samples(
    family: Family,
    labels: &Labels,
    count: u64,
    sum_seconds: f64,
) -> [Sample; 2] {
    [
        Sample {
            family,
            labels: labels.clone(),
            part: Part::Sum,
            value: sum_seconds,
        },
        Sample {
            family,
            labels: labels.clone(),
            part: Part::Count,
            value: count as f64,
        },
    ]
}

/// `target`, `arm`, `family`, `test`, `size_bytes`.
fn series_labels(target: &str, arm: &str, family: &str, spec: &dualperf_model::TestSpec) -> Labels {
    vec![
        ("target", target.to_string()),
        ("arm", arm.to_string()),
        ("family", family.to_string()),
        ("test", spec.kind.name().to_string()),
        ("size_bytes", spec.size_bytes.to_string()),
    ]
}

/// Indices of the points whose (test, size) no earlier point has.
fn distinct_points(result: &RunResult) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut points = Vec::new();
    for (index, spec) in result.config.points.iter().enumerate() {
        let key = (spec.kind, spec.size_bytes);
        if !seen.contains(&key) {
            seen.push(key);
            points.push(index);
        }
    }
    points
}

/// Mean over repetitions per (point, arm, metric).
fn means(analysis: &Analysis) -> HashMap<(usize, &ArmId, MetricId), f64> {
    analysis
        .summaries
        .iter()
        .map(|s| ((s.point, &s.arm, s.metric), s.summary.mean))
        .collect()
}

/// Transactions timed and their exact sum over the successful trials of
/// `arm` at `point`.
fn latency_total(
    result: &RunResult,
    point: usize,
    arm: &ArmId,
    family: Family,
    labels: Labels,
) -> Total {
    let mut total = Total {
        family,
        labels,
        count: 0,
        sum_seconds: 0.0,
    };
    for trial in result
        .trials
        .iter()
        .filter(|t| t.point == point && &t.arm == arm)
    {
        if let TrialOutcome::Ok(observations) = &trial.outcome {
            if let Some(latency) = &observations.latency {
                total.count += latency.count;
                total.sum_seconds += latency.sum_ns as f64 / NS_PER_S;
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::synthetic::synthetic_run;

    fn value(snapshot: &RunSnapshot, family: Family, pairs: &[(&str, &str)], part: Part) -> f64 {
        snapshot
            .samples
            .iter()
            .find(|s| {
                s.family == family
                    && s.part == part
                    && pairs
                        .iter()
                        .all(|(k, v)| s.labels.iter().any(|(n, w)| n == k && w == v))
            })
            .unwrap_or_else(|| panic!("no {family:?} {pairs:?} {part:?}"))
            .value
    }

    #[test]
    fn goodput_is_in_bytes_per_second_and_times_in_seconds() {
        let run = synthetic_run();
        let analysis = run.analysis.as_ref().unwrap();
        let snapshot = RunSnapshot::of_run("lab", &run);
        let stream = run
            .config
            .points
            .iter()
            .position(|p| p.kind == TestKind::TcpStream)
            .unwrap();
        let size = run.config.points[stream].size_bytes.to_string();
        let bits = analysis
            .summaries
            .iter()
            .find(|s| {
                s.point == stream && s.arm.as_str() == "v6" && s.metric == MetricId::GoodputBps
            })
            .unwrap()
            .summary
            .mean;
        let bytes = value(
            &snapshot,
            Family::Goodput,
            &[
                ("arm", "v6"),
                ("family", "v6"),
                ("test", "tcp-stream"),
                ("size_bytes", &size),
            ],
            Part::Value,
        );
        assert_eq!(bytes, bits / 8.0);
        let p50 = value(
            &snapshot,
            Family::Rtt,
            &[("arm", "v4"), ("test", "udp-rr")],
            Part::Quantile(Quantile::P50),
        );
        assert!(p50 > 1e-6 && p50 < 1e-2, "{p50} s");
    }

    #[test]
    fn the_headline_ratio_is_arm_over_baseline_and_names_its_metric() {
        let run = synthetic_run();
        let snapshot = RunSnapshot::of_run("lab", &run);
        let ratios: Vec<&Sample> = snapshot
            .samples
            .iter()
            .filter(|s| s.family == Family::HeadlineRatio)
            .collect();
        assert!(!ratios.is_empty());
        for ratio in &ratios {
            let label = |name: &str| {
                ratio
                    .labels
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.as_str())
                    .unwrap()
            };
            assert_eq!((label("arm"), label("baseline")), ("v6", "v4"));
            let kind: TestKind = label("test").parse().unwrap();
            assert_eq!(label("metric"), MetricId::headline(kind).name());
            assert!(ratio.value > 0.5 && ratio.value < 2.0, "{ratio:?}");
        }
    }

    #[test]
    fn summaries_count_every_transaction_of_the_run() {
        let run = synthetic_run();
        let snapshot = RunSnapshot::of_run("lab", &run);
        let rr = snapshot
            .totals
            .iter()
            .find(|t| t.family == Family::Rtt)
            .unwrap();
        assert!(rr.count > 0 && rr.sum_seconds > 0.0);
        let text = render_run("lab", &run);
        assert!(text.contains("dualperf_rtt_seconds_count{target=\"lab\",arm=\"v4\""));
        assert!(text.ends_with("# EOF\n"));
        assert!(!text.contains("_total"), "a textfile has no counter");
    }

    #[test]
    fn one_way_delay_appears_only_when_the_run_measured_it() {
        let with = synthetic_run();
        let text = render_run("lab", &with);
        assert!(text.contains("dualperf_one_way_delay_seconds{"), "{text}");
        // The same run between two hosts whose clocks are not shared.
        let mut without = with.clone();
        for trial in &mut without.trials {
            if let TrialOutcome::Ok(observations) = &mut trial.outcome {
                if let Some(udp) = &mut observations.udp {
                    udp.clocks_shared = false;
                }
            }
        }
        without.analysis = None;
        let without = render_run("lab", &dualperf_fixtures::analysed(without));
        assert!(
            !without.contains("dualperf_one_way_delay_seconds{"),
            "{without}"
        );
        assert!(without.contains("dualperf_loss_ratio{"), "{without}");
    }

    #[test]
    fn a_run_without_analysis_reports_only_its_outcome() {
        let mut run = synthetic_run();
        run.analysis = None;
        let snapshot = RunSnapshot::of_run("lab", &run);
        assert!(snapshot.samples.is_empty() && !snapshot.success);
        let failed = RunSnapshot::failed("x", 1_000, 3_500);
        assert_eq!(failed.duration_seconds, 2.5);
        assert_eq!(failed.outcome_samples().len(), 3);
    }
}
