//! What the stats stage makes of observations: per-family summaries over
//! repetitions and the IPv6-versus-IPv4 comparison of every point and metric.
//! Values here are computed, never measured; `None` fields carry the reason
//! in `missing_reason` instead of NaN (JSON has no NaN).

use serde::{Deserialize, Serialize};

use crate::family::PerFamily;

/// A metric the comparison reports. The name is the machine key (JSON, CSV,
/// SQL); `unit` and `higher_is_better` tell a reader how to take it.
#[derive(Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd, Serialize, Deserialize)]
pub struct Metric {
    /// Machine key with its unit, e.g. `goodput_bps`, `rtt_p50_ns`, `loss_ratio`.
    pub name: String,
    /// Unit for people, e.g. "bit/s", "ns", "ratio".
    pub unit: String,
    /// True when a larger value is better (throughput), false otherwise (latency, loss).
    pub higher_is_better: bool,
    /// Where the definition comes from, e.g. "RFC 3550 §6.4.1".
    pub definition: String,
}

/// Summary statistics of one sample (e.g. one metric over R repetitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1); `None` for fewer than 2 values.
    pub standard_deviation: Option<f64>,
    /// Coefficient of variation, sd / |mean|; `None` when undefined.
    pub coefficient_of_variation: Option<f64>,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Median.
    pub median: f64,
    /// Lower end of the Student-t 95 % confidence interval of the mean.
    pub ci95_low: Option<f64>,
    /// Upper end of the Student-t 95 % confidence interval of the mean.
    pub ci95_high: Option<f64>,
}

/// One metric of one point, summarised per family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    /// Index of the point in the run's config.
    pub point: usize,
    /// The metric.
    pub metric: Metric,
    /// Per family, `None` where the family was not measured or the metric
    /// could not be computed.
    pub per_family: PerFamily<Option<Summary>>,
}

/// The IPv6 − IPv4 comparison of one metric at one point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Index of the point in the run's config.
    pub point: usize,
    /// The metric.
    pub metric: Metric,
    /// Per-family summaries over repetitions.
    pub per_family: PerFamily<Summary>,
    /// Number of v4/v6 pairs the paired difference uses.
    pub pairs: u64,
    /// Mean of the paired differences v6 − v4, in the metric's unit.
    pub difference_mean: f64,
    /// 95 % CI of the paired difference; `None` with fewer than 2 pairs.
    pub difference_ci95: Option<(f64, f64)>,
    /// difference_mean / IPv4 mean; `None` when the IPv4 mean is 0.
    pub relative_difference: Option<f64>,
    /// 95 % CI of the relative difference (the difference CI over the IPv4 mean).
    pub relative_difference_ci95: Option<(f64, f64)>,
    /// True when the difference CI excludes 0.
    pub significant: bool,
    /// What the header-overhead model predicts for (v6 − v4) / v4, if it applies.
    pub theoretical_relative_difference: Option<f64>,
    /// One-line verdict for people, e.g. "IPv6 is 4.8 % slower (95 % CI 3.9–5.7 %, significant); the header explains 1.4 %".
    pub verdict: String,
    /// Warnings, e.g. "IPv4 unstable: CV 14 % > 10 %; repeat more or run longer".
    pub warnings: Vec<String>,
}

/// Everything the stats stage computed for a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Summaries of every metric at every point (also single-family runs).
    pub summaries: Vec<MetricSummary>,
    /// Comparisons where both families were measured.
    pub comparisons: Vec<Comparison>,
    /// Metrics that could not be computed, and why (`point`, metric name, reason).
    pub missing: Vec<(usize, String, String)>,
    /// The choices the analysis made (confidence level, percentile method,
    /// loss waiting time, theory assumptions); `None` in results written
    /// before this field existed.
    #[serde(default)]
    pub method: Option<AnalysisMethod>,
}

/// The choices behind an [`Analysis`], stored with it so that a number can
/// be reproduced (docs/metrics.md explains each).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnalysisMethod {
    /// Confidence level of every interval, e.g. 0.95.
    pub confidence_level: f64,
    /// A family whose coefficient of variation exceeds this gets a warning, e.g. 0.10.
    pub cv_warning_ratio: f64,
    /// How percentiles are computed.
    pub percentile_method: String,
    /// How IPv4 and IPv6 repetitions are paired.
    pub pairing: String,
    /// Loss waiting time applied when the trial does not state one, milliseconds.
    pub default_loss_waiting_time_ms: u64,
    /// What the theoretical difference assumes.
    pub theory: String,
}
