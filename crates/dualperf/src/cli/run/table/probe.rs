//! Table rows of a udp-probe point: the IPPM metrics of the probe trace,
//! computed by the stats crate's trace functions from the raw arrivals.
//!
//! | row | definition |
//! |---|---|
//! | one-way delay p50 / p99 | RFC 7679; only when both ends share a clock |
//! | PDV p99 | RFC 5481 `D(i) − D(min)` |
//! | IPDV p99 | RFC 3393 `|D(i) − D(i−1)|` (no clock needed) |
//! | jitter | RFC 3550 §6.4.1 |
//! | loss | RFC 7680, 2 s waiting time |
//! | reordered | RFC 4737 reordered / received |

use dualperf_model::Observations;
use dualperf_stats::ippm::trace::{trace_metrics, TraceMetrics, TraceParameters};

use super::{Extractor, Unit};

/// The IPPM metrics of a probe trial's arrivals, `None` without a trace.
pub fn probe_metrics(o: &Observations) -> Option<TraceMetrics> {
    let udp = o.udp.as_ref()?;
    if udp.arrivals.is_empty() && udp.sent == 0 {
        return None;
    }
    let parameters = TraceParameters {
        waiting_time_ns: udp.loss_wait_ms as i64 * 1_000_000,
        clocks_shared: udp.clocks_shared,
    };
    Some(trace_metrics(&udp.arrivals, udp.sent, parameters))
}

/// The rows of a udp-probe point.
pub fn probe_rows() -> Vec<(&'static str, &'static str, Unit, Extractor)> {
    vec![
        ("owd_p50_ns", "one-way delay p50", Unit::Nanoseconds, |o| {
            probe_metrics(o)?.one_way_delay.map(|d| d.p50_ns)
        }),
        ("owd_p99_ns", "one-way delay p99", Unit::Nanoseconds, |o| {
            probe_metrics(o)?.one_way_delay.map(|d| d.p99_ns)
        }),
        ("pdv_p99_ns", "PDV p99 (RFC 5481)", Unit::Nanoseconds, |o| {
            probe_metrics(o)?.pdv.map(|d| d.p99_ns)
        }),
        (
            "ipdv_p99_ns",
            "|IPDV| p99 (RFC 3393)",
            Unit::Nanoseconds,
            |o| probe_metrics(o)?.ipdv_absolute.map(|d| d.p99_ns),
        ),
        ("jitter_ns", "jitter (RFC 3550)", Unit::Nanoseconds, |o| {
            o.udp.as_ref().map(|u| u.jitter_ns as f64)
        }),
        ("loss_ratio", "loss (RFC 7680)", Unit::Ratio, |o| {
            o.udp
                .as_ref()
                .and_then(|u| (u.sent > 0).then(|| u.lost as f64 / u.sent as f64))
        }),
        (
            "reordered_ratio",
            "reordered (RFC 4737)",
            Unit::Ratio,
            |o| {
                o.udp
                    .as_ref()
                    .and_then(|u| (u.received > 0).then(|| u.reordered as f64 / u.received as f64))
            },
        ),
        ("received_pps", "probes received /s", Unit::Rate, |o| {
            Some(o.receiver.packets as f64 / super::seconds(o))
        }),
    ]
}

/// The probe stream that ran alongside a load trial, as its own observations.
fn under_load(o: &Observations) -> Option<Observations> {
    let probe = o.probe.as_ref()?;
    Some(Observations {
        measured_ns: o.measured_ns,
        udp: Some(probe.udp.clone()),
        ..Observations::default()
    })
}

