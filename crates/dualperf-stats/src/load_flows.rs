//! The competing loads' flows, per traffic class: what each flow of a load
//! saw on each arm (its own meters, [`dualperf_model::Observations::loads`]),
//! summarised over repetitions, and compared with the same flow on the arm's
//! contrast baseline ([`crate::contrast`]: IPv6 against IPv4 under the
//! same level of load). The DiffServ experiments read the best-effort and lower-effort
//! classes here; the measured arm carries the premium class.
//!
//! Also the router CPU of every trial ([`dualperf_model::RouterCpu`]),
//! summarised per router, point and arm.
//!
//! A load flow's metrics are the same catalogue as a measured trial's
//! ([`crate::extraction`]): the flow is measured as a trial of its own spec.

use std::collections::BTreeMap;

use dualperf_model::{
    Analysis, ArmId, IpFamily, LoadFlowComparison, LoadFlowSummary, Marking, MetricId,
    RouterCpuSummary, RunResult, Trial, TrialOutcome,
};

use crate::extraction::measure_trial;
use crate::summary::{confidence_interval_95, mean, summarise};

/// Key of one flow's series: (point, arm, flow, metric).
type Key = (usize, ArmId, usize, MetricId);

/// What a flow is, for its summaries.
struct FlowFacts {
    label: String,
    family: IpFamily,
    marking: Marking,
}

/// Adds the load flows' summaries and comparisons and the router CPU
/// summaries of `result` to `analysis`.
pub fn analyse_load_flows(result: &RunResult, analysis: &mut Analysis) {
    let mut series: BTreeMap<Key, BTreeMap<u32, f64>> = BTreeMap::new();
    let mut facts: BTreeMap<(usize, ArmId, usize), FlowFacts> = BTreeMap::new();
    let mut routers: BTreeMap<(usize, ArmId, String), Vec<f64>> = BTreeMap::new();
    for trial in &result.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        for router in &observations.routers {
            if let Some(cores) = router.cores() {
                routers
                    .entry((trial.point, trial.arm.clone(), router.node.clone()))
                    .or_default()
                    .push(cores);
            }
        }
        for load in &observations.loads {
            let as_trial = Trial {
                point: trial.point,
                spec: load.spec.clone(),
                arm: trial.arm.clone(),
                family: load.family,
                repetition: trial.repetition,
                started_at_unix_ms: trial.started_at_unix_ms,
                local_address: None,
                remote_address: None,
                server_seen_family: None,
                outcome: TrialOutcome::Ok(load.observations.clone()),
            };
            facts
                .entry((trial.point, trial.arm.clone(), load.flow))
                .or_insert_with(|| FlowFacts {
                    label: load.label.clone(),
                    family: load.family,
                    marking: load.marking,
                });
            let mut values = measure_trial(&as_trial).values;
            if let Some(rate) = steady_sender_bps(&load.observations) {
                for (metric, value) in &mut values {
                    if *metric == MetricId::SenderThroughputBps {
                        *value = rate;
                    }
                }
            }
            for (metric, value) in values {
                series
                    .entry((trial.point, trial.arm.clone(), load.flow, metric))
                    .or_default()
                    .insert(trial.repetition, value);
            }
        }
    }
    let contrasts = crate::contrast::contrasts(&result.config);
    for ((point, arm, flow, metric), values) in &series {
        let list: Vec<f64> = values.values().copied().collect();
        let (Some(summary), Some(flow_facts)) =
            (summarise(&list), facts.get(&(*point, arm.clone(), *flow)))
        else {
            continue;
        };
        analysis.load_flows.push(LoadFlowSummary {
            point: *point,
            arm: arm.clone(),
            flow: *flow,
            label: flow_facts.label.clone(),
            family: flow_facts.family,
            marking: flow_facts.marking,
            metric: *metric,
            summary,
        });
        let baseline = crate::contrast::baseline_of(&contrasts, arm);
        if baseline == arm || !same_load(result, arm, baseline) {
            continue;
        }
        let Some(base) = series.get(&(*point, baseline.clone(), *flow, *metric)) else {
            continue;
        };
        if let Some(comparison) = compare(values, base) {
            analysis.load_comparisons.push(LoadFlowComparison {
                point: *point,
                flow: *flow,
                label: flow_facts.label.clone(),
                metric: *metric,
                arm: arm.clone(),
                baseline: baseline.clone(),
                ..comparison
            });
        }
    }
    for ((point, arm, node), values) in routers {
        if let Some(summary) = summarise(&values) {
            analysis.routers.push(RouterCpuSummary {
                point,
                arm,
                node,
                summary,
            });
        }
    }
}

