//! Distributions: the round-trip-time CDF of every request/response point
//! (from the trials' HDR histograms, all repetitions of an arm merged), and
//! the packet-delay-variation CDF (RFC 5481 PDV, D(i) − D(min) within each
//! trial) of every point with per-packet arrivals on a shared clock. One
//! line per arm.
//!
//! Readable at defaults (issue 15): the x axis ends at the largest arm's
//! 99.9th percentile, so that one 20 ms outlier does not squash the body
//! of the distribution into a vertical line at zero; when the body itself
//! spans more than a factor of 20 (a long tail) the axis is logarithmic.
//! The caption says where the axis was cut and what lies beyond.

use std::collections::BTreeMap;

use dualperf_model::{ArmId, Quantity, TrialOutcome};
use maud::html;

use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{arm_groups, style, Figure, FigureFacts};
use crate::error::ReportError;
use crate::present::axis::tick;
use crate::present::value::format_quantity;
use crate::view::{self, RunView};

/// The quantile at which the x axis ends.
const CLIP_QUANTILE: f64 = 0.999;
/// A clipped range wider than this factor gets a logarithmic axis.
const LOG_RANGE: f64 = 20.0;

/// The merged histogram of one point and arm: value (ns) → count.
fn merged(view: &RunView<'_>, point: usize, arm: &ArmId) -> BTreeMap<u64, u64> {
    let mut buckets = BTreeMap::new();
    for trial in view
        .run
        .trials
        .iter()
        .filter(|t| t.point == point && &t.arm == arm)
    {
        if let TrialOutcome::Ok(observations) = &trial.outcome {
            for bucket in observations.latency.iter().flat_map(|l| l.histogram.iter()) {
                *buckets.entry(bucket.value_ns).or_insert(0) += bucket.count;
            }
        }
    }
    buckets
}

/// The smallest value at or below which `quantile` of the counts lie.
fn quantile(buckets: &BTreeMap<u64, u64>, quantile: f64) -> Option<u64> {
    let total: u64 = buckets.values().sum();
    let rank = ((total as f64) * quantile).ceil().max(1.0) as u64;
    let mut seen = 0;
    for (&value, &count) in buckets {
        seen += count;
        if seen >= rank {
            return Some(value);
        }
    }
    buckets.keys().next_back().copied()
}