/// Rows of a load point that ran with a probe alongside (`--probe`).
pub fn under_load_rows() -> Vec<(&'static str, &'static str, Unit, Extractor)> {
    vec![
        (
            "probe_owd_p50_ns",
            "probe OWD p50 (loaded)",
            Unit::Nanoseconds,
            |o| {
                probe_metrics(&under_load(o)?)?
                    .one_way_delay
                    .map(|d| d.p50_ns)
            },
        ),
        (
            "probe_owd_p99_ns",
            "probe OWD p99 (loaded)",
            Unit::Nanoseconds,
            |o| {
                probe_metrics(&under_load(o)?)?
                    .one_way_delay
                    .map(|d| d.p99_ns)
            },
        ),
        (
            "probe_ipdv_p99_ns",
            "probe |IPDV| p99",
            Unit::Nanoseconds,
            |o| {
                probe_metrics(&under_load(o)?)?
                    .ipdv_absolute
                    .map(|d| d.p99_ns)
            },
        ),
        (
            "probe_jitter_ns",
            "probe jitter (RFC 3550)",
            Unit::Nanoseconds,
            |o| o.probe.as_ref().map(|p| p.udp.jitter_ns as f64),
        ),
        (
            "probe_loss_ratio",
            "probe loss (loaded)",
            Unit::Ratio,
            |o| {
                let udp = &o.probe.as_ref()?.udp;
                (udp.sent > 0).then(|| udp.lost as f64 / udp.sent as f64)
            },
        ),
    ]
}

/// Why the one-way delay rows are empty, when they are: a line for the
/// table under the point.
pub fn missing_owd_reason(trials: &[&Observations]) -> Option<String> {
    let unshared = trials
        .iter()
        .flat_map(|o| [o.udp.as_ref(), o.probe.as_ref().map(|p| &p.udp)])
        .flatten()
        .any(|u| !u.clocks_shared);
    unshared.then(|| {
        "one-way delay n/a: clocks not shared (the two ends run on different kernels); \
         PDV, IPDV, jitter, loss and reordering need no shared clock"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::Arrival;
    use dualperf_model::UdpReceiveCounters;

    fn probe_trial(clocks_shared: bool) -> Observations {
        // Four probes 10 ms apart with one-way delays 1, 3, 2 and 2 ms.
        let arrivals = [1, 3, 2, 2]
            .iter()
            .enumerate()
            .map(|(i, ms)| Arrival {
                sequence: i as u64,
                sent_ns: i as i64 * 10_000_000,
                received_ns: i as i64 * 10_000_000 + ms * 1_000_000,
            })
            .collect();
        Observations {
            measured_ns: 40_000_000,
            udp: Some(UdpReceiveCounters {
                sent: 5,
                received: 4,
                lost: 1,
                arrivals,
                loss_wait_ms: 2_000,
                clocks_shared,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn value(o: &Observations, metric: &str) -> Option<f64> {
        let rows = probe_rows();
        let (_, _, _, extract) = rows.iter().find(|r| r.0 == metric).unwrap();
        extract(o)
    }

    #[test]
    fn probe_rows_read_delay_variation_and_loss_from_the_trace() {
        let o = probe_trial(true);
        let close = |metric: &str, expected_ms: f64| {
            let got = value(&o, metric).unwrap() / 1e6;
            assert!((got - expected_ms).abs() < 1e-9, "{metric}: {got} ms");
        };
        // Percentiles interpolate linearly between ranks (the stats crate's
        // rule): sorted OWD 1, 2, 2, 3 ms → p50 at rank 1.5 = 2 ms.
        close("owd_p50_ns", 2.0);
        // PDV D(i) − Dmin sorted 0, 1, 1, 2 ms → p99 at rank 2.97 = 1.97 ms.
        close("pdv_p99_ns", 1.97);
        // |IPDV| sorted 0, 1, 2 ms → p99 at rank 1.98 = 1.98 ms.
        close("ipdv_p99_ns", 1.98);
        assert_eq!(value(&o, "loss_ratio"), Some(0.2));
        assert_eq!(missing_owd_reason(&[&o]), None);
    }

    #[test]
    fn without_a_shared_clock_one_way_delay_is_empty_and_the_table_says_why() {
        let o = probe_trial(false);
        assert_eq!(value(&o, "owd_p50_ns"), None);
        assert!(value(&o, "ipdv_p99_ns").is_some());
        let reason = missing_owd_reason(&[&o]).unwrap();
        assert!(reason.contains("clocks not shared"), "{reason}");
    }
}
