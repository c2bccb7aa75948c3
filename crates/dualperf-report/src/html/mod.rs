//! The single-file HTML report: the answer in words first, then the verdict
//! table, the figures (inline SVG from `plotters`), every comparison, the
//! configuration and host facts, and the definitions of every number.

mod compare;
mod diffserv;
mod facts;
mod glossary;
mod media;
mod page;
mod router_cpu;
mod size_means;
mod verdicts;

use dualperf_model::RunResult;
use maud::{html, Markup, PreEscaped};

use crate::charts::style::{self, Marker};
use crate::charts::{self, Figure, Section};
use crate::error::ReportError;
use crate::summary_sentences::headline_sentences;
use crate::view::RunView;

pub(crate) use compare::render_comparison;

/// A run's date for people, UTC, from milliseconds since the Unix epoch
/// (the model's one calendar function, `dualperf_model::UtcDateTime`).
pub(crate) fn date(unix_ms: u64) -> String {
    let t = dualperf_model::UtcDateTime::from_unix_ms(unix_ms);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        t.year, t.month, t.day, t.hour, t.minute
    )
}

/// Where a run measured, in a few words.
pub(crate) fn location(run: &RunResult) -> Markup {
    match (&run.testbed, &run.config.host) {
        (Some(testbed), _) => html! {
            "testbed " b { (testbed.name) } " on " (run.client_host.hostname)
            @if let Some(rate) = &testbed.link_rate {
                "; " (crate::present::regime::link_rate_words(rate))
            }
        },
        (None, Some(host)) => html! { (run.client_host.hostname) " → " (host) },
        (None, None) => html! { (run.client_host.hostname) },
    }
}

/// A figure: its heading, its chart and its caption, with the chart's
/// facts as `data-*` attributes.
fn figure_html(figure: &Figure) -> Markup {
    let facts = &figure.facts;
    html! {
        figure id=(figure.id)
            data-series=(facts.series)
            data-series-points=[facts.series_points]
            data-x-max-us=[&facts.x_max_us]
            data-p50-us=[&facts.p50_us]
            data-largest-us=[&facts.largest_us]
            data-x-log=[facts.x_log]
        {
            h3 { (figure.title) }
            // Already-rendered SVG: plotters escapes the text it draws.
            (PreEscaped(&figure.svg))
            figcaption { (figure.caption) }
        }
    }
}

/// A section of the figures of one [`Section`], empty without any.
fn figure_section(
    figures: &[(Section, Figure)],
    section: Section,
    id: &str,
    heading: &str,
    intro: &str,
    small: bool,
) -> Markup {
    let chosen: Vec<&Figure> = figures
        .iter()
        .filter(|(s, _)| *s == section)
        .map(|(_, f)| f)
        .collect();
    if chosen.is_empty() {
        return html! {};
    }
    html! {
        section id=(id) {
            h2 { (heading) }
            p class="note" { (intro) }
            div class=(if small { "figures small" } else { "figures" }) {
                @for figure in chosen { (figure_html(figure)) }
            }
        }
    }
}

/// "IPv4 solid ●, IPv6 dashed ▲": each arm in its chart colour, line and marker.
fn arm_legend(view: &RunView<'_>) -> Markup {
    html! {
        @for (index, arm) in view.arms().iter().enumerate() {
            @let (_, dashed, marker) = style::arm(index);
            @let symbol = match marker {
                Marker::Circle => "●",
                Marker::Triangle => "▲",
                Marker::Cross => "✕",
                Marker::None => "",
            };
            @if index > 0 { ", " }
            span class="arm" style={ "color:" (style::arm_css(index)) } {
                (arm.label) " " (if dashed { "dashed" } else { "solid" }) " " (symbol)
            }
        }
    }
}

/// The wire checks (`--verify-wire`), one line per trial; empty without any.
fn wire_section(run: &RunResult) -> Markup {
    let lines = crate::present::wire::wire_lines(run);
    if lines.is_empty() {
        return html! {};
    }
    html! {
        section id="wire" {
            h2 { "Wire check" }
            p class="note" {
                "A packet capture (--verify-wire) against what the engine reported: udp-stream \
                 measured datagrams within 0.1 %, family, DSCP and flow label as asked \
                 (docs/metrics.md)."
            }
            ul {
                @for line in &lines { li { (line) } }
            }
        }
    }
}

/// One section of the page: its element id, its name in the nav, and
/// its HTML (empty when the run has nothing for it, and then not linked).
struct Part {
    id: &'static str,
    name: &'static str,
    html: Markup,
}

/// The router CPU section, rendered to a string by its own maud template
/// (escaped there).
fn rendered(html: String) -> Markup {
    PreEscaped(html)
}

/// The nav: a link to every section that was rendered, in page order.
fn nav(parts: &[Part]) -> Markup {
    html! {
        nav class="toc" {
            @for part in parts.iter().filter(|p| !p.html.0.is_empty()) {
                a href={ "#" (part.id) } { (part.name) }
            }
        }
    }
}

/// The header line's arms: every label for a few, else a count.
fn arms_phrase(labels: &[&str]) -> String {
    if labels.len() > 4 {
        format!("{} arms", labels.len())
    } else {
        labels.join(" + ")
    }
}

