//! Measured against theoretical overhead: the relative goodput difference
//! (arm − baseline) / baseline at each message size, with its 95 % CI, next
//! to what the header-overhead model predicts. Where the dots sit on the
//! dashed line the header explains the gap; where they sit below, something
//! else does (the CPU cost per MiB is the first suspect, see the verdicts).
//!
//! One compared arm (the classic IPv6-against-IPv4 run): TCP and UDP in
//! their transport colours. Several: each arm in its own colour, TCP with
//! circles and UDP with crosses.

use dualperf_model::{Arm, MetricId, TestKind};
use maud::html;

use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{arm_groups, size_ticks, style, ArmGroup, Figure, FigureFacts};
use crate::error::ReportError;
use crate::view::{self, transport, RunView};

/// The chart, when the run has goodput comparisons.
/// One chart per group of at most two compared arms (four series each).
pub(crate) fn measured_vs_theory(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for group in arm_groups(view, 2 * view::STREAM_KINDS.len()) {
        figures.extend(group_chart(view, &group)?);
    }
    Ok(figures)
}

/// The chart of `group`'s compared arms, if they have goodput comparisons.
fn group_chart(view: &RunView<'_>, group: &ArmGroup<'_>) -> Result<Vec<Figure>, ReportError> {
    let compared: Vec<&Arm> = view
        .compared_arms()
        .into_iter()
        .filter(|arm| group.arms.iter().any(|a| a.id == arm.id))
        .collect();
    let several = compared.len() > 1;
    let mut series = Vec::new();
    for arm in &compared {
        let index = view.names.index(&arm.id);
        for kind in view::STREAM_KINDS {
            let metric = MetricId::headline(kind);
            let (color, marker) = if several {
                let marker = if kind == TestKind::TcpStream {
                    Marker::Circle
                } else {
                    Marker::Cross
                };
                (style::arm(index).0, marker)
            } else if kind == TestKind::TcpStream {
                (style::TCP, Marker::Circle)
            } else {
                (style::UDP, Marker::Circle)
            };
            let comparisons = view.sweep_comparisons(kind, metric, &arm.id);
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
            // Several arms: one legend entry per arm (its TCP measurement);
            // the caption explains markers and dashes.
            let legend = |what: &str| {
                if !several {
                    format!("{name} {what}")
                } else if what == "measured" && kind == TestKind::TcpStream {
                    arm.label.clone()
                } else {
                    String::new()
                }
            };
            if !measured.is_empty() {
                series.push(Series {
                    label: legend("measured"),
                    color,
                    dashed: false,
                    marker,
                    points: measured,
                });
            }
            if !theory.is_empty() {
                // A line needs two points: a lone prediction is drawn as a
                // cross, so its legend entry has something to point at.
                let marker = if theory.len() < 2 {
                    Marker::Cross
                } else {
                    Marker::None
                };
                series.push(Series {
                    label: legend("header model"),
                    color,
                    dashed: true,
                    marker,
                    points: theory,
                });
            }
        }
    }
    let sizes: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    let baseline = view.baseline_label().to_string();
    let arms = if several {
        "arm".to_string()
    } else {
        compared
            .first()
            .map_or_else(|| "arm".to_string(), |a| a.label.clone())
    };
    let chart = LineChart {
        name: "overhead".to_string(),
        x_label: "message size (bytes, log scale)".to_string(),
        y_label: format!("{arms} − {baseline} goodput (% of {baseline})"),
        x_log_ticks: Some(size_ticks(&sizes)),
        x_ticks: Ticks::Size,
        y_ticks: Ticks::Number,
        x_from_zero: false,
        y_from_zero: false,
        zero_line: true,
        size: (640, 380),
        series,
        x_marks: Vec::new(),
    };
    if chart.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![Figure {
        id: format!("overhead{}", group.suffix),
        title: group.titled(format!(
            "Measured vs theoretical overhead against {baseline}"
        )),
        caption: html! { (format!(
            "Relative goodput difference ({arms} − {baseline}) / {baseline} in percent: markers are the measured mean of paired repetitions with its 95 % CI; dashed lines are what the header-overhead model predicts (Ethernet, MTU from the host facts, 12 bytes of TCP timestamps, IPv6 fragment headers, tunnel headers).{key} Below zero the arm is slower.",
            key = if several { " One colour per arm (legend); TCP with circles, UDP with crosses." } else { "" },
        )) },
        facts: FigureFacts::lines(chart.series.len()),
        svg: line::render(&chart)?,
    }])
}
