//! One point's block in the terminal: its heading (repetitions, order),
//! its table, the verdict of each compared arm, the clocks of one-way
//! delay, the warnings grouped by text and what could not be computed.

use std::collections::BTreeSet;

use super::context::{strip_arm, Context};
use super::layout::Layout;
use super::wrap;
use crate::present::clocks::{clock_words, is_one_way_delay};
use crate::present::warning;

impl Context<'_> {
    /// The block of `point`, its table in `layout`, lines wrapped to `width`.
    pub(super) fn render_point(&self, point: usize, layout: Layout, width: usize) -> String {
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
