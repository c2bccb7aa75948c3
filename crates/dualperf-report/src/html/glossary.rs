//! Definitions: every metric the run reports (from the analysis, with its
//! unit and source) and the statistical terms of the tables. Table cells link
//! here (`#def-<metric>`), so every number's definition is a hover or a click away.

use std::collections::BTreeMap;

use dualperf_model::RunResult;

use super::escape;

/// The terms every report uses, with their definitions.
const TERMS: [(&str, &str); 6] = [
    ("Mean ± CI", "Arithmetic mean over the repetitions of one family, ± half the width of its Student-t 95 % confidence interval (R − 1 degrees of freedom)."),
    ("Δ v6 − v4", "The mean of the per-repetition paired differences IPv6 − IPv4 (repetitions are interleaved v4, v6, v4, v6 … so drift hits both alike), relative to the IPv4 mean."),
    ("Significant", "The 95 % confidence interval of the paired difference excludes zero."),
    ("Header model", "Expected (v6 − v4) / v4 from header sizes alone: Ethernet 14 B + on-wire 24 B, IPv4 20 B / IPv6 40 B, TCP 20 B + 12 B timestamps / UDP 8 B, IPv6 fragment header 8 B (docs/metrics.md)."),
    ("CV", "Coefficient of variation, standard deviation / |mean|. Above 10 % a comparison is flagged unstable (seed 004's criterion)."),
    ("Goodput", "Application payload delivered at the receiver per second of the measured interval (warm-up excluded)."),
];

/// The definitions section.
pub(crate) fn section(run: &RunResult) -> String {
    let mut metrics = BTreeMap::new();
    for summary in run.analysis.iter().flat_map(|a| &a.summaries) {
        metrics
            .entry(summary.metric.name.clone())
            .or_insert_with(|| summary.metric.clone());
    }
    let mut html =
        String::from("<section id=\"definitions\"><h2>Definitions</h2><dl class=\"glossary\">\n");
    for metric in metrics.values() {
        html.push_str(&format!(
            "<dt id=\"def-{name}\"><code>{name}</code></dt><dd>{definition} Unit: {unit}; {direction} is better.</dd>\n",
            name = escape(&metric.name),
            definition = escape(&metric.definition),
            unit = escape(&metric.unit),
            direction = if metric.higher_is_better { "higher" } else { "lower" },
        ));
    }
    for (term, definition) in TERMS {
        html.push_str(&format!(
            "<dt>{}</dt><dd>{}</dd>\n",
            escape(term),
            escape(definition)
        ));
    }
    html.push_str("</dl></section>\n");
    html
}
