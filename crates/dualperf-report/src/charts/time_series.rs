//! Goodput over time: the per-interval received bytes of the first
//! repetition of the largest stream point, IPv4 and IPv6 on one chart (seed
//! 000 plotted throughput at 50 ms resolution the same way).

use dualperf_model::{IpFamily, Trial, TrialOutcome};

use crate::charts::line::{self, ChartPoint, LegendCorner, LineChart, Marker, Series};
use crate::charts::{style, Figure};
use crate::error::ReportError;
use crate::quantity;
use crate::view::{self, transport, RunView};

fn first_trial<'a>(view: &RunView<'a>, point: usize, family: IpFamily) -> Option<&'a Trial> {
    view.run
        .trials
        .iter()
        .filter(|t| {
            t.point == point && t.family == family && matches!(t.outcome, TrialOutcome::Ok(_))
        })
        .min_by_key(|t| t.repetition)
}

/// Goodput per interval in Mbit/s against the interval's end in seconds.
fn goodput_points(trial: &Trial) -> Vec<ChartPoint> {
    let TrialOutcome::Ok(observations) = &trial.outcome else {
        return Vec::new();
    };
    observations
        .intervals
        .iter()
        .filter(|s| s.length_ns > 0)
        .map(|s| {
            ChartPoint::new(
                s.end_ns as f64 / 1e9,
                s.received_bytes as f64 * 8.0 / (s.length_ns as f64 / 1e9) / 1e6,
            )
        })
        .collect()
}

/// One time-series chart per stream transport, at its largest message size.
pub(crate) fn goodput_over_time(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for kind in view::STREAM_KINDS {
        let Some(&(point, spec)) = view.sweep(kind).last() else {
            continue;
        };
        let mut interval_ms = 0;
        let series: Vec<Series> = IpFamily::ALL
            .into_iter()
            .filter_map(|family| {
                let trial = first_trial(view, point, family)?;
                interval_ms = trial.spec.sample_interval_ms;
                let (color, dashed, _) = style::family(family);
                Some(Series {
                    label: family.label().to_string(),
                    color,
                    dashed,
                    marker: Marker::None,
                    points: goodput_points(trial),
                })
            })
            .collect();
        let id = format!("time-series-{kind}");
        let chart = LineChart {
            name: id.clone(),
            x_label: "time since the measured interval began (s)".to_string(),
            y_label: "goodput (Mbit/s)".to_string(),
            x_log_ticks: None,
            x_format: quantity::tick,
            y_format: quantity::tick,
            y_from_zero: true,
            zero_line: false,
            legend: LegendCorner::LowerRight,
            size: (640, 300),
            series,
        };
        if chart.is_empty() {
            continue;
        }
        figures.push(Figure {
            title: format!("{} goodput over time, {}", transport(kind), spec.label()),
            caption: format!("Received payload per {interval_ms} ms interval of the first repetition, × 8 / interval length. Dips that appear in one family only point at that family's path."),
            svg: line::render(&chart)?,
            id,
        });
    }
    Ok(figures)
}

/// One-way delay of every packet against its send time, first repetition,
/// for points with arrivals on a shared clock.
pub(crate) fn delay_over_time(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for (point, spec) in view.run.config.points.iter().enumerate() {
        let series: Vec<Series> = IpFamily::ALL
            .into_iter()
            .filter_map(|family| {
                let trial = first_trial(view, point, family)?;
                let TrialOutcome::Ok(observations) = &trial.outcome else {
                    return None;
                };
                let udp = observations
                    .udp
                    .as_ref()
                    .filter(|u| u.clocks_shared && !u.arrivals.is_empty())?;
                let first = udp.arrivals.first()?.sent_ns;
                let points = udp
                    .arrivals
                    .iter()
                    .map(|a| {
                        ChartPoint::new(
                            (a.sent_ns - first) as f64 / 1e9,
                            (a.received_ns - a.sent_ns) as f64 / 1e3,
                        )
                    })
                    .collect();
                let (color, dashed, _) = style::family(family);
                Some(Series {
                    label: family.label().to_string(),
                    color,
                    dashed,
                    marker: Marker::None,
                    points,
                })
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        let id = format!("delay-series-{}-{}", spec.kind, spec.size_bytes);
        let chart = LineChart {
            name: id.clone(),
            x_label: "send time since the first packet (s)".to_string(),
            y_label: "one-way delay (µs)".to_string(),
            x_log_ticks: None,
            x_format: quantity::tick,
            y_format: quantity::tick,
            y_from_zero: true,
            zero_line: false,
            legend: LegendCorner::UpperRight,
            size: (640, 300),
            series,
        };
        figures.push(Figure {
            title: format!("One-way delay over time, {}", spec.label()),
            caption: "Receive − send time of every packet of the first repetition (RFC 7679; both ends share one clock, so the delay is exact).".to_string(),
            svg: line::render(&chart)?,
            id,
        });
    }
    Ok(figures)
}
