//! IETF IP Performance Metrics (IPPM) of a stored arrival trace — **computed
//! by `dualperf-meter`, not here**.
//!
//! A UDP stream or probe trial stores its receiver's trace: the
//! [`Arrival`](dualperf_model::observation::Arrival)s
//! `{sequence, sent_ns, received_ns}` **in the order the receiver took them
//! off the socket**, the number of datagrams the sender sent (sequence
//! numbers `0..sent`), the loss waiting time and whether both ends read one
//! clock. Every delivery metric of such a trace is defined and computed once,
//! in the measurement core [`dualperf_meter`], by the incremental observers
//! the engine also runs live in its receive loop. Stats replays the stored
//! trace through those same observers ([`dualperf_meter::replay`]), so a
//! number recomputed from a stored result is the number the engine's
//! definitions give, with no second implementation to drift from the first.
//! (Stats had its own implementation here until the switch; before it was
//! removed, a differential test found the replay equal to it bit for bit on
//! 11 048 traces — `git log -- crates/dualperf-stats/tests/ippm_parity.rs`.)
//!
//! | metric | definition | computed by |
//! |---|---|---|
//! | duplicate copies | RFC 5560's count; only first copies enter anything else (RFC 4737 §3.3) | [`dualperf_meter::SequenceObserver`] |
//! | reordered packets, ratio, extent | RFC 4737 §3.3, §4.1, §4.2.1 | [`dualperf_meter::SequenceObserver`] |
//! | loss with a waiting time, loss episodes | RFC 7680 §2.8, §3; RFC 3357 loss periods | [`dualperf_meter::SequenceObserver`] |
//! | interarrival jitter | RFC 3550 §6.4.1 | [`dualperf_meter::InterarrivalJitter`] |
//! | one-way delay, PDV, IPDV | RFC 7679; RFC 5481 / RFC 8219; RFC 3393 | [`dualperf_meter::DelayObserver`], [`dualperf_meter::IpdvObserver`] |
//! | all of the above in one pass | — | [`dualperf_meter::replay`] |
//!
//! The meter's module documentation states each formula and every choice
//! the RFCs leave open; `docs/metrics.md` is the user-facing version. A
//! replay sizes the observers' windows to the trace, so its counts and
//! percentiles are exact (type 7 interpolation on the raw values, the
//! arithmetic of [`crate::summary`]). It keeps loss episodes as counts (how
//! many, the longest, the mean length, a histogram of lengths), not as a list
//! of first sequence numbers.
//!
//! What stays here is the one choice that belongs to stats: which parameters
//! a stored stream is replayed with ([`replay_parameters`]).
//! [`crate::extraction`] decides whether the replay or the engine's own
//! running counters (same observers, bounded trace) feed the trial's metrics.

use dualperf_meter::{replay, DeliveryMetrics, ReplayParameters, DEFAULT_WAITING_TIME_NS};
use dualperf_model::observation::UdpReceiveCounters;

/// The parameters a recorded stream is replayed with: the waiting time the
/// engine recorded (dualperf's default, 2 s, when it recorded none) and
/// whether the two ends shared a clock (only then is the waiting time
/// applied and the one-way delay reported).
pub fn replay_parameters(udp: &UdpReceiveCounters) -> ReplayParameters {
    let waiting_time_ns = if udp.loss_wait_ms > 0 {
        i64::try_from(udp.loss_wait_ms).map_or(i64::MAX, |ms| ms.saturating_mul(1_000_000))
    } else {
        DEFAULT_WAITING_TIME_NS
    };
    ReplayParameters {
        waiting_time_ns,
        clocks_shared: udp.clocks_shared,
    }
}

/// Every delivery metric of the stream's recorded trace, through the
/// meter; `None` when no arrival was recorded.
pub fn replay_trace(udp: &UdpReceiveCounters) -> Option<DeliveryMetrics> {
    (!udp.arrivals.is_empty()).then(|| replay(&udp.arrivals, udp.sent, replay_parameters(udp)))
}

#[cfg(test)]
mod tests {
    //! The adapter, and the vectors of the former `ippm` unit tests that the
    //! meter's own tests (`crates/dualperf-meter/tests/replay.rs`,
    //! `src/jitter.rs`, `src/delay.rs`) do not carry, run through it.

    use super::*;
    use dualperf_model::observation::Arrival;
    use proptest::prelude::*;

    /// A recorded stream of `sent` datagrams with these arrivals.
    fn stream(
        arrivals: Vec<Arrival>,
        sent: u64,
        loss_wait_ms: u64,
        shared: bool,
    ) -> UdpReceiveCounters {
        UdpReceiveCounters {
            sent,
            loss_wait_ms,
            clocks_shared: shared,
            arrivals,
            ..UdpReceiveCounters::default()
        }
    }

    /// Arrivals of the given sequence numbers, sent every 1 ms, each with its delay.
    fn arrivals(sequences_and_delays_ns: &[(u64, i64)]) -> Vec<Arrival> {
        sequences_and_delays_ns
            .iter()
            .map(|&(sequence, delay)| {
                let sent_ns = 1_000_000_000 + sequence as i64 * 1_000_000;
                Arrival {
                    sequence,
                    sent_ns,
                    received_ns: sent_ns + delay,
                }
            })
            .collect()
    }

