//! What values a quantity can take, so that no interval is drawn or printed
//! outside them: a rate, a delay, a count or a CPU time is never below 0, a
//! loss or reordering ratio lies in 0–100 %, a MOS in 1–4.5 (ITU-T G.107
//! E-model). A Student-t interval of a skewed quantity can cross such a
//! bound (`10.7 ± 45.9 %` loss); the values outside are impossible, so the
//! interval shown is its intersection with the range (still covering the
//! true mean at least as often), printed as its two ends, never as `±`.
//! One-way delays are not bounded below: between hosts with a clock offset
//! they can be negative.

use dualperf_model::{MetricId, Quantity, Summary};

/// The range `(lowest, highest)` a value of `metric` can take
/// (`±∞` where it is not bounded).
pub fn range(metric: MetricId) -> (f64, f64) {
    match metric.quantity() {
        Quantity::Count("MOS") => (1.0, 4.5),
        Quantity::Ratio if metric == MetricId::SoftirqRatio => (0.0, f64::INFINITY),
        Quantity::Ratio => (0.0, 1.0),
        Quantity::Nanoseconds if metric.name().contains("owd") => {
            (f64::NEG_INFINITY, f64::INFINITY)
        }
        _ => (0.0, f64::INFINITY),
    }
}

/// `(low, high)` limited to [`range`]`(metric)`, and whether either end
/// was moved.
pub fn clamp(metric: MetricId, (low, high): (f64, f64)) -> ((f64, f64), bool) {
    let (lowest, highest) = range(metric);
    let clamped = (low.max(lowest), high.min(highest));
    (clamped, clamped != (low, high))
}

/// A summary's 95 % CI limited to the metric's range (`None` without a CI:
/// fewer than 2 repetitions).
pub fn bounded_ci(metric: MetricId, summary: &Summary) -> Option<(f64, f64)> {
    summary
        .ci95_low
        .zip(summary.ci95_high)
        .map(|ci| clamp(metric, ci).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_rtt_and_mos_stay_inside_their_ranges() {
        // The examples: 10.7 ± 45.9 % loss, 1.92 ± 5.02 MOS.
        let ((low, high), moved) = clamp(MetricId::LossRatio, (0.107 - 0.459, 0.107 + 0.459));
        assert!(moved);
        assert_eq!(low, 0.0);
        assert!((high - 0.566).abs() < 1e-12);
        let ((low, high), moved) = clamp(MetricId::MediaFixedBufferMos, (1.92 - 5.02, 1.92 + 5.02));
        assert!(moved);
        assert_eq!((low, high), (1.0, 4.5));
        assert_eq!(
            clamp(MetricId::RttP50Ns, (-3_000.0, 50_000.0)),
            ((0.0, 50_000.0), true)
        );
        // Inside the range nothing moves.
        assert_eq!(
            clamp(MetricId::GoodputBps, (9.0e8, 9.5e8)),
            ((9.0e8, 9.5e8), false)
        );
    }

    #[test]
    fn one_way_delay_may_be_negative_between_offset_clocks() {
        assert_eq!(
            clamp(MetricId::OwdP50Ns, (-5_000.0, 1_000.0)),
            ((-5_000.0, 1_000.0), false)
        );
    }

    #[test]
    fn every_metric_has_a_range_that_holds_something() {
        for metric in MetricId::ALL {
            let (low, high) = range(*metric);
            assert!(low < high, "{metric}");
        }
    }
}
