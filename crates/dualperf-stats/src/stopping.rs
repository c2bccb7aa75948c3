//! The stopping rule of a precision goal (`--precision P --budget D`):
//! Stein's two-stage procedure (Stein 1945), docs/metrics.md "Stopping
//! rule".
//!
//! Repeating "until the CI is narrow enough" and then reporting the usual
//! Student-t interval is not valid: the rule stops more often when the
//! sample standard deviation happens to be small, so the reported interval
//! is too narrow (a seeded simulation of that naive rule covers 91–93 % for
//! a nominal 95 %). Stein's procedure fixes the sample size from a first
//! stage only:
//!
//! 1. run `n0` = [`Goal::first_stage`] paired repetitions; `s0` is the
//!    standard deviation of their paired differences;
//! 2. the point needs `n = max(n0, ⌈(t(0.975, n0 − 1) · s0 / (P · m0))²⌉)`
//!    pairs, where `m0` is the first stage's baseline mean (P is relative),
//!    capped by [`Goal::max_repetitions`] and by the time budget;
//! 3. the reported interval is `mean_n ± t(0.975, n0 − 1) · s0 / √n`, with
//!    `mean_n` over all `n` pairs; its coverage is exactly 95 % for normal
//!    differences whatever `n` the first stage (or the budget) chose,
//!    because `mean_n` is independent of `s0`. Its half-width is at most
//!    `P · m0` whenever the budget allowed the `n` step 2 asked for.
//!
//! The rule reads only the spread of the first stage, never the sign or
//! size of the difference, so it cannot chase a significance claim. It
//! applies to each point's headline comparisons; the other metrics of a
//! point keep their usual intervals (their repetitions are chosen by the
//! headline's first stage, which is close to independent of them).

use dualperf_model::{ArmId, Goal, MetricId, RunResult, TrialOutcome};

use crate::extraction::measure_trial_on;
use crate::student_t::{t_critical_95, two_sided_p_value};
use crate::summary::{mean, sample_standard_deviation};

/// The paired differences of one comparison, by repetition.
pub type Differences<'a> = &'a [(u32, f64)];

/// Standard deviation of the first stage's differences (repetitions below
/// `first_stage`); `None` with fewer than two.
fn first_stage_sd(differences: Differences, first_stage: u32) -> Option<(f64, u64)> {
    let first: Vec<f64> = differences
        .iter()
        .filter(|(repetition, _)| *repetition < first_stage)
        .map(|(_, d)| *d)
        .collect();
    (first.len() >= 2).then_some(())?;
    Some((sample_standard_deviation(&first)?, first.len() as u64))
}

/// Stein's 95 % interval of the mean difference over every pair; `None`
/// without two first-stage pairs.
pub fn stein_interval(differences: Differences, first_stage: u32) -> Option<(f64, f64)> {
    let (s0, n0) = first_stage_sd(differences, first_stage)?;
    let values: Vec<f64> = differences.iter().map(|(_, d)| *d).collect();
    let center = mean(&values)?;
    let half = t_critical_95(n0 - 1)? * s0 / (values.len() as f64).sqrt();
    Some((center - half, center + half))
}

/// The two-sided p-value of Stein's statistic `mean · √n / s0` with
/// `n0 − 1` degrees of freedom; `None` where [`stein_interval`] is.
pub fn stein_p_value(differences: Differences, first_stage: u32) -> Option<f64> {
    let (s0, n0) = first_stage_sd(differences, first_stage)?;
    let values: Vec<f64> = differences.iter().map(|(_, d)| *d).collect();
    let center = mean(&values)?;
    two_sided_p_value(center * (values.len() as f64).sqrt() / s0, n0 - 1)
}

/// Pairs a comparison needs for a 95 % half-width of at most
/// `goal.half_width_ratio` of its first stage's baseline mean (step 2),
/// capped by `goal.max_repetitions`; `None` before the first stage is
/// complete or with a zero baseline.
pub fn pairs_needed(differences: Differences, baseline_mean: f64, goal: &Goal) -> Option<u32> {
    let (s0, n0) = first_stage_sd(differences, goal.first_stage)?;
    if n0 < u64::from(goal.first_stage) || baseline_mean == 0.0 {
        return None;
    }
    let width = goal.half_width_ratio * baseline_mean.abs();
    let needed = (t_critical_95(n0 - 1)? * s0 / width).powi(2).ceil();
    let needed = if needed.is_finite() {
        needed as u64
    } else {
        u64::MAX
    };
    Some(
        needed
            .max(u64::from(goal.first_stage))
            .min(u64::from(goal.max_repetitions)) as u32,
    )
}

/// How far a point of a run under `goal` is: the repetitions every arm
/// has, and the most any of its headline comparisons needs (`None` before
/// the first stage is complete).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointProgress {
    /// Successful repetitions of the arm with the fewest.
    pub done: u32,
    /// Pairs the point needs ([`pairs_needed`], the largest over its
    /// headline comparisons).
    pub needed: Option<u32>,
}

