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
