//! Distributions: the round-trip-time CDF of every request/response point
//! (from the trials' HDR histograms, all repetitions of a family merged), and
//! the packet-delay-variation CDF (RFC 5481 PDV, D(i) − D(min) within each
//! trial) of every point with per-packet arrivals on a shared clock.

use std::collections::BTreeMap;

use dualperf_model::{IpFamily, TrialOutcome};

use crate::charts::line::{self, ChartPoint, LegendCorner, LineChart, Marker, Series};
use crate::charts::{style, Figure};
use crate::error::ReportError;
use crate::quantity;
use crate::view::{self, RunView};

/// The merged histogram of one point and family: value (ns) → count.
fn merged(view: &RunView<'_>, point: usize, family: IpFamily) -> BTreeMap<u64, u64> {
    let mut buckets = BTreeMap::new();
    for trial in view
        .run
        .trials
        .iter()
        .filter(|t| t.point == point && t.family == family)
    {
        if let TrialOutcome::Ok(observations) = &trial.outcome {
            for bucket in observations.latency.iter().flat_map(|l| l.histogram.iter()) {
                *buckets.entry(bucket.value_ns).or_insert(0) += bucket.count;
            }
        }
    }
    buckets
}

/// Cumulative share (0..=1) at each bucket value, as chart points in µs.
fn cdf(buckets: &BTreeMap<u64, u64>) -> Vec<ChartPoint> {
    let total: u64 = buckets.values().sum();
    let mut seen = 0;
    let mut points = Vec::new();
    for (&value, &count) in buckets {
        if points.is_empty() {
            points.push(ChartPoint::new(value as f64 / 1e3, 0.0));
        }
        seen += count;
        points.push(ChartPoint::new(
            value as f64 / 1e3,
            seen as f64 / total as f64 * 100.0,
        ));
    }
    points
}

/// One CDF chart per request/response point that has histograms.
pub(crate) fn rtt_cdfs(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for kind in view::RR_KINDS {
        for (point, spec) in view.sweep(kind) {
            let series: Vec<Series> = IpFamily::ALL
                .into_iter()
                .map(|family| {
                    let (color, dashed, _) = style::family(family);
                    Series {
                        label: family.label().to_string(),
                        color,
                        dashed,
                        marker: Marker::None,
                        points: cdf(&merged(view, point, family)),
                    }
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            let id = format!("rtt-cdf-{}-{}", kind, spec.size_bytes);
            let chart = LineChart {
                name: id.clone(),
                x_label: "round-trip time (µs)".to_string(),
                y_label: "transactions at or below (%)".to_string(),
                x_log_ticks: None,
                x_format: quantity::tick,
                y_format: quantity::tick,
                y_from_zero: true,
                zero_line: false,
                legend: LegendCorner::LowerRight,
                size: (420, 300),
                series,
            };
            if chart.is_empty() {
                continue;
            }
            figures.push(Figure {
                title: format!("RTT distribution, {}", spec.label()),
                caption: "Cumulative distribution of per-transaction round-trip times from the HDR histograms (3 significant digits) of all repetitions.".to_string(),
                svg: line::render(&chart)?,
                id,
            });
        }
    }
    Ok(figures)
}

/// PDV samples (D(i) − D(min) within each trial, ns) of one point and family,
/// from arrivals on a shared clock only (one-way delay needs one clock).
fn pdv_samples(view: &RunView<'_>, point: usize, family: IpFamily) -> Vec<u64> {
    let mut samples = Vec::new();
    for trial in view
        .run
        .trials
        .iter()
        .filter(|t| t.point == point && t.family == family)
    {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        let Some(udp) = observations
            .udp
            .as_ref()
            .filter(|u| u.clocks_shared && !u.arrivals.is_empty())
        else {
            continue;
        };
        let delays: Vec<i64> = udp
            .arrivals
            .iter()
            .map(|a| a.received_ns - a.sent_ns)
            .collect();
        let minimum = delays.iter().copied().min().unwrap_or(0);
        samples.extend(delays.iter().map(|d| (d - minimum) as u64));
    }
    samples
}

/// One PDV CDF per point that has arrivals.
pub(crate) fn pdv_cdfs(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for (point, spec) in view.run.config.points.iter().enumerate() {
        let series: Vec<Series> = IpFamily::ALL
            .into_iter()
            .filter_map(|family| {
                let samples = pdv_samples(view, point, family);
                if samples.is_empty() {
                    return None;
                }
                let mut buckets = BTreeMap::new();
                for sample in samples {
                    // 100 ns resolution keeps the SVG small.
                    *buckets.entry(sample / 100 * 100).or_insert(0) += 1;
                }
                let (color, dashed, _) = style::family(family);
                Some(Series {
                    label: family.label().to_string(),
                    color,
                    dashed,
                    marker: Marker::None,
                    points: cdf(&buckets),
                })
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        let id = format!("pdv-cdf-{}-{}", spec.kind, spec.size_bytes);
        let chart = LineChart {
            name: id.clone(),
            x_label: "delay above the trial's minimum (µs)".to_string(),
            y_label: "packets at or below (%)".to_string(),
            x_log_ticks: None,
            x_format: quantity::tick,
            y_format: quantity::tick,
            y_from_zero: true,
            zero_line: false,
            legend: LegendCorner::LowerRight,
            size: (420, 300),
            series,
        };
        figures.push(Figure {
            title: format!("Packet delay variation, {}", spec.label()),
            caption: "RFC 5481 PDV: each packet's one-way delay (RFC 7679, receive − send time on the shared clock) minus the smallest delay of its trial; all repetitions.".to_string(),
            svg: line::render(&chart)?,
            id,
        });
    }
    Ok(figures)
}
