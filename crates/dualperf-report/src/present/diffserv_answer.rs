//! The DiffServ experiment's answer on the first screen: its contrasts in
//! a handful of sentences, naming only what differs significantly (every
//! number stays in the tables), and the per-class verdict words they are
//! built from.

use dualperf_model::{Factor, LoadCondition, LoadTable, MetricId};

use super::{condition_label, Class, DiffServView};
use crate::present::claims_significance;
use crate::present::value::format_value;

/// Names at most this many significant contrasts in one sentence.
const NAMED: usize = 3;

/// One metric of a per-class contrast, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricVerdict {
    /// E.g. "one-way delay p99 77.1 µs vs 72.8 µs (+4.35 µs, not significant)".
    pub words: String,
    /// True when the difference is claimed significant (not on contended trials).
    pub significant: bool,
}

/// One per-class contrast IPv6 against IPv4 under one class load.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassVerdict {
    /// The probe's class.
    pub class: Class,
    /// The BE load, percent of the core link (0: idle).
    pub load: u32,
    /// The metrics compared (p99 one-way delay, loss).
    pub parts: Vec<MetricVerdict>,
}

impl ClassVerdict {
    /// "EF idle: IPv6 against IPv4 — …; …".
    pub fn sentence(&self) -> String {
        format!(
            "{}: IPv6 against IPv4 — {}",
            self.place(),
            self.parts
                .iter()
                .map(|p| p.words.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )
    }

    /// "EF idle", "BE at 115 %".
    fn place(&self) -> String {
        format!("{} {}", self.class.label(), condition_label(self.load))
    }
}

impl DiffServView<'_> {
    /// The answer's DiffServ sentences: the per-class contrasts IPv6
    /// against IPv4 in one sentence naming the significant ones, then one
    /// per contrast factor over the load steps.
    pub fn answer(&self) -> Vec<String> {
        let mut sentences = Vec::new();
        let verdicts = self.class_verdicts();
        if !verdicts.is_empty() {
            let significant: Vec<String> = verdicts
                .iter()
                .flat_map(|v| {
                    v.parts
                        .iter()
                        .filter(|p| p.significant)
                        .map(move |p| format!("{}: {}", v.place(), p.words))
                })
                .collect();
            sentences.push(named(
                &format!(
                    "Per class and load, IPv6 against IPv4 ({} contrasts on one-way delay p99 and loss)",
                    verdicts.len()
                ),
                &significant,
                "the per-class table",
            ));
        }
        // The seed's §4: the flow label alone as the class.
        sentences.extend(self.label_checks());
        for factor in [Factor::Family, Factor::Load] {
            let (total, significant) = self.step_contrasts(factor);
            if total > 0 {
                sentences.push(named(
                    &format!(
                        "Across the load steps, {total} {} contrasts on the EF probe's one-way delay",
                        factor.key()
                    ),
                    &significant,
                    "the load-step tables",
                ));
            }
        }
        sentences
    }

    /// The declared contrasts of `factor` whose arm runs under a load of
    /// the step table, compared on the EF probe's median one-way delay:
    /// how many, and the significant ones in words.
    fn step_contrasts(&self, factor: Factor) -> (usize, Vec<String>) {
        let config = &self.result.config;
        let in_steps = |arm: &dualperf_model::ArmId| {
            config.arms.iter().find(|a| &a.id == arm).is_some_and(|a| {
                matches!(&a.load, LoadCondition::Under { load } if config
                    .loads
                    .iter()
                    .find(|l| &l.name == load)
                    .and_then(|l| l.offered)
                    .is_some_and(|o| o.table == LoadTable::Step))
            })
        };
        let label = |arm: &dualperf_model::ArmId| {
            config
                .arms
                .iter()
                .find(|a| &a.id == arm)
                .map_or_else(|| arm.to_string(), |a| a.label.clone())
        };
        let mut total = 0;
        let mut significant = Vec::new();
        for contrast in config
            .contrasts
            .iter()
            .filter(|c| c.factor == factor && in_steps(&c.arm))
        {
            let Some(comparison) = self.analysis.comparisons.iter().find(|c| {
                c.arm == contrast.arm
                    && c.baseline == contrast.baseline
                    && c.metric == MetricId::OwdP50Ns
            }) else {
                continue;
            };
            total += 1;
            if claims_significance(comparison) {
                significant.push(format!(
                    "{} against {}: {} vs {}",
                    label(&contrast.arm),
                    label(&contrast.baseline),
                    format_value(comparison.metric, comparison.arm_summary.mean),
                    format_value(comparison.metric, comparison.baseline_summary.mean)
                ));
            }
        }
        (total, significant)
    }
}

/// "{what}: none differs significantly (every number in {place})" or
/// "{what}: 2 differ significantly — a; b." naming at most [`NAMED`].
fn named(what: &str, significant: &[String], place: &str) -> String {
    match significant.len() {
        0 => format!("{what}: none differs significantly; every number is in {place} below."),
        n => {
            let shown = significant[..n.min(NAMED)].join("; ");
            let rest = if n > NAMED {
                format!("; {} more in {place} below", n - NAMED)
            } else {
                String::new()
            };
            format!(
                "{what}: {n} differ{} significantly — {shown}{rest}.",
                if n == 1 { "s" } else { "" }
            )
        }
    }
}

/// "p99 one-way delay 0.21 ms vs 0.19 ms (+0.02 ms, not significant)".
/// `contended`: the comparison's trials ran while other programs took the
/// tool's CPUs, so a difference whose interval excludes 0 is not claimed.
pub(super) fn comparison_words(
    metric: MetricId,
    (v6, v4): (f64, f64),
    ci: Option<(f64, f64)>,
    significant: bool,
    pairs: u64,
    contended: bool,
) -> String {
    let difference = v6 - v4;
    let sign = if difference >= 0.0 { "+" } else { "−" };
    let excludes_zero = ci.is_some_and(|(low, high)| low > 0.0 || high < 0.0);
    let verdict = if ci.is_none() {
        format!("{pairs} pair(s), no interval")
    } else if significant {
        "significant".to_string()
    } else if excludes_zero && contended {
        "interval excludes 0 but not claimed: the trials ran contended".to_string()
    } else {
        "not significant".to_string()
    };
    format!(
        "{} {} vs {} ({sign}{}, {verdict})",
        metric.label(),
        format_value(metric, v6),
        format_value(metric, v4),
        format_value(metric, difference.abs())
    )
}
