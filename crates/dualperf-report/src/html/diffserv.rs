//! The DiffServ section of the HTML report (`dualperf lab diffserv`): the
//! per-class table and verdicts IPv6 against IPv4, the done-when check, the
//! load-step table in the layout of the paper's Table 2, the conditioner
//! checks, and three figures like the paper's: router CPU against load per
//! family (Fig. 2), mean one-way delay per class against load (Fig. 3) and
//! delay variation per class against load (Fig. 4). Numbers and words come
//! from [`crate::present::diffserv`].

use dualperf_model::{IpFamily, MetricId, RunResult};
use plotters::style::RGBColor;

use super::escape;
use crate::charts::line::{render, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::style;
use crate::error::ReportError;
use crate::present::diffserv::{
    short_of_rate_note, Class, DiffServView, CLASS_LOADS, CLASS_METRICS, STEPS,
};

/// The section, or an empty string for a run that is not a DiffServ experiment.
///
/// # Errors
/// [`ReportError::Chart`] when a figure fails to draw.
pub(crate) fn section(run: &RunResult) -> Result<String, ReportError> {
    let Some(view) = DiffServView::of(run) else {
        return Ok(String::new());
    };
    let mut html = String::from(
        "<section id=\"diffserv\"><h2>DiffServ: per class, IPv6 against IPv4</h2>\n\
         <p class=\"note\">EF is the measured probe (172 B every 2 ms, DSCP 46) from the premium \
         client; BE and LBE are the same probe inside the competing load, beside BE UDP at a share \
         of the core link and an LBE bulk TCP flow. Loads are shares of the core link's rate as \
         htb counts it (frames: payload + UDP/IP + 14 B Ethernet). Values are means over \
         repetitions.</p>\n",
    );
    html.push_str(&class_table(&view));
    html.push_str("<h3>Verdicts per class</h3><ul>\n");
    for line in view.verdicts() {
        html.push_str(&format!("<li>{}</li>\n", escape(&line)));
    }
    html.push_str("</ul><h3>EF under 115 % BE load: what the experiment expects</h3><ul>\n");
    for line in view.done_when() {
        html.push_str(&format!("<li>{}</li>\n", escape(&line)));
    }
    html.push_str("</ul>\n");
    html.push_str(&label_table(&view));
    html.push_str(&step_table(&view));
    let checks = view.checks();
    if !checks.is_empty() {
        html.push_str("<h3>Conditioner checks (edge router counters)</h3><ul>\n");
        for line in checks {
            html.push_str(&format!("<li>{}</li>\n", escape(&line)));
        }
        html.push_str("</ul>\n");
    }
    html.push_str("<div class=\"figures\">\n");
    for (id, title, caption, chart) in figures(&view) {
        if chart.is_empty() {
            html.push_str(&format!(
                "<figure id=\"{id}\"><h3>{}</h3><p class=\"note\">no data for this figure in this run</p></figure>\n",
                escape(&title)
            ));
            continue;
        }
        let points: usize = chart.series.iter().map(|s| s.points.len()).sum();
        html.push_str(&format!(
            "<figure id=\"{id}\" data-series-points=\"{points}\"><h3>{}</h3>\n{}<figcaption>{}</figcaption></figure>\n",
            escape(&title),
            render(&chart)?,
            escape(&caption)
        ));
    }
    html.push_str("</div></section>\n");
    Ok(html)
}

/// The seed's §4: the IPv6 arm classified by its flow label alone beside
/// the one marked DSCP EF, and the answer; empty without a flow-label arm.
fn label_table(view: &DiffServView) -> String {
    let rows = view.label_rows();
    if rows.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<h3 id=\"diffserv-flow-label\">Flow label as the class (the seed's §4)</h3>\n\
         <p class=\"note\">The edge router classifies IPv6 packets by their flow label alone \
         (RFC 6437; no DSCP) into the EF class. The same probe, marked DSCP EF, is shown \
         beside it under the same BE load. Values are means over repetitions.</p>\n\
         <table class=\"diffserv-classes\"><thead><tr><th>condition</th><th>IPv6 marked</th>",
    );
    for metric in CLASS_METRICS {
        html.push_str(&format!(
            "<th class=\"num\">{}</th>",
            escape(metric.label())
        ));
    }
    html.push_str("</tr></thead><tbody>\n");
    for row in rows {
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td>",
            escape(&row.condition),
            escape(&row.marking)
        ));
        for cell in &row.cells {
            html.push_str(&format!("<td class=\"num\">{}</td>", escape(cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table><ul>\n");
    for line in view.label_lines() {
        html.push_str(&format!("<li>{}</li>\n", escape(&line)));
    }
    html.push_str("</ul>\n");
    html
}

fn class_table(view: &DiffServView) -> String {
    let mut html = String::from(
        "<table class=\"diffserv-classes\"><thead><tr><th rowspan=\"2\">condition</th><th rowspan=\"2\">class</th>\
         <th colspan=\"5\">IPv4</th><th colspan=\"5\">IPv6</th></tr><tr>",
    );
    for _ in 0..2 {
        for metric in CLASS_METRICS {
            html.push_str(&format!(
                "<th class=\"num\" title=\"{}\">{}</th>",
                escape(metric.definition()),
                escape(metric.label())
            ));
        }
    }
    html.push_str("</tr></thead><tbody>\n");
    for row in view.class_rows() {
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td>",
            escape(&row.condition),
            row.class
        ));
        for cell in row.cells.iter().flatten() {
            html.push_str(&format!("<td class=\"num\">{}</td>", escape(cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table>\n");
    html
}

/// A titled load-step table up to its body: size, then the steps of each
/// family column (IPv4, IPv6, mixed).
fn step_table_head(title: &str) -> String {
    let mut html = format!(
        "<h3>{}</h3>\n<table class=\"diffserv-steps\"><thead><tr><th rowspan=\"2\">size (B)</th>\
         <th colspan=\"3\">IPv4 (% of link)</th><th colspan=\"3\">IPv6 (% of link)</th>\
         <th colspan=\"3\">IPv4 and IPv6 (% of link)</th></tr><tr>",
        escape(title)
    );
    for _ in 0..3 {
        for step in STEPS {
            html.push_str(&format!("<th class=\"num\">{step}</th>"));
        }
    }
    html.push_str("</tr></thead><tbody>\n");
    html
}

fn step_table(view: &DiffServView) -> String {
    let (_, rows) = view.step_table();
    if rows.is_empty() {
        return String::new();
    }
    let mut html = step_table_head("Load steps: BE UDP loss, % of datagrams (the paper's Table 2)");
    for (size, cells) in rows {
        html.push_str(&format!("<tr><td>{size}</td>"));
        for cell in cells {
            html.push_str(&format!("<td class=\"num\">{}</td>", escape(&cell)));
        }
        html.push_str("</tr>\n<tr class=\"note\"><td>sent</td>");
        for cell in view.step_achieved_row(size) {
            html.push_str(&format!("<td class=\"num\">{}</td>", escape(&cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str(&format!(
        "</tbody></table><p class=\"note\">sent: the BE sender's steady rate, % of the rate the step asks. {}</p>\n",
        escape(&short_of_rate_note())
    ));
    html.push_str(&step_table_head(
        "The EF probe beside each step: one-way delay p99 / loss",
    ));
    for (size, cells) in view.step_ef_table() {
        html.push_str(&format!("<tr><td>{size}</td>"));
        for cell in cells {
            html.push_str(&format!("<td class=\"num\">{}</td>", escape(&cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table>\n");
    html
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
