//! The HTML page of a two-run comparison: sentences, a throughput chart of
//! both runs per stream transport (one line per arm and run, arms matched
//! by id), and the table of changes with Welch's test.

use dualperf_model::MetricId;
use plotters::style::RGBColor;

use super::{date, escape, location, page};
use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{size_ticks, style};
use crate::compare::RunComparison;
use crate::error::ReportError;
use crate::present::value::{axis_unit, format_value, p_value, percent_signed};
use crate::view::{self, transport, RunView};

fn lighter(color: RGBColor) -> RGBColor {
    RGBColor(color.0 / 2 + 110, color.1 / 2 + 110, color.2 / 2 + 110)
}

fn throughput_charts(comparison: &RunComparison<'_>) -> Result<String, ReportError> {
    let views = [
        RunView::new(comparison.before),
        RunView::new(comparison.after),
    ];
    let mut html = String::new();
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
                let (color, dashed, marker) = style::arm(index);
                let points: Vec<ChartPoint> = run_view
                    .sweep(kind)
                    .into_iter()
                    .filter_map(|(i, spec)| {
                        let s = run_view.summary(i, metric, &arm.id)?;
                        Some(ChartPoint {
                            x: f64::from(spec.size_bytes),
                            y: s.mean / divisor,
                            ci: crate::present::bounds::bounded_ci(metric, s)
                                .map(|(l, h)| (l / divisor, h / divisor)),
                        })
                    })
                    .collect();
                let (label, color, marker) = if n == 0 {
                    (
                        format!("before {}", arm.label),
                        lighter(color),
                        Marker::Cross,
                    )
                } else {
                    (format!("after {}", arm.label), color, marker)
                };
                if !points.is_empty() {
                    series.push(Series {
                        label,
                        color,
                        dashed,
                        marker,
                        points,
                    });
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
        html.push_str(&format!(
            "<figure id=\"compare-{kind}\"><h3>{} throughput, before and after ({kind})</h3>\n{}<figcaption>Before: lighter colours with crosses; after: full colours, one line per arm (matched by id). Error bars are 95 % CIs.</figcaption></figure>\n",
            transport(kind),
            line::render(&chart)?
        ));
    }
    Ok(html)
}

/// Renders the comparison page.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw.
pub(crate) fn render_comparison(comparison: &RunComparison<'_>) -> Result<String, ReportError> {
    let (before, after) = (comparison.before, comparison.after);
    let mut body = format!(
        "<main><header class=\"report\"><h1>Before and after — <code>{}</code> → <code>{}</code></h1>\n<p>before: {} · {} · kernel {}<br>after: {} · {} · kernel {}</p></header>\n",
        escape(&before.run_id), escape(&after.run_id),
        location(before), date(before.started_at_unix_ms), escape(&before.client_host.kernel),
        location(after), date(after.started_at_unix_ms), escape(&after.client_host.kernel),
    );
    body.push_str("<section id=\"answer\" class=\"answer\"><h2>The answer</h2><ul>\n");
    for sentence in comparison.sentences() {
        body.push_str(&format!("<li>{}</li>\n", escape(&sentence)));
    }
    body.push_str("</ul><p class=\"legend-line\">Significance across runs: Welch's unequal-variance t-test on the per-repetition values of each run, two-sided, p &lt; 0.05.</p></section>\n");
    let charts = throughput_charts(comparison)?;
    if !charts.is_empty() {
        body.push_str(&format!("<section id=\"charts\"><h2>Throughput</h2><div class=\"figures\">{charts}</div></section>\n"));
    }
    body.push_str("<section id=\"changes\"><h2>Changes</h2><p class=\"note\">Click a heading to sort.</p><table class=\"sortable\"><thead><tr><th>Point</th><th>Metric</th><th>Arm</th>\
        <th class=\"num\" title=\"Mean over the first run's repetitions\">Before</th><th class=\"num\" title=\"Mean over the second run's repetitions\">After</th>\
        <th class=\"num\" title=\"(after − before) / before\">Change</th><th class=\"num\" title=\"Two-sided p-value of Welch's t-test; below 0.05 is significant\">p (Welch)</th></tr></thead><tbody>\n");
    for row in &comparison.rows {
        let metric = row.metric;
        let significant = row.is_significant();
        let better = row
            .relative_difference
            .map(|r| (r > 0.0) == metric.higher_is_better());
        let class = match (significant, better) {
            (true, Some(true)) => "num delta better",
            (true, Some(false)) => "num delta worse",
            _ => "num delta",
        };
        body.push_str(&format!(
            "<tr class=\"{}\"><td>{}</td><td><span title=\"{}\">{}</span></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{class}\">{}</td><td class=\"num\" title=\"{}\">{}</td></tr>\n",
            if significant { "significant" } else { "" },
            escape(&row.point),
            escape(metric.definition()),
            escape(metric.label()),
            escape(&row.arm_label),
            escape(&format_value(metric, row.before.mean)),
            escape(&format_value(metric, row.after.mean)),
            escape(&row.relative_difference.map_or_else(|| format_value(metric, row.difference), percent_signed)),
            escape(&row.welch.map_or("no test: fewer than 2 repetitions".into(), |w| format!("t = {:.3}, df = {:.1}", w.t, w.degrees_of_freedom))),
            row.welch.map_or("–".into(), |w| p_value(w.p_value)),
        ));
    }
    body.push_str("</tbody></table>");
    let unmatched: Vec<&String> = comparison
        .unmatched
        .iter()
        .chain(&comparison.unmatched_arms)
        .collect();
    if !unmatched.is_empty() {
        body.push_str(&format!(
            "<p class=\"note\">Not compared (measured in one run only): {}</p>",
            escape(
                &unmatched
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        ));
    }
    body.push_str("</section></main>");
    Ok(page::document(
        &format!("dualperf comparison {} → {}", before.run_id, after.run_id),
        &body,
    ))
}
