//! `replay` reproduces dualperf-stats' `ippm` results: the test vectors of
//! `crates/dualperf-stats/src/ippm/{trace,loss,reordering,duplicates,delay,
//! jitter}.rs`, copied with their expected values, run through the meter.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use dualperf_meter::{replay, DeliveryMetrics, ReplayParameters};
use dualperf_model::observation::Arrival;
use proptest::prelude::*;

fn shared(waiting_time_ns: i64) -> ReplayParameters {
    ReplayParameters {
        waiting_time_ns,
        clocks_shared: true,
    }
}

/// ippm::trace's probe: sent every 10 ms, received after `delay + order`.
fn probe(sequence: u64, delay_ns: i64, order: i64) -> Arrival {
    let sent_ns = sequence as i64 * 10_000_000;
    Arrival {
        sequence,
        sent_ns,
        received_ns: sent_ns + delay_ns + order,
    }
}

/// ippm::loss's arrivals: sent every 1 ms.
fn loss_arrivals(sequences_and_delays_ns: &[(u64, i64)]) -> Vec<Arrival> {
    sequences_and_delays_ns
        .iter()
        .map(|&(sequence, delay)| {
            let sent_ns = sequence as i64 * 1_000_000;
            Arrival {
                sequence,
                sent_ns,
                received_ns: sent_ns + delay,
            }
        })
        .collect()
}

/// ippm::reordering / duplicates: sequence numbers in arrival order.
fn in_order_of(sequences: &[u64]) -> DeliveryMetrics {
    let arrivals: Vec<Arrival> = sequences
        .iter()
        .enumerate()
        .map(|(i, &sequence)| Arrival {
            sequence,
            sent_ns: 0,
            received_ns: i as i64,
        })
        .collect();
    let sent = sequences.iter().max().map_or(0, |s| s + 1);
    replay(&arrivals, sent, ReplayParameters::default())
}

// ---- ippm::trace ----

#[test]
fn a_hand_made_trace_gives_every_metric() {
    // Sent 0..6. Arrivals: 0, 2, 1 (reordered), 2 again (duplicate),
    // 3 late (3 s > 2 s waiting time), 5. Lost: 3 (late) and 4 → one episode of two.
    let arrivals = [
        probe(0, 1_000, 0),
        probe(2, 1_000, 0),
        probe(1, 25_000_000, 0),
        probe(2, 1_000, 5),
        probe(3, 3_000_000_000, 0),
        probe(5, 1_500, 0),
    ];
    let m = replay(&arrivals, 6, shared(2_000_000_000));
    assert_eq!(m.counts.duplicates, 1);
    assert_eq!(m.counts.reordered, 1);
    assert_eq!(m.counts.received, 5);
    assert_eq!(m.counts.loss.lost, 2);
    assert_eq!(m.counts.late, 1);
    assert_eq!(m.counts.loss.episodes, 1);
    assert_eq!(m.counts.loss_ratio(), Some(2.0 / 6.0));
    let delay = m.one_way_delay.unwrap_or_default();
    assert_eq!(delay.count, 4);
    assert_eq!(delay.min_ns, 1_000.0);
    assert_eq!(delay.max_ns, 25_000_000.0);
    assert!(delay.exact);
    assert_eq!(m.pdv.unwrap_or_default().min_ns, 0.0);
    // IPDV pairs (0,1) and (1,2): +24 999 000 and −24 999 000.
    let ipdv = m.ipdv_absolute.unwrap_or_default();
    assert_eq!(ipdv.count, 2);
    assert_eq!(ipdv.min_ns, 24_999_000.0);
}

#[test]
fn without_shared_clocks_there_is_no_one_way_delay_and_no_waiting_time() {
    let arrivals = [probe(0, 1_000, 0), probe(1, 3_000_000_000, 0)];
    let m = replay(&arrivals, 2, ReplayParameters::default());
    assert_eq!(m.one_way_delay, None);
    assert_eq!(m.counts.loss.lost, 0);
    assert!(m.pdv.is_some());
}

// ---- ippm::loss ----

#[test]
fn nothing_lost_when_everything_arrives_in_time() {
    let m = replay(&loss_arrivals(&[(0, 10), (1, 10), (2, 10)]), 3, shared(100));
    assert_eq!(m.counts.loss.lost, 0);
    assert_eq!(m.counts.loss_ratio(), Some(0.0));
    assert_eq!(m.counts.loss.episodes, 0);
    assert_eq!(m.counts.loss.mean_length(), None);
}

