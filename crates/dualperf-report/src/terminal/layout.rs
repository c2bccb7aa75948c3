//! The width-aware comparison table of a point: which optional columns
//! fit ([`Layout`], widest first), one table for all arms or one per
//! compared arm, and the cells (an arm's mean ±CI, the difference with its
//! interval, the significance).

use std::collections::BTreeSet;

use dualperf_model::{ArmId, Comparison, MetricId, Summary};

use super::context::Context;
use super::render_table;
use crate::present::value::{compact_relative, format_value, percent, signed_difference};
use crate::present::verdict::{claims_significance, has_no_spread, MIN_PAIRS_FOR_SIGNIFICANCE};

/// Which optional parts of the table are shown; the widest layout that fits
/// the terminal wins.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
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

impl Context<'_> {
    /// The table rows of one point for the baseline and `compared` arms in
    /// one layout, header first.
    pub(super) fn table_rows(
        &self,
        point: usize,
        compared: &[&ArmId],
        layout: Layout,
    ) -> Vec<Vec<String>> {
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
    pub(super) fn fitting_layout(&self, point: usize, one: Option<&ArmId>, width: usize) -> usize {
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
    pub(super) fn fits_together(&self, point: usize, width: usize) -> bool {
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
    pub(super) fn run_layout(&self, points: &BTreeSet<usize>, width: usize) -> Layout {
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
    pub(super) fn table(&self, point: usize, layout: Layout, width: usize) -> String {
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
}

/// "9.41 Gbit/s ±1.3%": the mean and the CI half-width relative to it;
/// "0.08 % [0 %, 0.21 %]" when the interval reaches past the quantity's
/// range ([`crate::present::bounds`]).
pub(super) fn arm_cell(summary: Option<&Summary>, metric: MetricId, with_ci: bool) -> String {
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
pub(super) fn difference_cell(c: &Comparison) -> String {
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
pub(super) fn significance_cell(c: &Comparison) -> String {
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

/// Aligned columns: the first left-aligned, the others right-aligned,
/// two spaces apart; the header (`rows[0]`) is underlined ([`render_table`]).
pub(super) fn columns(rows: &[Vec<String>]) -> String {
    render_table(rows, &[], None)
}
