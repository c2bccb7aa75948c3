//! A read-only index over a [`RunResult`] that the renderers share: points
//! grouped by test kind and sorted by size, the arms in configuration
//! order with their labels, and lookups of summaries and comparisons by
//! point, arm and [`MetricId`].
//!
//! Which metric a figure draws is decided here, in one place: the headline
//! of a test kind is [`MetricId::headline`] (the same metric the terminal,
//! `history` and `report --compare` headline), the others are below.

use dualperf_model::{
    Arm, ArmId, Comparison, MetricId, MetricSummary, RunResult, Summary, TestKind, TestSpec,
    TrialOutcome,
};

use crate::present::ArmNames;

/// UDP loss, shown beside the headline of UDP streams.
pub(crate) const LOSS: MetricId = MetricId::LossRatio;
/// Client CPU utilisation.
pub(crate) const CPU: MetricId = MetricId::ClientCpuCores;
/// Service demand (CPU per MiB).
pub(crate) const SERVICE_DEMAND: MetricId = MetricId::ClientServiceDemandUsPerMib;

/// The stream kinds, in report order.
pub(crate) const STREAM_KINDS: [TestKind; 2] = [TestKind::TcpStream, TestKind::UdpStream];
/// The request/response kinds, in report order.
pub(crate) const RR_KINDS: [TestKind; 2] = [TestKind::TcpRr, TestKind::UdpRr];

/// The index.
pub(crate) struct RunView<'a> {
    pub run: &'a RunResult,
    pub names: ArmNames,
}

impl<'a> RunView<'a> {
    pub(crate) fn new(run: &'a RunResult) -> Self {
        RunView {
            run,
            names: ArmNames::new(&run.config),
        }
    }

    /// Every arm, in configuration order (the baseline wherever the
    /// configuration put it).
    pub(crate) fn arms(&self) -> &'a [Arm] {
        &self.run.config.arms
    }

    /// The baseline arm's id.
    pub(crate) fn baseline(&self) -> &'a ArmId {
        &self.run.config.baseline
    }

    /// The arms compared with the baseline, in configuration order.
    pub(crate) fn compared_arms(&self) -> Vec<&'a Arm> {
        self.run.config.compared_arms().collect()
    }

    /// The label of an arm.
    pub(crate) fn arm_label<'b>(&'b self, id: &'b ArmId) -> &'b str {
        self.names.label(id)
    }

    /// The baseline's label.
    pub(crate) fn baseline_label(&self) -> &str {
        self.names.label(self.baseline())
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

    /// True when any point has a summary of `metric`.
    pub(crate) fn has(&self, metric: MetricId) -> bool {
        self.run
            .analysis
            .as_ref()
            .is_some_and(|a| a.summaries.iter().any(|s| s.metric == metric))
    }

    /// The summary of `metric` at `point` on `arm`.
    pub(crate) fn summary(
        &self,
        point: usize,
        metric: MetricId,
        arm: &ArmId,
    ) -> Option<&'a Summary> {
        self.run
            .analysis
            .as_ref()?
            .summaries
            .iter()
            .find(|s| s.point == point && s.metric == metric && &s.arm == arm)
            .map(|s| &s.summary)
    }

    /// Every summary of `metric` at `point`, any arm.
    pub(crate) fn summaries(
        &self,
        point: usize,
        metric: MetricId,
    ) -> impl Iterator<Item = &'a MetricSummary> {
        self.run
            .analysis
            .iter()
            .flat_map(|a| a.summaries.iter())
            .filter(move |s| s.point == point && s.metric == metric)
    }

    /// The comparison of `metric` at `point` between `arm` and the baseline.
    pub(crate) fn comparison(
        &self,
        point: usize,
        metric: MetricId,
        arm: &ArmId,
    ) -> Option<&'a Comparison> {
        self.run
            .analysis
            .as_ref()?
            .comparisons
            .iter()
            .find(|c| c.point == point && c.metric == metric && &c.arm == arm)
    }

    /// Comparisons of `metric` on `arm` over the sweep of `kind`, by ascending size.
    pub(crate) fn sweep_comparisons(
        &self,
        kind: TestKind,
        metric: MetricId,
        arm: &ArmId,
    ) -> Vec<(&'a TestSpec, &'a Comparison)> {
        self.sweep(kind)
            .into_iter()
            .filter_map(|(i, spec)| self.comparison(i, metric, arm).map(|c| (spec, c)))
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

    /// The point's test kind.
    pub(crate) fn kind(&self, point: usize) -> Option<TestKind> {
        self.run.config.points.get(point).map(|s| s.kind)
    }

    /// Smallest message size at which `arm` was fragmented at `kind`, from
    /// the trials' observed fragments per datagram.
    pub(crate) fn fragmentation_threshold(&self, kind: TestKind, arm: &ArmId) -> Option<u32> {
        self.run
            .trials
            .iter()
            .filter(|t| t.spec.kind == kind && &t.arm == arm)
            .filter_map(|t| match &t.outcome {
                TrialOutcome::Ok(o) if o.fragments_per_datagram > 1 => Some(t.spec.size_bytes),
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
