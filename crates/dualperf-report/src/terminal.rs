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

use dualperf_model::{Analysis, ArmId, Comparison, MetricId, RunResult, Summary, TestSpec};

use crate::present::clocks::{clock_words, is_one_way_delay, point_clock_basis, ClockBasis};
use crate::present::value::{compact_relative, format_value, percent, signed_difference};
use crate::present::verdict::{claims_significance, has_no_spread, MIN_PAIRS_FOR_SIGNIFICANCE};
use crate::present::{significance_note, verdict, warning, why_clause, ArmNames};

mod answer;
mod cpu_cost;
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
/// (issue 15): how many comparisons at how many points had an arm whose
/// coefficient of variation exceeded the threshold, and which arms; `None`
/// when none did.
pub fn render_instability(result: &RunResult, analysis: &Analysis) -> Option<String> {
    let names = ArmNames::new(&result.config);
    let mut comparisons = 0;
    let mut points = BTreeSet::new();
    let mut arms: Vec<&str> = Vec::new();
    let mut threshold = None;
    for c in &analysis.comparisons {
        let mut unstable = false;
        for w in &c.warnings {
            if let dualperf_model::ComparisonWarning::Unstable {
                arm, threshold: t, ..
            } = w
            {
                unstable = true;
                threshold = Some(*t);
                let label = names.label(arm);
                if !arms.contains(&label) {
                    arms.push(label);
                }
            }
        }
        if unstable {
            comparisons += 1;
            points.insert(c.point + 1);
        }
    }
    let threshold = threshold?;
    let listed: Vec<String> = points.iter().map(|p| format!("[{p}]")).collect();
    Some(format!(
        "! {comparisons} comparison{} unstable at {} point{} (CV above {} % on {}): {}; repeat more or run longer",
        if comparisons == 1 { " is" } else { "s are" },
        points.len(),
        if points.len() == 1 { "" } else { "s" },
        percent(threshold),
        arms.join(", "),
        listed.join(" ")
    ))
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

/// What every part of the table needs.
struct Context<'a> {
    result: &'a RunResult,
    analysis: &'a Analysis,
    names: ArmNames,
}

/// Which optional parts of the table are shown; the widest layout that fits
/// the terminal wins.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// ±CI after each arm's mean.
    arm_ci: bool,
    /// The theory column.
    theory: bool,
    /// The "sig." column (the CI already tells it).
    significance: bool,
}

/// Layouts from the widest to the narrowest.
const LAYOUTS: [Layout; 4] = [
    Layout {
        arm_ci: true,
        theory: true,
        significance: true,
    },
    Layout {
        arm_ci: false,
        theory: true,
        significance: true,
    },
    Layout {
        arm_ci: false,
        theory: false,
        significance: true,
    },
    Layout {
        arm_ci: false,
        theory: false,
        significance: false,
    },
];

impl<'a> Context<'a> {
    fn new(result: &'a RunResult, analysis: &'a Analysis) -> Self {
        Context {
            result,
            analysis,
            names: ArmNames::new(&result.config),
        }
    }

