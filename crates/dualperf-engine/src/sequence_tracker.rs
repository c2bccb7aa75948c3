//! Receive-side accounting of a numbered datagram stream: distinct arrivals,
//! duplicates, reordering, loss, loss episodes and interarrival jitter,
//! kept incrementally so the receiver's hot loop does O(1) work per datagram.
//!
//! The sender numbers datagrams 0, 1, 2, … and stamps each with its send
//! time; the receiver calls [`SequenceTracker::observe`] for every datagram
//! in arrival order and [`SequenceTracker::finish`] once the sender has said
//! how many it sent and the loss waiting time has passed.
//!
//! Definitions followed (see also docs/metrics.md):
//!
//! - **Duplicates**: a sequence number already seen. A bitmap of seen numbers
//!   detects them exactly. Duplicates are counted and kept in the raw
//!   arrivals, but take no further part: they are not received again, not
//!   reordered, and do not update the jitter.
//! - **Reordering** (RFC 4737 §3.3, "Type-P-Reordered"): `NextExp` starts at
//!   0 (the first sequence number the sender uses). An arrival `s ≥ NextExp`
//!   is in order and sets `NextExp = s + 1`; an arrival `s < NextExp` is
//!   reordered.
//! - **Reordering extent** (RFC 4737 §4.2.1): for a reordered packet at
//!   arrival position `i` (positions count distinct arrivals from 0), the
//!   extent is `i − j` where `j` is the earliest arrival position of any
//!   packet with a larger sequence number. The earliest such `j` is the
//!   position at which the running maximum first exceeded `s`, so the tracker
//!   keeps the in-order arrivals ("breakpoints": sequence, position) and
//!   finds `j` by binary search. To stay O(log W) in time and bounded in
//!   memory it keeps only the last [`EXTENT_WINDOW`] breakpoints: the extent
//!   is **exact** when the late packet's first larger predecessor is among
//!   them (late by fewer than `EXTENT_WINDOW` in-order arrivals), and
//!   otherwise a **lower bound** (the distance back to the oldest breakpoint
//!   kept); [`SequenceTracker::extent_truncated`] counts such cases.
//! - **Loss** (RFC 7680): a datagram with sequence number below `sent` that
//!   had not arrived when the waiting time (`loss_wait_ms`, waited by the
//!   caller) ran out. `lost` = zero bits of the bitmap in `0..sent`, which is
//!   `sent − distinct received` when the receiver saw nothing beyond `sent`.
//! - **Loss episodes**: maximal runs of consecutive lost sequence numbers
//!   below `sent` (RFC 3357's "loss periods"); they tell burst loss from
//!   random loss.
//! - **Interarrival jitter** (RFC 3550 §6.4.1): for consecutive distinct
//!   arrivals, `D = (R_i − R_{i−1}) − (S_i − S_{i−1})` and
//!   `J += (|D| − J) / 16`, in nanoseconds. Only differences of transit
//!   times are used, so a constant offset between the clocks cancels.
//!
//! Sequence numbers come off the wire, so the bitmap may not grow without
//! limit: a number more than [`MAX_SEQUENCE_JUMP`] above the highest seen, or
//! at or above [`MAX_SEQUENCE`], is counted as out of range
//! ([`SequenceTracker::out_of_range`]) and otherwise ignored.

use std::collections::VecDeque;

use dualperf_model::observation::Arrival;
use dualperf_model::UdpReceiveCounters;

/// In-order arrivals remembered for the reordering extent; beyond it the
/// extent is a lower bound. 4096 × 16 bytes = 64 KiB.
pub const EXTENT_WINDOW: usize = 4096;

/// Largest jump above the highest sequence number seen that is accepted
/// (2^24 ≈ 16.8 million datagrams: 100 s at the fastest rate this machine
/// reaches). Larger jumps are garbage or another stream.
pub const MAX_SEQUENCE_JUMP: u64 = 1 << 24;

/// Sequence numbers at or above this are out of range (2^32: a 512 MiB bitmap
/// at most, and 4 hours at 300 000 datagrams per second).
pub const MAX_SEQUENCE: u64 = 1 << 32;

/// Arrivals preallocated at most up front.
const ARRIVALS_PREALLOCATION: usize = 1 << 16;

