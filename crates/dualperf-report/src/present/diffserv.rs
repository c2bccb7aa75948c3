//! The DiffServ experiments of a run (`dualperf lab diffserv`, issue 12) in
//! people's words: per-class rows (EF, BE, LBE × idle / below / above
//! capacity × IPv4 / IPv6), per-class verdicts IPv6 against IPv4, the
//! issue's done-when check, the load-step table (the paper's Table 2), the
//! conditioner checks, and the series of the report's figures (router CPU,
//! delay and jitter per class against load). The terminal and the HTML
//! report both read this; nothing is formatted elsewhere.
//!
//! Arms are found by their levels, never by id: the EF arm of a family
//! idle or under a per-class load ([`dualperf_model::LoadTable::Class`]), the
//! arm of a load-step cell ([`dualperf_model::LoadTable::Step`]: offered
//! share × datagram size × carrying families), and within a load its flows
//! by kind and marking (the BE UDP stream, the BE and LBE probes). A run
//! without designed loads has no DiffServ view ([`DiffServView::of`]
//! returns `None`).

use dualperf_model::{
    Analysis, ArmId, CarriedBy, Dscp, IpFamily, LoadCondition, LoadFlow, LoadFlowSummary,
    LoadTable, MetricId, OfferedLoad, RemarkCase, RunResult, Summary, TestKind,
};

use crate::present::value::{format_value, significant};

/// Load conditions of the per-class experiment, percent of the link (0: idle).
pub const CLASS_LOADS: [u32; 3] = [0, 85, 115];
/// Load steps of the table, percent of the link.
pub const STEPS: [u32; 3] = [85, 100, 115];
/// A step whose sender reached less than this share of its asked rate is
/// marked: the load it offered was lower than the step says.
pub const SHORT_OF_RATE: f64 = 0.97;

/// The footnote of a marked step cell.
pub fn short_of_rate_note() -> String {
    format!(
        "* the BE sender reached less than {} % of its asked rate (the machine's CPU, not the \
         link, limited it), so the load it offered was lower than the step says",
        crate::present::value::percent(SHORT_OF_RATE)
    )
}

/// The bound on how much EF p99 one-way delay may grow under load.
pub const EF_P99_BOUND_NS: f64 = 2_000_000.0;

/// A traffic class of the experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Expedited Forwarding (DSCP 46): the measured probe.
    Ef,
    /// Best effort (DSCP 0): the load's probe.
    Be,
    /// Lower effort (CS1): the load's probe.
    Lbe,
}

impl Class {
    /// "EF", "BE", "LBE".
    pub fn label(self) -> &'static str {
        match self {
            Class::Ef => "EF",
            Class::Be => "BE",
            Class::Lbe => "LBE",
        }
    }
}

/// The metrics a class row shows, in order.
pub const CLASS_METRICS: [MetricId; 5] = [
    MetricId::OwdP50Ns,
    MetricId::OwdP99Ns,
    MetricId::PdvP99Ns,
    MetricId::LossRatio,
    MetricId::ReorderedRatio,
];

/// A run seen as the DiffServ experiments.
#[derive(Clone, Copy)]
pub struct DiffServView<'a> {
    result: &'a RunResult,
    analysis: &'a Analysis,
}

/// Who carries the BE load of a step-table column (0 IPv4, 1 IPv6, 2 mixed).
pub(crate) fn carried_by(column: usize) -> CarriedBy {
    match column {
        0 => CarriedBy::Family(IpFamily::V4),
        1 => CarriedBy::Family(IpFamily::V6),
        _ => CarriedBy::Mixed,
    }
}

/// A flow of a load, as the tables pick it: the BE UDP stream (the load
/// itself), or the probe of a class beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoadPart {
    /// The best-effort UDP stream that makes the load.
    Stream,
    /// The probe in `class` (BE or LBE) beside it.
    Probe(Class),
}

