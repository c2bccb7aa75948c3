//! Packet reordering as defined in RFC 4737.
//!
//! * **Reordered singleton** (§3.3): the receiver keeps `NextExp`, one above
//!   the highest sequence number seen so far (initially the first sequence
//!   number the sender uses, 0 here). A packet with sequence number
//!   `s < NextExp` is reordered; otherwise `NextExp = s + 1`.
//!   Consequence worth knowing: one *early* packet makes every packet it
//!   overtook count as reordered (4, 1, 2, 3 has three reordered packets).
//! * **Reordered ratio** (§4.1): reordered packets / received packets.
//! * **Reordering extent** (§4.2.1): for a reordered packet at arrival index
//!   j, the earliest arrival index i < j whose sequence number is larger;
//!   the extent is `j − i`, the number of packets that arrived between the
//!   position it should have had and the one it got.
//!
//! Duplicates must be removed first (§3.3: only the first copy counts); see
//! [`super::duplicates::first_copies`].

use dualperf_model::observation::Arrival;

/// What RFC 4737 says about one trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reordering {
    /// Packets received (first copies).
    pub received: u64,
    /// Reordered packets (§3.3).
    pub reordered: u64,
    /// Extent of each reordered packet, in arrival order (§4.2.1), packets.
    pub extents: Vec<u64>,
}

impl Reordering {
    /// reordered / received (§4.1); `None` when nothing was received.
    pub fn reordered_ratio(&self) -> Option<f64> {
        (self.received > 0).then(|| self.reordered as f64 / self.received as f64)
    }

    /// The largest reordering extent, packets; 0 without reordering.
    pub fn max_extent(&self) -> u64 {
        self.extents.iter().copied().max().unwrap_or(0)
    }
}

/// Counts reordered packets in a sequence of sequence numbers in arrival
/// order (duplicates already removed).
pub fn reordered_count(sequences: &[u64]) -> u64 {
    reordering_of_sequences(sequences).reordered
}

/// RFC 4737 reordering of a sequence of sequence numbers in arrival order
/// (duplicates already removed). O(n log n).
pub fn reordering_of_sequences(sequences: &[u64]) -> Reordering {
    let mut next_expected = 0u64;
    let mut reordered = 0;
    let mut extents = Vec::new();
    // prefix_max[i] = highest sequence number among arrivals 0..=i; it never
    // decreases, so the earliest arrival larger than s is found by binary search.
    let mut prefix_max: Vec<u64> = Vec::with_capacity(sequences.len());
    for (index, &sequence) in sequences.iter().enumerate() {
        if sequence < next_expected {
            reordered += 1;
            let earliest_larger = prefix_max.partition_point(|&max| max <= sequence);
            extents.push((index - earliest_larger) as u64);
        } else {
            next_expected = sequence + 1;
        }
        let running = prefix_max.last().map_or(sequence, |&max| max.max(sequence));
        prefix_max.push(running);
    }
    Reordering {
        received: sequences.len() as u64,
        reordered,
        extents,
    }
}

/// RFC 4737 reordering of a trace (duplicates already removed).
pub fn reordering_of(arrivals: &[Arrival]) -> Reordering {
    let sequences: Vec<u64> = arrivals.iter().map(|a| a.sequence).collect();
    reordering_of_sequences(&sequences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_sequence_has_no_reordering() {
        let result = reordering_of_sequences(&[0, 1, 2, 3]);
        assert_eq!(result.reordered, 0);
        assert_eq!(result.reordered_ratio(), Some(0.0));
        assert_eq!(result.max_extent(), 0);
    }

    #[test]
    fn one_late_packet_counts_as_one_reordering() {
        assert_eq!(reordered_count(&[1, 3, 2, 4]), 1);
    }

    #[test]
    fn one_early_packet_makes_every_overtaken_packet_reordered() {
        // NextExp jumps to 5 at the first arrival; 1, 2, 3 are all below it.
        let result = reordering_of_sequences(&[4, 1, 2, 3]);
        assert_eq!(result.reordered, 3);
        assert_eq!(result.reordered_ratio(), Some(0.75));
        // Each is overtaken by packet 4 at index 0: extents 1, 2, 3.
        assert_eq!(result.extents, vec![1, 2, 3]);
    }

    #[test]
    fn gaps_from_loss_are_not_reordering() {
        assert_eq!(reordered_count(&[0, 1, 5, 6, 9]), 0);
    }

    #[test]
    fn extent_counts_packets_between_expected_and_actual_position() {
        // 0 1 2 4 5 3 6: packet 3 should have come before 4 (index 3) and
        // arrived at index 5, so its extent is 2.
        let result = reordering_of_sequences(&[0, 1, 2, 4, 5, 3, 6]);
        assert_eq!(result.reordered, 1);
        assert_eq!(result.extents, vec![2]);
    }

    #[test]
    fn rfc4737_nextexp_example_of_two_late_packets() {
        // Sent 1..=10, received 1 2 3 5 6 7 4 8 10 9 (a pattern in the style
        // of RFC 4737 §3.4): 4 is late (extent 3: 5, 6, 7 overtook it) and 9
        // is late (extent 1: 10 overtook it).
        let result = reordering_of_sequences(&[1, 2, 3, 5, 6, 7, 4, 8, 10, 9]);
        assert_eq!(result.reordered, 2);
        assert_eq!(result.extents, vec![3, 1]);
        assert_eq!(result.reordered_ratio(), Some(0.2));
    }

    #[test]
    fn empty_trace_has_no_ratio() {
        assert_eq!(reordering_of_sequences(&[]).reordered_ratio(), None);
    }
}
