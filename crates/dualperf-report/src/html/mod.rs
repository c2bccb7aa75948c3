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

use crate::charts::style::{self, Marker};
use crate::charts::{self, Figure, Section};
use crate::error::ReportError;
use crate::summary_sentences::headline_sentences;
use crate::view::RunView;

pub(crate) use crate::markup::escape;
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
pub(crate) fn location(run: &RunResult) -> String {
    match (&run.testbed, &run.config.host) {
        (Some(testbed), _) => format!(
            "testbed <b>{}</b> on {}{}",
            escape(&testbed.name),
            escape(&run.client_host.hostname),
            testbed
                .link_rate
                .as_ref()
                .map_or(String::new(), |rate| format!(
                    "; {}",
                    escape(&crate::present::regime::link_rate_words(rate))
                ))
        ),
        (None, Some(host)) => format!("{} → {}", escape(&run.client_host.hostname), escape(host)),
        (None, None) => escape(&run.client_host.hostname),
    }
}

fn figure_html(figure: &Figure) -> String {
    let data: String = figure
        .data
        .iter()
        .map(|(name, value)| format!(" data-{name}=\"{}\"", escape(value)))
        .collect();
    format!(
        "<figure id=\"{id}\"{data}><h3>{title}</h3>\n{svg}<figcaption>{caption}</figcaption></figure>\n",
        id = escape(&figure.id),
        title = escape(&figure.title),
        svg = figure.svg,
        caption = figure.caption,
    )
}

fn figure_section(
    figures: &[(Section, Figure)],
    section: Section,
    id: &str,
    heading: &str,
    intro: &str,
    small: bool,
) -> String {
    let chosen: Vec<&Figure> = figures
        .iter()
        .filter(|(s, _)| *s == section)
        .map(|(_, f)| f)
        .collect();
    if chosen.is_empty() {
        return String::new();
    }
    let class = if small { "figures small" } else { "figures" };
    let mut html = format!("<section id=\"{id}\"><h2>{heading}</h2>\n<p class=\"note\">{intro}</p>\n<div class=\"{class}\">\n");
    for figure in chosen {
        html.push_str(&figure_html(figure));
    }
    html.push_str("</div></section>\n");
    html
}

/// "IPv4 solid ●, IPv6 dashed ▲": each arm in its chart colour, line and marker.
fn arm_legend(view: &RunView<'_>) -> String {
    view.arms()
        .iter()
        .enumerate()
        .map(|(index, arm)| {
            let (_, dashed, marker) = style::arm(index);
            let symbol = match marker {
                Marker::Circle => "●",
                Marker::Triangle => "▲",
                Marker::Cross => "✕",
                Marker::None => "",
            };
            format!(
                "<span class=\"arm\" style=\"color:{}\">{} {} {symbol}</span>",
                style::arm_css(index),
                escape(&arm.label),
                if dashed { "dashed" } else { "solid" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The wire checks (`--verify-wire`), one line per trial; empty without any.
fn wire_section(run: &RunResult) -> String {
    let lines = crate::present::wire::wire_lines(run);
    if lines.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<section id=\"wire\"><h2>Wire check</h2>\n<p class=\"note\">A packet capture \
         (--verify-wire) against what the engine reported: udp-stream measured datagrams \
         within 0.1 %, family, DSCP and flow label as asked (docs/metrics.md).</p>\n<ul>\n",
    );
    for line in lines {
        html.push_str(&format!("<li>{}</li>\n", escape(&line)));
    }
    html.push_str("</ul></section>\n");
    html
}

/// One section of the page: its element id, its name in the nav, and
/// its HTML (empty when the run has nothing for it, and then not linked).
struct Part {
    id: &'static str,
    name: &'static str,
    html: String,
}

/// The nav: a link to every section that was rendered, in page order.
fn nav(parts: &[Part]) -> String {
    let links: String = parts
        .iter()
        .filter(|p| !p.html.is_empty())
        .map(|p| format!("<a href=\"#{}\">{}</a>", p.id, p.name))
        .collect();
    format!("<nav class=\"toc\">{links}</nav>\n")
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
fn answer(view: &RunView<'_>) -> String {
    let run = view.run;
    let mut html =
        String::from("<section id=\"answer\" class=\"answer\"><h2>The answer</h2><ul>\n");
    for sentence in headline_sentences(view) {
        html.push_str(&format!("<li>{}</li>\n", escape(&sentence)));
    }
    let legend = if view.arms().len() > charts::MAX_SERIES {
        format!(
            "{} arms, listed under Configuration; each chart's legend names its own",
            view.arms().len()
        )
    } else {
        arm_legend(view)
    };
    let difference = match run
        .analysis
        .as_ref()
        .and_then(crate::present::baselines::shared_baseline)
    {
        Some(_) => {
            let baseline = escape(view.baseline_label());
            format!("arm − {baseline} relative to {baseline}")
        }
        None => "arm − baseline relative to the baseline each comparison names".to_string(),
    };
    html.push_str(&format!(
        "</ul><p class=\"legend-line\">Throughout: {legend}; differences are {difference}, paired by repetition; 95 % confidence intervals; hover a column heading or number for its definition.</p></section>\n",
    ));
    html
}

/// Renders one run as a self-contained HTML page.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw.
pub(crate) fn render(run: &RunResult) -> Result<String, ReportError> {
    let view = RunView::new(run);
    let figures = charts::figures(&view)?;
    let arms: Vec<&str> = run.config.arms.iter().map(|a| a.label.as_str()).collect();
    let header = format!(
        "<header class=\"report\"><h1>{title} — run <code>{id}</code></h1>\n\
         <p>{location} · {date} · dualperf {version} · {points} points × {arms} × {repeat} repetitions{state}</p></header>\n",
        title = escape(&crate::present::arms::title(&run.config)),
        id = escape(&run.run_id),
        location = location(run),
        date = date(run.started_at_unix_ms),
        version = escape(&run.client_host.tool_version),
        points = run.config.points.len(),
        arms = escape(&arms_phrase(&arms)),
        repeat = run.config.repeat,
        state = if run.complete { String::new() } else { " · <b>incomplete</b>".to_string() },
    );
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
        Part { id: "router-cpu", name: "Router CPU", html: router_cpu::section(run) },
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
    let mut body = format!("<main>\n{header}{}", nav(&parts));
    for part in &parts {
        body.push_str(&part.html);
    }
    body.push_str(&format!(
        "<footer>Generated by dualperf {} from run <code>{}</code>. Charts drawn with plotters; this file needs no network access.</footer>\n</main>",
        env!("CARGO_PKG_VERSION"),
        escape(&run.run_id)
    ));
    Ok(page::document(
        &format!("dualperf report {}", run.run_id),
        &body,
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
