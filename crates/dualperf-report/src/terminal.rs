//! The terminal comparison table: one block per point, one row per metric,
//! IPv4 and IPv6 side by side with the measured and the theoretical
//! difference, then the point's verdict and warnings.
//!
//! ```text
//! [1] tcp-stream 131072 B — 3 repetitions per family, interleaved
//! metric          IPv4 mean ±CI          IPv6 mean ±CI          Δ v6−v4 [95 % CI]         sig.  theory
//! goodput         20.5 Gbit/s ±6.1%      19.8 Gbit/s ±6.4%      −3.2 % [−4.1, −2.3]       yes   −1.4 %
//! ```
//!
//! `±CI` is the half-width of the family's 95 % confidence interval relative
//! to its mean. Pure rendering: strings in, a string out. Width-aware: below
//! [`WIDE_LAYOUT_COLUMNS`] the family columns drop their ±CI.

use std::collections::BTreeSet;

use dualperf_model::{Analysis, Comparison, RunResult, Summary, TestSpec};
use dualperf_stats::catalogue::{definition, headline_metrics, MetricDefinition, Quantity};
use dualperf_stats::verdict::{compact_relative, percent};

/// Terminal width assumed by [`render_comparison_table`].
pub const DEFAULT_WIDTH: usize = 100;

/// The comparison table for a terminal of [`DEFAULT_WIDTH`] columns.
pub fn render_comparison_table(result: &RunResult, analysis: &Analysis) -> String {
    render_comparison_table_width(result, analysis, DEFAULT_WIDTH)
}

/// The comparison table for a terminal `width` columns wide.
pub fn render_comparison_table_width(
    result: &RunResult,
    analysis: &Analysis,
    width: usize,
) -> String {
    let mut out = String::new();
    for point in points(analysis) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&render_point(result, analysis, point, width));
    }
    if out.is_empty() {
        out.push_str("No metrics: every trial failed or nothing was measured.\n");
    }
    out
}

