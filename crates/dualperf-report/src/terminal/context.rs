//! The terminal table's view of one run: which arms and metrics a point
//! shows, their summaries and comparisons, and the verdict sentences
//! ([`Context`]). The table itself is laid out in `layout.rs`, a point's
//! block in `point.rs`.

use std::collections::BTreeSet;

use dualperf_model::{Analysis, ArmId, Comparison, MetricId, RunResult, Summary, TestSpec};

use crate::present::clocks::{clock_words, is_one_way_delay, point_clock_basis, ClockBasis};
use crate::present::{verdict, why_clause, ArmNames};

/// What every part of the table needs.
pub(super) struct Context<'a> {
    /// The run.
    pub(super) result: &'a RunResult,
    /// Its analysis.
    pub(super) analysis: &'a Analysis,
    /// The arms' labels.
    pub(super) names: ArmNames,
}

impl<'a> Context<'a> {
    pub(super) fn new(result: &'a RunResult, analysis: &'a Analysis) -> Self {
        Context {
            result,
            analysis,
            names: ArmNames::new(&result.config),
        }
    }

    pub(super) fn spec(&self, point: usize) -> Option<&'a TestSpec> {
        self.result.config.points.get(point).or_else(|| {
            self.result
                .trials
                .iter()
                .find(|t| t.point == point)
                .map(|t| &t.spec)
        })
    }

    pub(super) fn point_label(&self, point: usize) -> String {
        self.spec(point)
            .map_or_else(|| format!("point {}", point + 1), TestSpec::label)
    }

    pub(super) fn baseline(&self) -> &'a ArmId {
        &self.result.config.baseline
    }

    /// The arms shown at a point: the configuration's arms that have a
    /// summary or a missing entry there, plus any the analysis names that
    /// the configuration does not (an old result), baseline first.
    pub(super) fn arms_at(&self, point: usize) -> Vec<&'a ArmId> {
        let mut arms: Vec<&ArmId> = Vec::new();
        let seen = self
            .analysis
            .summaries
            .iter()
            .filter(|s| s.point == point)
            .map(|s| &s.arm)
            .chain(
                self.analysis
                    .missing
                    .iter()
                    .filter(|m| m.point == point)
                    .map(|m| &m.arm),
            );
        for arm in seen {
            if !arms.contains(&arm) {
                arms.push(arm);
            }
        }
        let baseline = self.baseline();
        arms.sort_by_key(|arm| (*arm != baseline, self.names.index(arm)));
        arms
    }

    /// The compared arms at a point (every shown arm but the baseline).
    pub(super) fn compared_at(&self, point: usize) -> Vec<&'a ArmId> {
        let baseline = self.baseline();
        self.arms_at(point)
            .into_iter()
            .filter(|arm| *arm != baseline)
            .collect()
    }

    pub(super) fn summary(
        &self,
        point: usize,
        metric: MetricId,
        arm: &ArmId,
    ) -> Option<&'a Summary> {
        self.analysis
            .summaries
            .iter()
            .find(|s| s.point == point && s.metric == metric && &s.arm == arm)
            .map(|s| &s.summary)
    }

    pub(super) fn comparison(
        &self,
        point: usize,
        metric: MetricId,
        arm: &ArmId,
    ) -> Option<&'a Comparison> {
        self.analysis
            .comparisons
            .iter()
            .find(|c| c.point == point && c.metric == metric && &c.arm == arm)
    }

    /// The headline comparison of `arm` at `point` (the one metric of the
    /// point's kind, [`MetricId::headline`]).
    pub(super) fn headline(&self, point: usize, arm: &ArmId) -> Option<&'a Comparison> {
        self.comparison(point, MetricId::headline_of(self.spec(point)?), arm)
    }

    /// The verdict sentence of a comparison, with its "why" when there is
    /// one, and for a one-way delay what its clocks are unless they are one
    /// kernel's (exact).
    pub(super) fn sentence(&self, comparison: &Comparison) -> String {
        let arm = self.names.label(&comparison.arm);
        let mut line = verdict(comparison, arm, self.names.label(&comparison.baseline));
        if let Some(why) = why_clause(self.analysis, comparison, arm) {
            line.push_str("; ");
            line.push_str(&why);
        }
        if is_one_way_delay(comparison.metric) {
            match self.clock_basis(comparison.point) {
                Some(ClockBasis::OneKernel) | None => {}
                Some(basis) => {
                    line.push_str(" (");
                    line.push_str(&clock_words(basis));
                    line.push(')');
                }
            }
        }
        line
    }

    /// What the one-way delays at `point` rest on.
    pub(super) fn clock_basis(&self, point: usize) -> Option<ClockBasis> {
        point_clock_basis(self.result.trials.iter().filter(|t| t.point == point))
    }

    pub(super) fn verdict_lines(&self, point: usize) -> Vec<String> {
        let label = self.point_label(point);
        let baseline = self.names.label(self.baseline());
        let mut compared = self.compared_at(point);
        if compared.is_empty() {
            // Nothing but the baseline (or nothing) at this point: say so once.
            compared = self.result.config.compared_arms().map(|a| &a.id).collect();
        }
        let mut lines = Vec::new();
        for arm in compared {
            let line = match self.headline(point, arm) {
                Some(c) => format!(
                    "[{}] {label}, {}: {}",
                    point + 1,
                    c.metric.label(),
                    self.sentence(c)
                ),
                None => format!(
                    "[{}] {label}: no {baseline}/{} comparison ({})",
                    point + 1,
                    self.names.label(arm),
                    self.why_missing(point, arm)
                ),
            };
            lines.push(line);
        }
        lines
    }

    /// Why a point has no headline comparison for `arm`: the missing entry
    /// of its headline metric (either arm), else any missing entry.
    pub(super) fn why_missing(&self, point: usize, arm: &ArmId) -> String {
        let headline = self.spec(point).map(MetricId::headline_of);
        let at_point = || {
            self.analysis
                .missing
                .iter()
                .filter(move |m| m.point == point)
        };
        let relevant =
            |m: &&dualperf_model::MissingMetric| &m.arm == arm || &m.arm == self.baseline();
        at_point()
            .filter(relevant)
            .find(|m| Some(m.metric) == headline)
            .or_else(|| at_point().find(relevant))
            .map(|m| {
                format!(
                    "{} on {}: {}",
                    m.metric.label(),
                    self.names.label(&m.arm),
                    strip_arm(&m.reason, self.names.label(&m.arm))
                )
            })
            .unwrap_or_else(|| "only one arm was measured".to_string())
    }

    /// Every metric with a summary at `point`, in table order.
    pub(super) fn metrics_at(&self, point: usize) -> Vec<MetricId> {
        let metrics: BTreeSet<(usize, MetricId)> = self
            .analysis
            .summaries
            .iter()
            .filter(|s| s.point == point)
            .map(|s| (s.metric.order(), s.metric))
            .collect();
        metrics.into_iter().map(|(_, m)| m).collect()
    }
}

/// `reason` without a leading "<arm label>: " (older stats stages wrote one).
pub(super) fn strip_arm<'r>(reason: &'r str, arm: &str) -> &'r str {
    reason
        .strip_prefix(arm)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(reason)
}
