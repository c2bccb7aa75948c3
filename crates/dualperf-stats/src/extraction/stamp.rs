//! The metrics only a STAMP session gives (`--peer stamp`): loss split by
//! direction (stateful reflectors), the reverse one-way delay, and the
//! Class-of-Service check (RFC 8972 §4.4). The round-trip and forward
//! metrics of the same trial are the udp-probe ones ([`crate::extraction`]).

use dualperf_model::{MetricId, StampObservations};

use crate::extraction::TrialMetrics;

/// Records the STAMP metrics of `stamp`.
pub(crate) fn record_stamp(metrics: &mut TrialMetrics, stamp: &StampObservations) {
    let stateless = match stamp.reflector_stateful {
        None => "no reply came back",
        _ => {
            "the reflector is stateless: it echoes the sender's numbers, so loss is round-trip only"
        }
    };
    metrics.record(
        MetricId::ForwardLossRatio,
        stamp.forward_loss_ratio(),
        stateless,
    );
    metrics.record(
        MetricId::ReverseLossRatio,
        stamp.reverse_loss_ratio(),
        stateless,
    );
    let reverse_owd = stamp
        .reverse
        .as_ref()
        .filter(|r| r.clocks_shared)
        .and_then(|r| {
            median(
                r.arrivals
                    .iter()
                    .map(|a| (a.received_ns - a.sent_ns) as f64),
            )
        });
    let no_reverse = if stamp.reverse.as_ref().is_some_and(|r| !r.clocks_shared) {
        "sender and reflector clocks are not shared or synchronised (RFC 7679 §3.7)"
    } else {
        stateless
    };
    metrics.record(MetricId::ReverseOwdP50Ns, reverse_owd, no_reverse);
    let cos = stamp.class_of_service.as_ref();
    let no_cos = match cos {
        None => "no reply carried a Class-of-Service TLV",
        Some(_) => "the reflector does not support the Class-of-Service TLV (U flag set)",
    };
    metrics.record(
        MetricId::DscpRemarkedRatio,
        cos.and_then(|c| c.remarked_ratio()),
        no_cos,
    );
    metrics.record(
        MetricId::EcnChangedRatio,
        cos.and_then(|c| c.ecn_changed_ratio()),
        no_cos,
    );
}

/// The median (lower of the middle two) of `values`.
fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut values: Vec<f64> = values.filter(|v| v.is_finite()).collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[(values.len() - 1) / 2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::{Arrival, UdpReceiveCounters};
    use dualperf_model::StampClassOfService;

    #[test]
    fn a_stateful_session_yields_every_stamp_metric() {
        let stamp = StampObservations {
            sent: 10,
            replies: 8,
            reflector_stateful: Some(true),
            reflector_received: Some(9),
            forward_lost: Some(1),
            reverse_lost: Some(1),
            reverse: Some(UdpReceiveCounters {
                clocks_shared: true,
                arrivals: (0..3)
                    .map(|i| Arrival {
                        sequence: i,
                        sent_ns: 0,
                        received_ns: 1000 * (i as i64 + 1),
                    })
                    .collect(),
                ..Default::default()
            }),
            class_of_service: Some(StampClassOfService {
                reported: 8,
                remarked: 8,
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut metrics = TrialMetrics::default();
        record_stamp(&mut metrics, &stamp);
        assert_eq!(metrics.value(MetricId::ForwardLossRatio), Some(0.1));
        assert_eq!(metrics.value(MetricId::ReverseOwdP50Ns), Some(2000.0));
        assert_eq!(metrics.value(MetricId::DscpRemarkedRatio), Some(1.0));
        assert_eq!(metrics.value(MetricId::EcnChangedRatio), Some(0.0));
    }

    #[test]
    fn a_stateless_session_says_why_the_split_is_missing() {
        let stamp = StampObservations {
            reflector_stateful: Some(false),
            ..Default::default()
        };
        let mut metrics = TrialMetrics::default();
        record_stamp(&mut metrics, &stamp);
        assert!(metrics
            .missing_reason(MetricId::ForwardLossRatio)
            .is_some_and(|r| r.contains("stateless")));
    }
}