/// [`PointProgress`] of `point` in `result` (its trials so far).
pub fn point_progress(result: &RunResult, point: usize, goal: &Goal) -> PointProgress {
    let Some(spec) = result.config.points.get(point) else {
        return PointProgress {
            done: 0,
            needed: None,
        };
    };
    let metric = MetricId::headline_of(spec);
    let values = |id: &ArmId| -> Vec<(u32, f64)> {
        let path = result
            .config
            .arm(id)
            .map(|a| a.path.clone())
            .unwrap_or_default();
        result
            .trials
            .iter()
            .filter(|t| t.point == point && &t.arm == id)
            .filter(|t| matches!(t.outcome, TrialOutcome::Ok(_)))
            .filter_map(|t| Some((t.repetition, measure_trial_on(t, &path).value(metric)?)))
            .collect()
    };
    let done = result
        .config
        .arms
        .iter()
        .map(|arm| values(&arm.id).len() as u32)
        .min()
        .unwrap_or(0);
    let mut needed: Option<u32> = None;
    for contrast in crate::contrast::contrasts(&result.config) {
        let (arm, base) = (values(&contrast.arm), values(&contrast.baseline));
        let differences: Vec<(u32, f64)> = arm
            .iter()
            .filter_map(|(r, a)| base.iter().find(|(q, _)| q == r).map(|(_, b)| (*r, a - b)))
            .collect();
        let first: Vec<f64> = base
            .iter()
            .filter(|(r, _)| *r < goal.first_stage)
            .map(|(_, b)| *b)
            .collect();
        let Some(this) = mean(&first).and_then(|m| pairs_needed(&differences, m, goal)) else {
            return PointProgress { done, needed: None };
        };
        needed = Some(needed.map_or(this, |n| n.max(this)));
    }
    PointProgress { done, needed }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOAL: Goal = Goal {
        half_width_ratio: 0.02,
        budget_ms: 60_000,
        first_stage: 3,
        max_repetitions: 200,
    };

    /// A seeded normal generator (xorshift + Box–Muller): no dependency.
    struct Normal(u64);

    impl Normal {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }

        fn sample(&mut self, mean: f64, sd: f64) -> f64 {
            let (u, v) = (self.uniform(), self.uniform());
            mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }
    }

    #[test]
    fn steins_interval_covers_the_truth_95_percent_of_the_time_under_the_rule() {
        // The whole procedure, as the executor runs it: a first stage of 3,
        // then as many pairs as it asks for; differences relative to a
        // baseline of 100 with a true difference of −1.5 and spreads around
        // the goal's width. The naive rule covers 91–93 % here.
        let mut normal = Normal(0x9e37_79b9_7f4a_7c15);
        for sd in [0.5, 2.0, 5.0] {
            let (mut covered, runs) = (0, 2000);
            for _ in 0..runs {
                let mut differences: Vec<(u32, f64)> =
                    (0..3).map(|r| (r, normal.sample(-1.5, sd))).collect();
                let needed = pairs_needed(&differences, 100.0, &GOAL).unwrap();
                for repetition in 3..needed {
                    differences.push((repetition, normal.sample(-1.5, sd)));
                }
                let (low, high) = stein_interval(&differences, 3).unwrap();
                if (low..=high).contains(&-1.5) {
                    covered += 1;
                }
            }
            let coverage = f64::from(covered) / f64::from(runs);
            assert!((0.935..=0.965).contains(&coverage), "sd {sd}: {coverage}");
        }
    }

    #[test]
    fn the_first_stage_sets_the_pairs_and_the_interval_meets_the_goal() {
        // s0 = 1 over a baseline of 100, P = 2 %: (4.303 · 1 / 2)² = 4.63 → 5.
        let differences = [(0, -1.0), (1, 0.0), (2, 1.0)];
        assert_eq!(pairs_needed(&differences, 100.0, &GOAL), Some(5));
        let more = [(0, -1.0), (1, 0.0), (2, 1.0), (3, 0.5), (4, -0.5)];
        let (low, high) = stein_interval(&more, 3).unwrap();
        assert!((high - low) / 2.0 <= 2.0, "{low} {high}");
        // Stein's half-width uses s0 and all n: 4.303 · 1 / √5 = 1.924.
        assert!(((high - low) / 2.0 - 1.924).abs() < 0.001);
        // A wide first stage hits the cap; an incomplete one decides nothing.
        let wide = [(0, -50.0), (1, 0.0), (2, 50.0)];
        assert_eq!(pairs_needed(&wide, 100.0, &GOAL), Some(200));
        assert_eq!(pairs_needed(&[(0, 1.0), (1, 2.0)], 100.0, &GOAL), None);
        assert!(stein_p_value(&more, 3).unwrap() > 0.5);
    }
}
