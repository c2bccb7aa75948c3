//! Markdown for a change request or a wiki: the answer in words, the verdict
//! table, the conditions and the definitions. GitHub-flavoured tables.

use std::fmt::Write;

use dualperf_model::RunResult;

use crate::compare::RunComparison;
use crate::html::date;
use crate::quantity::{format_value, percent_signed};
use crate::summary_sentences::headline_sentences;
use crate::view::RunView;

/// Escapes a table cell: pipes and line breaks would break the row.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn where_text(run: &RunResult) -> String {
    match (&run.testbed, &run.config.host) {
        (Some(testbed), _) => format!("testbed {} on {}", testbed.name, run.client_host.hostname),
        (None, Some(host)) => format!("{} → {}", run.client_host.hostname, host),
        (None, None) => run.client_host.hostname.clone(),
    }
}

/// Renders one run.
pub(crate) fn render(run: &RunResult) -> String {
    let view = RunView::new(run);
    let mut md = String::new();
    let _ = writeln!(md, "# IPv4 vs IPv6 — run `{}`\n", run.run_id);
    let _ = writeln!(
        md,
        "{} · {} · dualperf {} · {} points × {} families × {} repetitions{}\n",
        where_text(run),
        date(run.started_at_unix_ms),
        run.client_host.tool_version,
        run.config.points.len(),
        run.config.families.len(),
        run.config.repeat,
        if run.complete {
            ""
        } else {
            " · **incomplete**"
        }
    );
    md.push_str("## Answer\n\n");
    for sentence in headline_sentences(&view) {
        let _ = writeln!(md, "- {sentence}");
    }
    if let Some(analysis) = &run.analysis {
        md.push_str("\n## Verdicts\n\nΔ is IPv6 − IPv4 relative to IPv4 (paired repetitions); CI = Student-t 95 % confidence interval; **bold** = significant.\n\n");
        md.push_str("| Point | Metric | IPv4 | IPv6 | Δ v6 − v4 | 95 % CI of Δ | Header model | Verdict |\n");
        md.push_str("|---|---|--:|--:|--:|--:|--:|---|\n");
        for c in &analysis.comparisons {
            let unit = c.metric.unit.as_str();
            let delta = c.relative_difference.map_or_else(
                || crate::quantity::absolute_signed(c.difference_mean, unit),
                percent_signed,
            );
            let delta = if c.significant {
                format!("**{delta}**")
            } else {
                delta
            };
            let _ = writeln!(
                md,
                "| {} | `{}` | {} | {} | {} | {} | {} | {}{} |",
                cell(&view.label(c.point)),
                cell(&c.metric.name),
                format_value(c.per_family.v4.mean, unit),
                format_value(c.per_family.v6.mean, unit),
                delta,
                c.relative_difference_ci95
                    .map_or("–".into(), |(l, h)| format!(
                        "{} … {}",
                        percent_signed(l),
                        percent_signed(h)
                    )),
                c.theoretical_relative_difference
                    .map_or("–".into(), percent_signed),
                cell(&c.verdict),
                if c.warnings.is_empty() {
                    String::new()
                } else {
                    format!(" ⚠ {}", cell(&c.warnings.join("; ")))
                },
            );
        }
        if !analysis.missing.is_empty() {
            md.push_str("\nNot computed:\n\n");
            for (point, metric, reason) in &analysis.missing {
                let _ = writeln!(md, "- {} `{metric}`: {reason}", view.label(*point));
            }
        }
    }
    md.push_str("\n## Conditions\n\n");
    if let Some(testbed) = &run.testbed {
        let _ = writeln!(md, "- Testbed: {} — {}", testbed.name, testbed.description);
        for note in &testbed.notes {
            let _ = writeln!(md, "- Testbed note: {note}");
        }
    }
    let host = &run.client_host;
    let _ = writeln!(
        md,
        "- Client host: {}, {}, kernel {}, {} × {}",
        host.hostname, host.os, host.kernel, host.cpu_count, host.cpu_model
    );
    let _ = writeln!(
        md,
        "- TCP congestion control {}, default qdisc {}",
        host.tcp_congestion_control, host.default_qdisc
    );
    if let Some(first) = run.config.points.first() {
        let _ = writeln!(
            md,
            "- Trials: {} ms measured after {} ms warm-up, {} repetitions per family, {} order",
            first.duration_ms,
            first.warmup_ms,
            run.config.repeat,
            format!("{:?}", run.config.order).to_lowercase()
        );
    }
    let _ = writeln!(md, "- Command: `{}`", run.config.command_line.join(" "));
    for error in &run.errors {
        let _ = writeln!(md, "- Error: {error}");
    }
    let mut metrics: Vec<_> = run
        .analysis
        .iter()
        .flat_map(|a| a.summaries.iter().map(|s| &s.metric))
        .collect();
    metrics.sort_by(|a, b| a.name.cmp(&b.name));
    metrics.dedup_by(|a, b| a.name == b.name);
    if !metrics.is_empty() {
        md.push_str("\n## Definitions\n\n");
        for metric in metrics {
            let _ = writeln!(
                md,
                "- `{}` ({}): {}",
                metric.name, metric.unit, metric.definition
            );
        }
    }
    md
}

/// Renders a comparison of two runs.
pub(crate) fn render_comparison(comparison: &RunComparison<'_>) -> String {
    let mut md = format!(
        "# dualperf: `{}` → `{}`\n\n",
        comparison.before.run_id, comparison.after.run_id
    );
    for (label, run) in [("Before", comparison.before), ("After", comparison.after)] {
        let _ = writeln!(
            md,
            "- {label}: `{}`, {}, {}, kernel {}",
            run.run_id,
            where_text(run),
            date(run.started_at_unix_ms),
            run.client_host.kernel
        );
    }
    md.push_str("\n## Answer\n\n");
    for sentence in comparison.sentences() {
        let _ = writeln!(md, "- {sentence}");
    }
    md.push_str("\n## Changes\n\nChange = after − before relative to before; p = two-sided Welch's t-test on the per-repetition values; **bold** = p < 0.05.\n\n");
    md.push_str("| Point | Metric | Family | Before | After | Change | p |\n|---|---|---|--:|--:|--:|--:|\n");
    for row in &comparison.rows {
        let unit = row.metric.unit.as_str();
        let change = row
            .relative_difference
            .map_or_else(|| format_value(row.difference, unit), percent_signed);
        let significant = row.welch.is_some_and(|w| w.is_significant());
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} | {} | {} | {} |",
            cell(&row.point),
            cell(&row.metric.name),
            row.family.label(),
            format_value(row.before.mean, unit),
            format_value(row.after.mean, unit),
            if significant {
                format!("**{change}**")
            } else {
                change
            },
            row.welch
                .map_or("–".into(), |w| crate::compare::format_p(w.p_value)),
        );
    }
    md
}