/// The first screen's answer (at most
/// [`crate::summary_sentences::MAX_SENTENCES`] sentences) and the arms' key.
fn answer(view: &RunView<'_>) -> Markup {
    let run = view.run;
    let difference = match run
        .analysis
        .as_ref()
        .and_then(crate::present::baselines::shared_baseline)
    {
        Some(_) => format!(
            "arm − {baseline} relative to {baseline}",
            baseline = view.baseline_label()
        ),
        None => "arm − baseline relative to the baseline each comparison names".to_string(),
    };
    html! {
        section id="answer" class="answer" {
            h2 { "The answer" }
            ul {
                @for sentence in headline_sentences(view) { li { (sentence) } }
            }
            p class="legend-line" {
                "Throughout: "
                @if view.arms().len() > charts::MAX_SERIES {
                    (view.arms().len()) " arms, listed under Configuration; each chart's legend names its own"
                } @else {
                    (arm_legend(view))
                }
                "; differences are " (difference)
                ", paired by repetition; 95 % confidence intervals; hover a column heading or \
                 number for its definition."
            }
        }
    }
}

/// The page's title line: arms compared, run id, where, when, what.
fn header(run: &RunResult) -> Markup {
    let arms: Vec<&str> = run.config.arms.iter().map(|a| a.label.as_str()).collect();
    let title = crate::present::arms::title(&run.config);
    html! {
        header class="report" {
            h1 { (title) " — run " code { (run.run_id) } }
            p {
                (location(run)) " · " (date(run.started_at_unix_ms)) " · dualperf "
                (run.client_host.tool_version) " · " (run.config.points.len()) " points × "
                (arms_phrase(&arms)) " × " (run.config.repeat) " repetitions"
                @if !run.complete { " · " b { "incomplete" } }
            }
        }
    }
}

/// Renders one run as a self-contained HTML page.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw.
pub(crate) fn render(run: &RunResult) -> Result<String, ReportError> {
    let view = RunView::new(run);
    let figures = charts::figures(&view)?;
    let section = |s: Section, id: &'static str, heading: &str, intro: &str, small: bool| {
        figure_section(&figures, s, id, heading, intro, small)
    };
    let parts = vec![
        Part { id: "answer", name: "Answer", html: answer(&view) },
        Part { id: "diffserv", name: "DiffServ", html: diffserv::section(run)? },
        Part { id: "verdicts", name: "Verdicts", html: verdicts::key_table(&view) },
        Part { id: "media", name: "Media", html: media::section(&view)? },
        Part { id: "size-means", name: "Means over sizes", html: size_means::section(&view) },
        Part {
            id: "throughput",
            name: "Throughput",
            html: section(
                Section::Throughput,
                "throughput",
                "Throughput and loss",
                "Goodput at the receiver for every message size; UDP loss where UDP was measured.",
                false,
            ),
        },
        Part {
            id: "latency",
            name: "Latency",
            html: section(
                Section::Latency,
                "latency",
                "Round-trip time",
                "Request/response transactions: one message each way, timed one by one.",
                false,
            ),
        },
        Part {
            id: "overhead",
            name: "Overhead",
            html: section(
                Section::Overhead,
                "overhead",
                "How much of the gap the header explains",
                "The header-overhead model next to the measurement.",
                false,
            ),
        },
        Part {
            id: "cpu",
            name: "CPU",
            html: section(Section::Cpu, "cpu", "CPU and service demand", "What each arm costs the host.", false),
        },
        Part { id: "router-cpu", name: "Router CPU", html: rendered(router_cpu::section(run)) },
        Part {
            id: "distributions",
            name: "Distributions",
            html: section(
                Section::Distributions,
                "distributions",
                "Delay distributions",
                "Whole distributions, not just means: a tail that only one arm has shows here. Axes end at the 99.9th percentile.",
                true,
            ),
        },
        Part {
            id: "time-series",
            name: "Time series",
            html: section(
                Section::TimeSeries,
                "time-series",
                "Time series",
                "Goodput per sampling interval and per-packet delay, one line per arm: stability within a trial.",
                view.arms().len() > charts::MAX_SERIES,
            ),
        },
        Part { id: "comparisons", name: "All comparisons", html: verdicts::full_table(&view) },
        Part { id: "wire", name: "Wire check", html: wire_section(run) },
        Part { id: "facts", name: "Configuration and hosts", html: facts::section(run) },
        Part { id: "definitions", name: "Definitions", html: glossary::section(run) },
    ];
    let body = html! {
        main {
            (header(run))
            (nav(&parts))
            @for part in &parts { (part.html) }
            footer {
                "Generated by dualperf " (env!("CARGO_PKG_VERSION")) " from run " code { (run.run_id) }
                ". Charts drawn with plotters; this file needs no network access."
            }
        }
    };
    Ok(page::document(
        &format!("dualperf report {}", run.run_id),
        &body.into_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(date(0), "1970-01-01 00:00 UTC");
        assert_eq!(date(1_763_762_400_000), "2025-11-21 22:00 UTC");
    }
}
