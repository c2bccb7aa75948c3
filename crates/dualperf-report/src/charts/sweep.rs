//! Metric against message size: every arm on one chart per transport (the
//! first arm solid, the next dashed, each with its own colour and marker,
//! a legend naming the arms by their labels), log-scale x, 95 % CI error
//! bars. The papers' central figure (throughput and latency vs message
//! size in the IPv4/IPv6 studies).

use dualperf_model::{Arm, MetricId, TestKind};
use maud::{html, Markup};

use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{arm_groups, size_ticks, style, Figure, FigureFacts};
use crate::error::ReportError;
use crate::present::value::axis_unit;
use crate::view::{self, transport, RunView};

/// One arm's series of `metric` over the sweep of `kind`, scaled by
/// `divisor`, styled by the arm's place `index` (also the HTML comparison's
/// before/after lines).
pub(crate) fn arm_series(
    view: &RunView<'_>,
    kind: TestKind,
    metric: MetricId,
    (index, arm): (usize, &Arm),
    divisor: f64,
    label: String,
) -> Series {
    let (color, dashed, marker) = style::arm(index);
    let points = view
        .sweep(kind)
        .into_iter()
        .filter_map(|(point, spec)| {
            let summary = view.summary(point, metric, &arm.id)?;
            Some(ChartPoint {
                x: f64::from(spec.size_bytes),
                y: summary.mean / divisor,
                // Never below 0 µs or 0 % loss, never above 4.5 MOS.
                ci: crate::present::bounds::bounded_ci(metric, summary)
                    .map(|(l, h)| (l / divisor, h / divisor)),
            })
        })
        .collect();
    Series {
        label,
        color,
        dashed,
        marker,
        points,
    }
}

fn largest(view: &RunView<'_>, kinds: &[TestKind], metric: MetricId) -> f64 {
    kinds
        .iter()
        .flat_map(|&kind| view.sweep(kind))
        .flat_map(|(point, _)| view.summaries(point, metric))
        .map(|s| {
            s.summary
                .ci95_high
                .unwrap_or(s.summary.mean)
                .max(s.summary.mean)
        })
        .fold(0.0, f64::max)
}

/// A chart of `metric` against size with one series per (kind, arm) of `arms`.
fn chart(
    view: &RunView<'_>,
    id: &str,
    arms: &[&Arm],
    kinds: &[TestKind],
    metric: MetricId,
) -> Option<LineChart> {
    let has_data = kinds
        .iter()
        .flat_map(|&k| view.sweep(k))
        .any(|(point, _)| view.summaries(point, metric).next().is_some());
    if !has_data {
        return None;
    }
    let (divisor, axis) = axis_unit(metric, largest(view, kinds, metric));
    let mut series = Vec::new();
    for (n, &kind) in kinds.iter().enumerate() {
        for (index, &arm) in arms.iter().enumerate() {
            let label = if kinds.len() > 1 {
                format!("{} {}", transport(kind), arm.label)
            } else {
                arm.label.clone()
            };
            let mut one = arm_series(view, kind, metric, (index, arm), divisor, label);
            if n > 0 {
                // Second transport on the same chart: lighter, cross markers.
                one.color = plotters::style::RGBColor(
                    one.color.0 / 2 + 100,
                    one.color.1 / 2 + 100,
                    one.color.2 / 2 + 100,
                );
                one.marker = Marker::Cross;
            }
            if !one.points.is_empty() {
                series.push(one);
            }
        }
    }
    let sizes: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    if distinct(&sizes) < 2 {
        // One size is no "vs size" line: the arms side by side instead,
        // one position each, named under the axis when the names fit (and
        // always by the legend).
        let names: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
        // The plot is the chart's 640 px less the y-label area and margins.
        let x_ticks = match crate::charts::line::names_fit(&names, 640 - 78 - 30) {
            true => Ticks::Series,
            false => Ticks::Hidden,
        };
        for (position, one) in series.iter_mut().enumerate() {
            for point in &mut one.points {
                point.x = position as f64;
            }
        }
        return Some(LineChart {
            name: id.to_string(),
            x_label: match x_ticks {
                Ticks::Series => "arm",
                _ => "arm (see the legend)",
            }
            .to_string(),
            y_label: format!("{} ({axis})", metric.label()),
            x_log_ticks: None,
            x_ticks,
            y_ticks: Ticks::Number,
            x_from_zero: false,
            y_from_zero: true,
            zero_line: false,
            size: (640, 380),
            series,
            x_marks: Vec::new(),
        });
    }
    let chart = LineChart {
        name: id.to_string(),
        x_label: "message size (bytes, log scale)".to_string(),
        y_label: format!("{} ({axis})", metric.label()),
        x_log_ticks: Some(size_ticks(&sizes)),
        x_ticks: Ticks::Size,
        y_ticks: Ticks::Number,
        x_from_zero: false,
        y_from_zero: true,
        zero_line: false,
        size: (640, 380),
        series,
        x_marks: Vec::new(),
    };
    (!chart.is_empty()).then_some(chart)
}