impl LoadPart {
    fn matches(self, flow: &LoadFlow) -> bool {
        let dscp = flow.marking.dscp.filter(|d| *d != Dscp::BE);
        match self {
            LoadPart::Stream => flow.spec.kind == TestKind::UdpStream && dscp.is_none(),
            LoadPart::Probe(Class::Be) => flow.spec.kind == TestKind::UdpProbe && dscp.is_none(),
            LoadPart::Probe(Class::Lbe) => {
                flow.spec.kind == TestKind::UdpProbe && dscp.is_some_and(|d| d != Dscp::EF)
            }
            LoadPart::Probe(Class::Ef) => {
                flow.spec.kind == TestKind::UdpProbe && dscp == Some(Dscp::EF)
            }
        }
    }
}

impl<'a> DiffServView<'a> {
    /// The view, when `result` is a DiffServ experiment (it has per-class
    /// loads) with an analysis.
    pub fn of(result: &'a RunResult) -> Option<DiffServView<'a>> {
        let analysis = result.analysis.as_ref()?;
        let designed = result
            .config
            .loads
            .iter()
            .any(|l| l.offered.is_some_and(|o| o.table == LoadTable::Class));
        designed.then_some(DiffServView { result, analysis })
    }

    /// The designed level of `arm`'s load, if it runs under one.
    fn offered(&self, arm: &dualperf_model::Arm) -> Option<OfferedLoad> {
        match arm.load {
            LoadCondition::Idle => None,
            LoadCondition::Under { .. } => self.result.config.load_of(arm).ok().flatten()?.offered,
        }
    }

    /// The EF arm of `family` idle (`load` 0) or under the per-class load
    /// at `load` % of the link.
    fn class_arm(&self, family: IpFamily, load: u32) -> Option<&'a ArmId> {
        let view = *self;
        self.result
            .config
            .arms
            .iter()
            .find(|a| {
                a.family == family
                    && a.marking.dscp == Some(Dscp::EF)
                    && match load {
                        0 => a.load == LoadCondition::Idle,
                        _ => view.offered(a).is_some_and(|o| {
                            o.table == LoadTable::Class
                                && o.percent == load
                                && o.carried_by == CarriedBy::Family(family)
                        }),
                    }
            })
            .map(|a| &a.id)
    }

