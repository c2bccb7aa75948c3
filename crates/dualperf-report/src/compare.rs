//! Two runs side by side (`dualperf report --compare BEFORE AFTER`), e.g.
//! before and after a kernel upgrade: the same points matched by their
//! parameters and the same arms by id, each metric's per-arm mean in both runs, the change, and
//! **Welch's unequal-variance t-test** on the per-repetition values (from
//! each run's mean, sample standard deviation and count), two-sided, 5 %
//! level. Welch rather than a paired test because repetitions of two runs are
//! not paired; rather than CI overlap because overlap is too conservative.
//!
//! The rules of a run's own verdicts apply ([`CrossRunRow::is_significant`]):
//! a value whose trials ran **contended** in either run (its run's analysis
//! gave a comparison of that arm at that point a `Contended` warning: other
//! programs took the CPUs the tool needed) is never called changed, and a
//! value with fewer than [`MIN_REPETITIONS`] repetitions in either run is
//! indicative only. A run of one arm has no comparisons, so its contention
//! is not known here; the sentences say how many values each rule held back.

use dualperf_model::{
    ArmId, ComparisonWarning, MetricId, MetricSummary, RunResult, Summary, TestKind, TestSpec,
};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::present::value::{format_value, percent_signed};

/// Fewest repetitions in each run for a change to be called significant
/// (a run's own rule: fewer than three pairs are indicative only).
pub const MIN_REPETITIONS: u64 = 3;

/// The outcome of Welch's t-test for after − before.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// t statistic of after − before.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub degrees_of_freedom: f64,
    /// Two-sided p-value.
    pub p_value: f64,
}

impl Welch {
    /// True at the 5 % level.
    pub fn is_significant(&self) -> bool {
        self.p_value < 0.05
    }
}

/// Welch's t-test of `after` against `before`; `None` with fewer than two
/// values in either run or no standard deviation. With zero variance in both
/// runs, equal means give p = 1 and different means p = 0.
pub fn welch(before: &Summary, after: &Summary) -> Option<Welch> {
    let (n1, n2) = (before.count as f64, after.count as f64);
    if n1 < 2.0 || n2 < 2.0 {
        return None;
    }
    let (s1, s2) = (before.standard_deviation?, after.standard_deviation?);
    let (v1, v2) = (s1 * s1 / n1, s2 * s2 / n2);
    let difference = after.mean - before.mean;
    if v1 + v2 == 0.0 {
        let p_value = if difference == 0.0 { 1.0 } else { 0.0 };
        return Some(Welch {
            t: if difference == 0.0 {
                0.0
            } else {
                f64::INFINITY.copysign(difference)
            },
            degrees_of_freedom: n1 + n2 - 2.0,
            p_value,
        });
    }
    let t = difference / (v1 + v2).sqrt();
    let degrees_of_freedom = (v1 + v2).powi(2) / (v1 * v1 / (n1 - 1.0) + v2 * v2 / (n2 - 1.0));
    let distribution = StudentsT::new(0.0, 1.0, degrees_of_freedom).ok()?;
    let p_value = (2.0 * (1.0 - distribution.cdf(t.abs()))).clamp(0.0, 1.0);
    Some(Welch {
        t,
        degrees_of_freedom,
        p_value,
    })
}

/// One metric of one matched point and arm in both runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossRunRow {
    /// The point's label, e.g. `tcp-stream 1024 B`.
    pub point: String,
    /// The test kind.
    pub kind: TestKind,
    /// Message size, bytes.
    pub size_bytes: u32,
    /// The metric.
    pub metric: MetricId,
    /// The arm (matched by id).
    pub arm: ArmId,
    /// The arm's label in the second run (its label in the first when absent).
    pub arm_label: String,
    /// Summary in the first ("before") run.
    pub before: Summary,
    /// Summary in the second ("after") run.
    pub after: Summary,
    /// after − before, in the metric's unit.
    pub difference: f64,
    /// (after − before) / before; `None` when before is 0.
    pub relative_difference: Option<f64>,
    /// Welch's t-test, when both runs have ≥ 2 repetitions.
    pub welch: Option<Welch>,
    /// Some trials of this arm at this point ran contended, in either run.
    pub contended: bool,
}

