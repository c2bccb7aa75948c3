//! The answer first: what `run` and `lab` print before anything else.
//! With one compared arm, one verdict sentence per point
//! ([`super::render_verdicts_width`], wrapped to the terminal). With more, a sentence per point and arm is
//! a wall of text, so the first screen is a table instead: one row per
//! point, one column per compared arm, each cell the headline difference
//! from the baseline with its mark ([`crate::present::mark`]), the
//! legend and the significance note under it. The sentences, with what
//! explains each difference, come with `--verbose`.
//!
//! ```text
//! vs IPv4                      metric      IPv6      IPv6 via 6in4 router to router
//! ─────────────────────────────────────────────────────────────────────────────────
//! [1] tcp-stream 131072 B      goodput     −0.60 % ~  −10 % ✓
//! ```

use dualperf_model::{Analysis, ArmId, RunResult};

use super::context::Context;
use super::layout::columns;
use super::{points, render_verdicts_width, wrap};
use crate::present::mark::{headline_cell, MARK_LEGEND};
use crate::present::significance_note;

/// The first screen of a run for a terminal `width` columns wide: the
/// verdict sentences with one compared arm, the per-point table with more.
pub fn render_answer(result: &RunResult, analysis: &Analysis, width: usize) -> String {
    if result.config.compared_arms().count() <= 1 {
        return render_verdicts_width(result, analysis, width);
    }
    render_answer_table(result, analysis, width)
}

/// True when [`render_answer`] shows the table, so that the sentences are
/// worth printing with `--verbose`.
pub fn answer_is_a_table(result: &RunResult) -> bool {
    result.config.compared_arms().count() > 1
}

/// One row per point, one column per compared arm (by label, or by id with
/// a key when the labels do not fit in `width`).
pub fn render_answer_table(result: &RunResult, analysis: &Analysis, width: usize) -> String {
    let context = Context::new(result, analysis);
    let compared: Vec<&ArmId> = result.config.compared_arms().map(|arm| &arm.id).collect();
    let baseline = context.names.label(context.baseline());
    let body: Vec<Vec<String>> = points(analysis)
        .into_iter()
        .map(|point| {
            let metric = context
                .spec(point)
                .map(|spec| {
                    dualperf_model::MetricId::headline_of(spec)
                        .label()
                        .to_string()
                })
                .unwrap_or_default();
            let mut row = vec![
                format!("[{}] {}", point + 1, context.point_label(point)),
                metric,
            ];
            row.extend(compared.iter().map(|arm| {
                context
                    .headline(point, arm)
                    .map_or_else(|| "—".to_string(), headline_cell)
            }));
            row
        })
        .collect();
    // One baseline for every comparison heads the table ("vs IPv4"); a
    // design with several names each column's own ("IPv6 … vs IPv4 …").
    let shared = crate::present::baselines::shared_baseline(analysis);
    let header = |by_label: bool| {
        let name = |arm: &ArmId| {
            if by_label {
                context.names.label(arm).to_string()
            } else {
                arm.to_string()
            }
        };
        let first = match shared {
            Some(_) => format!("vs {baseline}"),
            None => "headline".to_string(),
        };
        let mut header = vec![first, "metric".to_string()];
        header.extend(compared.iter().map(|arm| {
            let against = analysis
                .comparisons
                .iter()
                .find(|c| &c.arm == *arm)
                .map(|c| &c.baseline);
            match (shared, against) {
                (None, Some(against)) => format!("{} vs {}", name(arm), name(against)),
                _ => name(arm),
            }
        }));
        header
    };
    let table = |by_label: bool| {
        let mut rows = vec![header(by_label)];
        rows.extend(body.iter().cloned());
        columns(&rows)
    };
    let mut out = table(true);
    let too_wide = out.lines().any(|line| line.chars().count() > width);
    if too_wide {
        out = table(false);
        let key: Vec<String> = compared
            .iter()
            .map(|arm| format!("{arm} = {}", context.names.label(arm)))
            .collect();
        out.push_str(&wrap(&format!("arms: {}", key.join("; ")), width, "      "));
    }
    out.push_str(MARK_LEGEND);
    out.push('\n');
    out.push_str(&values_table(&context, analysis, width));
    if let Some(note) = significance_note(analysis) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// The numbers behind the differences: per point, every arm's headline
/// value (mean over repetitions), baseline first, so that a reader sees
/// "10.1 ms idle, 40.9 ms under load" and not only "+305 %".
fn values_table(context: &Context<'_>, analysis: &Analysis, width: usize) -> String {
    let arms: Vec<&ArmId> = {
        let mut arms = vec![context.baseline()];
        arms.extend(context.result.config.compared_arms().map(|arm| &arm.id));
        arms
    };
    let body: Vec<Vec<String>> = points(analysis)
        .into_iter()
        .filter_map(|point| {
            let metric = dualperf_model::MetricId::headline_of(context.spec(point)?);
            let mut row = vec![
                format!("[{}] {}", point + 1, context.point_label(point)),
                metric.label().to_string(),
            ];
            row.extend(arms.iter().map(|arm| {
                context.summary(point, metric, arm).map_or_else(
                    || "—".to_string(),
                    |s| crate::present::format_value(metric, s.mean),
                )
            }));
            Some(row)
        })
        .collect();
    let table = |by_label: bool| {
        let mut header = vec!["values (means)".to_string(), "metric".to_string()];
        header.extend(arms.iter().map(|arm| {
            if by_label {
                context.names.label(arm).to_string()
            } else {
                arm.to_string()
            }
        }));
        let mut rows = vec![header];
        rows.extend(body.iter().cloned());
        columns(&rows)
    };
    let out = table(true);
    if out.lines().any(|line| line.chars().count() > width) {
        table(false)
    } else {
        out
    }
}