    /// The arm of a load-step cell: `column` (IPv4, IPv6, mixed) at `percent`
    /// % of the link with `size`-byte datagrams.
    fn step_arm_id(&self, column: usize, percent: u32, size: u32) -> Option<&'a ArmId> {
        let want = OfferedLoad {
            table: LoadTable::Step,
            percent,
            datagram_bytes: size,
            carried_by: carried_by(column),
        };
        let view = *self;
        self.result
            .config
            .arms
            .iter()
            .find(|a| a.marking.dscp == Some(Dscp::EF) && view.offered(a) == Some(want))
            .map(|a| &a.id)
    }

    /// The load flow `flow` of `arm`'s load.
    fn load_flow(&self, arm: &ArmId, flow: usize) -> Option<&'a LoadFlow> {
        let arm = self.result.config.arm(arm)?;
        self.result
            .config
            .load_of(arm)
            .ok()
            .flatten()?
            .flows
            .get(flow)
    }

    /// The summary of `metric` for `class` at `load` over `family`.
    pub fn class_summary(
        &self,
        class: Class,
        load: u32,
        family: IpFamily,
        metric: MetricId,
    ) -> Option<Summary> {
        let arm = self.class_arm(family, load)?;
        match class {
            Class::Ef => self.arm_summary(arm, metric),
            Class::Be | Class::Lbe => self
                .flow(arm, LoadPart::Probe(class), metric)
                .map(|f| f.summary),
        }
    }

    fn arm_summary(&self, arm: &ArmId, metric: MetricId) -> Option<Summary> {
        self.analysis
            .summaries
            .iter()
            .find(|s| &s.arm == arm && s.metric == metric)
            .map(|s| s.summary)
    }

    /// The summaries of `metric` of every flow of `arm`'s load that is `part`.
    fn flows(
        &self,
        arm: &'a ArmId,
        part: LoadPart,
        metric: MetricId,
    ) -> impl Iterator<Item = &'a LoadFlowSummary> + 'a {
        let view = *self;
        self.analysis.load_flows.iter().filter(move |f| {
            &f.arm == arm
                && f.metric == metric
                && view
                    .load_flow(arm, f.flow)
                    .is_some_and(|flow| part.matches(flow))
        })
    }

    fn flow(
        &self,
        arm: &'a ArmId,
        part: LoadPart,
        metric: MetricId,
    ) -> Option<&'a LoadFlowSummary> {
        self.flows(arm, part, metric).next()
    }

    /// BE UDP load loss on the class arm of `family` at `load` %.
    pub fn be_load_loss(&self, family: IpFamily, load: u32) -> Option<f64> {
        let arm = self.class_arm(family, load)?;
        self.flow(arm, LoadPart::Stream, MetricId::LossRatio)
            .map(|f| f.summary.mean)
    }

    /// The routers with a CPU figure, in first-seen order.
    pub fn routers(&self) -> Vec<String> {
        let mut nodes: Vec<String> = Vec::new();
        for r in &self.analysis.routers {
            if !nodes.contains(&r.node) {
                nodes.push(r.node.clone());
            }
        }
        nodes
    }

    /// Sizes of the load-step table, ascending.
    pub fn step_sizes(&self) -> Vec<u32> {
        let mut sizes: Vec<u32> = self
            .result
            .config
            .loads
            .iter()
            .filter_map(|l| l.offered.filter(|o| o.table == LoadTable::Step))
            .map(|o| o.datagram_bytes)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The per-class table: one row per (load, class), columns per family.
    pub fn class_rows(&self) -> Vec<ClassRow> {
        let mut rows = Vec::new();
        for load in CLASS_LOADS {
            let classes: &[Class] = if load == 0 {
                &[Class::Ef]
            } else {
                &[Class::Ef, Class::Be, Class::Lbe]
            };
            for &class in classes {
                let cells = IpFamily::ALL.map(|family| {
                    CLASS_METRICS.map(|metric| {
                        self.class_summary(class, load, family, metric)
                            .map_or_else(|| "–".to_string(), |s| format_value(metric, s.mean))
                    })
                });
                rows.push(ClassRow {
                    condition: condition_label(load),
                    class: class.label(),
                    cells,
                });
            }
        }
        rows
    }

    /// Per-class verdicts IPv6 against IPv4: one sentence per (load,
    /// class) on the p99 one-way delay and the loss.
    pub fn verdicts(&self) -> Vec<String> {
        self.class_verdicts()
            .iter()
            .map(ClassVerdict::sentence)
            .collect()
    }

    /// The per-class contrasts IPv6 against IPv4, one per (load, class)
    /// that was measured, with the words and significance of each metric.
    pub fn class_verdicts(&self) -> Vec<ClassVerdict> {
        let mut lines = Vec::new();
        for load in CLASS_LOADS {
            let Some(v6) = self.class_arm(IpFamily::V6, load) else {
                continue;
            };
            for class in [Class::Ef, Class::Be, Class::Lbe] {
                if load == 0 && class != Class::Ef {
                    continue;
                }
                let mut parts = Vec::new();
                for metric in [MetricId::OwdP99Ns, MetricId::LossRatio] {
                    let found = match class {
                        Class::Ef => self
                            .analysis
                            .comparisons
                            .iter()
                            .find(|c| &c.arm == v6 && c.metric == metric)
                            .map(|c| {
                                let contended = c.warnings.iter().any(|w| {
                                    matches!(w, dualperf_model::ComparisonWarning::Contended { .. })
                                });
                                (
                                    c.arm_summary.mean,
                                    c.baseline_summary.mean,
                                    c.difference_ci95,
                                    c.significant,
                                    c.pairs,
                                    contended,
                                )
                            }),
                        Class::Be | Class::Lbe => {
                            let part = LoadPart::Probe(class);
                            self.analysis
                                .load_comparisons
                                .iter()
                                .find(|c| {
                                    &c.arm == v6
                                        && c.metric == metric
                                        && self
                                            .load_flow(v6, c.flow)
                                            .is_some_and(|f| part.matches(f))
                                })
                                .map(|c| {
                                    (
                                        c.arm_summary.mean,
                                        c.baseline_summary.mean,
                                        c.difference_ci95,
                                        c.significant,
                                        c.pairs,
                                        false,
                                    )
                                })
                        }
                    };
                    if let Some((v6_mean, v4_mean, ci, significant, pairs, contended)) = found {
                        parts.push(MetricVerdict {
                            words: comparison_words(
                                metric,
                                (v6_mean, v4_mean),
                                ci,
                                significant,
                                pairs,
                                contended,
                            ),
                            significant: significant && !contended,
                        });
                    }
                }
                if !parts.is_empty() {
                    lines.push(ClassVerdict { class, load, parts });
                }
            }
        }
        lines
    }

    /// The done-when check at 115 %, one line per family and one
    /// for BE, each starting with "ok" or "MISSED".
    pub fn done_when(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for family in IpFamily::ALL {
            let idle = self.class_summary(Class::Ef, 0, family, MetricId::OwdP99Ns);
            let loaded = self.class_summary(Class::Ef, 115, family, MetricId::OwdP99Ns);
            let loss = self.class_summary(Class::Ef, 115, family, MetricId::LossRatio);
            let (Some(idle), Some(loaded)) = (idle, loaded) else {
                lines.push(format!(
                    "MISSED {}: no EF p99 one-way delay idle and under 115 %",
                    family.label()
                ));
                continue;
            };
            // Medians over repetitions: one repetition stalled by the
            // machine (a shared 2-core host) must not decide alone; the
            // worst repetition is shown beside it.
            let growth = loaded.median - idle.median;
            let worst = loaded.max - idle.median;
            let lost = loss.map_or(0.0, |l| l.max);
            let ok = growth <= EF_P99_BOUND_NS && lost == 0.0;
            lines.push(format!(
                "{} {} EF p99 one-way delay {} idle, {} under BE at 115 % (medians over repetitions: {}{}, worst repetition {}{}; bound +2 ms), EF loss {}",
                if ok { "ok" } else { "MISSED" },
                family.label(),
                format_value(MetricId::OwdP99Ns, idle.median),
                format_value(MetricId::OwdP99Ns, loaded.median),
                if growth >= 0.0 { "+" } else { "−" },
                format_value(MetricId::OwdP99Ns, growth.abs()),
                if worst >= 0.0 { "+" } else { "−" },
                format_value(MetricId::OwdP99Ns, worst.abs()),
                loss.map_or_else(|| "not measured".to_string(), |l| format_value(MetricId::LossRatio, l.max)),
            ));
        }
        let be: Vec<String> = IpFamily::ALL
            .into_iter()
            .filter_map(|f| self.be_load_loss(f, 115).map(|l| (f, l)))
            .map(|(f, l)| format!("{} {}", f.label(), format_value(MetricId::LossRatio, l)))
            .collect();
        let be_loses = IpFamily::ALL
            .into_iter()
            .all(|f| self.be_load_loss(f, 115).is_some_and(|l| l > 0.0));
        lines.push(format!(
            "{} BE UDP at 115 % loses packets: {}",
            if be_loses { "ok" } else { "MISSED" },
            if be.is_empty() {
                "not measured".to_string()
            } else {
                be.join(", ")
            }
        ));
        lines
    }

    /// The conditioner checks, one sentence each.
    pub fn checks(&self) -> Vec<String> {
        let Some(findings) = self
            .result
            .testbed
            .as_ref()
            .and_then(|t| t.diffserv.as_ref())
        else {
            return Vec::new();
        };
        let mut lines: Vec<String> = findings
            .checks
            .iter()
            .map(|c| {
                let offered = format_value(MetricId::SenderThroughputBps, c.offered_bps as f64);
                match c.case {
                    RemarkCase::Policing => {
                        let total = c.kept_ef_packets + c.excess_remarked_packets;
                        format!(
                            "{} EF from {} at {offered} (twice its allowance of {} packets/s): \
                             {} packets kept as EF, {} remarked to DSCP 0 ({} of {}, warm-up included); \
                             {} of {} measured datagrams received",
                            c.family.label(),
                            c.source,
                            c.allowance_pps,
                            c.kept_ef_packets,
                            c.excess_remarked_packets,
                            loss_percent(ratio(c.excess_remarked_packets, total)) + " %",
                            total,
                            c.received_packets,
                            c.sent_packets
                        )
                    }
                    RemarkCase::Unauthorised => format!(
                        "{} EF from unauthorised {} at {offered}: {} packets remarked to DSCP 0, {} kept as EF",
                        c.family.label(),
                        c.source,
                        c.unauthorised_remarked_packets,
                        c.kept_ef_packets
                    ),
                }
            })
            .collect();
        lines.extend(findings.notes.iter().map(|n| format!("note: {n}")));
        lines
    }

    /// How router CPU was attributed, one line.
    pub fn steering(&self) -> Option<String> {
        let findings = self.result.testbed.as_ref()?.diffserv.as_ref()?;
        (!findings.steering.is_empty()).then(|| {
            format!(
                "router CPU = softirq time of the CPU each router's receive processing \
                 was steered to ({}), over each trial; it includes anything else the kernel did in \
                 softirq on that CPU (docs/metrics.md, Router CPU)",
                findings.steering.join("; ")
            )
        })
    }

    /// The size the router-CPU figure uses: 512 B as the paper, else the smallest.
    pub fn cpu_size(&self) -> Option<u32> {
        let sizes = self.step_sizes();
        sizes
            .iter()
            .copied()
            .find(|&s| s == 512)
            .or_else(|| sizes.first().copied())
    }
}