    #[test]
    fn the_recorded_waiting_time_is_used_and_the_default_without_one() {
        let recorded = stream(Vec::new(), 0, 250, true);
        assert_eq!(
            replay_parameters(&recorded),
            ReplayParameters {
                waiting_time_ns: 250_000_000,
                clocks_shared: true
            }
        );
        let unrecorded = stream(Vec::new(), 0, 0, false);
        assert_eq!(
            replay_parameters(&unrecorded).waiting_time_ns,
            DEFAULT_WAITING_TIME_NS
        );
        assert_eq!(DEFAULT_WAITING_TIME_NS, 2_000_000_000);
    }

    #[test]
    fn nothing_recorded_is_no_replay() {
        assert_eq!(replay_trace(&stream(Vec::new(), 10, 0, true)), None);
    }

    #[test]
    fn the_waiting_time_applies_only_with_shared_clocks() {
        // 1 arrives 3 s after it was sent; the recorded waiting time is 2 s.
        let trace = arrivals(&[(0, 1_000), (1, 3_000_000_000)]);
        let shared = replay_trace(&stream(trace.clone(), 2, 2_000, true)).unwrap();
        assert_eq!((shared.counts.late, shared.counts.loss.lost), (1, 1));
        let apart = replay_trace(&stream(trace, 2, 2_000, false)).unwrap();
        assert_eq!((apart.counts.late, apart.counts.loss.lost), (0, 0));
        assert_eq!(apart.one_way_delay, None);
    }

    #[test]
    fn one_way_delay_is_receive_minus_send() {
        let m = replay_trace(&stream(arrivals(&[(0, 500), (1, 700)]), 2, 0, true)).unwrap();
        let owd = m.one_way_delay.unwrap();
        assert_eq!((owd.min_ns, owd.mean_ns, owd.max_ns), (500.0, 600.0, 700.0));
        assert!(owd.exact);
    }

    #[test]
    fn the_first_copy_is_kept_in_arrival_order_and_later_copies_enter_nothing() {
        // 2, 0, 2 again (a millisecond late), 1: one duplicate; the delay, the
        // jitter and the reordering are those of the first copies 2, 0, 1.
        let mut trace = arrivals(&[(2, 100), (0, 100), (2, 1_000_000), (1, 100)]);
        let without: Vec<Arrival> = [trace[0], trace[1], trace[3]].to_vec();
        let m = replay_trace(&stream(trace.clone(), 3, 0, true)).unwrap();
        let first = replay_trace(&stream(without, 3, 0, true)).unwrap();
        assert_eq!(m.counts.duplicates, 1);
        assert_eq!(first.counts.duplicates, 0);
        assert_eq!(m.one_way_delay.unwrap().max_ns, 100.0);
        assert_eq!(m.one_way_delay, first.one_way_delay);
        assert_eq!(m.jitter_ns, first.jitter_ns);
        assert_eq!(m.counts.reordered, 2);
        assert_eq!(m.counts.received, 3);
        // A third copy is a second duplicate.
        trace.push(trace[0]);
        let third = replay_trace(&stream(trace, 3, 0, true)).unwrap();
        assert_eq!(third.counts.duplicates, 2);
    }

    #[test]
    fn a_burst_and_an_isolated_loss_fall_in_their_length_buckets() {
        // Sent 0..10; 2, 3, 4 and 7 missing: episodes of 3 and 1 (the former
        // ippm::loss vector). Bucket 0 holds single losses, bucket 1 runs of 2–3.
        let received: Vec<(u64, i64)> = [0, 1, 5, 6, 8, 9].iter().map(|&s| (s, 10)).collect();
        let m = replay_trace(&stream(arrivals(&received), 10, 1, true)).unwrap();
        let loss = m.counts.loss;
        assert_eq!((loss.lost, loss.episodes, loss.max_length), (4, 2, 3));
        assert_eq!(loss.mean_length(), Some(2.0));
        assert_eq!(&loss.length_histogram[..3], &[1, 1, 0]);
    }

    proptest! {
        #[test]
        fn loss_episodes_partition_the_losses(
            received in prop::collection::vec((0u64..200, 0i64..3_000_000_000), 0..300),
            sent in 0u64..200,
        ) {
            let trace: Vec<Arrival> = received
                .iter()
                .map(|&(sequence, delay)| Arrival { sequence, sent_ns: 0, received_ns: delay })
                .collect();
            let Some(m) = replay_trace(&stream(trace, sent, 2_000, true)) else {
                return Ok(());
            };
            let loss = m.counts.loss;
            // Episodes are disjoint non-empty runs whose lengths sum to the losses.
            prop_assert_eq!(loss.episodes == 0, loss.lost == 0);
            prop_assert!(loss.episodes <= loss.lost);
            prop_assert!(loss.max_length <= loss.lost);
            prop_assert!(loss.max_length.saturating_mul(loss.episodes) >= loss.lost);
            prop_assert!(loss.lost - loss.max_length >= loss.episodes.saturating_sub(1));
            // Between two episodes at least one datagram was received in time.
            prop_assert!(loss.episodes <= m.counts.received_in_time + 1);
        }
    }
}