/// One in-order arrival: after it, the running maximum sequence number was
/// `sequence`, and this happened at distinct-arrival position `position`.
#[derive(Clone, Copy, Debug)]
struct Breakpoint {
    sequence: u64,
    position: u64,
}

/// Incremental receive-side counters of one numbered datagram stream.
#[derive(Clone, Debug)]
pub struct SequenceTracker {
    /// Bit `s` set once sequence `s` has arrived.
    seen: Vec<u64>,
    /// RFC 4737 NextExp: one above the highest sequence number seen.
    next_expected: u64,
    /// Distinct arrivals so far (RFC 4737 arrival position of the next one).
    received: u64,
    duplicates: u64,
    reordered: u64,
    max_reorder_extent: u64,
    extent_truncated: u64,
    out_of_range: u64,
    breakpoints: VecDeque<Breakpoint>,
    /// Transit time (received − sent) of the previous distinct arrival, ns.
    previous_transit_ns: Option<i64>,
    /// RFC 3550 jitter estimate, ns (f64 to keep the /16 fractions).
    jitter_ns: f64,
    arrivals: Vec<Arrival>,
    arrivals_limit: usize,
}

impl SequenceTracker {
    /// An empty tracker that keeps the first `arrivals_limit` arrivals raw.
    pub fn new(arrivals_limit: usize) -> SequenceTracker {
        SequenceTracker {
            seen: Vec::new(),
            next_expected: 0,
            received: 0,
            duplicates: 0,
            reordered: 0,
            max_reorder_extent: 0,
            extent_truncated: 0,
            out_of_range: 0,
            breakpoints: VecDeque::with_capacity(EXTENT_WINDOW),
            previous_transit_ns: None,
            jitter_ns: 0.0,
            arrivals: Vec::with_capacity(arrivals_limit.min(ARRIVALS_PREALLOCATION)),
            arrivals_limit,
        }
    }

    /// Accounts one received datagram: its `sequence` number, the sender's
    /// timestamp `sent_ns` and the receive timestamp `received_ns`
    /// (nanoseconds, each on its own host's clock). Call in arrival order.
    ///
    /// O(1) except the binary search over at most [`EXTENT_WINDOW`]
    /// breakpoints for a reordered datagram; allocates only to grow the
    /// bitmap (amortised, doubling) or the raw arrivals (up to the limit).
    #[inline]
    pub fn observe(&mut self, sequence: u64, sent_ns: i64, received_ns: i64) {
        if sequence >= MAX_SEQUENCE
            || sequence > self.next_expected.saturating_add(MAX_SEQUENCE_JUMP)
        {
            self.out_of_range += 1;
            return;
        }
        if self.arrivals.len() < self.arrivals_limit {
            self.arrivals.push(Arrival {
                sequence,
                sent_ns,
                received_ns,
            });
        }
        if self.mark_seen(sequence) {
            self.duplicates += 1;
            return;
        }
        let position = self.received;
        self.received += 1;

        if sequence >= self.next_expected {
            self.next_expected = sequence + 1;
            if self.breakpoints.len() == EXTENT_WINDOW {
                self.breakpoints.pop_front();
                // From now on a search that falls before the window is a bound.
            }
            self.breakpoints
                .push_back(Breakpoint { sequence, position });
        } else {
            self.reordered += 1;
            let extent = self.reorder_extent(sequence, position);
            self.max_reorder_extent = self.max_reorder_extent.max(extent);
        }

        let transit = received_ns.wrapping_sub(sent_ns);
        if let Some(previous) = self.previous_transit_ns.replace(transit) {
            let change = transit.wrapping_sub(previous).unsigned_abs() as f64;
            self.jitter_ns += (change - self.jitter_ns) / 16.0;
        }
    }

    /// Sets the bit of `sequence`; true if it was already set (a duplicate).
    #[inline]
    fn mark_seen(&mut self, sequence: u64) -> bool {
        let word = (sequence / 64) as usize;
        let bit = 1u64 << (sequence % 64);
        if word >= self.seen.len() {
            // Double (amortised O(1)), but never past the bitmap MAX_SEQUENCE needs.
            let wanted = (word + 1)
                .max(self.seen.len() * 2)
                .max(64)
                .min((MAX_SEQUENCE / 64) as usize);
            self.seen.resize(wanted, 0);
        }
        let was_set = self.seen[word] & bit != 0;
        self.seen[word] |= bit;
        was_set
    }

