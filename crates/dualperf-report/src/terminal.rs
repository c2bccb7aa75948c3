//! The terminal comparison table: one block per point, one row per metric,
//! every arm side by side, each compared arm followed by its difference
//! from the baseline, the significance and the header model's prediction,
//! then the point's verdicts and warnings.
//!
//! ```text
//! [1] tcp-stream 131072 B — 3 repetitions per arm, interleaved
//! metric     IPv4 mean ±CI      IPv6 mean ±CI    Δ vs IPv4 [95 % CI]  sig.  theory
//! goodput    20.5 Gbit/s ±6.1%  19.8 Gbit/s ±6.4%  −3.2 % [−4.1, −2.3]   yes  −1.4 %
//! ```
//!
//! `±CI` is the half-width of the arm's 95 % confidence interval relative
//! to its mean. Metric names are labels ([`MetricId::label`]), numbers come
//! from [`crate::present`]. Pure rendering: a result in, a string out.
//! Width-aware: the widest layout in which every point's table fits wins
//! (one layout for the whole run, so the tables read alike), first dropping
//! the arms' ±CI, then the theory and significance columns; with several
//! compared arms that do not fit side by side, one table per compared arm.

use std::collections::BTreeSet;

use dualperf_model::{Analysis, RunResult};

use crate::present::value::percent;
use crate::present::{significance_note, ArmNames};
use context::Context;

mod answer;
mod context;
mod cpu_cost;
mod layout;
mod point;
mod regime;

pub use answer::{answer_is_a_table, render_answer, render_answer_table};
pub use cpu_cost::render_cpu_cost;
pub use regime::render_regimes;

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
    let context = Context::new(result, analysis);
    let points = points(analysis);
    let layout = context.run_layout(&points, width);
    let mut out = String::new();
    for point in points {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&context.render_point(point, layout, width));
    }
    if out.is_empty() {
        out.push_str("No metrics: every trial failed or nothing was measured.\n");
    }
    out
}

/// One line per point and compared arm: the point's label and the verdict
/// of its headline metric ([`MetricId::headline`]: goodput for streams,
/// median RTT for request/response, …), with what explains it.
/// Each verdict is one line, however long (for pipes and tests); see
/// [`render_verdicts_width`] for a terminal.
pub fn render_verdicts(result: &RunResult, analysis: &Analysis) -> String {
    verdicts(result, analysis, None)
}

/// [`render_verdicts`] for a terminal `width` columns wide: every line
/// wraps at word boundaries, continuation lines indented by four spaces.
pub fn render_verdicts_width(result: &RunResult, analysis: &Analysis, width: usize) -> String {
    verdicts(result, analysis, Some(width))
}

fn verdicts(result: &RunResult, analysis: &Analysis, width: Option<usize>) -> String {
    let context = Context::new(result, analysis);
    let mut lines = Vec::new();
    if result.config.compared_arms().next().is_none() {
        // A measurement, not a comparison: one line, not one per point.
        let baseline = context.names.label(context.baseline());
        lines.push(format!(
            "No comparison: only {baseline} was measured (the values above are the result; \
             a comparison needs a second arm, e.g. both families)"
        ));
        return finish_lines(lines, width);
    }
    for point in points(analysis) {
        lines.extend(context.verdict_lines(point));
    }
    if !lines.is_empty() {
        lines.extend(significance_note(analysis));
    }
    finish_lines(lines, width)
}

/// `lines` joined, each wrapped to `width` when one is given.
fn finish_lines(lines: Vec<String>, width: Option<usize>) -> String {
    let mut out = String::new();
    for line in lines {
        match width {
            Some(width) => out.push_str(&wrap(&line, width, "    ")),
            None => {
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    out
}

/// One line about instability for a terminal that shows the verdicts first
/// (issue 15): how many of the verdicts rest on an arm whose coefficient of
/// variation exceeded the threshold, at which points and on which arms, and
/// how many comparisons of the other metrics did; `None` when none did.
pub fn render_instability(result: &RunResult) -> Option<String> {
    let found = crate::present::instability::Instability::of(result)?;
    let names = ArmNames::new(&result.config);
    // Arm labels may hold commas ("IPv6 via 6in4, host to host"): two are
    // joined with "and", more are counted.
    let arms = match found.arms.as_slice() {
        [one] => names.label(one).to_string(),
        [a, b] => format!("{} and {}", names.label(a), names.label(b)),
        many => format!("{} of {} arms", many.len(), result.config.arms.len()),
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let others = format!(
        "{} comparison{} of other metrics (CPU, jitter, loss …; --table marks them)",
        found.other,
        plural(found.other)
    );
    if found.headline == 0 {
        return Some(format!(
            "! {others} {} unstable (CV above {} % on {}); the verdicts are not",
            if found.other == 1 { "is" } else { "are" },
            percent(found.threshold),
            arms
        ));
    }
    let listed: Vec<String> = found
        .headline_points
        .iter()
        .map(|p| format!("[{}]", p + 1))
        .collect();
    let mut line = format!(
        "! {} verdict{} {} unstable (CV above {} % on {}): {}; repeat more or run longer",
        found.headline,
        plural(found.headline),
        if found.headline == 1 { "is" } else { "are" },
        percent(found.threshold),
        arms,
        listed.join(" ")
    );
    if found.other > 0 {
        line.push_str(&format!("; also {others}"));
    }
    Some(line)
}

/// Every point that has a summary, a comparison or a missing entry, ascending.
fn points(analysis: &Analysis) -> BTreeSet<usize> {
    analysis
        .summaries
        .iter()
        .map(|s| s.point)
        .chain(analysis.comparisons.iter().map(|c| c.point))
        .chain(analysis.missing.iter().map(|m| m.point))
        .collect()
}

/// Wraps `text` at word boundaries to `width`, indenting continuation
/// lines; a number and its `%` stay on one line ("37 %", "95 % CI").
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match words.last_mut() {
            Some(last) if word.starts_with('%') => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    let mut out = String::new();
    let mut line = String::new();
    for word in &words {
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

mod diffserv;
pub use diffserv::render_diffserv;
mod table;
pub use table::{render_table, Align, Fit};
mod media;
pub use media::render_media;
mod size_means;
pub use size_means::{render_size_means, render_sweep_regime};
mod budget;
pub use budget::render_budget;
mod stamp;
pub use stamp::render_stamp;
mod router_cpu;
pub use router_cpu::render_router_cpu;

#[cfg(test)]
mod tests;
