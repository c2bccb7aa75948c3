//! Every IPPM metric of one probe or stream trace, computed together.
//!
//! Order of operations, following the RFCs' rules on what each metric sees:
//! 1. duplicates are counted and removed (RFC 4737 §3.3, RFC 5560);
//! 2. reordering (RFC 4737) and jitter (RFC 3550) run on the first copies in
//!    arrival order, late ones included (they did arrive);
//! 3. loss (RFC 7680) applies the waiting time when the clocks are shared;
//! 4. delay metrics (RFC 7679, RFC 5481, RFC 3393) run on the packets that
//!    arrived in time; one-way delay itself only with shared clocks.

use dualperf_model::observation::Arrival;

use super::delay::{
    ip_delay_variation_ns, one_way_delays_ns, packet_delay_variation_ns, DelayDistribution,
};
use super::duplicates::first_copies;
use super::jitter::interarrival_jitter_ns;
use super::loss::{loss_of, Loss, DEFAULT_WAITING_TIME_NS};
use super::reordering::{reordering_of, Reordering};

/// The choices RFC 7680 and RFC 7679 leave open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceParameters {
    /// Loss waiting time, nanoseconds (default 2 s).
    pub waiting_time_ns: i64,
    /// True when send and receive timestamps come from one clock (same host,
    /// same kernel) or synchronised clocks: one-way delay and the waiting
    /// time are then meaningful.
    pub clocks_shared: bool,
}

impl Default for TraceParameters {
    fn default() -> Self {
        TraceParameters {
            waiting_time_ns: DEFAULT_WAITING_TIME_NS,
            clocks_shared: false,
        }
    }
}

/// The IPPM metrics of one trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceMetrics {
    /// Datagrams sent.
    pub sent: u64,
    /// Duplicate copies received.
    pub duplicates: u64,
    /// RFC 7680 loss and loss episodes.
    pub loss: Loss,
    /// RFC 4737 reordering.
    pub reordering: Reordering,
    /// RFC 3550 interarrival jitter at the end of the trace, nanoseconds.
    pub jitter_ns: Option<f64>,
    /// RFC 7679 one-way delay; `None` unless the clocks are shared.
    pub one_way_delay: Option<DelayDistribution>,
    /// RFC 5481 PDV, `D(i) − D(min)`.
    pub pdv: Option<DelayDistribution>,
    /// RFC 3393 IPDV, as the distribution of |D(i) − D(i−1)|.
    pub ipdv_absolute: Option<DelayDistribution>,
}

impl TraceMetrics {
    /// RFC 8219 §5 PDV summary `D(99.9th percentile) − D(min)`, nanoseconds.
    pub fn pdv_999_ns(&self) -> Option<f64> {
        self.pdv.map(|pdv| pdv.p999_ns)
    }
}

