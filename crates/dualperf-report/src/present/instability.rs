//! Which comparisons are unstable (an arm's coefficient of variation over
//! repetitions above the run's threshold, `ComparisonWarning::Unstable`),
//! split into the headline comparisons — the verdicts a reader acts on — and
//! every other metric's (CPU, jitter, loss …, which vary more and are read
//! in the per-metric table). The terminal and the summary sentences say it
//! from this one count.

use std::collections::BTreeSet;

use dualperf_model::{ArmId, ComparisonWarning, MetricId, RunResult};

/// The unstable comparisons of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instability {
    /// Unstable headline comparisons.
    pub headline: usize,
    /// Their points, 0-based, ascending.
    pub headline_points: BTreeSet<usize>,
    /// Unstable comparisons of every other metric.
    pub other: usize,
    /// The arms whose variation exceeded the threshold, first-seen order.
    pub arms: Vec<ArmId>,
    /// The threshold, a ratio (0.1 = 10 %).
    pub threshold: f64,
}

impl Instability {
    /// The count of `result`'s analysis; `None` when no comparison is
    /// unstable.
    pub fn of(result: &RunResult) -> Option<Self> {
        let analysis = result.analysis.as_ref()?;
        let mut found = Instability::default();
        for c in &analysis.comparisons {
            let mut unstable = false;
            for w in &c.warnings {
                if let ComparisonWarning::Unstable { arm, threshold, .. } = w {
                    unstable = true;
                    found.threshold = *threshold;
                    if !found.arms.contains(arm) {
                        found.arms.push(arm.clone());
                    }
                }
            }
            if !unstable {
                continue;
            }
            let headline = result
                .config
                .points
                .get(c.point)
                .is_some_and(|spec| MetricId::headline_of(spec) == c.metric);
            if headline {
                found.headline += 1;
                found.headline_points.insert(c.point);
            } else {
                found.other += 1;
            }
        }
        (found.headline + found.other > 0).then_some(found)
    }
}
