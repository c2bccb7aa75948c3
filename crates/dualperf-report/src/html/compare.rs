//! The HTML page of a two-run comparison: sentences, a throughput chart of
//! both runs per stream transport (one line per arm and run, arms matched
//! by id), and the table of changes with Welch's test.

use dualperf_model::MetricId;
use maud::{html, Markup, PreEscaped};
use plotters::style::RGBColor;

use super::{date, location, page};
use crate::charts::line::{self, LineChart, Marker, Ticks};
use crate::charts::size_ticks;
use crate::compare::RunComparison;
use crate::error::ReportError;
use crate::present::value::{axis_unit, format_value, p_value, percent_signed};
use crate::view::{self, transport, RunView};

fn lighter(color: RGBColor) -> RGBColor {
    RGBColor(color.0 / 2 + 110, color.1 / 2 + 110, color.2 / 2 + 110)
}

/// One figure per stream transport that both runs measured.
fn throughput_charts(comparison: &RunComparison<'_>) -> Result<Vec<Markup>, ReportError> {
    let views = [
        RunView::new(comparison.before),
        RunView::new(comparison.after),
    ];
    let mut figures = Vec::new();
    for kind in view::STREAM_KINDS {
        let metric = MetricId::headline(kind);
        let mut series = Vec::new();
        let mut largest: f64 = 0.0;
        for run_view in &views {
            for arm in run_view.arms() {
                for (point, _) in run_view.sweep(kind) {
                    if let Some(s) = run_view.summary(point, metric, &arm.id) {
                        largest = largest.max(s.ci95_high.unwrap_or(s.mean).max(s.mean));
                    }
                }
            }
        }
        let (divisor, unit) = axis_unit(metric, largest);
        for (n, run_view) in views.iter().enumerate() {
            // Arms styled by their position in the second run, matched by id.
            for arm in run_view.arms() {
                let Some(index) = views[1].arms().iter().position(|a| a.id == arm.id) else {
                    continue;
                };
                let mut line = crate::charts::sweep::arm_series(
                    run_view,
                    kind,
                    metric,
                    (index, arm),
                    divisor,
                    format!("after {}", arm.label),
                );
                if n == 0 {
                    line.label = format!("before {}", arm.label);
                    line.color = lighter(line.color);
                    line.marker = Marker::Cross;
                }
                if !line.points.is_empty() {
                    series.push(line);
                }
            }
        }
        let chart = LineChart {
            name: format!("compare-throughput-{kind}"),
            x_label: "message size (bytes, log scale)".into(),
            y_label: format!("{} ({unit})", metric.label()),
            x_log_ticks: Some(size_ticks(
                &series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.x))
                    .collect::<Vec<_>>(),
            )),
            x_ticks: Ticks::Size,
            y_ticks: Ticks::Number,
            x_from_zero: false,
            y_from_zero: true,
            zero_line: false,
            size: (640, 380),
            series,
            x_marks: Vec::new(),
        };
        if chart.is_empty() {
            continue;
        }
        let svg = line::render(&chart)?;
        figures.push(html! {
            figure id={ "compare-" (kind) } {
                h3 { (transport(kind)) " throughput, before and after (" (kind) ")" }
                // The chart, already-rendered SVG (plotters escapes its text).
                (PreEscaped(svg))
                figcaption {
                    "Before: lighter colours with crosses; after: full colours, one line per \
                     arm (matched by id). Error bars are 95 % CIs."
                }
            }
        });
    }
    Ok(figures)
}

/// Renders the comparison page.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw.
pub(crate) fn render_comparison(comparison: &RunComparison<'_>) -> Result<String, ReportError> {
    let (before, after) = (comparison.before, comparison.after);
    let charts = throughput_charts(comparison)?;
    let unmatched: Vec<&str> = comparison
        .unmatched
        .iter()
        .chain(&comparison.unmatched_arms)
        .map(String::as_str)
        .collect();
    let body = html! {
        main {
            header class="report" {
                h1 {
                    "Before and after — " code { (before.run_id) } " → " code { (after.run_id) }
                }
                p {
                    "before: " (location(before)) " · " (date(before.started_at_unix_ms))
                    " · kernel " (before.client_host.kernel)
                    br;
                    "after: " (location(after)) " · " (date(after.started_at_unix_ms))
                    " · kernel " (after.client_host.kernel)
                }
            }
            section id="answer" class="answer" {
                h2 { "The answer" }
                ul {
                    @for sentence in comparison.sentences() { li { (sentence) } }
                }
                p class="legend-line" {
                    "Significance across runs: Welch's unequal-variance t-test on the \
                     per-repetition values of each run, two-sided, p < 0.05."
                }
            }
            @if !charts.is_empty() {
                section id="charts" {
                    h2 { "Throughput" }
                    div class="figures" { @for chart in &charts { (chart) } }
                }
            }
            section id="changes" {
                h2 { "Changes" }
                p class="note" { "Click a heading to sort." }
                table class="sortable" {
                    thead {
                        tr {
                            th { "Point" }
                            th { "Metric" }
                            th { "Arm" }
                            th class="num" title="Mean over the first run's repetitions" { "Before" }
                            th class="num" title="Mean over the second run's repetitions" { "After" }
                            th class="num" title="(after − before) / before" { "Change" }
                            th class="num" title="Two-sided p-value of Welch's t-test; below 0.05 is significant" {
                                "p (Welch)"
                            }
                        }
                    }
                    tbody {
                        @for row in &comparison.rows {
                            @let metric = row.metric;
                            @let significant = row.is_significant();
                            @let better = row
                                .relative_difference
                                .map(|r| (r > 0.0) == metric.higher_is_better());
                            @let class = match (significant, better) {
                                (true, Some(true)) => "num delta better",
                                (true, Some(false)) => "num delta worse",
                                _ => "num delta",
                            };
                            tr class=(if significant { "significant" } else { "" }) {
                                td { (row.point) }
                                td { span title=(metric.definition()) { (metric.label()) } }
                                td { (row.arm_label) }
                                td class="num" { (format_value(metric, row.before.mean)) }
                                td class="num" { (format_value(metric, row.after.mean)) }
                                td class=(class) {
                                    (row.relative_difference.map_or_else(
                                        || format_value(metric, row.difference),
                                        percent_signed,
                                    ))
                                }
                                td class="num"
                                    title=(row.welch.map_or_else(
                                        || "no test: fewer than 2 repetitions".to_string(),
                                        |w| format!("t = {:.3}, df = {:.1}", w.t, w.degrees_of_freedom),
                                    ))
                                {
                                    (row.welch.map_or_else(|| "–".to_string(), |w| p_value(w.p_value)))
                                }
                            }
                        }
                    }
                }
                @if !unmatched.is_empty() {
                    p class="note" {
                        "Not compared (measured in one run only): " (unmatched.join(", "))
                    }
                }
            }
        }
    };
    Ok(page::document(
        &format!("dualperf comparison {} → {}", before.run_id, after.run_id),
        &body.into_string(),
    ))
}