impl CrossRunRow {
    /// True when this row's metric is the headline of its test kind.
    pub fn is_headline(&self) -> bool {
        self.metric == MetricId::headline(self.kind)
    }

    /// Changed significantly: Welch's test at 5 %, no contended trials in
    /// either run, and at least [`MIN_REPETITIONS`] repetitions in each.
    pub fn is_significant(&self) -> bool {
        self.welch.is_some_and(|w| w.is_significant())
            && !self.contended
            && self.enough_repetitions()
    }

    /// At least [`MIN_REPETITIONS`] repetitions in both runs.
    pub fn enough_repetitions(&self) -> bool {
        self.before.count >= MIN_REPETITIONS && self.after.count >= MIN_REPETITIONS
    }
}

/// The arms of `run` with contended trials at `point`, from its analysis.
fn contended_arms(run: &RunResult, point: usize) -> Vec<ArmId> {
    run.analysis
        .iter()
        .flat_map(|a| a.comparisons.iter())
        .filter(|c| c.point == point)
        .flat_map(|c| c.warnings.iter())
        .filter_map(|w| match w {
            ComparisonWarning::Contended { arm, .. } => Some(arm.clone()),
            _ => None,
        })
        .collect()
}

/// Two runs matched point by point and arm by arm.
#[derive(Clone, Debug)]
pub struct RunComparison<'a> {
    /// The first run.
    pub before: &'a RunResult,
    /// The second run.
    pub after: &'a RunResult,
    /// Every metric × arm at every point both runs measured.
    pub rows: Vec<CrossRunRow>,
    /// Labels of points only one run measured.
    pub unmatched: Vec<String>,
    /// Labels of arms only one run measured.
    pub unmatched_arms: Vec<String>,
}

/// The parameters that make two points "the same point".
fn key(spec: &TestSpec) -> (TestKind, u32, u32, bool, Option<u64>) {
    (
        spec.kind,
        spec.size_bytes,
        spec.parallel_streams,
        spec.reverse,
        spec.rate.map(|r| r.bits_per_second()),
    )
}

/// Matches the points (by their parameters) and arms (by id) of two runs
/// and compares every summarised metric.
pub fn compare_runs<'a>(before: &'a RunResult, after: &'a RunResult) -> RunComparison<'a> {
    let mut rows = Vec::new();
    let mut unmatched = Vec::new();
    let summaries = |run: &'a RunResult| run.analysis.iter().flat_map(|a| a.summaries.iter());
    let label = |arm: &ArmId| {
        after
            .config
            .arm(arm)
            .or_else(|| before.config.arm(arm))
            .map_or_else(|| arm.to_string(), |a| a.label.clone())
    };
    for (index, spec) in before.config.points.iter().enumerate() {
        let Some(other) = after.config.points.iter().position(|s| key(s) == key(spec)) else {
            unmatched.push(format!("{} (only in {})", spec.label(), before.run_id));
            continue;
        };
        let mut matched: Vec<(&MetricSummary, &MetricSummary)> = summaries(before)
            .filter(|s| s.point == index)
            .filter_map(|b| {
                let a = summaries(after)
                    .find(|s| s.point == other && s.metric == b.metric && s.arm == b.arm)?;
                Some((b, a))
            })
            .collect();
        // Metric order, then arm order of the second run.
        let arm_order = |arm: &ArmId| {
            after
                .config
                .arms
                .iter()
                .position(|a| &a.id == arm)
                .unwrap_or(usize::MAX)
        };
        matched.sort_by_key(|(b, _)| (b.metric.order(), arm_order(&b.arm)));
        let contended: Vec<ArmId> = contended_arms(before, index)
            .into_iter()
            .chain(contended_arms(after, other))
            .collect();
        for (b, a) in matched {
            let (b_summary, a_summary) = (&b.summary, &a.summary);
            rows.push(CrossRunRow {
                point: spec.label(),
                kind: spec.kind,
                size_bytes: spec.size_bytes,
                metric: b.metric,
                arm: b.arm.clone(),
                arm_label: label(&b.arm),
                before: *b_summary,
                after: *a_summary,
                difference: a_summary.mean - b_summary.mean,
                relative_difference: (b_summary.mean != 0.0)
                    .then(|| (a_summary.mean - b_summary.mean) / b_summary.mean),
                welch: welch(b_summary, a_summary),
                contended: contended.contains(&b.arm),
            });
        }
    }
    for spec in &after.config.points {
        if !before.config.points.iter().any(|s| key(s) == key(spec)) {
            unmatched.push(format!("{} (only in {})", spec.label(), after.run_id));
        }
    }
    let mut unmatched_arms = Vec::new();
    for (run, other) in [(before, after), (after, before)] {
        for arm in &run.config.arms {
            if other.config.arm(&arm.id).is_none() {
                unmatched_arms.push(format!("{} (only in {})", arm.label, run.run_id));
            }
        }
    }
    RunComparison {
        before,
        after,
        rows,
        unmatched,
        unmatched_arms,
    }
}