/// Computes every IPPM metric of `arrivals` (in arrival order) for the
/// datagrams `0..sent`.
pub fn trace_metrics(arrivals: &[Arrival], sent: u64, parameters: TraceParameters) -> TraceMetrics {
    let (first, duplicates) = first_copies(arrivals);
    let waiting_time = parameters
        .clocks_shared
        .then_some(parameters.waiting_time_ns);
    let in_time: Vec<Arrival> = first
        .iter()
        .copied()
        .filter(|a| a.sequence < sent)
        .filter(|a| waiting_time.is_none_or(|wait| a.received_ns - a.sent_ns <= wait))
        .collect();
    let one_way_delay = parameters
        .clocks_shared
        .then(|| DelayDistribution::of(&one_way_delays_ns(&in_time)))
        .flatten();
    let ipdv_absolute: Vec<f64> = ip_delay_variation_ns(&in_time)
        .iter()
        .map(|v| v.abs())
        .collect();
    TraceMetrics {
        sent,
        duplicates,
        loss: loss_of(&first, sent, waiting_time),
        reordering: reordering_of(&first),
        jitter_ns: interarrival_jitter_ns(&first),
        one_way_delay,
        pdv: DelayDistribution::of(&packet_delay_variation_ns(&in_time)),
        ipdv_absolute: DelayDistribution::of(&ipdv_absolute),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn counts_always_add_up(
            received in prop::collection::vec((0u64..200, 0i64..3_000_000_000), 0..300),
            sent in 0u64..200,
        ) {
            let arrivals: Vec<Arrival> = received
                .iter()
                .map(|&(sequence, delay)| Arrival { sequence, sent_ns: 0, received_ns: delay })
                .collect();
            let parameters = TraceParameters { waiting_time_ns: 2_000_000_000, clocks_shared: true };
            let m = trace_metrics(&arrivals, sent, parameters);
            prop_assert_eq!(m.loss.lost + m.loss.received_in_time, sent);
            prop_assert!(m.loss.late <= m.loss.lost);
            prop_assert_eq!(m.loss.episodes.iter().map(|e| e.length).sum::<u64>(), m.loss.lost);
            prop_assert_eq!(m.reordering.received + m.duplicates, arrivals.len() as u64);
            prop_assert!(m.reordering.reordered <= m.reordering.received);
            prop_assert!(m.jitter_ns.is_none_or(|j| j >= 0.0 && j.is_finite()));
        }

        #[test]
        fn a_trace_in_sending_order_has_no_reordering(
            sequences in prop::collection::btree_set(0u64..10_000, 0..200),
        ) {
            let arrivals: Vec<Arrival> = sequences
                .iter()
                .map(|&sequence| Arrival { sequence, sent_ns: 0, received_ns: 1 })
                .collect();
            let m = trace_metrics(&arrivals, 10_000, TraceParameters::default());
            prop_assert_eq!(m.reordering.reordered, 0);
            prop_assert_eq!(m.duplicates, 0);
        }
    }

    fn probe(sequence: u64, delay_ns: i64, order: i64) -> Arrival {
        let sent_ns = sequence as i64 * 10_000_000;
        Arrival {
            sequence,
            sent_ns,
            received_ns: sent_ns + delay_ns + order,
        }
    }

    #[test]
    fn a_hand_made_trace_gives_every_metric() {
        // Sent 0..6. Arrivals: 0, 2, 1 (reordered), 2 again (duplicate),
        // 3 late (3 s > 2 s waiting time), 5. Lost: 3 (late) and 4 → one
        // episode of two.
        let arrivals = [
            probe(0, 1_000, 0),
            probe(2, 1_000, 0),
            probe(1, 25_000_000, 0),
            probe(2, 1_000, 5),
            probe(3, 3_000_000_000, 0),
            probe(5, 1_500, 0),
        ];
        let metrics = trace_metrics(
            &arrivals,
            6,
            TraceParameters {
                waiting_time_ns: 2_000_000_000,
                clocks_shared: true,
            },
        );
        assert_eq!(metrics.duplicates, 1);
        assert_eq!(metrics.reordering.reordered, 1);
        assert_eq!(metrics.reordering.received, 5);
        assert_eq!(metrics.loss.lost, 2);
        assert_eq!(metrics.loss.late, 1);
        assert_eq!(metrics.loss.episodes.len(), 1);
        assert_eq!(metrics.loss.loss_ratio(), Some(2.0 / 6.0));
        let delay = metrics.one_way_delay.unwrap();
        assert_eq!(delay.count, 4);
        assert_eq!(delay.min_ns, 1_000.0);
        assert_eq!(delay.max_ns, 25_000_000.0);
        assert_eq!(metrics.pdv.unwrap().min_ns, 0.0);
        // IPDV pairs (0,1) and (1,2): +24 999 000 and −24 999 000.
        let ipdv = metrics.ipdv_absolute.unwrap();
        assert_eq!(ipdv.count, 2);
        assert_eq!(ipdv.min_ns, 24_999_000.0);
    }

    #[test]
    fn without_shared_clocks_there_is_no_one_way_delay_and_no_waiting_time() {
        let arrivals = [probe(0, 1_000, 0), probe(1, 3_000_000_000, 0)];
        let metrics = trace_metrics(&arrivals, 2, TraceParameters::default());
        assert_eq!(metrics.one_way_delay, None);
        assert_eq!(metrics.loss.lost, 0);
        assert!(metrics.pdv.is_some());
    }
}
