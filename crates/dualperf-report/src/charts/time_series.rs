//! Time series: goodput per sampling interval of the largest stream point,
//! and the one-way delay of every stored packet of probe points, one line
//! per arm (the IPv4/IPv6 studies plotted throughput at 50 ms resolution
//! the same way).
//!
//! Readable at defaults (issue 15): when the first repetition has fewer
//! than [`MIN_POINTS`] intervals (a 1-second trial sampled once), the
//! repetitions of the arm are drawn one after the other on one time axis,
//! so the chart shows every sample there is; a chart with fewer than two
//! points per arm is left out rather than drawn empty.

use dualperf_model::{ArmId, IntervalSample, Quantity, Trial, TrialOutcome};
use maud::html;

use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{arm_groups, style, Figure, FigureFacts};
use crate::error::ReportError;
use crate::present::axis::tick;
use crate::present::clocks::{clock_words, point_clock_basis};
use crate::present::value::format_quantity;
use crate::view::{self, transport, RunView};

/// Fewer intervals than this in the first repetition: chain repetitions.
pub(crate) const MIN_POINTS: usize = 12;

/// The successful trials of `arm` at `point`, by repetition.
fn trials<'a>(view: &RunView<'a>, point: usize, arm: &ArmId) -> Vec<&'a Trial> {
    let mut trials: Vec<&Trial> = view
        .run
        .trials
        .iter()
        .filter(|t| t.point == point && &t.arm == arm && matches!(t.outcome, TrialOutcome::Ok(_)))
        .collect();
    trials.sort_by_key(|t| t.repetition);
    trials
}

fn intervals(trial: &Trial) -> &[IntervalSample] {
    match &trial.outcome {
        TrialOutcome::Ok(observations) => &observations.intervals,
        TrialOutcome::Failed { .. } => &[],
    }
}

/// Goodput per interval in Mbit/s against time in seconds (the middle of
/// each interval): the first
/// repetition, or every repetition end to end when the first is short.
/// Returns the points, how many repetitions they cover and the times where
/// a repetition after the first begins.
fn goodput_points(trials: &[&Trial]) -> (Vec<ChartPoint>, usize, Vec<f64>) {
    let take = match trials.first() {
        Some(first) if intervals(first).len() >= MIN_POINTS => 1,
        _ => trials.len(),
    };
    let mut points = Vec::new();
    let mut offset = 0.0;
    let mut starts = Vec::new();
    for (n, trial) in trials.iter().take(take).enumerate() {
        if n > 0 {
            starts.push(offset);
        }
        let samples = intervals(trial);
        for s in samples.iter().filter(|s| s.length_ns > 0) {
            // At the middle of the interval the sample averages over.
            points.push(ChartPoint::new(
                offset + (s.end_ns as f64 - s.length_ns as f64 / 2.0) / 1e9,
                s.received_bytes as f64 * 8.0 / (s.length_ns as f64 / 1e9) / 1e6,
            ));
        }
        offset += samples.last().map_or(0.0, |s| s.end_ns as f64 / 1e9);
    }
    (points, take, starts)
}

/// The unit of an axis whose values are in a base unit (µs, Mbit/s) and
/// reach `largest`: the base unit below 5000, else the next unit up (ms,
/// Gbit/s), so that no axis reads 300000 µs or 40000 Mbit/s. Returns the
/// factor to multiply values by and the unit's name.
pub(crate) fn readable(largest: f64, base: &'static str, up: &'static str) -> (f64, &'static str) {
    if largest >= 5_000.0 {
        (1e-3, up)
    } else {
        (1.0, base)
    }
}

/// Multiplies every y value of `series` by `factor`.
pub(crate) fn scale_y(series: &mut [Series], factor: f64) {
    for point in series.iter_mut().flat_map(|s| s.points.iter_mut()) {
        point.y *= factor;
        point.ci = point.ci.map(|(l, h)| (l * factor, h * factor));
    }
}

/// The largest y value of `series`.
fn largest_y(series: &[Series]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.y))
        .fold(0.0, f64::max)
}