    fn spec(&self, point: usize) -> Option<&'a TestSpec> {
        self.result.config.points.get(point).or_else(|| {
            self.result
                .trials
                .iter()
                .find(|t| t.point == point)
                .map(|t| &t.spec)
        })
    }

    fn point_label(&self, point: usize) -> String {
        self.spec(point)
            .map_or_else(|| format!("point {}", point + 1), TestSpec::label)
    }

    fn baseline(&self) -> &'a ArmId {
        &self.result.config.baseline
    }

    /// The arms shown at a point: the configuration's arms that have a
    /// summary or a missing entry there, plus any the analysis names that
    /// the configuration does not (an old result), baseline first.
    fn arms_at(&self, point: usize) -> Vec<&'a ArmId> {
        let mut arms: Vec<&ArmId> = Vec::new();
        let seen = self
            .analysis
            .summaries
            .iter()
            .filter(|s| s.point == point)
            .map(|s| &s.arm)
            .chain(
                self.analysis
                    .missing
                    .iter()
                    .filter(|m| m.point == point)
                    .map(|m| &m.arm),
            );
        for arm in seen {
            if !arms.contains(&arm) {
                arms.push(arm);
            }
        }
        let baseline = self.baseline();
        arms.sort_by_key(|arm| (*arm != baseline, self.names.index(arm)));
        arms
    }

    /// The compared arms at a point (every shown arm but the baseline).
    fn compared_at(&self, point: usize) -> Vec<&'a ArmId> {
        let baseline = self.baseline();
        self.arms_at(point)
            .into_iter()
            .filter(|arm| *arm != baseline)
            .collect()
    }

    fn summary(&self, point: usize, metric: MetricId, arm: &ArmId) -> Option<&'a Summary> {
        self.analysis
            .summaries
            .iter()
            .find(|s| s.point == point && s.metric == metric && &s.arm == arm)
            .map(|s| &s.summary)
    }

    fn comparison(&self, point: usize, metric: MetricId, arm: &ArmId) -> Option<&'a Comparison> {
        self.analysis
            .comparisons
            .iter()
            .find(|c| c.point == point && c.metric == metric && &c.arm == arm)
    }

    /// The headline comparison of `arm` at `point` (the one metric of the
    /// point's kind, [`MetricId::headline`]).
    fn headline(&self, point: usize, arm: &ArmId) -> Option<&'a Comparison> {
        self.comparison(point, MetricId::headline_of(self.spec(point)?), arm)
    }

    /// The verdict sentence of a comparison, with its "why" when there is
    /// one, and for a one-way delay what its clocks are unless they are one
    /// kernel's (exact).
    fn sentence(&self, comparison: &Comparison) -> String {
        let arm = self.names.label(&comparison.arm);
        let mut line = verdict(comparison, arm, self.names.label(&comparison.baseline));
        if let Some(why) = why_clause(self.analysis, comparison, arm) {
            line.push_str("; ");
            line.push_str(&why);
        }
        if is_one_way_delay(comparison.metric) {
            match self.clock_basis(comparison.point) {
                Some(ClockBasis::OneKernel) | None => {}
                Some(basis) => {
                    line.push_str(" (");
                    line.push_str(&clock_words(basis));
                    line.push(')');
                }
            }
        }
        line
    }

    /// What the one-way delays at `point` rest on.
    fn clock_basis(&self, point: usize) -> Option<ClockBasis> {
        point_clock_basis(self.result.trials.iter().filter(|t| t.point == point))
    }

    fn verdict_lines(&self, point: usize) -> Vec<String> {
        let label = self.point_label(point);
        let baseline = self.names.label(self.baseline());
        let mut compared = self.compared_at(point);
        if compared.is_empty() {
            // Nothing but the baseline (or nothing) at this point: say so once.
            compared = self.result.config.compared_arms().map(|a| &a.id).collect();
        }
        let mut lines = Vec::new();
        for arm in compared {
            let line = match self.headline(point, arm) {
                Some(c) => format!(
                    "[{}] {label}, {}: {}",
                    point + 1,
                    c.metric.label(),
                    self.sentence(c)
                ),
                None => format!(
                    "[{}] {label}: no {baseline}/{} comparison ({})",
                    point + 1,
                    self.names.label(arm),
                    self.why_missing(point, arm)
                ),
            };
            lines.push(line);
        }
        lines
    }

    /// Why a point has no headline comparison for `arm`: the missing entry
    /// of its headline metric (either arm), else any missing entry.
    fn why_missing(&self, point: usize, arm: &ArmId) -> String {
        let headline = self.spec(point).map(MetricId::headline_of);
        let at_point = || {
            self.analysis
                .missing
                .iter()
                .filter(move |m| m.point == point)
        };
        let relevant =
            |m: &&dualperf_model::MissingMetric| &m.arm == arm || &m.arm == self.baseline();
        at_point()
            .filter(relevant)
            .find(|m| Some(m.metric) == headline)
            .or_else(|| at_point().find(relevant))
            .map(|m| {
                format!(
                    "{} on {}: {}",
                    m.metric.label(),
                    self.names.label(&m.arm),
                    strip_arm(&m.reason, self.names.label(&m.arm))
                )
            })
            .unwrap_or_else(|| "only one arm was measured".to_string())
    }

    /// Every metric with a summary at `point`, in table order.
    fn metrics_at(&self, point: usize) -> Vec<MetricId> {
        let metrics: BTreeSet<(usize, MetricId)> = self
            .analysis
            .summaries
            .iter()
            .filter(|s| s.point == point)
            .map(|s| (s.metric.order(), s.metric))
            .collect();
        metrics.into_iter().map(|(_, m)| m).collect()
    }

    /// The table rows of one point for the baseline and `compared` arms in
    /// one layout, header first.
    fn table_rows(&self, point: usize, compared: &[&ArmId], layout: Layout) -> Vec<Vec<String>> {
        let baseline = self.baseline();
        let baseline_label = self.names.label(baseline);
        let arm_header = |arm: &ArmId| {
            let label = self.names.label(arm);
            if layout.arm_ci {
                format!("{label} mean ±CI")
            } else {
                label.to_string()
            }
        };
        let mut header = vec!["metric".to_string(), arm_header(baseline)];
        for arm in compared {
            header.push(arm_header(arm));
            // The comparison's own baseline: a designed experiment compares
            // IPv6 under a load with IPv4 under it, not with IPv4 alone.
            let against = crate::present::baselines::baseline_of(self.analysis, point, arm)
                .map_or(baseline_label, |b| self.names.label(b));
            header.push(format!("Δ vs {against} [95 % CI]"));
            if layout.significance {
                header.push("sig.".to_string());
            }
            if layout.theory {
                header.push("theory".to_string());
            }
        }
        let mut rows = vec![header];
        for metric in self.metrics_at(point) {
            let mut row = vec![
                metric.label().to_string(),
                arm_cell(self.summary(point, metric, baseline), metric, layout.arm_ci),
            ];
            for arm in compared {
                let comparison = self.comparison(point, metric, arm);
                row.push(arm_cell(
                    self.summary(point, metric, arm),
                    metric,
                    layout.arm_ci,
                ));
                row.push(comparison.map_or_else(String::new, difference_cell));
                if layout.significance {
                    row.push(comparison.map_or_else(String::new, significance_cell));
                }
                if layout.theory {
                    row.push(
                        comparison
                            .and_then(|c| c.theoretical_relative_difference)
                            .map_or_else(String::new, |t| compact_relative(t, None)),
                    );
                }
            }
            rows.push(row);
        }
        rows
    }

    /// The index in [`LAYOUTS`] of the widest layout in which the table of
    /// `point` (all arms together, or one compared arm when `one` is set)
    /// fits `width`; the narrowest when none fits.
    fn fitting_layout(&self, point: usize, one: Option<&ArmId>, width: usize) -> usize {
        let compared = match one {
            Some(arm) => vec![arm],
            None => self.compared_at(point),
        };
        LAYOUTS
            .iter()
            .position(|&layout| {
                columns(&self.table_rows(point, &compared, layout))
                    .lines()
                    .all(|l| l.chars().count() <= width)
            })
            .unwrap_or(LAYOUTS.len() - 1)
    }

    /// True when all arms of `point` fit one table in `width` columns.
    fn fits_together(&self, point: usize, width: usize) -> bool {
        let compared = self.compared_at(point);
        compared.len() <= 1 || {
            let narrowest = LAYOUTS[LAYOUTS.len() - 1];
            columns(&self.table_rows(point, &compared, narrowest))
                .lines()
                .all(|l| l.chars().count() <= width)
        }
    }

    /// The layout every table of the run uses: the widest in which every
    /// point's table fits, so that all tables read alike.
    fn run_layout(&self, points: &BTreeSet<usize>, width: usize) -> Layout {
        let index = points
            .iter()
            .filter(|&&point| self.analysis.summaries.iter().any(|s| s.point == point))
            .map(|&point| {
                if self.fits_together(point, width) {
                    self.fitting_layout(point, None, width)
                } else {
                    self.compared_at(point)
                        .into_iter()
                        .map(|arm| self.fitting_layout(point, Some(arm), width))
                        .max()
                        .unwrap_or(0)
                }
            })
            .max()
            .unwrap_or(0);
        LAYOUTS[index]
    }

    /// The table of a point in `layout`: all arms in one table when they
    /// fit the width, else one table per compared arm.
    fn table(&self, point: usize, layout: Layout, width: usize) -> String {
        let compared = self.compared_at(point);
        if self.fits_together(point, width) {
            return columns(&self.table_rows(point, &compared, layout));
        }
        let mut out = String::new();
        for arm in compared {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&columns(&self.table_rows(point, &[arm], layout)));
        }
        out
    }

    fn render_point(&self, point: usize, layout: Layout, width: usize) -> String {
        // The repetitions this point ran (with `--repeat auto` points differ).
        let repetitions = self
            .result
            .config
            .arms
            .iter()
            .map(|arm| {
                self.result
                    .trials
                    .iter()
                    .filter(|t| t.point == point && t.arm == arm.id)
                    .count() as u32
            })
            .max()
            .filter(|&count| count > 0)
            .unwrap_or(self.result.config.repeat);
        let order = match self.result.config.order {
            dualperf_model::RepetitionOrder::Interleaved => "interleaved",
            dualperf_model::RepetitionOrder::Blocked => "blocked",
        };
        let mut out = format!(
            "[{}] {} — {repetitions} repetition{} per arm, {order}\n",
            point + 1,
            self.point_label(point),
            if repetitions == 1 { "" } else { "s" }
        );
        if self.analysis.summaries.iter().any(|s| s.point == point) {
            out.push_str(&self.table(point, layout, width));
        } else {
            out.push_str("  (no metric could be computed)\n");
        }
        for arm in self.compared_at(point) {
            if let Some(c) = self.headline(point, arm) {
                let line = format!("Verdict ({}): {}", c.metric.label(), self.sentence(c));
                out.push_str(&wrap(&line, width, "  "));
            }
        }
        let warnings: Vec<(String, String)> = self
            .analysis
            .comparisons
            .iter()
            .filter(|c| c.point == point)
            .flat_map(|c| {
                c.warnings
                    .iter()
                    .map(move |w| (c.metric.label().to_string(), warning(w, c, &self.names)))
            })
            .collect();
        let one_way = self.metrics_at(point).into_iter().any(is_one_way_delay);
        if let Some(basis) = self.clock_basis(point).filter(|_| one_way) {
            out.push_str(&wrap(
                &format!("- one-way delay: {}", clock_words(basis)),
                width,
                "  ",
            ));
        }
        let compared_metrics: BTreeSet<&str> = self
            .analysis
            .comparisons
            .iter()
            .filter(|c| c.point == point)
            .map(|c| c.metric.label())
            .collect();
        for (text, metrics) in grouped(&warnings) {
            // A warning about trials (contended, off rate) holds for every
            // metric of the point: say so instead of listing them all.
            let which = if metrics.len() > 2 && metrics.len() == compared_metrics.len() {
                "every metric".to_string()
            } else {
                metrics.join(", ")
            };
            out.push_str(&wrap(&format!("! {text} ({which})"), width, "  "));
        }
        // The same reason on several arms becomes one line naming them all.
        let mut missing: Vec<(String, String, Vec<&str>)> = Vec::new();
        for entry in self.analysis.missing.iter().filter(|m| m.point == point) {
            let arm = self.names.label(&entry.arm);
            let text = strip_arm(&entry.reason, arm).to_string();
            let metric = entry.metric.label().to_string();
            match missing
                .iter_mut()
                .find(|(m, t, _)| *m == metric && *t == text)
            {
                Some((_, _, arms)) => {
                    if !arms.contains(&arm) {
                        arms.push(arm);
                    }
                }
                None => missing.push((metric, text, vec![arm])),
            }
        }
        let notes: Vec<(String, String)> = missing
            .into_iter()
            .map(|(metric, text, arms)| (metric, format!("{text} ({})", arms.join(", "))))
            .collect();
        for (reason, metrics) in grouped(&notes) {
            let line = format!("- not computed: {} — {reason}", metrics.join(", "));
            out.push_str(&wrap(&line, width, "  "));
        }
        out
    }
}

