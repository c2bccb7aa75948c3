//! The verdict tables: the headline comparison of every point and arm on
//! the first screen, and every comparison further down (collapsed, and
//! sortable by clicking a column heading). Every header and number has a
//! `title` with its definition (hover) and the metric links to its
//! definition. Metrics are named by their labels, arms by theirs.

use dualperf_model::{Comparison, MetricId, Summary};

use maud::{html, Markup};

use crate::present::value::{
    format_value, format_with_error, percent_signed, signed_difference, upper_bound_percent,
};
use crate::present::verdict::{claims_significance, has_no_spread};
use crate::present::{significance_note, verdict, warning_short, warnings, why_clause};
use crate::view::{self, RunView};

/// The baseline all comparisons name, `None` when the design compares arms
/// with several ([`crate::present::baselines`]).
fn shared_baseline<'a>(view: &RunView<'a>) -> Option<&'a dualperf_model::ArmId> {
    crate::present::baselines::shared_baseline(view.run.analysis.as_ref()?)
}

/// Column headings: (name, hover text, numeric).
fn head(view: &RunView<'_>, with_verdict: bool) -> Markup {
    let shared = shared_baseline(view);
    let baseline = match shared {
        Some(_) => view.baseline_label(),
        None => "Baseline value",
    };
    let compared = view.compared_arms();
    let single = compared.len() == 1 && shared.is_some();
    let arm_name = if single {
        compared[0].label.clone()
    } else {
        "Arm value".to_string()
    };
    let delta = if single {
        format!("Δ {} − {baseline}", compared[0].label)
    } else if shared.is_some() {
        format!("Δ vs {baseline}")
    } else {
        "Δ".to_string()
    };
    let against = match shared {
        Some(_) => baseline.to_string(),
        None => "its baseline".to_string(),
    };
    let mut columns: Vec<(String, String, bool)> = vec![
        (
            "Point".into(),
            "Test kind and message size (bytes of payload per write, datagram or request)".into(),
            false,
        ),
        (
            "Metric".into(),
            "What is compared; the definition is one click away in Definitions".into(),
            false,
        ),
    ];
    if !single {
        columns.push((
            "Arm".into(),
            match shared {
                Some(_) => format!("The arm compared with the baseline {baseline}"),
                None => "The arm compared".to_string(),
            },
            false,
        ));
    }
    if shared.is_none() {
        columns.push((
            "Baseline".into(),
            "The arm this one is compared with, as the experiment's design declares it".into(),
            false,
        ));
    }
    columns.extend([
        (
            baseline.to_string(),
            "Baseline arm: mean over repetitions ± half the Student-t 95 % confidence interval"
                .to_string(),
            true,
        ),
        (
            arm_name,
            "Mean over repetitions ± half the Student-t 95 % confidence interval".to_string(),
            true,
        ),
        (
            delta,
            format!("Mean of the paired per-repetition differences arm − {against}, relative to the mean of {against}"),
            true,
        ),
        (
            "95 % CI of Δ".to_string(),
            "Student-t 95 % confidence interval of the relative paired difference; significant when it excludes 0 on at least 3 pairs".to_string(),
            true,
        ),
        (
            "Header model".to_string(),
            format!("The difference the header-overhead model predicts, relative to {against} (blank where the model does not apply)"),
            true,
        ),
    ]);
    columns.push(if with_verdict {
        (
            "Verdict".into(),
            "One line per comparison, with what explains it and the warnings".into(),
            false,
        )
    } else {
        (
            "Note".into(),
            "Warnings about this comparison; the verdict is the hover text of Δ".into(),
            false,
        )
    });
    html! {
        thead {
            tr {
                @for (name, title, numeric) in &columns {
                    th class=[numeric.then_some("num")] title=(title) { (name) }
                }
            }
        }
    }
}

