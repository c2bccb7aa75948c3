//! Markdown for a change request or a wiki: the answer in words, the
//! headline verdicts, every comparison (one row per point, metric and
//! compared arm) folded in `<details>`, the conditions (arms included) and
//! the definitions, in at most [`MAX_MARKDOWN_CHARS`] characters (a
//! pull-request comment). GitHub-flavoured tables; metrics named by their
//! labels, arms by theirs.

use std::collections::BTreeSet;
use std::fmt::Write;

use dualperf_model::{MetricId, RunResult};

use crate::compare::RunComparison;
use crate::html::date;
use crate::present::value::{
    format_value, p_value, percent_signed, signed_difference, upper_bound_percent,
};
use crate::present::{
    claims_significance, has_no_spread, significance_note, verdict, warnings, why_clause,
};
use crate::summary_sentences::headline_sentences;
use crate::view::RunView;

mod budget;

pub use budget::MAX_MARKDOWN_CHARS;
use budget::{chars, fit_rows};

/// Escapes text from a label, a host or a peer for Markdown, table cells
/// included: every character Markdown or HTML gives a meaning inside a
/// line (`|` would end the cell, `<script>` would be HTML, `[x](y)` a
/// link, `*` emphasis, `~~` strikethrough) is backslash-escaped (`&` as `&amp;`), and control characters (a
/// newline would end the row) become spaces.
fn cell(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '|' | '~' => {
                escaped.push('\\');
                escaped.push(c);
            }
            c if c.is_control() => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
}

/// `text` as an inline code span: control characters become spaces, and
/// the fence is one backtick longer than the longest run inside (CommonMark
/// §6.1), so nothing in it ends the span.
fn code(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let longest = clean.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if clean.starts_with('`') || clean.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

fn where_text(run: &RunResult) -> String {
    match (&run.testbed, &run.config.host) {
        (Some(testbed), _) => format!(
            "testbed {} on {}",
            cell(&testbed.name),
            cell(&run.client_host.hostname)
        ),
        (None, Some(host)) => format!("{} → {}", cell(&run.client_host.hostname), cell(host)),
        (None, None) => cell(&run.client_host.hostname),
    }
}

/// Renders one run in at most [`MAX_MARKDOWN_CHARS`] characters: the
/// answer and the headline verdicts first, every comparison folded in a
/// `<details>` block (cut with a pointer to the HTML report when it would
/// not fit), then the conditions and the definitions.
pub(crate) fn render(run: &RunResult) -> String {
    let view = RunView::new(run);
    let head = head(run, &view);
    let conditions = conditions(run);
    let mut budget = MAX_MARKDOWN_CHARS.saturating_sub(chars(&head) + chars(&conditions));
    let pointer = |rows: usize| {
        format!(
            "\n_{rows} more row{} left out to fit a pull-request comment; every row is in the \
             HTML report and the CSV (`dualperf report {} --format html`, `--format csv`)._\n",
            if rows == 1 { "" } else { "s" },
            run.run_id
        )
    };
    let mut md = head;
    if let Some(analysis) = &run.analysis {
        let (open, rows) = headline_verdicts(run, &view, analysis);
        if let Some(text) = fit_rows(&open, &rows, "", budget, pointer) {
            budget -= chars(&text);
            md.push_str(&text);
        }
        let (open, rows, close) = every_comparison(&view, analysis);
        if let Some(text) = fit_rows(&open, &rows, &close, budget, pointer) {
            budget -= chars(&text);
            md.push_str(&text);
        }
    }
    md.push_str(&conditions);
    let definitions = definitions(run);
    if let Some(text) = fit_rows(
        "\n<details><summary>Definitions</summary>\n\n",
        &definitions,
        "\n</details>\n",
        budget,
        pointer,
    ) {
        md.push_str(&text);
    }
    md
}

/// The title, the run's facts and the answer in words.
fn head(run: &RunResult, view: &RunView<'_>) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# {} — run {}\n",
        cell(&crate::present::arms::title(&run.config)),
        code(&run.run_id)
    );
    let _ = writeln!(
        md,
        "{} · {} · dualperf {} · {} points × {} arms × {} repetitions{}\n",
        where_text(run),
        date(run.started_at_unix_ms),
        cell(&run.client_host.tool_version),
        run.config.points.len(),
        run.config.arms.len(),
        run.config.repeat,
        if run.complete {
            ""
        } else {
            " · **incomplete**"
        }
    );
    md.push_str("## Answer\n\n");
    for sentence in headline_sentences(view) {
        let _ = writeln!(md, "- {sentence}");
    }
    md
}

