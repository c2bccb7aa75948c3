//! Duplicate datagrams: copies of a sequence number after the first
//! (RFC 5560 counts them the same way).
//!
//! RFC 4737 §3.3 requires that duplicates be noted and that only the first
//! copy be considered for further analysis, so every other IPPM metric here
//! runs on [`first_copies`].

use std::collections::HashSet;

use dualperf_model::observation::Arrival;

/// The arrivals with every repeated sequence number removed, keeping the
/// first copy of each, in arrival order; and the number of copies removed.
pub fn first_copies(arrivals: &[Arrival]) -> (Vec<Arrival>, u64) {
    let mut seen = HashSet::with_capacity(arrivals.len());
    let mut kept = Vec::with_capacity(arrivals.len());
    let mut duplicates = 0;
    for arrival in arrivals {
        if seen.insert(arrival.sequence) {
            kept.push(*arrival);
        } else {
            duplicates += 1;
        }
    }
    (kept, duplicates)
}

/// Number of duplicate copies: arrivals whose sequence number was already
/// received. A datagram received three times counts two.
pub fn duplicate_count(arrivals: &[Arrival]) -> u64 {
    first_copies(arrivals).1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrivals(sequences: &[u64]) -> Vec<Arrival> {
        sequences
            .iter()
            .enumerate()
            .map(|(i, &sequence)| Arrival {
                sequence,
                sent_ns: 0,
                received_ns: i as i64,
            })
            .collect()
    }

    #[test]
    fn trace_without_repeats_has_no_duplicates() {
        assert_eq!(duplicate_count(&arrivals(&[0, 1, 2, 3])), 0);
    }

    #[test]
    fn a_datagram_received_three_times_counts_two_duplicates() {
        assert_eq!(duplicate_count(&arrivals(&[0, 1, 1, 2, 1])), 2);
    }

    #[test]
    fn first_copies_keep_arrival_order_and_the_first_copy() {
        let (kept, removed) = first_copies(&arrivals(&[2, 0, 2, 1]));
        let sequences: Vec<u64> = kept.iter().map(|a| a.sequence).collect();
        assert_eq!(sequences, vec![2, 0, 1]);
        assert_eq!(kept[0].received_ns, 0);
        assert_eq!(removed, 1);
    }
}
