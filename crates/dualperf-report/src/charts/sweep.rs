//! Metric against message size: both families on one chart per transport,
//! IPv4 solid, IPv6 dashed, log-scale x, 95 % CI error bars. The papers'
//! central figure (seed 001: throughput and latency vs message size).

use dualperf_model::{IpFamily, TestKind};

use crate::charts::line::{self, ChartPoint, LegendCorner, LineChart, Marker, Series};
use crate::charts::{axis_unit, size_ticks, style, Figure};
use crate::error::ReportError;
use crate::quantity;
use crate::view::{self, transport, RunView};

/// One family's series of `metric` over the sweep of `kind`, scaled.
fn family_series(
    view: &RunView<'_>,
    kind: TestKind,
    metric: &str,
    family: IpFamily,
    divisor: f64,
    label: String,
) -> Series {
    let (color, dashed, marker) = style::family(family);
    let points = view
        .sweep(kind)
        .into_iter()
        .filter_map(|(index, spec)| {
            let summary = view.family_summary(index, metric, family)?;
            Some(ChartPoint {
                x: f64::from(spec.size_bytes),
                y: summary.mean / divisor,
                ci: summary
                    .ci95_low
                    .zip(summary.ci95_high)
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

fn largest(view: &RunView<'_>, kinds: &[TestKind], metric: &str) -> f64 {
    kinds
        .iter()
        .flat_map(|&kind| view.sweep(kind))
        .filter_map(|(index, _)| view.summary(index, metric))
        .flat_map(|s| [s.per_family.v4, s.per_family.v6])
        .flatten()
        .map(|s| s.ci95_high.unwrap_or(s.mean).max(s.mean))
        .fold(0.0, f64::max)
}

/// A chart of `metric` against size with one series per (kind, family).
fn chart(
    view: &RunView<'_>,
    id: &str,
    kinds: &[TestKind],
    metric: &str,
    quantity_name: &str,
    legend: LegendCorner,
) -> Result<Option<(LineChart, String)>, ReportError> {
    let Some(unit) = kinds
        .iter()
        .flat_map(|&k| view.sweep(k))
        .find_map(|(i, _)| view.summary(i, metric))
        .map(|s| s.metric.unit.clone())
    else {
        return Ok(None);
    };
    let (divisor, axis) = axis_unit(&unit, largest(view, kinds, metric));
    let mut series = Vec::new();
    for (n, &kind) in kinds.iter().enumerate() {
        for family in IpFamily::ALL {
            let label = if kinds.len() > 1 {
                format!("{} {}", transport(kind), family.label())
            } else {
                family.label().to_string()
            };
            let mut one = family_series(view, kind, metric, family, divisor, label);
            if n > 0 {
                // Second transport on the same chart: lighter, cross markers.
                one.color = plotters::style::RGBColor(
                    one.color.0 / 2 + 100,
                    one.color.1 / 2 + 100,
                    one.color.2 / 2 + 100,
                );
                one.marker = Marker::Cross;
            }
            series.push(one);
        }
    }
    let sizes: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    let chart = LineChart {
        name: id.to_string(),
        x_label: "message size (bytes, log scale)".to_string(),
        y_label: format!("{quantity_name} ({axis})"),
        x_log_ticks: Some(size_ticks(&sizes)),
        x_format: quantity::size_tick,
        y_format: quantity::tick,
        y_from_zero: true,
        zero_line: false,
        legend,
        size: (640, 380),
        series,
    };
    if chart.is_empty() {
        return Ok(None);
    }
    Ok(Some((chart, unit)))
}

fn definition(view: &RunView<'_>, metric: &str) -> String {
    view.run
        .analysis
        .as_ref()
        .and_then(|a| a.summaries.iter().find(|s| s.metric.name == metric))
        .map(|s| {
            format!(
                "<code>{}</code>: {}.",
                metric,
                crate::html::escape(s.metric.definition.trim_end_matches('.'))
            )
        })
        .unwrap_or_default()
}

const CI_NOTE: &str = "Markers are means over repetitions; error bars are Student-t 95 % confidence intervals of the mean. IPv4 solid with circles, IPv6 dashed with triangles.";

/// Throughput vs message size, one chart per stream transport.
pub(crate) fn throughput(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let Some(metric) = view.pick(view::THROUGHPUT) else {
        return Ok(Vec::new());
    };
    let mut figures = Vec::new();
    for kind in view::STREAM_KINDS {
        let id = format!("throughput-{kind}");
        if let Some((chart, _)) = chart(
            view,
            &id,
            &[kind],
            metric,
            "goodput",
            LegendCorner::UpperLeft,
        )? {
            figures.push(Figure {
                title: format!("{} throughput vs message size ({kind})", transport(kind)),
                caption: format!("{} {CI_NOTE}", definition(view, metric)),
                svg: line::render(&chart)?,
                id,
            });
        }
    }
    Ok(figures)
}

/// Round-trip time vs message size, one chart per request/response transport.
pub(crate) fn rtt(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let Some(metric) = view.pick(view::RTT) else {
        return Ok(Vec::new());
    };
    let mut figures = Vec::new();
    for kind in view::RR_KINDS {
        let id = format!("rtt-{kind}");
        if let Some((chart, _)) = chart(
            view,
            &id,
            &[kind],
            metric,
            "round-trip time",
            LegendCorner::LowerRight,
        )? {
            figures.push(Figure {
                title: format!(
                    "{} round-trip time vs message size ({kind})",
                    transport(kind)
                ),
                caption: format!(
                    "{} Request and response are both the message size. {CI_NOTE}",
                    definition(view, metric)
                ),
                svg: line::render(&chart)?,
                id,
            });
        }
    }
    Ok(figures)
}

/// UDP loss vs datagram size.
pub(crate) fn loss(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let Some(metric) = view.pick(view::LOSS) else {
        return Ok(Vec::new());
    };
    let id = "loss-udp-stream".to_string();
    let Some((chart, _)) = chart(
        view,
        &id,
        &[TestKind::UdpStream],
        metric,
        "loss",
        LegendCorner::UpperLeft,
    )?
    else {
        return Ok(Vec::new());
    };
    let threshold = view.fragmentation_threshold(TestKind::UdpStream, IpFamily::V6);
    let note = threshold.map_or(String::new(), |t| {
        format!(" IPv6 datagrams of {t} B and more were fragmented.")
    });
    Ok(vec![Figure {
        title: "UDP loss vs datagram size (udp-stream)".to_string(),
        caption: format!("{}{note} {CI_NOTE}", definition(view, metric)),
        svg: line::render(&chart)?,
        id,
    }])
}

/// Client CPU and service demand vs message size, TCP and UDP together.
pub(crate) fn cpu(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    let shared = " In a namespace lab every node shares the machine's CPUs.";
    for (preferred, id, name, title) in [
        (
            view::CPU,
            "cpu-client",
            "client CPU",
            "Client CPU utilisation vs message size",
        ),
        (
            view::SERVICE_DEMAND,
            "service-demand",
            "service demand",
            "Service demand (CPU time per MiB) vs message size",
        ),
    ] {
        let Some(metric) = view.pick(preferred) else {
            continue;
        };
        if let Some((chart, _)) = chart(
            view,
            id,
            &view::STREAM_KINDS,
            metric,
            name,
            LegendCorner::UpperRight,
        )? {
            figures.push(Figure {
                id: id.to_string(),
                title: title.to_string(),
                caption: format!(
                    "{}{shared} TCP in full colour, UDP lighter with crosses. {CI_NOTE}",
                    definition(view, metric)
                ),
                svg: line::render(&chart)?,
            });
        }
    }
    Ok(figures)
}
