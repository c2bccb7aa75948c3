//! Whether a run under a precision goal (`--precision P --budget D`)
//! reached it, point by point: the widest 95 % CI half-width of the point's
//! headline comparisons against the goal, and the repetitions it took. All
//! reached: one line; otherwise one line per point that missed.

use dualperf_model::{Analysis, MetricId, RunResult};

/// One point's outcome under the goal.
#[derive(Clone, Debug, PartialEq)]
pub struct PointGoal {
    /// The point's label, e.g. `tcp-stream 1408 B`.
    pub label: String,
    /// The widest half-width of its headline comparisons' relative CIs
    /// (`None`: no comparison had an interval).
    pub half_width: Option<f64>,
    /// Repetitions of the arm with the fewest.
    pub repetitions: u32,
    /// `half_width` is at most the goal.
    pub reached: bool,
}

/// Every point's [`PointGoal`]; empty for a run without a goal.
pub fn point_goals(result: &RunResult, analysis: &Analysis) -> Vec<PointGoal> {
    let Some(goal) = result.config.goal else {
        return Vec::new();
    };
    result
        .config
        .points
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            let metric = MetricId::headline_of(spec);
            let half_width = analysis
                .comparisons
                .iter()
                .filter(|c| c.point == index && c.metric == metric)
                .filter_map(|c| {
                    c.relative_difference_ci95
                        .map(|(low, high)| (high - low) / 2.0)
                })
                .reduce(f64::max);
            let repetitions = result
                .config
                .arms
                .iter()
                .map(|arm| {
                    result
                        .trials
                        .iter()
                        .filter(|t| t.point == index && t.arm == arm.id)
                        .count() as u32
                })
                .min()
                .unwrap_or(0);
            PointGoal {
                label: spec.label(),
                half_width,
                repetitions,
                reached: half_width.is_some_and(|w| w <= goal.half_width_ratio),
            }
        })
        .collect()
}

/// The lines the terminal prints under the verdicts.
pub fn goal_lines(result: &RunResult, analysis: &Analysis) -> Vec<String> {
    let Some(goal) = result.config.goal else {
        return Vec::new();
    };
    let points = point_goals(result, analysis);
    let target = goal.half_width_ratio * 100.0;
    let (fewest, most) = points.iter().fold((u32::MAX, 0), |(a, b), p| {
        (a.min(p.repetitions), b.max(p.repetitions))
    });
    let missed: Vec<&PointGoal> = points.iter().filter(|p| !p.reached).collect();
    if missed.is_empty() {
        return vec![format!(
            "precision goal ±{target:.1} %: reached at all {} points ({fewest}–{most} repetitions; \
             Stein's two-stage rule)",
            points.len()
        )];
    }
    let mut lines = vec![format!(
        "precision goal ±{target:.1} %: reached at {} of {} points; the budget ({} s) ran out \
         before these:",
        points.len() - missed.len(),
        points.len(),
        goal.budget_ms / 1000
    )];
    for point in missed {
        lines.push(format!(
            "  {}: {} after {} repetitions",
            point.label,
            point
                .half_width
                .map_or("no interval".to_string(), |w| format!(
                    "±{:.1} %",
                    w * 100.0
                )),
            point.repetitions
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_a_goal_says_nothing_and_one_with_a_goal_says_where_it_was_missed() {
        let mut run = dualperf_fixtures::synthetic::small_synthetic_run();
        let analysis = run.analysis.clone().unwrap();
        assert!(goal_lines(&run, &analysis).is_empty());
        run.config.goal = Some(dualperf_model::Goal {
            half_width_ratio: 0.5,
            budget_ms: 60_000,
            first_stage: 3,
            max_repetitions: 50,
        });
        let lines = goal_lines(&run, &analysis);
        assert!(lines[0].starts_with("precision goal ±50.0 %"), "{lines:?}");
        run.config.goal = Some(dualperf_model::Goal {
            half_width_ratio: 1e-9,
            budget_ms: 60_000,
            first_stage: 3,
            max_repetitions: 50,
        });
        let lines = goal_lines(&run, &analysis);
        assert!(lines[0].contains("the budget (60 s) ran out"), "{lines:?}");
        assert!(lines.len() > 1 && lines[1].contains("after"), "{lines:?}");
    }
}