/// One time-series chart per stream transport, at its largest message size
/// that delivered anything: a size where every arm received nothing (paced
/// above the link, every fragmented datagram lost one fragment) draws an
/// empty frame, which says nothing a reader can see.
pub(crate) fn goodput_over_time(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for kind in view::STREAM_KINDS {
        let delivered = |point: usize| {
            view.arms().iter().any(|arm| {
                goodput_points(&trials(view, point, &arm.id))
                    .0
                    .iter()
                    .any(|p| p.y > 0.0)
            })
        };
        let sweep = view.sweep(kind);
        let Some(&(point, spec)) = sweep
            .iter()
            .rev()
            .find(|(point, _)| delivered(*point))
            .or(sweep.last())
        else {
            continue;
        };
        for group in arm_groups(view, 1) {
            let mut chained = 1;
            let mut starts: Option<Vec<f64>> = None;
            let mut series: Vec<Series> = group
                .arms
                .iter()
                .enumerate()
                .filter_map(|(index, arm)| {
                    let (points, repetitions, begins) =
                        goodput_points(&trials(view, point, &arm.id));
                    chained = chained.max(repetitions);
                    // The first arm's boundaries (the arms' trials last alike).
                    if starts.is_none() && !begins.is_empty() {
                        starts = Some(begins);
                    }
                    let (color, dashed, _) = style::arm(index);
                    (points.len() >= 2).then(|| Series {
                        label: arm.label.clone(),
                        color,
                        dashed,
                        marker: if points.len() < MIN_POINTS {
                            Marker::Circle
                        } else {
                            Marker::None
                        },
                        points,
                    })
                })
                .collect();
            let id = format!("time-series-{kind}{}", group.suffix);
            let (factor, unit) = readable(largest_y(&series), "Mbit/s", "Gbit/s");
            scale_y(&mut series, factor);
            let chart = LineChart {
                name: id.clone(),
                x_label: if chained > 1 {
                    format!("time, {chained} repetitions end to end (s)")
                } else {
                    "time since the measured interval began (s)".to_string()
                },
                y_label: format!("goodput ({unit})"),
                x_log_ticks: None,
                x_ticks: Ticks::Number,
                y_ticks: Ticks::Number,
                x_from_zero: true,
                y_from_zero: true,
                zero_line: false,
                size: (640, 300),
                series,
                x_marks: starts.unwrap_or_default(),
            };
            if chart.is_empty() {
                continue;
            }
            // The samples' own length: the configured interval, or the whole
            // trial when the engine sampled once.
            let interval = view
                .arms()
                .iter()
                .filter_map(|arm| {
                    trials(view, point, &arm.id)
                        .first()
                        .and_then(|t| intervals(t).first())
                        .map(|s| s.length_ns)
                })
                .next()
                .filter(|&ns| ns > 0)
                .map_or_else(
                    || format!("{} ms", spec.sample_interval_ms),
                    |ns| format_quantity(Quantity::Nanoseconds, ns as f64),
                );
            let which = if chained > 1 {
                format!("all {chained} repetitions, one after the other (each trial had fewer than {MIN_POINTS} intervals; dotted vertical lines mark where the next repetition begins)")
            } else {
                "the first repetition".to_string()
            };
            figures.push(Figure {
            title: group.titled(format!("{} goodput over time, {}", transport(kind), spec.label())),
            caption: html! { (format!("Received payload per {interval} interval of {which}, × 8 / interval length. Dips that appear on one arm only point at that arm's path.")) },
            facts: FigureFacts {
                series_points: Some(min_points(&chart)),
                ..FigureFacts::lines(chart.series.len())
            },
            svg: line::render(&chart)?,
            id,
        });
        }
    }
    Ok(figures)
}

fn min_points(chart: &LineChart) -> usize {
    chart
        .series
        .iter()
        .map(|s| s.points.len())
        .min()
        .unwrap_or(0)
}