/// A router and its CPU cells, as [`DiffServView::router_table`] gives them.
pub type RouterRow = (String, Vec<String>);

/// One row of the per-class table.
pub struct ClassRow {
    /// "idle", "BE at 85 %", "BE at 115 %".
    pub condition: String,
    /// "EF", "BE", "LBE".
    pub class: &'static str,
    /// Per family (IPv4, IPv6), the [`CLASS_METRICS`] formatted.
    pub cells: [[String; 5]; 2],
}

/// "idle" or "BE at 115 %".
pub fn condition_label(load: u32) -> String {
    if load == 0 {
        "idle".to_string()
    } else {
        format!("BE at {load} %")
    }
}

/// A loss ratio as a percentage without its sign: "0", "0.17", "12.6".
pub fn loss_percent(ratio: f64) -> String {
    if ratio == 0.0 {
        "0".to_string()
    } else {
        significant(ratio * 100.0)
    }
}

fn ratio(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

#[path = "diffserv_answer.rs"]
mod answer;
use answer::comparison_words;
pub use answer::{ClassVerdict, MetricVerdict};

#[path = "diffserv_steps.rs"]
mod steps;

#[path = "diffserv_label.rs"]
mod label;
pub use label::LabelRow;

#[cfg(test)]
#[path = "diffserv_tests.rs"]
mod view_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_cells_read_like_the_papers_table() {
        assert_eq!(loss_percent(0.0), "0");
        assert_eq!(loss_percent(0.0017), "0.17");
        assert_eq!(loss_percent(0.1255), "12.6");
        assert_eq!(condition_label(115), "BE at 115 %");
    }

    #[test]
    fn verdict_words_give_both_values_and_the_difference() {
        let text = comparison_words(
            MetricId::OwdP99Ns,
            (210_000.0, 190_000.0),
            Some((-1.0, 1.0)),
            false,
            3,
            false,
        );
        assert!(
            text.contains("vs") && text.contains("not significant"),
            "{text}"
        );
    }
}
