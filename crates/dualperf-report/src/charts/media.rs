//! The throughput series of real-time media runs, the OpenH323 paper's
//! Figs 3–8: for every media point and family, the media flow's receive
//! rate per sampling interval (50 ms by default) alone and under each
//! competing load, and beside it the competing loads' own rate over the
//! same kind of interval.
//!
//! The media series counts Ethernet frames as a capture shows them
//! ([`captured_frame_overhead_bytes`]), so the header difference of the
//! families shows as it did in the paper (294- against 314-byte frames);
//! the loads are drawn as payload (goodput).
//!
//! Two charts rather than one: the media flow runs at tens of kbit/s, the
//! loads at megabits, and one linear axis would draw the media as a flat
//! line at zero. Each series is the first successful repetition.

use dualperf_model::{Arm, IntervalSample, IpFamily, Trial, TrialOutcome};

use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{style, Figure};
use crate::error::ReportError;
use crate::present::media::captured_frame_overhead_bytes;
use crate::view::RunView;

/// Receive rate per interval in `unit` bit/s against the interval's
/// middle, s: payload bytes plus `per_packet` bytes for every packet.
fn rate_points(samples: &[IntervalSample], unit: f64, per_packet: u64) -> Vec<ChartPoint> {
    samples
        .iter()
        .filter(|s| s.length_ns > 0)
        .map(|s| {
            let bytes = s.received_bytes + s.received_packets * per_packet;
            ChartPoint::new(
                (s.end_ns as f64 - s.length_ns as f64 / 2.0) / 1e9,
                bytes as f64 * 8.0 / (s.length_ns as f64 / 1e9) / unit,
            )
        })
        .collect()
}

/// The first successful trial of `arm` at `point`.
fn first_trial<'a>(view: &RunView<'a>, point: usize, arm: &Arm) -> Option<&'a Trial> {
    view.run
        .trials
        .iter()
        .filter(|t| t.point == point && t.arm == arm.id && matches!(t.outcome, TrialOutcome::Ok(_)))
        .min_by_key(|t| t.repetition)
}

fn chart(name: String, y_label: &str, series: Vec<Series>, x_label: &str) -> LineChart {
    LineChart {
        name,
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        x_log_ticks: None,
        x_ticks: Ticks::Number,
        y_ticks: Ticks::Number,
        x_from_zero: true,
        y_from_zero: true,
        zero_line: false,
        size: (640, 320),
        series,
    }
}

/// The media-flow and competing-load series of every media point, per family.
pub(crate) fn media_series(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for (point, spec) in view.run.config.points.iter().enumerate() {
        if spec.kind != dualperf_model::TestKind::Media {
            continue;
        }
        for family in IpFamily::ALL {
            let arms: Vec<(usize, &Arm)> = view
                .arms()
                .iter()
                .enumerate()
                .filter(|(_, arm)| arm.family == family)
                .collect();
            let mut media = Vec::new();
            let mut loads = Vec::new();
            let interval_ms = spec.sample_interval_ms;
            for &(index, arm) in &arms {
                let Some(trial) = first_trial(view, point, arm) else {
                    continue;
                };
                let TrialOutcome::Ok(observations) = &trial.outcome else {
                    continue;
                };
                let (color, dashed, _) = style::arm(index);
                let points = rate_points(
                    &observations.intervals,
                    1e3,
                    captured_frame_overhead_bytes(family),
                );
                if points.len() >= 2 {
                    media.push(Series {
                        label: arm.label.clone(),
                        color,
                        dashed,
                        marker: Marker::None,
                        points,
                    });
                }
                for load in &observations.loads {
                    let points = rate_points(&load.observations.intervals, 1e6, 0);
                    if points.len() >= 2 {
                        loads.push(Series {
                            label: format!("{} (beside {})", load.label, arm.label),
                            color,
                            dashed,
                            marker: Marker::None,
                            points,
                        });
                    }
                }
            }
            let media_chart = chart(
                format!("media-series-{point}-{}", family.key()),
                "Ethernet frames received (kbit/s)",
                media,
                "time since the media flow's measured interval began (s)",
            );
            if !media_chart.is_empty() {
                let id = media_chart.name.clone();
                figures.push(Figure {
                    title: format!("{} {} received per {interval_ms} ms", family.label(), spec.label()),
                    caption: format!(
                        "The media flow as a capture on the link counts it: per {interval_ms} ms interval, the UDP payload received (RTP header included) plus {} bytes of Ethernet, IP and UDP header per packet, × 8 / interval; first repetition of each condition. The paper's Figs 3–7: IPv6's 20 more header bytes per packet raise the rate of the same stream.",
                        captured_frame_overhead_bytes(family)
                    ),
                    data: vec![("series", media_chart.series.len().to_string())],
                    svg: line::render(&media_chart)?,
                    id,
                });
            }
            let load_chart = chart(
                format!("load-series-{point}-{}", family.key()),
                "received (Mbit/s)",
                loads,
                "time since the load's measured interval began (s; it starts before the media flow's)",
            );
            if !load_chart.is_empty() {
                let id = load_chart.name.clone();
                figures.push(Figure {
                    title: format!("{} competing loads beside {}", family.label(), spec.label()),
                    caption: format!(
                        "Each competing load's payload received per {interval_ms} ms interval × 8 / interval, in the run beside the media flow's first repetition; the paper's Fig 8."
                    ),
                    data: vec![("series", load_chart.series.len().to_string())],
                    svg: line::render(&load_chart)?,
                    id,
                });
            }
        }
    }
    Ok(figures)
}
