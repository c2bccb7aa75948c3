//! The report's means-over-sizes section (the Gigabit UDP study's Tables 2
//! and 3): for a udp-stream sweep whose trials end at a send budget (the
//! shape of `dualperf lab gigabit`), one row per arm with each metric
//! averaged over the sizes, and each arm's difference from the baseline.

use dualperf_model::TestKind;
use maud::{html, Markup};

use crate::present::size_means::{size_means, STUDY_METRICS};
use crate::view::RunView;

/// The section, empty unless the run sweeps two or more budgeted
/// udp-stream sizes: a maud template, so labels and values are escaped by
/// the template.
pub(crate) fn section(view: &RunView<'_>) -> Markup {
    let run = view.run;
    let Some(analysis) = run.analysis.as_ref() else {
        return html! {};
    };
    let budgeted = run
        .config
        .points
        .iter()
        .any(|p| p.kind == TestKind::UdpStream && p.send_budget.is_some());
    if !budgeted {
        return html! {};
    }
    let Some(means) = size_means(run, analysis, TestKind::UdpStream, &STUDY_METRICS) else {
        return html! {};
    };
    let sizes: Vec<String> = means.sizes.iter().map(u32::to_string).collect();
    let lines = means.lines(&run.config.baseline);
    html! {
        section id="size-means" {
            h2 { "Means over sizes" }
            p class="note" {
                "udp-stream at " (sizes.join(", ")) " B: each metric is the mean over the sizes \
                 of each size's mean over its repetitions (every size weighs the same, as the \
                 Gigabit UDP study's Tables 2 and 3). The last rows are differences of those \
                 means; each size's own comparison, with its confidence interval, is in the \
                 verdicts."
            }
            table class="size-means" {
                thead {
                    tr {
                        th { "arm" }
                        @for metric in &means.metrics { th class="num" { (metric.label()) } }
                    }
                }
                tbody {
                    @for line in &lines {
                        tr {
                            td { (line.label) }
                            @for cell in &line.cells {
                                td class="num" { (cell.as_deref().unwrap_or("–")) }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::SendBudget;

    fn run(budget: Option<SendBudget>) -> dualperf_model::RunResult {
        crate::present::size_means::sweep_run(
            &[128, 1408],
            &[("v4", &[100e6, 700e6]), ("v6", &[90e6, 690e6])],
            budget,
        )
    }

    #[test]
    fn a_budgeted_sweep_gets_the_table_and_a_timed_one_nothing() {
        let budgeted = run(Some(SendBudget::Packets(1000)));
        let html = section(&RunView::new(&budgeted)).into_string();
        assert!(html.contains("<h2>Means over sizes</h2>"), "{html}");
        assert!(html.contains("128, 1408 B"), "{html}");
        assert!(
            html.contains("400 Mbit/s") && html.contains("390 Mbit/s"),
            "{html}"
        );
        assert!(
            html.contains("IPv6 − IPv4") && html.contains("−2.5 %"),
            "{html}"
        );
        assert!(section(&RunView::new(&run(None))).0.is_empty());
    }
}