#[test]
fn a_burst_and_an_isolated_loss_are_two_episodes() {
    // Sent 0..10; 2, 3, 4 and 7 missing.
    let received: Vec<(u64, i64)> = [0, 1, 5, 6, 8, 9].iter().map(|&s| (s, 10)).collect();
    let m = replay(&loss_arrivals(&received), 10, shared(100));
    assert_eq!(m.counts.loss.lost, 4);
    assert_eq!(m.counts.loss_ratio(), Some(0.4));
    assert_eq!(m.counts.loss.episodes, 2);
    assert_eq!(m.counts.loss.mean_length(), Some(2.0));
    assert_eq!(m.counts.loss.max_length, 3);
}

#[test]
fn a_packet_later_than_the_waiting_time_is_lost_and_joins_its_neighbours_episode() {
    // 1 never arrives, 2 arrives after 500 ns with a 100 ns waiting time.
    let m = replay(
        &loss_arrivals(&[(0, 10), (2, 500), (3, 10)]),
        4,
        shared(100),
    );
    assert_eq!(m.counts.late, 1);
    assert_eq!(m.counts.loss.lost, 2);
    assert_eq!(m.counts.received_in_time, 2);
    assert_eq!((m.counts.loss.episodes, m.counts.loss.max_length), (1, 2));
}

#[test]
fn without_comparable_clocks_only_missing_packets_are_lost() {
    let arrivals = loss_arrivals(&[(0, 10), (1, 10_000_000_000)]);
    let m = replay(&arrivals, 2, ReplayParameters::default());
    assert_eq!(m.counts.loss.lost, 0);
}

#[test]
fn losses_at_the_end_of_the_stream_count() {
    let m = replay(&loss_arrivals(&[(0, 10)]), 3, shared(100));
    assert_eq!((m.counts.loss.episodes, m.counts.loss.max_length), (1, 2));
}

#[test]
fn duplicates_and_reordering_do_not_change_loss() {
    let arrivals = loss_arrivals(&[(2, 10), (0, 10), (0, 10), (1, 10)]);
    let m = replay(&arrivals, 3, shared(100));
    assert_eq!(m.counts.loss.lost, 0);
    assert_eq!(m.counts.received_in_time, 3);
}

#[test]
fn nothing_sent_has_no_ratio() {
    assert_eq!(
        replay(&[], 0, ReplayParameters::default())
            .counts
            .loss_ratio(),
        None
    );
}

// ---- ippm::reordering ----

#[test]
fn in_order_sequence_has_no_reordering() {
    let m = in_order_of(&[0, 1, 2, 3]);
    assert_eq!(m.counts.reordered, 0);
    assert_eq!(m.counts.reordered_ratio(), Some(0.0));
    assert_eq!(m.counts.max_reorder_extent, 0);
}

#[test]
fn one_late_packet_counts_as_one_reordering() {
    assert_eq!(in_order_of(&[1, 3, 2, 4]).counts.reordered, 1);
}

#[test]
fn one_early_packet_makes_every_overtaken_packet_reordered() {
    // NextExp jumps to 5 at the first arrival; 1, 2, 3 are all below it,
    // each overtaken by 4 at index 0: extents 1, 2, 3.
    let m = in_order_of(&[4, 1, 2, 3]);
    assert_eq!(m.counts.reordered, 3);
    assert_eq!(m.counts.reordered_ratio(), Some(0.75));
    assert_eq!(m.counts.max_reorder_extent, 3);
}

#[test]
fn gaps_from_loss_are_not_reordering() {
    assert_eq!(in_order_of(&[0, 1, 5, 6, 9]).counts.reordered, 0);
}

#[test]
fn extent_counts_packets_between_expected_and_actual_position() {
    let m = in_order_of(&[0, 1, 2, 4, 5, 3, 6]);
    assert_eq!(m.counts.reordered, 1);
    assert_eq!(m.counts.max_reorder_extent, 2);
}

#[test]
fn rfc4737_nextexp_example_of_two_late_packets() {
    // 4 is late (extent 3: 5, 6, 7 overtook it), 9 is late (extent 1).
    let m = in_order_of(&[1, 2, 3, 5, 6, 7, 4, 8, 10, 9]);
    assert_eq!(m.counts.reordered, 2);
    assert_eq!(m.counts.max_reorder_extent, 3);
    assert_eq!(m.counts.reordered_ratio(), Some(0.2));
}

#[test]
fn empty_trace_has_no_ratio() {
    assert_eq!(in_order_of(&[]).counts.reordered_ratio(), None);
}

// ---- ippm::duplicates ----

#[test]
fn a_datagram_received_three_times_counts_two_duplicates() {
    assert_eq!(in_order_of(&[0, 1, 2, 3]).counts.duplicates, 0);
    assert_eq!(in_order_of(&[0, 1, 1, 2, 1]).counts.duplicates, 2);
}

// ---- ippm::delay ----