    /// RFC 4737 §4.2.1 extent of a reordered arrival of `sequence` at
    /// distinct-arrival `position`: `position − j`, `j` the earliest position
    /// of an arrival with a larger sequence number. Exact within the
    /// breakpoint window, a lower bound beyond it (counted).
    fn reorder_extent(&mut self, sequence: u64, position: u64) -> u64 {
        // The breakpoints' sequences ascend; the first one above `sequence`
        // is where the running maximum first exceeded it.
        let index = self.breakpoints.partition_point(|b| b.sequence <= sequence);
        if index == 0 && self.breakpoints.front().is_some_and(|b| b.position > 0) {
            // The first larger arrival was earlier than anything we keep.
            self.extent_truncated += 1;
        }
        match self.breakpoints.get(index) {
            Some(first_larger) => position - first_larger.position,
            // Unreachable: sequence < NextExp = last breakpoint + 1 and the
            // last breakpoint's own sequence is a duplicate, handled earlier.
            None => 0,
        }
    }

    /// Distinct datagrams received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Datagrams ignored because their sequence number was out of range
    /// (see the module documentation). Put it in the trial's notes if > 0.
    pub fn out_of_range(&self) -> u64 {
        self.out_of_range
    }

    /// Reordered datagrams whose extent is only a lower bound because their
    /// first larger predecessor fell out of the [`EXTENT_WINDOW`].
    pub fn extent_truncated(&self) -> u64 {
        self.extent_truncated
    }

    /// Datagrams not (yet) seen below the highest sequence number seen:
    /// `NextExp − distinct received`, O(1). Meant for per-interval loss
    /// estimates (take deltas between intervals): late datagrams may still
    /// arrive, so a delta can be negative when reordering resolves, and the
    /// final loss is [`SequenceTracker::finish`]'s.
    pub fn missing_below_highest(&self) -> u64 {
        self.next_expected - self.received
    }

    /// Datagrams missing below `sent` now: the loss so far, before the
    /// waiting time has run out. O(sent / 64): not for every datagram.
    pub fn missing_below(&self, sent: u64) -> u64 {
        sent - self.count_seen_below(sent)
    }

    /// Number of set bits in `0..limit`.
    fn count_seen_below(&self, limit: u64) -> u64 {
        let full_words = (limit / 64) as usize;
        let mut count: u64 = self
            .seen
            .iter()
            .take(full_words)
            .map(|w| u64::from(w.count_ones()))
            .sum();
        let rest = limit % 64;
        if rest > 0 {
            if let Some(word) = self.seen.get(full_words) {
                count += u64::from((word & ((1u64 << rest) - 1)).count_ones());
            }
        }
        count
    }

    /// Maximal runs of zero bits in `0..limit`: loss episodes.
    fn loss_episodes_below(&self, limit: u64) -> u64 {
        let words = limit.div_ceil(64) as usize;
        let mut episodes = 0u64;
        // Whether the bit just before the current word was a loss.
        let mut previous_lost = false;
        for index in 0..words {
            let seen = self.seen.get(index).copied().unwrap_or(0);
            let valid_bits = (limit - index as u64 * 64).min(64);
            let mask = if valid_bits == 64 {
                u64::MAX
            } else {
                (1u64 << valid_bits) - 1
            };
            let lost = !seen & mask;
            // A run starts at a lost bit whose predecessor was not lost.
            let predecessors_lost = (lost << 1) | u64::from(previous_lost);
            episodes += u64::from((lost & !predecessors_lost).count_ones());
            previous_lost = lost >> 63 == 1;
        }
        episodes
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
        let sent_in_range = sent.min(MAX_SEQUENCE);
        UdpReceiveCounters {
            sent,
            received: self.received,
            duplicates: self.duplicates,
            reordered: self.reordered,
            max_reorder_extent: self.max_reorder_extent,
            lost: sent - self.count_seen_below(sent_in_range),
            loss_episodes: self.loss_episodes_below(sent_in_range),
            loss_wait_ms,
            jitter_ns: self.jitter_ns as u64,
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
        assert!(tracker.seen.len() < 1024, "bitmap stayed small");
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
