//! How precisely a point is measured so far: the stopping rule of
//! `dualperf run --repeat auto`.
//!
//! netperf's `-I 99,5 -i 10,3` is the anchor: repeat until one is 99 %
//! confident that the mean is within ±2.5 % of the true mean (an interval
//! 5 % wide), at least 3 and at most 10 times. Here the rule applies to the
//! point's headline metric ([`MetricId::headline`]) on **every** arm: the
//! half-width of its Student-t interval at [`Precision::confidence`] over
//! the arm's successful repetitions, relative to the mean, must be at most
//! [`Precision::half_width_ratio`]. An arm without two values, or with a
//! zero mean, is not precise yet.
//!
//! The rule looks at each arm's own spread, never at the difference
//! between arms, so stopping cannot chase a significance claim.

use dualperf_model::{ArmId, MetricId, RunResult, TestKind, TrialOutcome};

use crate::extraction::measure_trial_on;
use crate::student_t::t_critical;
use crate::summary::{mean, sample_standard_deviation};

/// A precision target for repeated trials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Precision {
    /// Confidence level of the interval, e.g. 0.99.
    pub confidence: f64,
    /// Largest half-width of that interval relative to the mean, e.g. 0.025.
    pub half_width_ratio: f64,
    /// Fewest repetitions per arm.
    pub min_repetitions: u32,
    /// Most repetitions per arm.
    pub max_repetitions: u32,
}

/// netperf's `-I 99,5 -i 10,3`: 99 % confidence, ±2.5 %, 3 to 10 repetitions.
pub const NETPERF: Precision = Precision {
    confidence: 0.99,
    half_width_ratio: 0.025,
    min_repetitions: 3,
    max_repetitions: 10,
};

/// The relative half-width of the headline metric's interval on each arm
/// at `point` (in `result.config.arms` order); `None` for an arm where it
/// is not defined yet.
pub fn headline_precision(
    result: &RunResult,
    point: usize,
    confidence: f64,
) -> Vec<(ArmId, Option<f64>)> {
    let Some(kind) = point_kind(result, point) else {
        return Vec::new();
    };
    let metric = MetricId::headline(kind);
    result
        .config
        .arms
        .iter()
        .map(|arm| {
            let values: Vec<f64> = result
                .trials
                .iter()
                .filter(|t| t.point == point && t.arm == arm.id)
                .filter(|t| matches!(t.outcome, TrialOutcome::Ok(_)))
                .filter_map(|t| measure_trial_on(t, &arm.path).value(metric))
                .collect();
            (arm.id.clone(), relative_half_width(&values, confidence))
        })
        .collect()
}

/// True when every arm at `point` has its headline metric within `target`.
pub fn is_precise(result: &RunResult, point: usize, target: &Precision) -> bool {
    let arms = headline_precision(result, point, target.confidence);
    !arms.is_empty()
        && arms
            .iter()
            .all(|(_, width)| width.is_some_and(|w| w <= target.half_width_ratio))
}

/// `t(confidence, n − 1) · sd / √n / |mean|`.
fn relative_half_width(values: &[f64], confidence: f64) -> Option<f64> {
    let n = values.len() as u64;
    let mean = mean(values).filter(|m| *m != 0.0)?;
    let sd = sample_standard_deviation(values)?;
    let t = t_critical(confidence, n - 1)?;
    Some(t * sd / (n as f64).sqrt() / mean.abs())
}

fn point_kind(result: &RunResult, point: usize) -> Option<TestKind> {
    result.config.points.get(point).map(|spec| spec.kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::{native_arms, stream_run};
    use dualperf_model::PerFamily;

    #[test]
    fn steady_arms_are_precise_and_a_wobbly_one_is_not() {
        // 10.0, 10.1, 9.9 Gbit/s: sd 0.1, t(0.995, 2) = 9.925 → ±0.573 = 5.7 %.
        let wobbly = stream_run(
            native_arms(PerFamily::default()),
            &[
                &[Some(10.0), Some(10.1), Some(9.9)],
                &[Some(9.0), Some(9.0), Some(9.0)],
            ],
        );
        let widths = headline_precision(&wobbly, 0, 0.99);
        assert!((widths[0].1.unwrap() - 9.924_843 * 0.1 / 3f64.sqrt() / 10.0).abs() < 1e-6);
        assert_eq!(widths[1].1, Some(0.0));
        assert!(!is_precise(&wobbly, 0, &NETPERF));
        // Seven more steady values bring it within ±2.5 %.
        let steady = stream_run(
            native_arms(PerFamily::default()),
            &[
                &[10.0, 10.1, 9.9, 10.0, 10.0, 10.1, 9.9, 10.0, 10.0, 10.0].map(Some),
                &[9.0; 10].map(Some),
            ],
        );
        assert!(is_precise(&steady, 0, &NETPERF));
    }

    #[test]
    fn a_failed_arm_is_never_precise() {
        let failed = stream_run(
            native_arms(PerFamily::default()),
            &[&[Some(10.0), Some(10.0), Some(10.0)], &[None, None, None]],
        );
        assert_eq!(headline_precision(&failed, 0, 0.99)[1].1, None);
        assert!(!is_precise(&failed, 0, &NETPERF));
    }
}
