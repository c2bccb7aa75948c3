//! The HTML page of a two-run comparison: sentences, a throughput chart of
//! both runs per stream transport, and the table of changes with Welch's test.

use dualperf_model::IpFamily;
use plotters::style::RGBColor;

use super::{date, escape, location, page};
use crate::charts::line::{self, ChartPoint, LegendCorner, LineChart, Marker, Series};
use crate::charts::{axis_unit, size_ticks, style};
use crate::compare::RunComparison;
use crate::error::ReportError;
use crate::quantity::{self, format_value, percent_signed};
use crate::view::{self, transport, RunView};

fn lighter(color: RGBColor) -> RGBColor {
    RGBColor(color.0 / 2 + 110, color.1 / 2 + 110, color.2 / 2 + 110)
}

fn throughput_charts(comparison: &RunComparison<'_>) -> Result<String, ReportError> {
    let views = [
        RunView::new(comparison.before),
        RunView::new(comparison.after),
    ];
    let Some(metric) = views[1].pick(view::THROUGHPUT) else {
        return Ok(String::new());
    };
    let mut html = String::new();
    for kind in view::STREAM_KINDS {
        let mut series = Vec::new();
        for (n, run_view) in views.iter().enumerate() {
            for family in IpFamily::ALL {
                let (color, dashed, marker) = style::family(family);
                let points: Vec<ChartPoint> = run_view
                    .sweep(kind)
                    .into_iter()
                    .filter_map(|(i, spec)| {
                        let s = run_view.family_summary(i, metric, family)?;
                        Some(ChartPoint {
                            x: f64::from(spec.size_bytes),
                            y: s.mean / 1e6,
                            ci: s.ci95_low.zip(s.ci95_high).map(|(l, h)| (l / 1e6, h / 1e6)),
                        })
                    })
                    .collect();
                let (label, color, marker) = if n == 0 {
                    (
                        format!("before {}", family.label()),
                        lighter(color),
                        Marker::Cross,
                    )
                } else {
                    (format!("after {}", family.label()), color, marker)
                };
                series.push(Series {
                    label,
                    color,
                    dashed,
                    marker,
                    points,
                });
            }
        }
        let chart = LineChart {
            name: format!("compare-throughput-{kind}"),
            x_label: "message size (bytes, log scale)".into(),
            y_label: format!("goodput ({})", axis_unit("bit/s", 0.0).1),
            x_log_ticks: Some(size_ticks(
                &series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.x))
                    .collect::<Vec<_>>(),
            )),
            x_format: quantity::size_tick,
            y_format: quantity::tick,
            y_from_zero: true,
            zero_line: false,
            legend: LegendCorner::UpperLeft,
            size: (640, 380),
            series,
        };
        if chart.is_empty() {
            continue;
        }
        html.push_str(&format!(
            "<figure id=\"compare-{kind}\"><h3>{} throughput, before and after ({kind})</h3>\n{}<figcaption>Before: lighter colours with crosses; after: full colours. IPv4 solid, IPv6 dashed; error bars are 95 % CIs.</figcaption></figure>\n",
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
    body.push_str("<section id=\"changes\"><h2>Changes</h2><table><thead><tr><th>Point</th><th>Metric</th><th>Family</th>\
        <th class=\"num\" title=\"Mean over the first run's repetitions\">Before</th><th class=\"num\" title=\"Mean over the second run's repetitions\">After</th>\
        <th class=\"num\" title=\"(after − before) / before\">Change</th><th class=\"num\" title=\"Two-sided p-value of Welch's t-test; below 0.05 is significant\">p (Welch)</th></tr></thead><tbody>\n");
    for row in &comparison.rows {
        let unit = row.metric.unit.as_str();
        let significant = row.welch.is_some_and(|w| w.is_significant());
        let better = row
            .relative_difference
            .map(|r| (r > 0.0) == row.metric.higher_is_better);
        let class = match (significant, better) {
            (true, Some(true)) => "num delta better",
            (true, Some(false)) => "num delta worse",
            _ => "num delta",
        };
        body.push_str(&format!(
            "<tr class=\"{}\"><td>{}</td><td><span title=\"{}\">{}</span></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{class}\">{}</td><td class=\"num\" title=\"{}\">{}</td></tr>\n",
            if significant { "significant" } else { "" },
            escape(&row.point),
            escape(&row.metric.definition),
            escape(&row.metric.name),
            row.family.label(),
            escape(&format_value(row.before.mean, unit)),
            escape(&format_value(row.after.mean, unit)),
            escape(&row.relative_difference.map_or_else(|| format_value(row.difference, unit), percent_signed)),
            escape(&row.welch.map_or("no test: fewer than 2 repetitions".into(), |w| format!("t = {:.3}, df = {:.1}", w.t, w.degrees_of_freedom))),
            row.welch.map_or("–".into(), |w| crate::compare::format_p(w.p_value)),
        ));
    }
    body.push_str("</tbody></table>");
    if !comparison.unmatched.is_empty() {
        body.push_str(&format!(
            "<p class=\"note\">Not compared (measured in one run only): {}</p>",
            escape(&comparison.unmatched.join(", "))
        ));
    }
    body.push_str("</section></main>");
    Ok(page::document(
        &format!("dualperf comparison {} → {}", before.run_id, after.run_id),
        &body,
    ))
}
