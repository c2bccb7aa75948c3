//! Receive-side accounting of a numbered datagram stream — distinct
//! arrivals, duplicates, reordering, loss, loss episodes and interarrival
//! jitter — as a thin adapter over the one measurement core,
//! [`dualperf_meter`]: its [`SequenceObserver`] and [`InterarrivalJitter`]
//! do the counting (definitions, RFC citations and the window rules are
//! documented there and in docs/metrics.md); this file keeps the engine's
//! interface, records the bounded raw trace and fills the model's
//! [`UdpReceiveCounters`].
//!
//! The sender numbers datagrams 0, 1, 2, … and stamps each with its send
//! time; the receiver calls [`SequenceTracker::observe`] for every datagram
//! in arrival order and [`SequenceTracker::finish`] once the sender has said
//! how many it sent and the loss waiting time has passed (the receive loop
//! waits it out, so no waiting time is applied here: whatever arrived
//! before the drain ended counts as received).
//!
//! Memory is fixed when the tracker is created (issue 16, fault 4): the
//! observer keeps a window of [`REORDER_WINDOW`] sequence numbers and
//! [`EXTENT_WINDOW`] in-order arrivals, whatever sequence numbers arrive.
//! A number more than [`MAX_SEQUENCE_JUMP`] above the highest seen is a
//! protocol violation, and one below the window is too late to be told from
//! a duplicate: both are ignored and counted in
//! [`SequenceTracker::out_of_range`]; a datagram overtaken by more than the
//! window arrives after its sequence number was settled as lost (RFC 7680's
//! late packet). Smaller jumps slide the window and the numbers jumped over
//! are lost.

use dualperf_meter::sequence::{DEFAULT_EXTENT_WINDOW, DEFAULT_MAX_JUMP, DEFAULT_WINDOW};
use dualperf_meter::{InterarrivalJitter, SequenceConfig, SequenceObserver};
use dualperf_model::observation::Arrival;
use dualperf_model::UdpReceiveCounters;

/// In-order arrivals remembered for the reordering extent; beyond it the
/// extent is a lower bound. 4096 × 16 bytes = 64 KiB.
pub const EXTENT_WINDOW: usize = DEFAULT_EXTENT_WINDOW;

/// Largest jump above the highest sequence number seen that is accepted
/// (2^24 ≈ 16.8 million datagrams: 100 s at the fastest rate this machine
/// reaches). Larger jumps are garbage or another stream.
pub const MAX_SEQUENCE_JUMP: u64 = DEFAULT_MAX_JUMP;

/// Reordering / duplicate window, sequence numbers (2^16: two 8 KiB bitmaps).
pub const REORDER_WINDOW: u64 = DEFAULT_WINDOW;

/// Arrivals preallocated at most up front.
const ARRIVALS_PREALLOCATION: usize = 1 << 16;

/// Incremental receive-side counters of one numbered datagram stream.
#[derive(Clone, Debug)]
pub struct SequenceTracker {
    observer: SequenceObserver,
    jitter: InterarrivalJitter,
    arrivals: Vec<Arrival>,
    arrivals_limit: usize,
}

impl SequenceTracker {
    /// An empty tracker that keeps the first `arrivals_limit` arrivals raw.
    pub fn new(arrivals_limit: usize) -> SequenceTracker {
        SequenceTracker {
            observer: SequenceObserver::new(SequenceConfig {
                window: REORDER_WINDOW,
                max_jump: MAX_SEQUENCE_JUMP,
                extent_window: EXTENT_WINDOW,
                waiting_time_ns: None,
            }),
            jitter: InterarrivalJitter::new(),
            arrivals: Vec::with_capacity(arrivals_limit.min(ARRIVALS_PREALLOCATION)),
            arrivals_limit,
        }
    }