/// The sender's rate over the intervals in which it was sending steadily:
/// a load flow is halted when the measured trial ends, inside an interval,
/// and its measured interval runs on past the halt, so its whole-interval
/// rate is low by up to an interval's worth. The trailing intervals without
/// a send and the last one with sends (cut by the halt) are left out;
/// `None` with fewer than three intervals left.
pub fn steady_sender_bps(observations: &dualperf_model::Observations) -> Option<f64> {
    let intervals = &observations.intervals;
    let last_sending = intervals.iter().rposition(|i| i.sent_packets > 0)?;
    let steady = &intervals[..last_sending];
    let length: u64 = steady.iter().map(|i| i.length_ns).sum();
    (steady.len() >= 3 && length > 0)
        .then(|| steady.iter().map(|i| i.sent_bytes).sum::<u64>() as f64 * 8e9 / length as f64)
}

/// True when both arms run under the same level of load, so their load
/// flows correspond index by index.
fn same_load(result: &RunResult, arm: &ArmId, baseline: &ArmId) -> bool {
    match (result.config.arm(arm), result.config.arm(baseline)) {
        (Some(a), Some(b)) => crate::contrast::same_load(&result.config, a, b),
        _ => false,
    }
}

/// The paired comparison of two series (repetition → value): arm − baseline.
fn compare(arm: &BTreeMap<u32, f64>, baseline: &BTreeMap<u32, f64>) -> Option<LoadFlowComparison> {
    let arm_summary = summarise(&arm.values().copied().collect::<Vec<_>>())?;
    let baseline_summary = summarise(&baseline.values().copied().collect::<Vec<_>>())?;
    let differences: Vec<f64> = baseline
        .iter()
        .filter_map(|(repetition, base)| arm.get(repetition).map(|value| value - base))
        .collect();
    let difference_ci95 = confidence_interval_95(&differences);
    Some(LoadFlowComparison {
        point: 0,
        flow: 0,
        label: String::new(),
        metric: MetricId::LossRatio,
        arm: ArmId::default(),
        baseline: ArmId::default(),
        arm_summary,
        baseline_summary,
        pairs: differences.len() as u64,
        difference_mean: mean(&differences).unwrap_or(arm_summary.mean - baseline_summary.mean),
        difference_ci95,
        significant: difference_ci95.is_some_and(|(low, high)| low > 0.0 || high < 0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steady_rate_leaves_out_the_interval_the_halt_cut() {
        use dualperf_model::{IntervalSample, Observations};
        let interval = |sent_bytes, sent_packets| IntervalSample {
            length_ns: 40_000_000,
            sent_bytes,
            sent_packets,
            ..Default::default()
        };
        let observations = Observations {
            intervals: vec![
                interval(500_000, 400),
                interval(500_000, 400),
                interval(500_000, 400),
                interval(100_000, 80),
                interval(0, 0),
            ],
            ..Default::default()
        };
        // 500 kB per 40 ms = 100 Mbit/s.
        assert_eq!(steady_sender_bps(&observations), Some(100_000_000.0));
        assert_eq!(steady_sender_bps(&Observations::default()), None);
    }

    #[test]
    fn paired_differences_are_arm_minus_baseline() {
        let arm: BTreeMap<u32, f64> = [(0, 0.20), (1, 0.22), (2, 0.21)].into();
        let base: BTreeMap<u32, f64> = [(0, 0.10), (1, 0.11), (2, 0.10)].into();
        let c = compare(&arm, &base).unwrap();
        assert_eq!(c.pairs, 3);
        assert!((c.difference_mean - 0.106_666).abs() < 1e-4, "{c:?}");
        assert!(c.significant);
        let same = compare(&base, &base).unwrap();
        assert!(!same.significant);
    }
}