/// Cumulative share (0..=100 %) at each bucket value up to `clip`, as chart
/// points in µs.
fn cdf(buckets: &BTreeMap<u64, u64>, clip: u64) -> Vec<ChartPoint> {
    let total: u64 = buckets.values().sum();
    let mut seen = 0;
    let mut points = Vec::new();
    for (&value, &count) in buckets {
        if value > clip {
            break;
        }
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

/// 1, 2, 5 × 10ⁿ between `low` and `high`; only 10ⁿ over more than two
/// decades, where the labels of 1-2-5 ticks run into each other.
fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut power = 10f64.powf(low.max(1e-9).log10().floor());
    let steps: &[f64] = if high / low.max(1e-9) > 100.0 {
        &[1.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    // At most 40 decades: a value near f64::MAX (a crafted result) made
    // `high * 1.5` infinite and this loop endless.
    let mut decades = 0;
    while power <= high * 1.5 && decades < 40 {
        decades += 1;
        for &m in steps {
            let t = m * power;
            if t >= low / 1.5 && t <= high * 1.5 {
                ticks.push(t);
            }
        }
        power *= 10.0;
    }
    ticks
}

/// One CDF chart from per-arm histograms (value in ns → count), clipped
/// at the largest arm's p99.9.
fn cdf_figure(
    histograms: Vec<(usize, String, BTreeMap<u64, u64>)>,
    (id, title): (String, String),
    (x_label, y_label): (&str, &str),
    caption: &str,
) -> Result<Option<Figure>, ReportError> {
    let histograms: Vec<_> = histograms
        .into_iter()
        .filter(|(_, _, b)| !b.is_empty())
        .collect();
    let Some(clip) = histograms
        .iter()
        .filter_map(|(_, _, b)| quantile(b, CLIP_QUANTILE))
        .max()
    else {
        return Ok(None);
    };
    let largest = histograms
        .iter()
        .filter_map(|(_, _, b)| b.keys().next_back().copied())
        .max()
        .unwrap_or(clip);
    let median = histograms
        .iter()
        .filter_map(|(_, _, b)| quantile(b, 0.5))
        .max()
        .unwrap_or(clip);
    let mut series: Vec<Series> = histograms
        .iter()
        .map(|(index, label, buckets)| {
            let (color, dashed, _) = style::arm(*index);
            Series {
                label: label.clone(),
                color,
                dashed,
                marker: Marker::None,
                points: cdf(buckets, clip),
            }
        })
        .collect();
    // The smallest positive value: a PDV distribution starts at 0 (the
    // trial's fastest packet), which a log axis cannot place.
    let low = series
        .iter()
        .flat_map(|s| s.points.iter().find(|p| p.x > 0.0))
        .map(|p| p.x)
        .fold(f64::MAX, f64::min);
    let high = clip as f64 / 1e3;
    let log = low < f64::MAX && high / low > LOG_RANGE;
    // ms from 5000 µs on: no axis reads 300000 µs.
    let (factor, unit) = crate::charts::time_series::readable(high, "µs", "ms");
    if log {
        // Values at 0 sit at the axis' left end, with their share.
        for point in series.iter_mut().flat_map(|s| s.points.iter_mut()) {
            point.x = point.x.max(low);
        }
    }
    for point in series.iter_mut().flat_map(|s| s.points.iter_mut()) {
        point.x *= factor;
    }
    let chart = LineChart {
        name: id.clone(),
        x_label: format!("{x_label} ({unit}{})", if log { ", log scale" } else { "" }),
        y_label: y_label.to_string(),
        x_log_ticks: log.then(|| log_ticks(low * factor, high * factor)),
        x_ticks: Ticks::Number,
        y_ticks: Ticks::Number,
        x_from_zero: false,
        y_from_zero: true,
        zero_line: false,
        size: (420, 300),
        series,
        x_marks: Vec::new(),
    };
    if chart.is_empty() {
        return Ok(None);
    }
    let beyond = if largest > clip {
        format!(
            " The axis ends at the 99.9th percentile ({}); the largest value, {}, lies beyond.",
            format_quantity(Quantity::Nanoseconds, clip as f64),
            format_quantity(Quantity::Nanoseconds, largest as f64)
        )
    } else {
        String::new()
    };
    let points = chart
        .series
        .iter()
        .map(|s| s.points.len())
        .min()
        .unwrap_or(0);
    Ok(Some(Figure {
        title,
        caption: html! { (caption) (beyond) },
        facts: FigureFacts {
            series: chart.series.len(),
            series_points: Some(points),
            x_max_us: Some(tick(high)),
            p50_us: Some(tick(median as f64 / 1e3)),
            largest_us: Some(tick(largest as f64 / 1e3)),
            x_log: Some(log),
        },
        svg: line::render(&chart)?,
        id,
    }))
}

/// One CDF chart per request/response point that has histograms.
pub(crate) fn rtt_cdfs(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for kind in view::RR_KINDS {
        for (point, spec) in view.sweep(kind) {
            for group in arm_groups(view, 1) {
                let histograms = group
                    .arms
                    .iter()
                    .enumerate()
                    .map(|(index, arm)| (index, arm.label.clone(), merged(view, point, &arm.id)))
                    .collect();
                figures.extend(cdf_figure(
                histograms,
                (
                    format!("rtt-cdf-{}-{}{}", kind, spec.size_bytes, group.suffix),
                    group.titled(format!("RTT distribution, {}", spec.label())),
                ),
                ("round-trip time", "transactions at or below (%)"),
                "Cumulative distribution of per-transaction round-trip times from the HDR histograms (3 significant digits) of all repetitions.",
            )?);
            }
        }
    }
    Ok(figures)
}

/// PDV samples (D(i) − D(min) within each trial, ns) of one point and arm,
/// from arrivals on a shared clock only (one-way delay needs one clock),
/// in 100 ns buckets (keeps the SVG small).
fn pdv_histogram(view: &RunView<'_>, point: usize, arm: &ArmId) -> BTreeMap<u64, u64> {
    let mut buckets = BTreeMap::new();
    for trial in view
        .run
        .trials
        .iter()
        .filter(|t| t.point == point && &t.arm == arm)
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
        for delay in delays {
            let sample = (delay - minimum) as u64;
            *buckets.entry(sample / 100 * 100).or_insert(0) += 1;
        }
    }
    buckets
}

/// One PDV CDF per point that has arrivals.
pub(crate) fn pdv_cdfs(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for (point, spec) in view.run.config.points.iter().enumerate() {
        for group in arm_groups(view, 1) {
            let histograms = group
                .arms
                .iter()
                .enumerate()
                .map(|(index, arm)| {
                    (
                        index,
                        arm.label.clone(),
                        pdv_histogram(view, point, &arm.id),
                    )
                })
                .collect();
            figures.extend(cdf_figure(
            histograms,
            (
                format!("pdv-cdf-{}-{}{}", spec.kind, spec.size_bytes, group.suffix),
                group.titled(format!("Packet delay variation, {}", spec.label())),
            ),
            ("delay above the trial's minimum", "packets at or below (%)"),
            "RFC 5481 PDV: each stored packet's one-way delay (RFC 7679, receive − send time on the shared clock) minus the smallest delay of its trial; all repetitions.",
        )?);
        }
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_end_for_values_near_the_largest_float() {
        let ticks = log_ticks(1.0, f64::MAX);
        assert!(!ticks.is_empty() && ticks.len() <= 120, "{}", ticks.len());
        assert!(log_ticks(f64::NAN, f64::INFINITY).len() <= 120);
    }

    #[test]
    fn quantiles_follow_the_nearest_rank() {
        let buckets: BTreeMap<u64, u64> = [(10, 500), (20, 499), (20_000, 1)].into_iter().collect();
        assert_eq!(quantile(&buckets, 0.5), Some(10));
        assert_eq!(quantile(&buckets, 0.999), Some(20));
        assert_eq!(quantile(&buckets, 1.0), Some(20_000));
    }

    #[test]
    fn one_outlier_does_not_stretch_the_axis() {
        let buckets: BTreeMap<u64, u64> = [(40_000, 600), (50_000, 399), (20_000_000, 1)]
            .into_iter()
            .collect();
        let clip = quantile(&buckets, CLIP_QUANTILE).unwrap();
        let points = cdf(&buckets, clip);
        assert_eq!(points.last().unwrap().x, 50.0);
    }

    #[test]
    fn a_distribution_from_zero_with_a_long_tail_gets_a_log_axis() {
        // PDV: most packets 0–200 µs above the minimum, a tail to 30 ms.
        let narrow: BTreeMap<u64, u64> = [(0, 400), (100_000, 500), (200_000, 100)]
            .into_iter()
            .collect();
        let wide: BTreeMap<u64, u64> = [(0, 10), (5_000_000, 500), (30_000_000, 490)]
            .into_iter()
            .collect();
        let figure = cdf_figure(
            vec![(0, "alone".into(), narrow), (1, "loaded".into(), wide)],
            ("pdv".into(), "PDV".into()),
            ("delay", "%"),
            "",
        )
        .unwrap()
        .unwrap();
        assert_eq!(figure.facts.x_log, Some(true));
    }

    #[test]
    fn log_ticks_are_one_two_five() {
        assert_eq!(
            log_ticks(40.0, 2_000.0),
            [50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0]
        );
        // Over more than two decades only the powers of ten are labelled.
        assert_eq!(log_ticks(20.0, 50_000.0), [100.0, 1_000.0, 10_000.0]);
    }
}