/// "## Verdicts": per point and compared arm, the headline metric's
/// verdict (both arms' values, the difference, what explains it), bold when
/// significant. The heading, then one bullet per comparison.
fn headline_verdicts(
    run: &RunResult,
    view: &RunView<'_>,
    analysis: &dualperf_model::Analysis,
) -> (String, Vec<String>) {
    let mut open = String::from("\n## Verdicts\n\n");
    if let Some(note) = significance_note(analysis) {
        let _ = writeln!(open, "{note}\n");
    }
    let rows = analysis
        .comparisons
        .iter()
        .filter(|c| {
            run.config
                .points
                .get(c.point)
                .is_some_and(|spec| MetricId::headline_of(spec) == c.metric)
        })
        .map(|c| {
            let arm = view.arm_label(&c.arm);
            let mut sentence = verdict(c, arm, view.arm_label(&c.baseline));
            if let Some(why) = why_clause(analysis, c, arm) {
                sentence.push_str("; ");
                sentence.push_str(&why);
            }
            let place = format!("{}, {}", cell(&view.label(c.point)), c.metric.label());
            if claims_significance(c) {
                format!("- **{place}: {}**\n", cell(&sentence))
            } else {
                format!("- {place}: {}\n", cell(&sentence))
            }
        })
        .collect();
    (open, rows)
}

/// Every comparison of every metric, one table row each, folded: the
/// opening (summary, legend, header), the rows, and the closing (what was
/// not computed, the end of the fold).
fn every_comparison(
    view: &RunView<'_>,
    analysis: &dualperf_model::Analysis,
) -> (String, Vec<String>, String) {
    // Several baselines (a designed experiment): each row names its own.
    let shared = crate::present::baselines::shared_baseline(analysis);
    let baseline = view.baseline_label();
    let against = match shared {
        Some(_) => baseline.to_string(),
        None => "its baseline".to_string(),
    };
    let mut open = format!(
        "\n<details><summary>Every comparison ({} rows: each metric of each point)</summary>\n\n",
        analysis.comparisons.len()
    );
    let _ = writeln!(open, "Δ is arm − {against} relative to {against} (paired repetitions); CI = Student-t 95 % confidence interval; **bold** = significant (CI excludes 0, at least 3 pairs).\n");
    if shared.is_some() {
        let _ = writeln!(
            open,
            "| Point | Metric | Arm | {} | Arm value | Δ vs {} | 95 % CI of Δ | Header model | Notes |",
            cell(baseline),
            cell(baseline)
        );
        open.push_str("|---|---|---|--:|--:|--:|--:|--:|---|\n");
    } else {
        open.push_str("| Point | Metric | Arm | Baseline | Baseline value | Arm value | Δ | 95 % CI of Δ | Header model | Notes |\n");
        open.push_str("|---|---|---|---|--:|--:|--:|--:|--:|---|\n");
    }
    let rows = analysis
        .comparisons
        .iter()
        .map(|c| {
            let metric = c.metric;
            let delta = c.relative_difference.map_or_else(
                || signed_difference(metric, c.difference_mean),
                percent_signed,
            );
            let delta = if claims_significance(c) {
                format!("**{delta}**")
            } else {
                delta
            };
            let ci = if has_no_spread(c) {
                "no spread".to_string()
            } else {
                c.relative_difference_ci95.map_or("–".into(), |(l, h)| {
                    format!("{} … {}", percent_signed(l), upper_bound_percent(h))
                })
            };
            let arm = view.arm_label(&c.arm);
            let notes = warnings(c, &view.names);
            let arm_cells = match shared {
                Some(_) => cell(arm),
                None => format!("{} | {}", cell(arm), cell(view.arm_label(&c.baseline))),
            };
            format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                cell(&view.label(c.point)),
                cell(metric.label()),
                arm_cells,
                format_value(metric, c.baseline_summary.mean),
                format_value(metric, c.arm_summary.mean),
                delta,
                ci,
                c.theoretical_relative_difference
                    .map_or("–".into(), percent_signed),
                if notes.is_empty() {
                    String::new()
                } else {
                    format!("⚠ {}", cell(&notes.join("; ")))
                },
            )
        })
        .collect();
    let mut close = String::new();
    if !analysis.missing.is_empty() {
        close.push_str("\nNot computed:\n\n");
        for missing in &analysis.missing {
            let _ = writeln!(
                close,
                "- {}, {} on {}: {}",
                cell(&view.label(missing.point)),
                missing.metric.label(),
                cell(view.arm_label(&missing.arm)),
                cell(&missing.reason)
            );
        }
    }
    close.push_str("\n</details>\n");
    (open, rows, close)
}