/// "vs message size" for a sweep of several sizes; "at 1408 B, by arm"
/// when the run measured `kinds` at one size only.
fn over(view: &RunView<'_>, kinds: &[TestKind], size: &str) -> String {
    let sizes: Vec<f64> = kinds
        .iter()
        .flat_map(|&kind| view.sweep(kind))
        .map(|(_, spec)| f64::from(spec.size_bytes))
        .collect();
    match sizes.first() {
        Some(one) if distinct(&sizes) == 1 => {
            format!("at {} B, by arm", crate::present::value::significant(*one))
        }
        _ => format!("vs {size}"),
    }
}

/// How many different values `xs` holds.
pub(crate) fn distinct(xs: &[f64]) -> usize {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    sorted.len()
}

/// "goodput (`goodput_bps`): receiver application bytes × 8 / …."
fn definition(metric: MetricId) -> Markup {
    html! {
        (metric.label()) " (" code { (metric.name()) } "): "
        (metric.definition().trim_end_matches('.')) "."
    }
}

/// The caption's note on markers, naming the first arms' line styles.
fn ci_note(view: &RunView<'_>) -> Markup {
    let styles: Vec<String> = view
        .arms()
        .iter()
        .enumerate()
        .take(2)
        .map(|(index, arm)| {
            let look = if index == 0 {
                "solid with circles"
            } else {
                "dashed with triangles"
            };
            format!("{} {look}", arm.label)
        })
        .collect();
    html! {
        "Markers are means over repetitions; error bars are Student-t 95 % confidence \
         intervals of the mean. "
        (styles.join(", "))
        @if view.arms().len() > 2 { "; further arms as the legend shows" }
        "."
    }
}

fn figure(
    id: String,
    title: String,
    caption: Markup,
    chart: &LineChart,
) -> Result<Figure, ReportError> {
    Ok(Figure {
        facts: FigureFacts::lines(chart.series.len()),
        svg: line::render(chart)?,
        id,
        title,
        caption,
    })
}

/// Throughput (the stream headline) vs message size, one chart per stream transport.
pub(crate) fn throughput(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for kind in view::STREAM_KINDS {
        let metric = MetricId::headline(kind);
        for group in arm_groups(view, 1) {
            let id = format!("throughput-{kind}{}", group.suffix);
            if let Some(chart) = chart(view, &id, &group.arms, &[kind], metric) {
                figures.push(figure(
                    id,
                    group.titled(format!(
                        "{} throughput {} ({kind})",
                        transport(kind),
                        over(view, &[kind], "message size")
                    )),
                    html! { (definition(metric)) " " (ci_note(view)) },
                    &chart,
                )?);
            }
        }
    }
    Ok(figures)
}

/// Round-trip time (the request/response headline) vs message size, one
/// chart per request/response transport.
pub(crate) fn rtt(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for kind in view::RR_KINDS {
        let metric = MetricId::headline(kind);
        for group in arm_groups(view, 1) {
            let id = format!("rtt-{kind}{}", group.suffix);
            if let Some(chart) = chart(view, &id, &group.arms, &[kind], metric) {
                figures.push(figure(
                    id,
                    group.titled(format!(
                        "{} round-trip time {} ({kind})",
                        transport(kind),
                        over(view, &[kind], "message size")
                    )),
                    html! {
                        (definition(metric))
                        " Request and response are both the message size. "
                        (ci_note(view))
                    },
                    &chart,
                )?);
            }
        }
    }
    Ok(figures)
}

/// UDP loss vs datagram size.
pub(crate) fn loss(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let metric = view::LOSS;
    let mut figures = Vec::new();
    for group in arm_groups(view, 1) {
        let id = format!("loss-udp-stream{}", group.suffix);
        let Some(chart) = chart(view, &id, &group.arms, &[TestKind::UdpStream], metric) else {
            continue;
        };
        let notes: Vec<String> = group
            .arms
            .iter()
            .filter_map(|arm| {
                let threshold = view.fragmentation_threshold(TestKind::UdpStream, &arm.id)?;
                Some(format!(
                    " {} datagrams of {threshold} B and more were fragmented.",
                    arm.label
                ))
            })
            .collect();
        figures.push(figure(
            id,
            group.titled(format!(
                "UDP loss {} (udp-stream)",
                over(view, &[TestKind::UdpStream], "datagram size")
            )),
            html! { (definition(metric)) (notes.concat()) " " (ci_note(view)) },
            &chart,
        )?);
    }
    Ok(figures)
}

/// Client CPU and service demand vs message size, TCP and UDP together.
pub(crate) fn cpu(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    let shared = " In a namespace lab every node shares the machine's CPUs.";
    for (metric, id, title) in [
        (view::CPU, "cpu-client", "Client CPU utilisation"),
        (
            view::SERVICE_DEMAND,
            "service-demand",
            "Service demand (CPU time per MiB)",
        ),
    ] {
        for group in arm_groups(view, view::STREAM_KINDS.len()) {
            let id = format!("{id}{}", group.suffix);
            if let Some(chart) = chart(view, &id, &group.arms, &view::STREAM_KINDS, metric) {
                figures.push(figure(
                    id,
                    group.titled(format!(
                        "{title} {}",
                        over(view, &view::STREAM_KINDS, "message size")
                    )),
                    html! {
                        (definition(metric)) (shared)
                        " TCP in full colour, UDP lighter with crosses. "
                        (ci_note(view))
                    },
                    &chart,
                )?);
            }
        }
    }
    Ok(figures)
}
