//! The flow-label arm of the DiffServ experiment: the seed paper's §4
//! (“Flow label usage”: IPv6 packets classified by their flow label,
//! RFC 6437) answered with numbers. The arm carries an IPv6 flow label and
//! no DSCP; the edge router classifies it by the label alone into the EF
//! class, and it runs beside BE UDP above capacity. Shown beside the IPv6
//! arm marked DSCP EF under the same load, with the same metrics, the
//! same bound as the EF check and the paired comparison the planner
//! declares (flow label against DSCP EF, the marking being the factor).
//!
//! Both arms are found by their levels — family, marking (a flow label and
//! no DSCP; DSCP EF and no label), the per-class load's designed share —
//! never by id.

use dualperf_model::{
    Arm, ArmId, CarriedBy, ComparisonWarning, Dscp, IpFamily, LoadTable, MetricId,
};

use super::{comparison_words, condition_label, DiffServView, CLASS_LOADS, CLASS_METRICS};
use super::{Class, EF_P99_BOUND_NS};
use crate::present::value::format_value;

/// One row of the flow-label table: the load, how the arm was marked, and
/// the [`CLASS_METRICS`] formatted.
pub struct LabelRow {
    /// "BE at 115 %".
    pub condition: String,
    /// "DSCP EF (46)" or "flow label 74565, no DSCP".
    pub marking: String,
    /// The [`CLASS_METRICS`] of the arm, formatted.
    pub cells: [String; 5],
}

impl<'a> DiffServView<'a> {
    /// The IPv6 arm marked by a flow label and no DSCP under the per-class
    /// load at `load` % of the link.
    fn label_arm(&self, load: u32) -> Option<&'a Arm> {
        let view = *self;
        self.result.config.arms.iter().find(|a| {
            a.family == IpFamily::V6
                && a.marking.dscp.is_none()
                && a.marking.flow_label.is_some()
                && view.offered(a).is_some_and(|o| {
                    o.table == LoadTable::Class
                        && o.percent == load
                        && o.carried_by == CarriedBy::Family(IpFamily::V6)
                })
        })
    }

    /// The per-class loads (above idle) that have a flow-label arm.
    fn label_loads(&self) -> Vec<u32> {
        CLASS_LOADS
            .into_iter()
            .filter(|&load| load > 0 && self.label_arm(load).is_some())
            .collect()
    }

    fn cells(&self, arm: Option<&ArmId>) -> [String; 5] {
        CLASS_METRICS.map(|metric| {
            arm.and_then(|a| self.arm_summary(a, metric))
                .map_or_else(|| "–".to_string(), |s| format_value(metric, s.mean))
        })
    }

    /// The table of the seed's §4: per load with a flow-label arm, the IPv6
    /// DSCP EF arm and the flow-label arm. Empty when the run has none.
    pub fn label_rows(&self) -> Vec<LabelRow> {
        let mut rows = Vec::new();
        for load in self.label_loads() {
            let Some(labelled) = self.label_arm(load) else {
                continue;
            };
            let label = labelled.marking.flow_label.map_or(0, |l| l.value());
            rows.push(LabelRow {
                condition: condition_label(load),
                marking: format!("DSCP EF ({})", Dscp::EF.value()),
                cells: self.cells(self.class_arm(IpFamily::V6, load)),
            });
            rows.push(LabelRow {
                condition: condition_label(load),
                marking: format!("flow label {label}, no DSCP"),
                cells: self.cells(Some(&labelled.id)),
            });
        }
        rows
    }

    /// The answer of the seed's §4, per load with a flow-label arm: whether
    /// the label alone got EF treatment (the EF check's bound: p99 one-way
    /// delay within 2 ms of idle EF, no loss), starting with "ok" or
    /// "MISSED", then the paired comparison with DSCP EF per metric.
    pub fn label_lines(&self) -> Vec<String> {
        self.label_loads()
            .into_iter()
            .flat_map(|load| [self.label_check(load), self.label_comparison(load)])
            .flatten()
            .collect()
    }

    /// The ok/MISSED line of each load with a flow-label arm (the first
    /// screen's answer).
    pub fn label_checks(&self) -> Vec<String> {
        self.label_loads()
            .into_iter()
            .filter_map(|load| self.label_check(load))
            .collect()
    }

    fn label_check(&self, load: u32) -> Option<String> {
        let labelled = self.label_arm(load)?;
        let label = labelled.marking.flow_label.map_or(0, |l| l.value());
        let p99 = self.arm_summary(&labelled.id, MetricId::OwdP99Ns);
        let loss = self.arm_summary(&labelled.id, MetricId::LossRatio);
        let idle = self.class_summary(Class::Ef, 0, IpFamily::V6, MetricId::OwdP99Ns);
        let dscp = self.class_summary(Class::Ef, load, IpFamily::V6, MetricId::OwdP99Ns);
        let Some(p99) = p99 else {
            return Some(format!(
                "MISSED IPv6 flow label {label}, {}: no one-way delay measured",
                condition_label(load)
            ));
        };
        let lost = loss.map_or(0.0, |l| l.max);
        let growth = idle.map(|i| p99.median - i.median);
        let ok = growth.is_some_and(|g| g <= EF_P99_BOUND_NS) && lost == 0.0;
        let value = |v: f64| format_value(MetricId::OwdP99Ns, v);
        Some(format!(
            "{} IPv6 flow label {label} alone (no DSCP) classified as EF under {}: p99 \
             one-way delay {} (DSCP EF: {}; EF idle: {}; bound: idle + 2 ms), loss {} \
             (medians over repetitions, worst loss)",
            if ok { "ok" } else { "MISSED" },
            condition_label(load),
            value(p99.median),
            dscp.map_or_else(|| "not measured".to_string(), |s| value(s.median)),
            idle.map_or_else(|| "not measured".to_string(), |s| value(s.median)),
            format_value(MetricId::LossRatio, lost),
        ))
    }

    fn label_comparison(&self, load: u32) -> Option<String> {
        let labelled = self.label_arm(load)?;
        let label = labelled.marking.flow_label.map_or(0, |l| l.value());
        // Only a comparison with the DSCP EF arm answers the question (a
        // run planned before the contrast compared it with IPv4).
        let ef = self.class_arm(IpFamily::V6, load);
        let compared: Vec<String> = [MetricId::OwdP99Ns, MetricId::LossRatio]
            .into_iter()
            .filter_map(|metric| {
                self.analysis
                    .comparisons
                    .iter()
                    .find(|c| c.arm == labelled.id && c.metric == metric && Some(&c.baseline) == ef)
                    .map(|c| {
                        let contended = c
                            .warnings
                            .iter()
                            .any(|w| matches!(w, ComparisonWarning::Contended { .. }));
                        comparison_words(
                            metric,
                            (c.arm_summary.mean, c.baseline_summary.mean),
                            c.difference_ci95,
                            c.significant,
                            c.pairs,
                            contended,
                        )
                    })
            })
            .collect();
        (!compared.is_empty()).then(|| {
            format!(
                "flow label {label} against DSCP EF (paired by repetition, 95 % CI): {}",
                compared.join("; ")
            )
        })
    }
}
