//! The verdict tables: the key comparison of every point on the first
//! screen, and every comparison further down. Every header and number has a
//! `title` with its definition (hover) and the metric links to its footnote.

use dualperf_model::{Comparison, Summary};

use super::escape;
use crate::quantity::{format_value, format_with_error, percent_signed};
use crate::view::{self, RunView};

const HEAD_TITLES: [(&str, &str, bool); 8] = [
    ("Point", "Test kind and message size (bytes of payload per write, datagram or request)", false),
    ("Metric", "What is compared; the definition is one click away in Definitions", false),
    ("IPv4", "Mean over repetitions ± half the Student-t 95 % confidence interval", true),
    ("IPv6", "Mean over repetitions ± half the Student-t 95 % confidence interval", true),
    ("Δ v6 − v4", "Mean of the paired per-repetition differences IPv6 − IPv4, relative to the IPv4 mean", true),
    ("95 % CI of Δ", "Student-t 95 % confidence interval of the relative paired difference; significant when it excludes 0", true),
    ("Header model", "The difference the header-overhead model predicts, relative to IPv4 (blank where the model does not apply)", true),
    ("Verdict", "One line per comparison from the statistics stage, with warnings", false),
];

fn head(with_verdict: bool) -> String {
    let mut html = String::from("<thead><tr>");
    for (name, title, numeric) in HEAD_TITLES {
        let (name, title) = if name == "Verdict" && !with_verdict {
            (
                "Note",
                "Warnings about this comparison; the verdict is the hover text of Δ",
            )
        } else {
            (name, title)
        };
        let class = if numeric { " class=\"num\"" } else { "" };
        html.push_str(&format!(
            "<th{class} title=\"{}\">{}</th>",
            escape(title),
            escape(name)
        ));
    }
    html.push_str("</tr></thead>\n");
    html
}

fn family_cell(summary: &Summary, unit: &str) -> String {
    let half = summary
        .ci95_low
        .zip(summary.ci95_high)
        .map(|(l, h)| (h - l) / 2.0);
    let detail = format!(
        "n = {}, mean {}, sd {}, min {}, max {}, 95 % CI {}",
        summary.count,
        format_value(summary.mean, unit),
        summary
            .standard_deviation
            .map_or("–".into(), |v| format_value(v, unit)),
        format_value(summary.min, unit),
        format_value(summary.max, unit),
        summary
            .ci95_low
            .zip(summary.ci95_high)
            .map_or("–".into(), |(l, h)| format!(
                "{} … {}",
                format_value(l, unit),
                format_value(h, unit)
            )),
    );
    let text = match half {
        Some(half) => format_with_error(summary.mean, half, unit),
        None => format_value(summary.mean, unit),
    };
    format!(
        "<td class=\"num\" title=\"{}\">{}</td>",
        escape(&detail),
        escape(&text)
    )
}