/// "## Conditions": testbed, arms, hosts, trial timing, command, errors.
fn conditions(run: &RunResult) -> String {
    let mut md = String::from("\n## Conditions\n\n");
    if let Some(testbed) = &run.testbed {
        let _ = writeln!(
            md,
            "- Testbed: {} — {}",
            cell(&testbed.name),
            cell(&testbed.description)
        );
        for note in &testbed.notes {
            let _ = writeln!(md, "- Testbed note: {}", cell(note));
        }
    }
    for arm in &run.config.arms {
        let _ = writeln!(
            md,
            "- Arm {}{}: {}, {}, {}, target {}",
            cell(&arm.label),
            if arm.id == run.config.baseline {
                " (baseline)"
            } else {
                ""
            },
            code(arm.id.as_str()),
            arm.family.label(),
            cell(&arm.path.label()),
            cell(arm.target.as_deref().unwrap_or("–"))
        );
    }
    let host = &run.client_host;
    let _ = writeln!(
        md,
        "- Client host: {}, {}, kernel {}, {} × {}",
        cell(&host.hostname),
        cell(&host.os),
        cell(&host.kernel),
        host.cpu_count,
        cell(&host.cpu_model)
    );
    let _ = writeln!(
        md,
        "- TCP congestion control {}, default qdisc {}",
        cell(&host.tcp_congestion_control),
        cell(&host.default_qdisc)
    );
    if let Some(first) = run.config.points.first() {
        let _ = writeln!(
            md,
            "- Trials: {} ms measured after {} ms warm-up, {} repetitions per arm, {} order",
            first.duration_ms,
            first.warmup_ms,
            run.config.repeat,
            format!("{:?}", run.config.order).to_lowercase()
        );
    }
    let _ = writeln!(
        md,
        "- Command: {}",
        code(&run.config.command_line.join(" "))
    );
    for error in &run.errors {
        let _ = writeln!(md, "- Error: {}", cell(error));
    }
    md
}

/// One line per metric the run has: label, JSON name, unit, definition.
fn definitions(run: &RunResult) -> Vec<String> {
    let metrics: BTreeSet<(usize, MetricId)> = run
        .analysis
        .iter()
        .flat_map(|a| a.summaries.iter().map(|s| (s.metric.order(), s.metric)))
        .collect();
    metrics
        .into_iter()
        .map(|(_, metric)| {
            format!(
                "- {} (`{}`, {}): {}\n",
                metric.label(),
                metric.name(),
                metric.unit(),
                metric.definition()
            )
        })
        .collect()
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
    md.push_str(
        "| Point | Metric | Arm | Before | After | Change | p |\n|---|---|---|--:|--:|--:|--:|\n",
    );
    for row in &comparison.rows {
        let metric = row.metric;
        let change = row
            .relative_difference
            .map_or_else(|| format_value(metric, row.difference), percent_signed);
        let significant = row.is_significant();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&row.point),
            cell(metric.label()),
            cell(&row.arm_label),
            format_value(metric, row.before.mean),
            format_value(metric, row.after.mean),
            if significant {
                format!("**{change}**")
            } else {
                change
            },
            row.welch.map_or("–".into(), |w| p_value(w.p_value)),
        );
    }
    md
}

#[cfg(test)]
mod escaping_tests {
    use super::*;

    #[test]
    fn a_hostile_label_stays_text_in_one_cell() {
        let label = "<script>alert(1)</script> | [x](http://e) *b*\n| injected |";
        let escaped = cell(label);
        // Every `<` is escaped: no HTML tag can open.
        assert!(!escaped.replace("\\<", "").contains('<'), "{escaped}");
        assert!(!escaped.contains('\n'));
        // Every pipe is escaped: the row keeps its cells.
        assert_eq!(escaped.matches('|').count(), escaped.matches("\\|").count());
        assert_eq!(cell("tcp-stream 1024 B"), "tcp-stream 1024 B");
    }

    #[test]
    fn a_code_span_cannot_be_closed_from_inside() {
        assert_eq!(code("run-1"), "`run-1`");
        assert_eq!(code("a`b\nc"), "``a`b c``");
        assert_eq!(code("`x"), "`` `x ``");
    }
}
