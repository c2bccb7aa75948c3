//! Measured against theoretical overhead: the relative goodput difference
//! (v6 − v4) / v4 at each message size, with its 95 % CI, next to what the
//! header-overhead model predicts. Where the dots sit on the dashed line the
//! bigger header explains the gap; where they sit below, the implementation does.

use dualperf_model::TestKind;

use crate::charts::line::{self, ChartPoint, LegendCorner, LineChart, Marker, Series};
use crate::charts::{size_ticks, style, Figure};
use crate::error::ReportError;
use crate::quantity;
use crate::view::{self, transport, RunView};

/// The chart, when the run has goodput comparisons.
pub(crate) fn measured_vs_theory(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let Some(metric) = view.pick(view::THROUGHPUT) else {
        return Ok(Vec::new());
    };
    let mut series = Vec::new();
    for kind in view::STREAM_KINDS {
        let color = if kind == TestKind::TcpStream {
            style::TCP
        } else {
            style::UDP
        };
        let comparisons = view.sweep_comparisons(kind, metric);
        let measured: Vec<ChartPoint> = comparisons
            .iter()
            .filter_map(|(spec, c)| {
                Some(ChartPoint {
                    x: f64::from(spec.size_bytes),
                    y: c.relative_difference? * 100.0,
                    ci: c
                        .relative_difference_ci95
                        .map(|(l, h)| (l * 100.0, h * 100.0)),
                })
            })
            .collect();
        let theory: Vec<ChartPoint> = comparisons
            .iter()
            .filter_map(|(spec, c)| {
                Some(ChartPoint::new(
                    f64::from(spec.size_bytes),
                    c.theoretical_relative_difference? * 100.0,
                ))
            })
            .collect();
        let name = transport(kind);
        if !measured.is_empty() {
            series.push(Series {
                label: format!("{name} measured"),
                color,
                dashed: false,
                marker: Marker::Circle,
                points: measured,
            });
        }
        if !theory.is_empty() {
            series.push(Series {
                label: format!("{name} header model"),
                color,
                dashed: true,
                marker: Marker::None,
                points: theory,
            });
        }
    }
    let sizes: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    let chart = LineChart {
        name: "overhead".to_string(),
        x_label: "message size (bytes, log scale)".to_string(),
        y_label: "IPv6 − IPv4 goodput (% of IPv4)".to_string(),
        x_log_ticks: Some(size_ticks(&sizes)),
        x_format: quantity::size_tick,
        y_format: quantity::tick,
        y_from_zero: false,
        zero_line: true,
        legend: LegendCorner::LowerLeft,
        size: (640, 380),
        series,
    };
    if chart.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![Figure {
        id: "overhead".to_string(),
        title: "Measured vs theoretical IPv6 overhead".to_string(),
        caption: "Relative goodput difference (v6 − v4) / v4 in percent: dots are the measured mean of paired repetitions with its 95 % CI; dashed lines are what the header-overhead model predicts (Ethernet, MTU from the host facts, 12 bytes of TCP timestamps, IPv6 fragment headers). Below zero IPv6 is slower.".to_string(),
        svg: line::render(&chart)?,
    }])
}