impl RunComparison<'_> {
    /// Sentences for the top of a comparison report: how many values
    /// changed (and how many would by chance), the largest changes of the
    /// headline metrics ([`MetricId::headline`]), then of the others.
    pub fn sentences(&self) -> Vec<String> {
        let tested: Vec<&CrossRunRow> = self.rows.iter().filter(|r| r.welch.is_some()).collect();
        let changed: Vec<&CrossRunRow> = tested
            .iter()
            .copied()
            .filter(|r| r.is_significant())
            .collect();
        let mut sentences = vec![format!(
            "{} of {} metric × arm values changed significantly between {} and {} (Welch's t-test, p < 0.05, no contended trials, {MIN_REPETITIONS}+ repetitions; with {} tests about {} would by chance alone).",
            changed.len(),
            tested.len(),
            self.before.run_id,
            self.after.run_id,
            tested.len(),
            (tested.len() as f64 * 0.05).round()
        )];
        let by_size = |rows: &mut Vec<&CrossRunRow>| {
            rows.sort_by(|a, b| {
                b.relative_difference
                    .unwrap_or(0.0)
                    .abs()
                    .total_cmp(&a.relative_difference.unwrap_or(0.0).abs())
            });
        };
        let (mut headline, mut others): (Vec<&CrossRunRow>, Vec<&CrossRunRow>) =
            changed.iter().copied().partition(|r| r.is_headline());
        by_size(&mut headline);
        by_size(&mut others);
        if headline.is_empty() && !tested.is_empty() {
            sentences.push("No headline metric (goodput, RTT p50, connect p50, one-way delay p50) changed significantly.".to_string());
        }
        for row in headline.iter().take(3) {
            sentences.push(describe(row));
        }
        if !others.is_empty() {
            let largest: Vec<String> = others.iter().take(3).map(|r| describe(r)).collect();
            sentences.push(format!(
                "Beyond the headline metrics {} values changed; the largest: {}",
                others.len(),
                largest.join(" ")
            ));
        }
        let held_back = tested.iter().filter(|r| r.contended).count();
        if held_back > 0 {
            sentences.push(format!(
                "{held_back} values are not called changed whatever their test says: their \
                 trials ran contended in a run (other programs took the CPUs the tool needed)."
            ));
        }
        let few = tested.iter().filter(|r| !r.enough_repetitions()).count();
        if few > 0 {
            sentences.push(format!(
                "{few} values rest on fewer than {MIN_REPETITIONS} repetitions in a run: \
                 indicative only, never called changed."
            ));
        }
        if !self.unmatched.is_empty() {
            sentences.push(format!(
                "{} points were measured in only one run and are left out.",
                self.unmatched.len()
            ));
        }
        if !self.unmatched_arms.is_empty() {
            sentences.push(format!(
                "Arms measured in only one run are left out: {}.",
                self.unmatched_arms.join(", ")
            ));
        }
        sentences
    }
}