fn arm_cell(summary: &Summary, metric: MetricId) -> Markup {
    // The CI inside the quantity's range; one that had to be cut there is
    // shown by its ends, never as a symmetric ±.
    let ci = summary
        .ci95_low
        .zip(summary.ci95_high)
        .map(|ci| crate::present::bounds::clamp(metric, ci));
    let detail = format!(
        "n = {}, mean {}, sd {}, min {}, max {}, 95 % CI {}",
        summary.count,
        format_value(metric, summary.mean),
        summary
            .standard_deviation
            .map_or("–".into(), |v| format_value(metric, v)),
        format_value(metric, summary.min),
        format_value(metric, summary.max),
        ci.map_or("–".into(), |((l, h), _)| format!(
            "{} … {}",
            format_value(metric, l),
            format_value(metric, h)
        )),
    );
    let text = match ci {
        Some(((low, high), true)) => format!(
            "{} ({} … {})",
            format_value(metric, summary.mean),
            format_value(metric, low),
            format_value(metric, high)
        ),
        Some(((low, high), false)) => format_with_error(metric, summary.mean, (high - low) / 2.0),
        None => format_value(metric, summary.mean),
    };
    html! { td class="num" data-sort=(summary.mean) title=(detail) { (text) } }
}

fn row(view: &RunView<'_>, comparison: &Comparison, with_verdict: bool) -> Markup {
    let metric = comparison.metric;
    let relative = comparison.relative_difference;
    let significant = claims_significance(comparison);
    let better = relative.map(|r| (r > 0.0) == metric.higher_is_better());
    let class = match (significant, better) {
        (true, Some(true)) => "num delta better",
        (true, Some(false)) => "num delta worse",
        _ => "num delta",
    };
    let delta = relative.map_or_else(
        || signed_difference(metric, comparison.difference_mean),
        percent_signed,
    );
    let ci = if has_no_spread(comparison) {
        "no spread".to_string()
    } else {
        comparison
            .relative_difference_ci95
            .map_or("–".to_string(), |(l, h)| {
                format!("{} … {}", percent_signed(l), upper_bound_percent(h))
            })
    };
    let theory = comparison
        .theoretical_relative_difference
        .map_or(String::new(), percent_signed);
    let names = &view.names;
    let arm = names.label(&comparison.arm);
    let mut sentence = verdict(comparison, arm, names.label(&comparison.baseline));
    if let Some(why) = view
        .run
        .analysis
        .as_ref()
        .and_then(|a| why_clause(a, comparison, arm))
    {
        sentence.push_str("; ");
        sentence.push_str(&why);
    }
    let all_warnings = warnings(comparison, names).join("; ");
    let short_warnings: Vec<String> = comparison
        .warnings
        .iter()
        .map(|w| warning_short(w, names))
        .collect();
    let shared = shared_baseline(view);
    // One compared arm against a shared baseline: the headings name both.
    let arm_columns = !(view.compared_arms().len() == 1 && shared.is_some());
    html! {
        tr class=(if significant { "significant" } else { "" }) {
            td class="point" data-sort=(comparison.point) { (view.label(comparison.point)) }
            td {
                a href={ "#def-" (metric.name()) } title=(metric.definition()) { (metric.label()) }
            }
            @if arm_columns {
                td class="arm-name" { (arm) }
                @if shared.is_none() {
                    td class="arm-name" { (names.label(&comparison.baseline)) }
                }
            }
            (arm_cell(&comparison.baseline_summary, metric))
            (arm_cell(&comparison.arm_summary, metric))
            td class=(class)
                data-sort=(relative.unwrap_or(comparison.difference_mean))
                title={ (sentence) " (absolute difference " (format_value(metric, comparison.difference_mean)) ")" }
                { (delta) }
            td class="num" { (ci) }
            td class="num" { (theory) }
            td class="why" {
                @if with_verdict {
                    (sentence)
                    @if !comparison.warnings.is_empty() {
                        br;
                        span class="warn" { "⚠ " (all_warnings) }
                    }
                } @else if !comparison.warnings.is_empty() {
                    span class="warn" title=(all_warnings) { "⚠ " (short_warnings.join(", ")) }
                }
            }
        }
    }
}

