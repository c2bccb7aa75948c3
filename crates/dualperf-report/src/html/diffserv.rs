//! The DiffServ section of the HTML report (`dualperf lab diffserv`): the
//! per-class table and verdicts IPv6 against IPv4, the done-when check, the
//! load-step table in the layout of the paper's Table 2, the conditioner
//! checks, and three figures like the paper's: router CPU against load per
//! family (Fig. 2), mean one-way delay per class against load (Fig. 3) and
//! delay variation per class against load (Fig. 4). Numbers and words come
//! from [`crate::present::diffserv`].

use dualperf_model::{IpFamily, MetricId, RunResult};
use maud::{html, Markup, PreEscaped};
use plotters::style::RGBColor;

use crate::charts::line::{render, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::style;
use crate::error::ReportError;
use crate::present::diffserv::{
    short_of_rate_note, Class, DiffServView, CLASS_LOADS, CLASS_METRICS, STEPS,
};

/// What the section's numbers are: the probe, the loads and the means.
const NOTE: &str = "EF is the measured probe (172 B every 2 ms, DSCP 46) from the premium \
client; BE and LBE are the same probe inside the competing load, beside BE UDP at a share \
of the core link and an LBE bulk TCP flow. Loads are shares of the core link's rate as \
htb counts it (frames: payload + UDP/IP + 14 B Ethernet). Values are means over \
repetitions.";

/// A figure of the section, drawn: its chart's SVG and how many points
/// its series hold, or `None` when the run has no data for it.
struct Drawn {
    id: String,
    title: String,
    caption: String,
    chart: Option<(usize, String)>,
}

/// The section, or an empty string for a run that is not a DiffServ
/// experiment: a maud template, so every label, value and sentence is
/// escaped by the template.
///
/// # Errors
/// [`ReportError::Chart`] when a figure fails to draw.
pub(crate) fn section(run: &RunResult) -> Result<Markup, ReportError> {
    let Some(view) = DiffServView::of(run) else {
        return Ok(html! {});
    };
    let mut drawn = Vec::new();
    for (id, title, caption, chart) in figures(&view) {
        let chart = if chart.is_empty() {
            None
        } else {
            let points: usize = chart.series.iter().map(|s| s.points.len()).sum();
            Some((points, render(&chart)?))
        };
        drawn.push(Drawn {
            id,
            title,
            caption,
            chart,
        });
    }
    let checks = view.checks();
    let html = html! {
        section id="diffserv" {
            h2 { "DiffServ: per class, IPv6 against IPv4" }
            p class="note" { (NOTE) }
            (class_table(&view))
            h3 { "Verdicts per class" }
            ul {
                @for line in view.verdicts() { li { (line) } }
            }
            h3 { "EF under 115 % BE load: what the experiment expects" }
            ul {
                @for line in view.done_when() { li { (line) } }
            }
            (label_table(&view))
            (step_table(&view))
            @if !checks.is_empty() {
                h3 { "Conditioner checks (edge router counters)" }
                ul {
                    @for line in &checks { li { (line) } }
                }
            }
            div class="figures" {
                @for figure in &drawn {
                    @match &figure.chart {
                        None => {
                            figure id=(figure.id) {
                                h3 { (figure.title) }
                                p class="note" { "no data for this figure in this run" }
                            }
                        }
                        Some((points, svg)) => {
                            figure id=(figure.id) data-series-points=(points) {
                                h3 { (figure.title) }
                                // The chart, already-rendered SVG (plotters escapes its text).
                                (PreEscaped(svg))
                                figcaption { (figure.caption) }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(html)
}

/// The seed's §4: the IPv6 arm classified by its flow label alone beside
/// the one marked DSCP EF, and the answer; empty without a flow-label arm.
fn label_table(view: &DiffServView) -> Markup {
    let rows = view.label_rows();
    if rows.is_empty() {
        return html! {};
    }
    html! {
        h3 id="diffserv-flow-label" { "Flow label as the class (the seed's §4)" }
        p class="note" {
            "The edge router classifies IPv6 packets by their flow label alone \
             (RFC 6437; no DSCP) into the EF class. The same probe, marked DSCP EF, is shown \
             beside it under the same BE load. Values are means over repetitions."
        }
        table class="diffserv-classes" {
            thead {
                tr {
                    th { "condition" }
                    th { "IPv6 marked" }
                    @for metric in CLASS_METRICS { th class="num" { (metric.label()) } }
                }
            }
            tbody {
                @for row in &rows {
                    tr {
                        td { (row.condition) }
                        td { (row.marking) }
                        @for cell in &row.cells { td class="num" { (cell) } }
                    }
                }
            }
        }
        ul {
            @for line in view.label_lines() { li { (line) } }
        }
    }
}

/// Per condition and class, the class metrics of IPv4 and of IPv6.
fn class_table(view: &DiffServView) -> Markup {
    html! {
        table class="diffserv-classes" {
            thead {
                tr {
                    th rowspan="2" { "condition" }
                    th rowspan="2" { "class" }
                    th colspan="5" { "IPv4" }
                    th colspan="5" { "IPv6" }
                }
                tr {
                    @for _ in 0..2 {
                        @for metric in CLASS_METRICS {
                            th class="num" title=(metric.definition()) { (metric.label()) }
                        }
                    }
                }
            }
            tbody {
                @for row in view.class_rows() {
                    tr {
                        td { (row.condition) }
                        td { (row.class) }
                        @for cell in row.cells.iter().flatten() { td class="num" { (cell) } }
                    }
                }
            }
        }
    }
}

/// A load-step table's head: size, then the steps of each family column
/// (IPv4, IPv6, mixed).
fn step_table_head() -> Markup {
    html! {
        thead {
            tr {
                th rowspan="2" { "size (B)" }
                th colspan="3" { "IPv4 (% of link)" }
                th colspan="3" { "IPv6 (% of link)" }
                th colspan="3" { "IPv4 and IPv6 (% of link)" }
            }
            tr {
                @for _ in 0..3 {
                    @for step in STEPS { th class="num" { (step) } }
                }
            }
        }
    }
}

/// The paper's Table 2 (BE loss per step, and the rate the sender
/// reached), then the EF probe beside each step; empty without steps.
fn step_table(view: &DiffServView) -> Markup {
    let (_, rows) = view.step_table();
    if rows.is_empty() {
        return html! {};
    }
    html! {
        h3 { "Load steps: BE UDP loss, % of datagrams (the paper's Table 2)" }
        table class="diffserv-steps" {
            (step_table_head())
            tbody {
                @for (size, cells) in &rows {
                    tr {
                        td { (size) }
                        @for cell in cells { td class="num" { (cell) } }
                    }
                    tr class="note" {
                        td { "sent" }
                        @for cell in view.step_achieved_row(*size) { td class="num" { (cell) } }
                    }
                }
            }
        }
        p class="note" {
            "sent: the BE sender's steady rate, % of the rate the step asks. "
            (short_of_rate_note())
        }
        h3 { "The EF probe beside each step: one-way delay p99 / loss" }
        table class="diffserv-steps" {
            (step_table_head())
            tbody {
                @for (size, cells) in view.step_ef_table() {
                    tr {
                        td { (size) }
                        @for cell in cells { td class="num" { (cell) } }
                    }
                }
            }
        }
    }
}

/// (id, title, caption, chart) of each figure.
fn figures(view: &DiffServView) -> Vec<(String, String, String, LineChart)> {
    let mut figures = Vec::new();
    if let Some(size) = view.cpu_size() {
        for node in view.routers() {
            let series = [
                ("IPv4", style::IPV4, false, Marker::Circle),
                ("IPv6", style::IPV6, true, Marker::Triangle),
                ("mixed", style::TCP, false, Marker::Cross),
            ]
            .into_iter()
            .enumerate()
            .map(|(column, (label, color, dashed, marker))| {
                let points = std::iter::once(0)
                    .chain(STEPS)
                    .filter_map(|percent| {
                        view.router_cpu(&node, column, percent, size)
                            .map(|cores| ChartPoint::new(f64::from(percent), cores * 100.0))
                    })
                    .collect();
                line(label, color, dashed, marker, points)
            })
            .collect();
            figures.push((
                format!("diffserv-router-cpu-{node}"),
                format!("Router CPU against load: {node} ({size} B datagrams)"),
                format!(
                    "{}; 0 % is the idle EF probe alone.",
                    view.steering().unwrap_or_default()
                ),
                chart(
                    &format!("router-cpu-{node}"),
                    "BE load (% of the core link)",
                    "router CPU (% of one CPU)",
                    series,
                ),
            ));
        }
    }
    figures.push((
        "diffserv-delay".into(),
        "Mean one-way delay per class against load".into(),
        "RFC 7679 one-way delay, mean over each trial's probes, mean over repetitions; 0 % is idle (EF only). LBE (in the table) is left out: its queue delay dwarfs the rest.".into(),
        chart(
            "diffserv-delay",
            "BE load (% of the core link)",
            "one-way delay, mean (ms)",
            class_series(view, MetricId::OwdMeanNs, 1e-6),
        ),
    ));
    figures.push((
        "diffserv-jitter".into(),
        "Delay variation per class against load".into(),
        "RFC 5481 PDV, 99th percentile of D(i) − D(min) per trial, mean over repetitions; 0 % is idle (EF only).".into(),
        chart(
            "diffserv-jitter",
            "BE load (% of the core link)",
            "PDV p99 (ms)",
            class_series(view, MetricId::PdvP99Ns, 1e-6),
        ),
    ));
    figures
}

/// EF and BE of both families against the class loads, `metric × scale`.
fn class_series(view: &DiffServView, metric: MetricId, scale: f64) -> Vec<Series> {
    let mut series = Vec::new();
    for class in [Class::Ef, Class::Be] {
        for family in IpFamily::ALL {
            let points = CLASS_LOADS
                .iter()
                .filter_map(|&load| {
                    view.class_summary(class, load, family, metric)
                        .map(|s| ChartPoint::new(f64::from(load), s.mean * scale))
                })
                .collect();
            let (color, marker): (RGBColor, Marker) = match family {
                IpFamily::V4 => (style::IPV4, Marker::Circle),
                IpFamily::V6 => (style::IPV6, Marker::Triangle),
            };
            series.push(line(
                &format!("{} {}", class.label(), family.label()),
                color,
                class == Class::Be,
                marker,
                points,
            ));
        }
    }
    series
}

fn line(
    label: &str,
    color: RGBColor,
    dashed: bool,
    marker: Marker,
    points: Vec<ChartPoint>,
) -> Series {
    Series {
        label: label.to_string(),
        color,
        dashed,
        marker,
        points,
    }
}

fn chart(name: &str, x_label: &str, y_label: &str, series: Vec<Series>) -> LineChart {
    LineChart {
        name: name.to_string(),
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        x_log_ticks: None,
        x_ticks: Ticks::Number,
        y_ticks: Ticks::Number,
        x_from_zero: true,
        y_from_zero: true,
        zero_line: false,
        size: (640, 380),
        series,
        x_marks: Vec::new(),
    }
}