fn row(view: &RunView<'_>, comparison: &Comparison, with_verdict: bool) -> String {
    let unit = comparison.metric.unit.as_str();
    let relative = comparison.relative_difference;
    let better = relative.map(|r| (r > 0.0) == comparison.metric.higher_is_better);
    let class = match (comparison.significant, better) {
        (true, Some(true)) => "num delta better",
        (true, Some(false)) => "num delta worse",
        _ => "num delta",
    };
    let delta = relative.map_or_else(
        || crate::quantity::absolute_signed(comparison.difference_mean, unit),
        percent_signed,
    );
    let ci = comparison
        .relative_difference_ci95
        .map_or("–".to_string(), |(l, h)| {
            format!("{} … {}", percent_signed(l), percent_signed(h))
        });
    let theory = comparison
        .theoretical_relative_difference
        .map_or(String::new(), percent_signed);
    let warnings = if comparison.warnings.is_empty() {
        String::new()
    } else {
        let all = comparison.warnings.join("; ");
        if with_verdict {
            format!("<br><span class=\"warn\">⚠ {}</span>", escape(&all))
        } else {
            // Short form ("IPv4 unstable, IPv6 unstable"); the whole text on hover.
            let short: Vec<&str> = comparison
                .warnings
                .iter()
                .map(|w| w.split(':').next().unwrap_or(w))
                .collect();
            format!(
                "<span class=\"warn\" title=\"{}\">⚠ {}</span>",
                escape(&all),
                escape(&short.join(", "))
            )
        }
    };
    let verdict = if with_verdict {
        escape(&comparison.verdict)
    } else {
        String::new()
    };
    format!(
        "<tr class=\"{row_class}\"><td class=\"point\">{point}</td><td><a href=\"#def-{name}\" title=\"{definition}\">{name}</a></td>{v4}{v6}\
         <td class=\"{class}\" title=\"{verdict_title} (absolute difference {absolute})\">{delta}</td><td class=\"num\">{ci}</td><td class=\"num\">{theory}</td><td>{verdict}{warnings}</td></tr>\n",
        row_class = if comparison.significant { "significant" } else { "" },
        point = escape(&view.label(comparison.point)),
        name = escape(&comparison.metric.name),
        definition = escape(&comparison.metric.definition),
        v4 = family_cell(&comparison.per_family.v4, unit),
        v6 = family_cell(&comparison.per_family.v6, unit),
        absolute = escape(&format_value(comparison.difference_mean, unit)),
        delta = escape(&delta),
        ci = escape(&ci),
        theory = escape(&theory),
        verdict_title = escape(&comparison.verdict),
    )
}

/// The first-screen table: per point, its key metric (goodput for streams,
/// RTT for request/response, plus loss for UDP streams).
pub(crate) fn key_table(view: &RunView<'_>) -> String {
    let Some(analysis) = view.run.analysis.as_ref() else {
        return String::new();
    };
    let key: Vec<&str> = [
        view.pick(view::THROUGHPUT),
        view.pick(view::RTT),
        view.pick(view::LOSS),
        view.pick(view::ONE_WAY_DELAY),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut rows: Vec<&Comparison> = analysis
        .comparisons
        .iter()
        .filter(|c| key.contains(&c.metric.name.as_str()))
        .collect();
    rows.sort_by_key(|c| {
        let spec =
            &view.run.config.points[c.point.min(view.run.config.points.len().saturating_sub(1))];
        (
            spec.kind,
            key.iter().position(|k| *k == c.metric.name),
            spec.size_bytes,
            c.point,
        )
    });
    if rows.is_empty() {
        return String::new();
    }
    let mut html = String::from("<section id=\"verdicts\"><h2>Verdicts</h2>\n<p class=\"note\">The key metric of every point. Bold differences are significant (their 95 % CI excludes zero); green is better for IPv6, red worse. All metrics are in <a href=\"#comparisons\">All comparisons</a>.</p>\n<div class=\"table-wrap\"><table class=\"verdicts\">");
    html.push_str(&head(false));
    html.push_str("<tbody>\n");
    for comparison in rows {
        html.push_str(&row(view, comparison, false));
    }
    html.push_str("</tbody></table></div></section>\n");
    html
}

/// Every comparison, by point, plus metrics that could not be computed.
pub(crate) fn full_table(view: &RunView<'_>) -> String {
    let Some(analysis) = view.run.analysis.as_ref() else {
        return String::new();
    };
    let mut html = format!(
        "<section id=\"comparisons\"><h2>All comparisons</h2>\n<details open><summary>{} comparisons</summary>\n<div class=\"table-wrap\"><table class=\"comparisons\">",
        analysis.comparisons.len()
    );
    html.push_str(&head(true));
    html.push_str("<tbody>\n");
    for comparison in &analysis.comparisons {
        html.push_str(&row(view, comparison, true));
    }
    html.push_str("</tbody></table></div></details>\n");
    if !analysis.missing.is_empty() {
        html.push_str("<h3>Not computed</h3><ul class=\"note\">");
        for (point, metric, reason) in &analysis.missing {
            html.push_str(&format!(
                "<li>{} <code>{}</code>: {}</li>",
                escape(&view.label(*point)),
                escape(metric),
                escape(reason)
            ));
        }
        html.push_str("</ul>");
    }
    html.push_str("</section>\n");
    html
}