/// The first-screen table: per point and compared arm, its headline metric
/// ([`MetricId::headline`]) and, for UDP streams, loss.
pub(crate) fn key_table(view: &RunView<'_>) -> Markup {
    let Some(analysis) = view.run.analysis.as_ref() else {
        return html! {};
    };
    let rank = |c: &Comparison| -> Option<usize> {
        let kind = view.kind(c.point)?;
        let spec = view.run.config.points.get(c.point)?;
        if c.metric == MetricId::headline_of(spec) {
            Some(0)
        } else if c.metric == view::LOSS && kind == dualperf_model::TestKind::UdpStream {
            Some(1)
        } else {
            None
        }
    };
    let mut rows: Vec<(&Comparison, usize)> = analysis
        .comparisons
        .iter()
        .filter_map(|c| rank(c).map(|r| (c, r)))
        .collect();
    rows.sort_by_key(|(c, rank)| {
        let spec = view.run.config.points.get(c.point);
        (
            spec.map(|s| s.kind),
            *rank,
            spec.map(|s| s.size_bytes),
            c.point,
            view.names.index(&c.arm),
        )
    });
    if rows.is_empty() {
        return html! {};
    }
    let control = view.run.analysis.as_ref().and_then(significance_note);
    let against = match shared_baseline(view) {
        Some(_) => view.baseline_label(),
        None => "its baseline",
    };
    html! {
        section id="verdicts" {
            h2 { "Verdicts" }
            p class="note" {
                "The headline metric of every point (goodput for streams, median RTT for \
                 request/response, median setup time for connects, median one-way delay for \
                 probes), and loss for UDP streams. Bold differences are significant (their 95 % \
                 CI excludes zero, on at least 3 pairs); green is better for the arm than for "
                (against) ", red worse."
                @if let Some(note) = &control { " " (note) }
                " All metrics are in " a href="#comparisons" { "All comparisons" } "."
            }
            div class="table-wrap" {
                table class="verdicts sortable" {
                    (head(view, false))
                    tbody {
                        @for (comparison, _) in rows { (row(view, comparison, false)) }
                    }
                }
            }
        }
    }
}

/// (reason, arm label) of a group of metrics that could not be computed.
type MissingKey<'a> = (&'a str, &'a str);
/// A point's label and the labels of its metrics in a group.
type PointMetrics<'a> = (String, Vec<&'a str>);

/// Every comparison, by point (collapsed), plus metrics that could not be
/// computed, one line per reason and arm.
pub(crate) fn full_table(view: &RunView<'_>) -> Markup {
    let Some(analysis) = view.run.analysis.as_ref() else {
        return html! {};
    };
    // One line per reason and arm, naming the points and metrics.
    let mut groups: Vec<(MissingKey<'_>, Vec<PointMetrics<'_>>)> = Vec::new();
    for missing in &analysis.missing {
        let key = (missing.reason.as_str(), view.arm_label(&missing.arm));
        let point = view.label(missing.point);
        let index = match groups.iter().position(|(k, _)| *k == key) {
            Some(index) => index,
            None => {
                groups.push((key, Vec::new()));
                groups.len() - 1
            }
        };
        let points = &mut groups[index].1;
        match points.iter_mut().find(|(p, _)| *p == point) {
            Some((_, metrics)) => metrics.push(missing.metric.label()),
            None => points.push((point, vec![missing.metric.label()])),
        }
    }
    html! {
        section id="comparisons" {
            h2 { "All comparisons" }
            details {
                summary {
                    "Show all " (analysis.comparisons.len()) " comparisons (every metric of every \
                     point and arm; click a heading to sort)"
                }
                div class="table-wrap" {
                    table class="comparisons sortable" {
                        (head(view, true))
                        tbody {
                            @for comparison in &analysis.comparisons { (row(view, comparison, true)) }
                        }
                    }
                }
            }
            @if !groups.is_empty() {
                h3 { "Not computed" }
                ul class="note" {
                    @for ((reason, arm), points) in &groups {
                        @let points: Vec<String> = points
                            .iter()
                            .map(|(point, metrics)| format!("{point} ({})", metrics.join(", ")))
                            .collect();
                        li { (arm) ": " (reason) " — " (points.join("; ")) }
                    }
                }
            }
        }
    }
}