    /// Accounts one received datagram: its `sequence` number, the sender's
    /// timestamp `sent_ns` and the receive timestamp `received_ns`
    /// (nanoseconds, each on its own host's clock). Call in arrival order.
    ///
    /// O(1) for an in-order datagram, O(log [`EXTENT_WINDOW`]) for a
    /// reordered one, at most O([`REORDER_WINDOW`] / 64) for a jump;
    /// allocates only to grow the raw arrivals (up to the limit).
    #[inline]
    /// Returns true for the first copy of a datagram (counted as received).
    pub fn observe(&mut self, sequence: u64, sent_ns: i64, received_ns: i64) -> bool {
        let arrived = self.observer.observe(sequence, sent_ns, received_ns);
        if matches!(
            arrived,
            dualperf_meter::Arrived::TooFarAhead | dualperf_meter::Arrived::BehindWindow
        ) {
            return false;
        }
        if self.arrivals.len() < self.arrivals_limit {
            self.arrivals.push(Arrival {
                sequence,
                sent_ns,
                received_ns,
            });
        }
        if arrived.is_first_copy() {
            self.jitter.observe(sent_ns, received_ns);
        }
        arrived.is_first_copy()
    }

    /// Distinct datagrams received so far.
    pub fn received(&self) -> u64 {
        self.observer.received()
    }

    /// Datagrams ignored because their sequence number was out of range:
    /// more than [`MAX_SEQUENCE_JUMP`] above the highest seen, or below the
    /// reordering window (see the module documentation). Put it in the
    /// trial's notes if > 0.
    pub fn out_of_range(&self) -> u64 {
        self.observer.too_far_ahead() + self.observer.behind_window()
    }

    /// Reordered datagrams whose extent is only a lower bound because their
    /// first larger predecessor fell out of the [`EXTENT_WINDOW`].
    pub fn extent_truncated(&self) -> u64 {
        self.observer.extent_truncated()
    }

    /// Datagrams not (yet) seen below the highest sequence number seen:
    /// `NextExp − distinct received`, O(1). Meant for per-interval loss
    /// estimates (take deltas between intervals): late datagrams may still
    /// arrive, so a delta can be negative when reordering resolves, and the
    /// final loss is [`SequenceTracker::finish`]'s.
    pub fn missing_below_highest(&self) -> u64 {
        self.observer.missing_below_highest()
    }

    /// Datagrams missing below `sent` now: the loss so far, before the
    /// waiting time has run out. O([`REORDER_WINDOW`] / 64): not for every datagram.
    pub fn missing_below(&self, sent: u64) -> u64 {
        self.observer.counts(sent).loss.lost
    }

    /// Heap bytes of the counting state (fixed at creation; the raw
    /// arrivals come on top, at most `arrivals_limit` × 24 bytes).
    pub fn memory_bytes(&self) -> usize {
        self.observer.memory_bytes()
    }