/// `reason` without a leading "<arm label>: " (older stats stages wrote one).
fn strip_arm<'r>(reason: &'r str, arm: &str) -> &'r str {
    reason
        .strip_prefix(arm)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(reason)
}

/// "9.41 Gbit/s ±1.3%": the mean and the CI half-width relative to it;
/// "0.08 % [0 %, 0.21 %]" when the interval reaches past the quantity's
/// range ([`crate::present::bounds`]).
fn arm_cell(summary: Option<&Summary>, metric: MetricId, with_ci: bool) -> String {
    let Some(s) = summary else {
        return "—".to_string();
    };
    let mean = format_value(metric, s.mean);
    if !with_ci {
        return mean;
    }
    match (s.ci95_low, s.ci95_high) {
        (Some(low), Some(high)) if crate::present::bounds::clamp(metric, (low, high)).1 => {
            // The interval crosses the quantity's range (loss below 0 %):
            // its ends inside the range, never a symmetric ±.
            let ((low, high), _) = crate::present::bounds::clamp(metric, (low, high));
            format!(
                "{mean} [{}, {}]",
                format_value(metric, low),
                format_value(metric, high)
            )
        }
        (Some(low), Some(high)) => {
            let half = (high - low) / 2.0;
            if half == 0.0 || (s.mean != 0.0 && half / s.mean.abs() < 0.000_05) {
                format!("{mean} ±0")
            } else if s.mean != 0.0 {
                format!("{mean} ±{}%", percent(half / s.mean.abs()))
            } else {
                format!("{mean} ±{}", format_value(metric, half))
            }
        }
        _ => format!("{mean} (n={})", s.count),
    }
}