fn delay_trace(sequence_and_delay_ns: &[(u64, i64)]) -> Vec<Arrival> {
    sequence_and_delay_ns
        .iter()
        .map(|&(sequence, delay)| {
            let sent_ns = 1_000_000_000 + sequence as i64 * 10_000_000;
            Arrival {
                sequence,
                sent_ns,
                received_ns: sent_ns + delay,
            }
        })
        .collect()
}

#[test]
fn pdv_is_delay_above_the_minimum() {
    let m = replay(
        &delay_trace(&[(0, 500), (1, 700), (2, 400)]),
        3,
        shared(2_000_000_000),
    );
    let pdv = m.pdv.unwrap_or_default();
    assert_eq!((pdv.min_ns, pdv.p50_ns, pdv.max_ns), (0.0, 100.0, 300.0));
    assert_eq!(m.one_way_delay.unwrap_or_default().min_ns, 400.0);
}

#[test]
fn rfc8219_pdv_of_a_thousand_probes_uses_the_999th_percentile() {
    // Delays 1..=1000 µs: D(min) = 1 µs; p99.9 by linear interpolation at
    // h = 999·0.999 = 998.001 → 999.001 µs; minus D(min): 998.001 µs.
    let probes: Vec<(u64, i64)> = (0..1000).map(|i| (i, (i as i64 + 1) * 1_000)).collect();
    let m = replay(&delay_trace(&probes), 1000, ReplayParameters::default());
    let pdv = m.pdv_999_ns().unwrap_or_default();
    assert!((pdv - 998_001.0).abs() < 1e-6, "{pdv}");
}

#[test]
fn ipdv_pairs_consecutive_sequence_numbers_only() {
    // 2 is lost: the pairs are (0,1) = +300 and (3,4) = −50.
    let m = replay(
        &delay_trace(&[(0, 500), (1, 800), (3, 600), (4, 550)]),
        5,
        ReplayParameters::default(),
    );
    let ipdv = m.ipdv_absolute.unwrap_or_default();
    assert_eq!((ipdv.count, ipdv.min_ns, ipdv.max_ns), (2, 50.0, 300.0));
}

#[test]
fn ipdv_uses_sequence_order_not_arrival_order() {
    let m = replay(
        &delay_trace(&[(1, 800), (0, 500)]),
        2,
        ReplayParameters::default(),
    );
    assert_eq!(m.ipdv_absolute.unwrap_or_default().p50_ns, 300.0);
}

#[test]
fn a_clock_offset_cancels_in_pdv_ipdv_and_jitter() {
    let base = delay_trace(&[(0, 500), (1, 800), (2, 650)]);
    let offset: Vec<Arrival> = base
        .iter()
        .map(|a| Arrival {
            received_ns: a.received_ns - 7_000_000,
            ..*a
        })
        .collect();
    let (a, b) = (
        replay(&base, 3, ReplayParameters::default()),
        replay(&offset, 3, ReplayParameters::default()),
    );
    assert_eq!(a.pdv, b.pdv);
    assert_eq!(a.ipdv_absolute, b.ipdv_absolute);
    assert_eq!(a.jitter_ns, b.jitter_ns);
}

#[test]
fn nothing_received_has_no_distributions() {
    let m = replay(&[], 10, shared(100));
    assert_eq!(
        (m.pdv, m.one_way_delay, m.ipdv_absolute),
        (None, None, None)
    );
    assert_eq!(m.jitter_ns, None);
    assert_eq!((m.counts.loss.lost, m.counts.loss.episodes), (10, 1));
}

// ---- ippm::jitter, through the replay ----

#[test]
fn one_step_of_transit_time_moves_jitter_by_a_sixteenth() {
    let m = replay(
        &delay_trace(&[(0, 1_000), (1, 2_600), (2, 2_600)]),
        3,
        ReplayParameters::default(),
    );
    assert_eq!(m.jitter_ns, Some(93.75));
}

// ---- ippm::trace's properties ----

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
        let m = replay(&arrivals, sent, shared(2_000_000_000));
        prop_assert_eq!(m.counts.loss.lost + m.counts.received_in_time, sent);
        prop_assert!(m.counts.late <= m.counts.loss.lost);
        prop_assert_eq!(m.counts.loss.length_histogram.iter().sum::<u64>(), m.counts.loss.episodes);
        prop_assert_eq!(m.counts.received + m.counts.duplicates, arrivals.len() as u64);
        prop_assert!(m.counts.reordered <= m.counts.received);
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
        let m = replay(&arrivals, 10_000, ReplayParameters::default());
        prop_assert_eq!(m.counts.reordered, 0);
        prop_assert_eq!(m.counts.duplicates, 0);
    }
}
