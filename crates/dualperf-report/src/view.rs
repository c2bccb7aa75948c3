//! A read-only index over a [`RunResult`] that the renderers share: points
//! grouped by test kind and sorted by size, and lookups of summaries and
//! comparisons by point and metric name.
//!
//! Which metric a figure draws is decided here, by name, in one place
//! ([`THROUGHPUT`], [`RTT`], …): the names are those of `dualperf-stats`.

use dualperf_model::{Comparison, IpFamily, MetricSummary, RunResult, Summary, TestKind, TestSpec};

/// Throughput metrics, most preferred first.
pub(crate) const THROUGHPUT: &[&str] = &["goodput_bps"];
/// Round-trip-time metrics, most preferred first.
pub(crate) const RTT: &[&str] = &["rtt_mean_ns", "rtt_p50_ns"];
/// One-way-delay metrics (probe points).
pub(crate) const ONE_WAY_DELAY: &[&str] = &["owd_mean_ns", "owd_p50_ns"];
/// Loss metrics.
pub(crate) const LOSS: &[&str] = &["loss_ratio"];
/// Client CPU utilisation.
pub(crate) const CPU: &[&str] = &["client_cpu_cores"];
/// Service demand (CPU per MiB).
pub(crate) const SERVICE_DEMAND: &[&str] = &["client_service_demand_us_per_mib"];

/// The stream kinds, in report order.
pub(crate) const STREAM_KINDS: [TestKind; 2] = [TestKind::TcpStream, TestKind::UdpStream];
/// The request/response kinds, in report order.
pub(crate) const RR_KINDS: [TestKind; 2] = [TestKind::TcpRr, TestKind::UdpRr];

/// The index.
pub(crate) struct RunView<'a> {
    pub run: &'a RunResult,
}

impl<'a> RunView<'a> {
    pub(crate) fn new(run: &'a RunResult) -> Self {
        RunView { run }
    }

    /// Points of `kind` with their index, by ascending size (single-stream,
    /// forward, unlimited-rate points only when such exist, so a sweep is one line).
    pub(crate) fn sweep(&self, kind: TestKind) -> Vec<(usize, &'a TestSpec)> {
        let mut points: Vec<_> = self
            .run
            .config
            .points
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == kind)
            .collect();
        let plain: Vec<_> = points
            .iter()
            .copied()
            .filter(|(_, s)| s.parallel_streams <= 1 && !s.reverse && s.rate.is_none())
            .collect();
        if !plain.is_empty() {
            points = plain;
        }
        points.sort_by_key(|(index, spec)| (spec.size_bytes, *index));
        points
    }

    /// The first metric name of `preferred` that has a summary at any point.
    pub(crate) fn pick(&self, preferred: &[&str]) -> Option<&'a str> {
        let analysis = self.run.analysis.as_ref()?;
        preferred.iter().find_map(|name| {
            analysis
                .summaries
                .iter()
                .find(|s| s.metric.name == *name)
                .map(|s| s.metric.name.as_str())
        })
    }

    pub(crate) fn summary(&self, point: usize, metric: &str) -> Option<&'a MetricSummary> {
        self.run
            .analysis
            .as_ref()?
            .summaries
            .iter()
            .find(|s| s.point == point && s.metric.name == metric)
    }

    pub(crate) fn family_summary(
        &self,
        point: usize,
        metric: &str,
        family: IpFamily,
    ) -> Option<&'a Summary> {
        self.summary(point, metric)
            .and_then(|s| s.per_family.get(family).as_ref())
    }

    pub(crate) fn comparison(&self, point: usize, metric: &str) -> Option<&'a Comparison> {
        self.run
            .analysis
            .as_ref()?
            .comparisons
            .iter()
            .find(|c| c.point == point && c.metric.name == metric)
    }

    /// Comparisons of `metric` over the sweep of `kind`, by ascending size.
    pub(crate) fn sweep_comparisons(
        &self,
        kind: TestKind,
        metric: &str,
    ) -> Vec<(&'a TestSpec, &'a Comparison)> {
        self.sweep(kind)
            .into_iter()
            .filter_map(|(i, spec)| self.comparison(i, metric).map(|c| (spec, c)))
            .collect()
    }

    /// The point's label, e.g. `tcp-stream 1024 B`.
    pub(crate) fn label(&self, point: usize) -> String {
        self.run
            .config
            .points
            .get(point)
            .map_or_else(|| format!("point {point}"), TestSpec::label)
    }

    /// Smallest message size at which `family` was fragmented at `kind`, from
    /// the trials' observed fragments per datagram.
    pub(crate) fn fragmentation_threshold(&self, kind: TestKind, family: IpFamily) -> Option<u32> {
        self.run
            .trials
            .iter()
            .filter(|t| t.spec.kind == kind && t.family == family)
            .filter_map(|t| match &t.outcome {
                dualperf_model::TrialOutcome::Ok(o) if o.fragments_per_datagram > 1 => {
                    Some(t.spec.size_bytes)
                }
                _ => None,
            })
            .min()
    }
}

/// "TCP" or "UDP" for a kind.
pub(crate) fn transport(kind: TestKind) -> &'static str {
    if kind.is_udp() {
        "UDP"
    } else {
        "TCP"
    }
}