/// One-way delay of every stored packet against its send time, first
/// repetition, for points with arrivals on a shared clock.
pub(crate) fn delay_over_time(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for (point, spec) in view.run.config.points.iter().enumerate() {
        for group in arm_groups(view, 1) {
            let mut coverage: Vec<String> = Vec::new();
            let mut series: Vec<Series> = group
            .arms
            .iter()
            .enumerate()
            .filter_map(|(index, arm)| {
                let trial = *trials(view, point, &arm.id).first()?;
                let TrialOutcome::Ok(observations) = &trial.outcome else {
                    return None;
                };
                let udp = observations
                    .udp
                    .as_ref()
                    .filter(|u| u.clocks_shared && u.arrivals.len() >= 2)?;
                let first = udp.arrivals.first()?.sent_ns;
                let last = udp.arrivals.last()?.sent_ns;
                let span = (last - first) as f64 / 1e9;
                let measured = observations.measured_ns as f64 / 1e9;
                if udp.received > udp.arrivals.len() as u64 {
                    coverage.push(format!(
                        "{}: the first {} of {} packets ({} s of the {} s trial; the engine stores at most {} arrivals)",
                        arm.label,
                        udp.arrivals.len(),
                        udp.received,
                        tick(span),
                        tick(measured),
                        udp.arrivals_limit
                    ));
                }
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
                let (color, dashed, _) = style::arm(index);
                Some(Series {
                    label: arm.label.clone(),
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
            let id = format!(
                "delay-series-{}-{}{}",
                spec.kind, spec.size_bytes, group.suffix
            );
            let (factor, unit) = readable(largest_y(&series), "µs", "ms");
            scale_y(&mut series, factor);
            let chart = LineChart {
                name: id.clone(),
                x_label: "send time since the first packet (s)".to_string(),
                y_label: format!("one-way delay ({unit})"),
                x_log_ticks: None,
                x_ticks: Ticks::Number,
                y_ticks: Ticks::Number,
                x_from_zero: true,
                y_from_zero: true,
                zero_line: false,
                size: (640, 300),
                series,
                x_marks: Vec::new(),
            };
            let which = if coverage.is_empty() {
                "every packet of the first repetition".to_string()
            } else {
                format!(
                    "the stored packets of the first repetition — {}",
                    coverage.join("; ")
                )
            };
            let basis = point_clock_basis(view.run.trials.iter().filter(|t| t.point == point))
                .map_or_else(
                    || "both ends share one clock or were declared synchronised".to_string(),
                    clock_words,
                );
            figures.push(Figure {
                title: group.titled(format!("One-way delay over time, {}", spec.label())),
                caption: html! { (format!("Receive − send time of {which} (RFC 7679; {basis}).")) },
                facts: FigureFacts {
                    series_points: Some(min_points(&chart)),
                    ..FigureFacts::lines(chart.series.len())
                },
                svg: line::render(&chart)?,
                id,
            });
        }
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goodput_over_time_skips_a_largest_size_that_delivered_nothing() {
        // The session-9 default lab before its fix: 16384 B paced above the
        // link delivered nothing in either family and its chart was empty.
        let mut run = dualperf_fixtures::synthetic::small_synthetic_run();
        let udp: Vec<usize> = (0..run.config.points.len())
            .filter(|&i| run.config.points[i].kind == dualperf_model::TestKind::UdpStream)
            .collect();
        let (smallest, largest) = (udp[0], *udp.last().unwrap());
        let title = |run: &dualperf_model::RunResult| {
            goodput_over_time(&RunView::new(run))
                .unwrap()
                .into_iter()
                .find(|f| f.id == "time-series-udp-stream")
                .map(|f| f.title)
                .unwrap()
        };
        let size = |i: usize, run: &dualperf_model::RunResult| run.config.points[i].label();
        assert!(title(&run).contains(&size(largest, &run)));
        for trial in run.trials.iter_mut().filter(|t| t.point == largest) {
            if let TrialOutcome::Ok(observations) = &mut trial.outcome {
                for sample in &mut observations.intervals {
                    sample.received_bytes = 0;
                }
            }
        }
        assert!(
            title(&run).contains(&size(smallest, &run)),
            "{}",
            title(&run)
        );
    }

    #[test]
    fn axes_switch_to_the_next_unit_from_5000() {
        assert_eq!(readable(4_999.0, "µs", "ms"), (1.0, "µs"));
        assert_eq!(readable(300_000.0, "µs", "ms"), (1e-3, "ms"));
        assert_eq!(readable(40_000.0, "Mbit/s", "Gbit/s"), (1e-3, "Gbit/s"));
        let mut series = vec![Series {
            label: String::new(),
            color: style::arm(0).0,
            dashed: false,
            marker: Marker::None,
            points: vec![ChartPoint {
                x: 1.0,
                y: 40_000.0,
                ci: Some((39_000.0, 41_000.0)),
            }],
        }];
        scale_y(&mut series, 1e-3);
        assert_eq!(series[0].points[0].y, 40.0);
        assert_eq!(series[0].points[0].ci, Some((39.0, 41.0)));
        assert_eq!(series[0].points[0].x, 1.0);
    }
}