/// "−4.1 % [−6.9, −1.4]"; "+67 % [no spread]" when every pair differed
/// alike; the absolute difference when the baseline is 0 (percentage
/// points for ratios).
fn difference_cell(c: &Comparison) -> String {
    match c.relative_difference {
        Some(relative) if has_no_spread(c) => {
            if relative == 0.0 {
                "0 %".to_string()
            } else {
                format!("{} [no spread]", compact_relative(relative, None))
            }
        }
        Some(relative) => compact_relative(relative, c.relative_difference_ci95),
        None => signed_difference(c.metric, c.difference_mean),
    }
}

/// "yes"/"no"; "–" without an interval (too few pairs or no spread);
/// "n<3" for an interval on fewer pairs than a significance claim needs.
fn significance_cell(c: &Comparison) -> String {
    if c.difference_ci95.is_none() || has_no_spread(c) {
        "–".to_string()
    } else if c.pairs < MIN_PAIRS_FOR_SIGNIFICANCE {
        format!("n<{MIN_PAIRS_FOR_SIGNIFICANCE}")
    } else if claims_significance(c) {
        "yes".to_string()
    } else {
        "no".to_string()
    }
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

/// Aligned columns: the first left-aligned, the others right-aligned,
/// two spaces apart; the header (`rows[0]`) is underlined ([`render_table`]).
fn columns(rows: &[Vec<String>]) -> String {
    render_table(rows, &[], None)
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