    /// The counters in the model's shape, once the sender has reported
    /// `sent` datagrams and `loss_wait_ms` milliseconds have passed since its
    /// last send (RFC 7680's waiting time, waited by the caller).
    /// `receive_timestamp_source` says how `received_ns` was taken
    /// ("SO_TIMESTAMPNS" or "clock_gettime"); `clocks_shared` whether sender
    /// and receiver share one clock (one-way delay then exact).
    pub fn finish(
        self,
        sent: u64,
        loss_wait_ms: u64,
        receive_timestamp_source: &str,
        clocks_shared: bool,
    ) -> UdpReceiveCounters {
        let counts = self.observer.counts(sent);
        UdpReceiveCounters {
            sent,
            received: counts.received,
            duplicates: counts.duplicates,
            reordered: counts.reordered,
            max_reorder_extent: counts.max_reorder_extent,
            lost: counts.loss.lost,
            loss_episodes: counts.loss.episodes,
            loss_wait_ms,
            jitter_ns: self.jitter.current_ns().unwrap_or(0.0) as u64,
            arrivals: self.arrivals,
            arrivals_limit: self.arrivals_limit as u64,
            receive_timestamp_source: receive_timestamp_source.to_string(),
            clocks_shared,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Feeds sequence numbers with a constant transit time of 1 ms.
    fn track(sequences: &[u64]) -> SequenceTracker {
        let mut tracker = SequenceTracker::new(1000);
        for &s in sequences {
            let sent = s as i64 * 1_000_000;
            tracker.observe(s, sent, sent + 1_000_000);
        }
        tracker
    }

    fn counters(sequences: &[u64], sent: u64) -> UdpReceiveCounters {
        track(sequences).finish(sent, 2000, "clock_gettime", true)
    }

    #[test]
    fn in_order_stream_has_no_loss_reordering_or_jitter() {
        let c = counters(&[0, 1, 2, 3, 4], 5);
        assert_eq!(
            (c.received, c.lost, c.duplicates, c.reordered),
            (5, 0, 0, 0)
        );
        assert_eq!(c.loss_episodes, 0);
        assert_eq!(c.max_reorder_extent, 0);
        assert_eq!(c.jitter_ns, 0);
        assert_eq!(c.loss_wait_ms, 2000);
        assert_eq!(c.receive_timestamp_source, "clock_gettime");
        assert!(c.clocks_shared);
    }

    #[test]
    fn one_late_packet_counts_as_one_reordering() {
        let c = counters(&[0, 2, 1, 3], 4);
        assert_eq!(c.reordered, 1);
        assert_eq!(c.max_reorder_extent, 1);
        assert_eq!(c.lost, 0);
    }

    /// The pattern of RFC 4737's extent examples (packet 4 late), worked by
    /// hand from the §4.2.1 definition (the RFC text is not available offline here):
    /// sent 1..=10, packet 4 arrives after 5, 6, 7, 8. Arrival positions
    /// (from 1 as in the RFC): 1,2,3,5,6,7,8,4,9,10 at i = 1..10. Packet 4 is
    /// the only reordered one; the first larger packet (5) came at j = 4, so
    /// its extent is i − j = 8 − 4 = 4.
    #[test]
    fn packet_four_late_by_four_has_extent_four() {
        let c = counters(&[1, 2, 3, 5, 6, 7, 8, 4, 9, 10], 11);
        assert_eq!(c.reordered, 1);
        assert_eq!(c.max_reorder_extent, 4);
        // Sequence 0 was never sent in the RFC's numbering: one loss here.
        assert_eq!(c.lost, 1);
        assert_eq!(c.loss_episodes, 1);
    }

    /// Two reordered packets: arrivals 1,2,3,4,7,8,9,10,5,6. Packet 5 at
    /// i = 9 (from 1) has first larger packet 7 at j = 5: extent 4. Packet 6
    /// at i = 10 also has j = 5: extent 5. Both are reordered (below NextExp
    /// = 11), so reordered = 2 and the maximum extent is 5.
    #[test]
    fn two_late_packets_have_extents_four_and_five() {
        let c = counters(&[1, 2, 3, 4, 7, 8, 9, 10, 5, 6], 11);
        assert_eq!(c.reordered, 2);
        assert_eq!(c.max_reorder_extent, 5);
    }

    /// RFC 4737 §3.3: a packet is reordered only relative to NextExp, so an
    /// early packet does not make all later ones "reordered" twice:
    /// arrivals 1,3,2,4 — only 2 is reordered (3 raised NextExp to 4).
    #[test]
    fn only_packets_below_next_expected_are_reordered() {
        let c = counters(&[1, 3, 2, 4], 5);
        assert_eq!(c.reordered, 1);
        assert_eq!(c.max_reorder_extent, 1);
    }

    /// A packet that overtakes the rest: arrivals 0, 9, 1..=8. Every one of
    /// 1..=8 is below NextExp = 10, so all 8 are reordered, each with first
    /// larger packet 9 at position 1: extents 1..=8, maximum 8.
    #[test]
    fn early_packet_makes_the_rest_reordered() {
        let c = counters(&[0, 9, 1, 2, 3, 4, 5, 6, 7, 8], 10);
        assert_eq!(c.reordered, 8);
        assert_eq!(c.max_reorder_extent, 8);
        assert_eq!(c.lost, 0);
    }

    #[test]
    fn duplicates_are_counted_once_and_not_as_reordering() {
        let c = counters(&[0, 1, 1, 2, 0, 3], 4);
        assert_eq!(c.received, 4);
        assert_eq!(c.duplicates, 2);
        assert_eq!(c.reordered, 0);
        assert_eq!(c.arrivals.len(), 6, "raw arrivals keep duplicates");
    }

    #[test]
    fn loss_and_loss_episodes_count_gaps_below_sent() {
        // Missing: 2,3 (one episode), 6 (one), 9 (one, at the end).
        let c = counters(&[0, 1, 4, 5, 7, 8], 10);
        assert_eq!(c.lost, 4);
        assert_eq!(c.loss_episodes, 3);
    }

    #[test]
    fn episodes_spanning_bitmap_words_count_once() {
        // 0..60 arrive, 60..70 lost (crossing the 64-bit word), 70..200 arrive.
        let arrived: Vec<u64> = (0..60).chain(70..200).collect();
        let c = counters(&arrived, 200);
        assert_eq!(c.lost, 10);
        assert_eq!(c.loss_episodes, 1);
    }

    #[test]
    fn nothing_received_is_one_long_episode() {
        let c = counters(&[], 1000);
        assert_eq!(c.lost, 1000);
        assert_eq!(c.loss_episodes, 1);
        assert_eq!(c.received, 0);
    }

    #[test]
    fn arrivals_beyond_sent_are_received_but_not_lost() {
        let c = counters(&[0, 1, 2, 3], 2);
        assert_eq!(c.received, 4);
        assert_eq!(c.lost, 0);
    }

    /// RFC 3550 §6.4.1 by hand: transits 1000, 1400, 1000 ns.
    /// D1 = 400: J = 0 + (400 − 0)/16 = 25. D2 = 400: J = 25 + (400 − 25)/16
    /// = 48.4375 → 48 ns.
    #[test]
    fn jitter_follows_rfc_3550_by_hand() {
        let mut tracker = SequenceTracker::new(0);
        tracker.observe(0, 0, 1000);
        tracker.observe(1, 10_000, 11_400);
        tracker.observe(2, 20_000, 21_000);
        let c = tracker.finish(3, 0, "SO_TIMESTAMPNS", false);
        assert_eq!(c.jitter_ns, 48);
        assert!(c.arrivals.is_empty());
    }

    #[test]
    fn jitter_ignores_a_constant_clock_offset() {
        let mut a = SequenceTracker::new(0);
        let mut b = SequenceTracker::new(0);
        for (s, transit) in [(0, 1000), (1, 3000), (2, 1500), (3, 9000)] {
            let sent = s as i64 * 100_000;
            a.observe(s, sent, sent + transit);
            b.observe(s, sent - 5_000_000_000, sent + transit);
        }
        assert_eq!(
            a.finish(4, 0, "", false).jitter_ns,
            b.finish(4, 0, "", false).jitter_ns
        );
    }

    #[test]
    fn raw_arrivals_are_bounded() {
        let mut tracker = SequenceTracker::new(2);
        for s in 0..5 {
            tracker.observe(s, s as i64, s as i64 + 7);
        }
        let c = tracker.finish(5, 0, "", true);
        assert_eq!(
            c.arrivals,
            vec![
                Arrival {
                    sequence: 0,
                    sent_ns: 0,
                    received_ns: 7
                },
                Arrival {
                    sequence: 1,
                    sent_ns: 1,
                    received_ns: 8
                }
            ]
        );
        assert_eq!(c.arrivals_limit, 2);
    }

    #[test]
    fn absurd_sequence_numbers_are_ignored_not_allocated() {
        let mut tracker = SequenceTracker::new(10);
        tracker.observe(0, 0, 1);
        tracker.observe(u64::MAX, 0, 1);
        tracker.observe(MAX_SEQUENCE_JUMP + 5, 0, 1);
        assert_eq!(tracker.out_of_range(), 2);
        assert!(
            tracker.memory_bytes() < 100 * 1024,
            "bookkeeping stayed small"
        );
        let c = tracker.finish(1, 0, "", true);
        assert_eq!(c.received, 1);
        assert_eq!(c.arrivals.len(), 1);
    }

    #[test]
    fn extent_beyond_the_window_is_a_counted_lower_bound() {
        let mut tracker = SequenceTracker::new(0);
        let late = 0;
        let count = EXTENT_WINDOW as u64 + 100;
        for s in 1..=count {
            tracker.observe(s, 0, 0);
        }
        tracker.observe(late, 0, 0);
        assert_eq!(tracker.extent_truncated(), 1);
        let c = tracker.finish(count + 1, 0, "", true);
        // True extent: arrived at position `count`, first larger at 0.
        assert!(c.max_reorder_extent <= count);
        assert!(c.max_reorder_extent >= EXTENT_WINDOW as u64 - 1);
        assert_eq!(c.reordered, 1);
    }

    #[test]
    fn missing_below_reports_loss_so_far() {
        let tracker = track(&[0, 2, 3]);
        assert_eq!(tracker.missing_below(4), 1);
        assert_eq!(tracker.missing_below(6), 3);
        assert_eq!(tracker.received(), 3);
    }

    #[test]
    fn missing_below_highest_shrinks_when_a_late_datagram_arrives() {
        let mut tracker = track(&[0, 3, 4]);
        assert_eq!(tracker.missing_below_highest(), 2);
        tracker.observe(1, 0, 0);
        assert_eq!(tracker.missing_below_highest(), 1);
        tracker.observe(1, 0, 0);
        assert_eq!(
            tracker.missing_below_highest(),
            1,
            "a duplicate changes nothing"
        );
    }

    /// Issue 16, fault 4: 256 datagrams whose sequence numbers jump by 2^24
    /// grew the old bitmap to 512 MiB. The window keeps it where it started.
    #[test]
    fn sequence_numbers_jumping_by_two_to_the_24_keep_memory_bounded() {
        let mut tracker = SequenceTracker::new(0);
        let memory = tracker.memory_bytes();
        for k in 0..256u64 {
            tracker.observe(k << 24, 0, 1);
        }
        assert_eq!(tracker.memory_bytes(), memory);
        assert!(memory < 100 * 1024, "{memory} bytes");
        assert_eq!(tracker.received(), 256);
        assert_eq!(
            tracker.out_of_range(),
            0,
            "jumps of 2^24 are within the limit"
        );
        let c = tracker.finish(256, 0, "", true);
        assert!(c.lost <= c.sent);
    }

    #[test]
    fn a_datagram_overtaken_by_more_than_the_window_is_out_of_range_and_lost() {
        let mut tracker = SequenceTracker::new(10);
        for s in 1..=REORDER_WINDOW + 10 {
            tracker.observe(s, 0, 0);
        }
        tracker.observe(0, 0, 0);
        assert_eq!(tracker.out_of_range(), 1);
        let c = tracker.finish(REORDER_WINDOW + 11, 0, "", true);
        assert_eq!((c.lost, c.loss_episodes, c.reordered), (1, 1, 0));
        assert_eq!(c.arrivals.len(), 10, "an ignored arrival is not recorded");
    }

    /// The extent by the definition, O(n²): for each reordered arrival, the
    /// distance back to the earliest arrival with a larger sequence number.
    fn reference_extent(sequences: &[u64]) -> u64 {
        let mut max = 0;
        let mut next_expected = 0;
        for (i, &s) in sequences.iter().enumerate() {
            if s >= next_expected {
                next_expected = s + 1;
            } else {
                let j = sequences.iter().position(|&t| t > s).unwrap();
                max = max.max((i - j) as u64);
            }
        }
        max
    }

    proptest! {
        #[test]
        fn any_permutation_without_loss_is_received_whole(
            order in Just((0u64..300).collect::<Vec<_>>()).prop_shuffle()
        ) {
            let c = counters(&order, 300);
            prop_assert_eq!(c.lost, 0);
            prop_assert_eq!(c.received, 300);
            prop_assert_eq!(c.duplicates, 0);
            prop_assert_eq!(c.loss_episodes, 0);
            prop_assert!(c.reordered < 300);
            prop_assert_eq!(c.max_reorder_extent, reference_extent(&order));
        }

        #[test]
        fn arbitrary_sequences_and_timestamps_never_panic(
            arrivals in proptest::collection::vec((any::<u64>(), any::<i64>(), any::<i64>()), 0..200),
            sent in any::<u64>(),
        ) {
            let mut tracker = SequenceTracker::new(50);
            let total = arrivals.len() as u64;
            for (s, sent_ns, received_ns) in arrivals {
                tracker.observe(s, sent_ns, received_ns);
            }
            let out_of_range = tracker.out_of_range();
            let c = tracker.finish(sent % (1 << 20), 0, "", false);
            // Every arrival is exactly one of: new, duplicate, out of range.
            prop_assert_eq!(c.received + c.duplicates + out_of_range, total);
            prop_assert!(c.lost <= c.sent);
            prop_assert!(c.arrivals.len() <= 50);
        }

        #[test]
        fn lost_equals_sent_minus_distinct_received(
            arrivals in proptest::collection::vec(0u64..200, 0..400)
        ) {
            let c = counters(&arrivals, 200);
            let mut distinct = arrivals.clone();
            distinct.sort_unstable();
            distinct.dedup();
            prop_assert_eq!(c.received, distinct.len() as u64);
            prop_assert_eq!(c.lost, 200 - distinct.len() as u64);
            prop_assert_eq!(c.duplicates, (arrivals.len() - distinct.len()) as u64);
            // Episodes by brute force.
            let lost: Vec<bool> = (0..200).map(|s| !distinct.contains(&s)).collect();
            let episodes = (0..200)
                .filter(|&s| lost[s] && (s == 0 || !lost[s - 1]))
                .count() as u64;
            prop_assert_eq!(c.loss_episodes, episodes);
        }
    }
}

/// Micro benchmark of the receive-loop cost, run before and after a change:
/// `cargo test --release -p dualperf-engine --lib -- --ignored --nocapture observe_cost`.
#[cfg(test)]
mod bench {
    use super::SequenceTracker;
    use std::time::Instant;

    /// Deterministic xorshift, so both versions see the same stream.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Feeds `count` datagrams (1 µs apart, 20 µs transit ± 1 µs), losing
    /// each with probability `loss_per_million`/10⁶ and swapping a datagram
    /// with its successor with probability `swap_per_million`/10⁶; returns ns/datagram.
    fn run(count: u64, loss_per_million: u64, swap_per_million: u64) -> (f64, u64) {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut order: Vec<u64> = Vec::with_capacity(count as usize);
        let mut s = 0;
        while s < count {
            if next(&mut state) % 1_000_000 < loss_per_million {
                s += 1;
                continue;
            }
            if s + 1 < count && next(&mut state) % 1_000_000 < swap_per_million {
                order.push(s + 1);
                order.push(s);
                s += 2;
            } else {
                order.push(s);
                s += 1;
            }
        }
        let jitter: Vec<i64> = (0..order.len())
            .map(|_| (next(&mut state) % 2_000) as i64)
            .collect();
        let mut tracker = SequenceTracker::new(2_000);
        let started = Instant::now();
        for (&sequence, &j) in order.iter().zip(&jitter) {
            let sent = sequence as i64 * 1_000;
            tracker.observe(sequence, sent, sent + 20_000 + j);
        }
        let elapsed = started.elapsed();
        let counters = std::hint::black_box(tracker).finish(count, 2_000, "", true);
        (
            elapsed.as_nanos() as f64 / order.len() as f64,
            counters.lost,
        )
    }

    #[test]
    #[ignore = "micro benchmark: run in release with --ignored --nocapture"]
    fn observe_cost() {
        for (name, loss, swap) in [
            ("in order", 0, 0),
            ("1 % loss", 10_000, 0),
            ("1 % loss, 1 % swapped pairs", 10_000, 10_000),
        ] {
            let mut best = f64::MAX;
            let mut lost = 0;
            for _ in 0..5 {
                let (ns, l) = run(10_000_000, loss, swap);
                best = best.min(ns);
                lost = l;
            }
            println!("observe_cost {name}: {best:.2} ns/datagram (best of 5, 10^7 datagrams, lost {lost})");
        }
    }
}