/// "udp-stream 1472 B loss over IPv6: 1.30 % → 0.51 % (−61 %, better)."
fn describe(row: &CrossRunRow) -> String {
    let better = row
        .relative_difference
        .map(|r| (r > 0.0) == row.metric.higher_is_better());
    format!(
        "{} {} over {}: {} → {} ({}, {}).",
        row.point,
        row.metric.label(),
        row.arm_label,
        format_value(row.metric, row.before.mean),
        format_value(row.metric, row.after.mean),
        row.relative_difference.map_or("–".into(), percent_signed),
        match better {
            Some(true) => "better",
            Some(false) => "worse",
            None => "changed",
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(mean: f64, sd: f64, count: u64) -> Summary {
        Summary {
            count,
            mean,
            standard_deviation: Some(sd),
            ..Default::default()
        }
    }

    #[test]
    fn welch_matches_a_hand_computed_case() {
        // before: n=3, mean 10, sd 1; after: n=3, mean 13, sd 1.
        // t = 3 / sqrt(1/3 + 1/3) = 3.6742; df = 4; two-sided p = 0.02131.
        let result = welch(&summary(10.0, 1.0, 3), &summary(13.0, 1.0, 3)).unwrap();
        assert!((result.t - 3.674_235).abs() < 1e-5, "{result:?}");
        assert!((result.degrees_of_freedom - 4.0).abs() < 1e-9);
        assert!((result.p_value - 0.021_312).abs() < 1e-4, "{result:?}");
        assert!(result.is_significant());
    }

    #[test]
    fn welch_with_unequal_variances_uses_satterthwaite_degrees_of_freedom() {
        // v1 = 4/5 = 0.8, v2 = 1/10 = 0.1; df = 0.81 / (0.64/4 + 0.01/9) = 5.0277
        let result = welch(&summary(0.0, 2.0, 5), &summary(1.0, 1.0, 10)).unwrap();
        assert!(
            (result.degrees_of_freedom - 5.027_6).abs() < 1e-3,
            "{result:?}"
        );
        assert!(!result.is_significant());
    }

    #[test]
    fn welch_needs_two_values_per_run() {
        assert!(welch(&summary(1.0, 0.1, 1), &summary(2.0, 0.1, 3)).is_none());
    }

    fn row(before: Summary, after: Summary, contended: bool) -> CrossRunRow {
        CrossRunRow {
            point: "tcp-stream 1408 B".into(),
            kind: TestKind::TcpStream,
            size_bytes: 1408,
            metric: MetricId::GoodputBps,
            arm: ArmId::native(dualperf_model::IpFamily::V6),
            arm_label: "IPv6".into(),
            difference: after.mean - before.mean,
            relative_difference: Some((after.mean - before.mean) / before.mean),
            welch: welch(&before, &after),
            before,
            after,
            contended,
        }
    }

    #[test]
    fn a_change_is_called_only_without_contention_and_with_three_repetitions() {
        let clear = row(summary(10.0, 1.0, 3), summary(13.0, 1.0, 3), false);
        assert!(clear.is_significant());
        // The same numbers from contended trials: the run's own rule.
        assert!(!row(summary(10.0, 1.0, 3), summary(13.0, 1.0, 3), true).is_significant());
        // Two repetitions: Welch is defined, the change is indicative only.
        let few = row(summary(10.0, 0.1, 2), summary(13.0, 0.1, 2), false);
        assert!(few.welch.unwrap().is_significant());
        assert!(!few.is_significant());
    }
}