/// One line per point: its label and the verdict of its headline metric
/// (goodput for streams, median RTT for request/response, …).
pub fn render_verdicts(result: &RunResult, analysis: &Analysis) -> String {
    let mut out = String::new();
    for point in points(analysis) {
        let label = point_label(result, point);
        let line = match headline(result, analysis, point) {
            Some(c) => {
                let name = short_name(&c.metric.name);
                format!("[{}] {label}, {name}: {}", point + 1, c.verdict)
            }
            None => {
                let reason = analysis
                    .missing
                    .iter()
                    .find(|(p, _, _)| *p == point)
                    .map(|(_, metric, reason)| format!("{metric}: {reason}"))
                    .unwrap_or_else(|| "only one family was measured".to_string());
                format!(
                    "[{}] {label}: no IPv4/IPv6 comparison ({reason})",
                    point + 1
                )
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Every point that has a summary or a missing entry, ascending.
fn points(analysis: &Analysis) -> BTreeSet<usize> {
    analysis
        .summaries
        .iter()
        .map(|s| s.point)
        .chain(analysis.missing.iter().map(|(p, _, _)| *p))
        .collect()
}

fn spec_of(result: &RunResult, point: usize) -> Option<&TestSpec> {
    result.config.points.get(point).or_else(|| {
        result
            .trials
            .iter()
            .find(|t| t.point == point)
            .map(|t| &t.spec)
    })
}

fn point_label(result: &RunResult, point: usize) -> String {
    spec_of(result, point).map_or_else(|| format!("point {}", point + 1), TestSpec::label)
}

/// The comparison of the point's headline metric.
fn headline<'a>(
    result: &RunResult,
    analysis: &'a Analysis,
    point: usize,
) -> Option<&'a Comparison> {
    let comparisons = || {
        analysis
            .comparisons
            .iter()
            .filter(move |c| c.point == point)
    };
    let kind = spec_of(result, point).map(|s| s.kind);
    kind.and_then(|kind| {
        headline_metrics(kind)
            .iter()
            .find_map(|name| comparisons().find(|c| c.metric.name == *name))
    })
    .or_else(|| comparisons().next())
}

/// The metric name without its unit suffix, for people ("goodput", "rtt p50").
fn short_name(name: &str) -> String {
    let suffixes = ["_bps", "_ns", "_ratio", "_us_per_mib", "_cores"];
    let stem = suffixes
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    stem.replace('_', " ")
}

/// Which optional parts of the table are shown; the widest layout that fits
/// the terminal wins.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// ±CI after each family mean.
    family_ci: bool,
    /// The theory column.
    theory: bool,
    /// The "sig." column (the CI already tells it).
    significance: bool,
}

/// Layouts from the widest to the narrowest.
const LAYOUTS: [Layout; 4] = [
    Layout {
        family_ci: true,
        theory: true,
        significance: true,
    },
    Layout {
        family_ci: false,
        theory: true,
        significance: true,
    },
    Layout {
        family_ci: false,
        theory: false,
        significance: true,
    },
    Layout {
        family_ci: false,
        theory: false,
        significance: false,
    },
];

/// "9.41 Gbit/s ±1.3%": the mean and the CI half-width relative to it.
fn family_cell(
    summary: Option<&Summary>,
    definition: Option<&MetricDefinition>,
    with_ci: bool,
) -> String {
    let Some(s) = summary else {
        return "—".to_string();
    };
    let mean = format_value(definition, s.mean);
    if !with_ci {
        return mean;
    }
    match (s.ci95_low, s.ci95_high) {
        (Some(low), Some(high)) => {
            let half = (high - low) / 2.0;
            if half == 0.0 || (s.mean != 0.0 && half / s.mean.abs() < 0.000_05) {
                format!("{mean} ±0")
            } else if s.mean != 0.0 {
                format!("{mean} ±{}%", percent(half / s.mean.abs()))
            } else {
                format!("{mean} ±{}", format_value(definition, half))
            }
        }
        _ => format!("{mean} (n={})", s.count),
    }
}

fn format_value(definition: Option<&MetricDefinition>, value: f64) -> String {
    definition.map_or_else(
        || dualperf_stats::verdict::display_number(value),
        |d| d.format_value(value),
    )
}

/// "−4.1 % [−6.9, −1.4]", or the absolute difference when IPv4 is 0
/// (percentage points for ratios).
fn difference_cell(c: &Comparison, definition: Option<&MetricDefinition>) -> String {
    match c.relative_difference {
        Some(relative) => compact_relative(relative, c.relative_difference_ci95),
        None if c.difference_mean == 0.0 => "0".to_string(),
        None => {
            let sign = if c.difference_mean < 0.0 { "−" } else { "+" };
            match definition.map(|d| d.quantity) {
                Some(Quantity::Ratio) => {
                    let points =
                        dualperf_stats::catalogue::significant(c.difference_mean.abs() * 100.0);
                    format!("{sign}{points} pp")
                }
                _ => format!(
                    "{sign}{}",
                    format_value(definition, c.difference_mean.abs())
                ),
            }
        }
    }
}

/// The table rows of one point in one layout, header first.
fn table_rows(analysis: &Analysis, point: usize, layout: Layout) -> Vec<Vec<String>> {
    let mut header = vec![
        "metric",
        if layout.family_ci {
            "IPv4 mean ±CI"
        } else {
            "IPv4"
        },
        if layout.family_ci {
            "IPv6 mean ±CI"
        } else {
            "IPv6"
        },
        "Δ v6−v4 [95 % CI]",
    ];
    if layout.significance {
        header.push("sig.");
    }
    if layout.theory {
        header.push("theory");
    }
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for summary in analysis.summaries.iter().filter(|s| s.point == point) {
        let definition = definition(&summary.metric.name);
        let comparison = analysis
            .comparisons
            .iter()
            .find(|c| c.point == point && c.metric.name == summary.metric.name);
        let mut row = vec![
            short_name(&summary.metric.name),
            family_cell(summary.per_family.v4.as_ref(), definition, layout.family_ci),
            family_cell(summary.per_family.v6.as_ref(), definition, layout.family_ci),
            comparison.map_or_else(String::new, |c| difference_cell(c, definition)),
        ];
        if layout.significance {
            row.push(comparison.map_or_else(String::new, |c| {
                match (c.difference_ci95, c.significant) {
                    (None, _) => "–".to_string(),
                    (Some(_), true) => "yes".to_string(),
                    (Some(_), false) => "no".to_string(),
                }
            }));
        }
        if layout.theory {
            row.push(
                comparison
                    .and_then(|c| c.theoretical_relative_difference)
                    .map_or_else(String::new, |t| compact_relative(t, None)),
            );
        }
        rows.push(row);
    }
    rows
}

/// Groups `(metric, text)` notes by text: "text (metric, metric)".
fn grouped(notes: &[(String, String)]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (metric, text) in notes {
        match groups.iter_mut().find(|(t, _)| t == text) {
            Some((_, metrics)) => {
                if !metrics.contains(metric) {
                    metrics.push(metric.clone());
                }
            }
            None => groups.push((text.clone(), vec![metric.clone()])),
        }
    }
    groups
}

fn render_point(result: &RunResult, analysis: &Analysis, point: usize, width: usize) -> String {
    let repetitions = result.config.repeat;
    let order = match result.config.order {
        dualperf_model::RepetitionOrder::Interleaved => "interleaved",
        dualperf_model::RepetitionOrder::Blocked => "blocked",
    };
    let mut out = format!(
        "[{}] {} — {repetitions} repetition{} per family, {order}\n",
        point + 1,
        point_label(result, point),
        if repetitions == 1 { "" } else { "s" }
    );
    if analysis.summaries.iter().any(|s| s.point == point) {
        let fitting = LAYOUTS
            .iter()
            .map(|&layout| columns(&table_rows(analysis, point, layout)))
            .find(|table| table.lines().all(|l| l.chars().count() <= width));
        let table = fitting.unwrap_or_else(|| columns(&table_rows(analysis, point, LAYOUTS[3])));
        out.push_str(&table);
    } else {
        out.push_str("  (no metric could be computed)\n");
    }
    if let Some(c) = headline(result, analysis, point) {
        let line = format!("Verdict ({}): {}", short_name(&c.metric.name), c.verdict);
        out.push_str(&wrap(&line, width, "  "));
    }
    let warnings: Vec<(String, String)> = analysis
        .comparisons
        .iter()
        .filter(|c| c.point == point)
        .flat_map(|c| {
            c.warnings
                .iter()
                .map(|w| (short_name(&c.metric.name), w.clone()))
        })
        .collect();
    for (text, metrics) in grouped(&warnings) {
        out.push_str(&wrap(
            &format!("! {text} ({})", metrics.join(", ")),
            width,
            "  ",
        ));
    }
    // "IPv4: reason" and "IPv6: reason" become one line naming both families.
    let mut missing: Vec<(String, String, Vec<&str>)> = Vec::new();
    for (_, metric, reason) in analysis.missing.iter().filter(|(p, _, _)| *p == point) {
        let (family, text) = match reason.split_once(": ") {
            Some((family @ ("IPv4" | "IPv6"), text)) => (family, text.to_string()),
            _ => ("", reason.clone()),
        };
        let metric = short_name(metric);
        match missing
            .iter_mut()
            .find(|(m, t, _)| *m == metric && *t == text)
        {
            Some((_, _, families)) => families.push(family),
            None => missing.push((metric, text, vec![family])),
        }
    }
    let notes: Vec<(String, String)> = missing
        .into_iter()
        .map(|(metric, text, families)| {
            let families: Vec<&str> = families.into_iter().filter(|f| !f.is_empty()).collect();
            let scope = if families.is_empty() {
                String::new()
            } else {
                format!(" ({})", families.join(", "))
            };
            (metric, format!("{text}{scope}"))
        })
        .collect();
    for (reason, metrics) in grouped(&notes) {
        let line = format!("- not computed: {} — {reason}", metrics.join(", "));
        out.push_str(&wrap(&line, width, "  "));
    }
    out
}

/// Aligned columns: the first left-aligned, the others right-aligned,
/// separated by two spaces; the header is underlined.
fn columns(rows: &[Vec<String>]) -> String {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count)
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (index, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = " ".repeat(widths[i] - cell.chars().count());
            if i == 0 {
                line.push_str(cell);
                line.push_str(&pad);
            } else {
                line.push_str("  ");
                line.push_str(&pad);
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if index == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
            out.push_str(&"─".repeat(total));
            out.push('\n');
        }
    }
    out
}

/// Wraps `text` at word boundaries to `width`, indenting continuation lines.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = line.chars().count() + 1 + word.chars().count();
        if !line.is_empty() && candidate > width.max(40) {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}{word}");
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
