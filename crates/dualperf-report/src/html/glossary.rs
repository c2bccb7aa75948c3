//! Definitions: every metric the run reports (from the analysis: its
//! label, definition, unit and machine name) and the statistical terms of the tables. Table cells link
//! here (`#def-<metric>`), so every number's definition is a hover or a click away.

use std::collections::BTreeSet;

use dualperf_model::{MetricId, RunResult};
use maud::{html, Markup};

/// The terms every report uses, with their definitions.
const TERMS: [(&str, &str); 9] = [
    ("Arm", "One thing measured: an address family, the path its packets take (native, a 6in4 tunnel, 4in6, NAT64), how they are marked (DSCP, flow label) and the load beside them. Every arm is compared with the baseline arm."),
    ("Mean ± CI", "Arithmetic mean over the repetitions of one arm, ± half the width of its Student-t 95 % confidence interval (R − 1 degrees of freedom)."),
    ("Δ arm − baseline", "The mean of the per-repetition paired differences arm − baseline (repetitions are interleaved across arms, so drift hits every arm alike), relative to the baseline mean."),
    ("Significant", "The 95 % confidence interval of the paired difference excludes zero, on at least 3 paired repetitions. With fewer pairs a difference is called indicative."),
    ("No spread", "Every paired repetition showed the same difference, so there is no confidence interval (an interval of width zero says nothing about chance): the verdict says the difference held in each repetition instead."),
    ("Header model", "Expected (arm − baseline) / baseline from header sizes alone: Ethernet 14 B + on-wire 24 B (paced UDP across a shaped lab path: frames as htb counts them, without the 24 B), IPv4 20 B / IPv6 40 B, TCP 20 B + 12 B timestamps / UDP 8 B, IPv6 fragment header 8 B, tunnel headers (docs/metrics.md)."),
    ("CPU per MiB", "Service demand, as netperf defines it: CPU time per MiB delivered. A throughput gap beyond the header model that comes with a significantly higher CPU cost per MiB is named beside the verdict."),
    ("CV", "Coefficient of variation, standard deviation / |mean|. Above 10 % a comparison is flagged unstable (the criterion of the UDP-over-Gigabit-Ethernet study: standard deviation under 10 %)."),
    ("Goodput", "Application payload delivered at the receiver per second of the measured interval (warm-up excluded)."),
];

/// The definitions section: a maud template, so every label and
/// definition is escaped by the template.
pub(crate) fn section(run: &RunResult) -> Markup {
    let metrics: BTreeSet<(usize, MetricId)> = run
        .analysis
        .iter()
        .flat_map(|a| &a.summaries)
        .map(|s| (s.metric.order(), s.metric))
        .collect();
    html! {
        section id="definitions" {
            h2 { "Definitions" }
            dl class="glossary" {
                @for (_, metric) in metrics {
                    dt id={ "def-" (metric.name()) } { (metric.label()) }
                    dd {
                        (metric.definition().trim_end_matches('.'))
                        ". Unit: " (metric.unit()) "; "
                        (if metric.higher_is_better() { "higher" } else { "lower" })
                        " is better. Column " code { (metric.name()) } " in CSV and JSON."
                    }
                }
                @for (term, definition) in TERMS {
                    dt { (term) }
                    dd { (definition) }
                }
            }
        }
    }
}
