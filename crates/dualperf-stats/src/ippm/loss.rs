//! One-way packet loss as defined in RFC 7680, with loss episodes.
//!
//! A datagram sent at time T is *lost* when it does not arrive at the
//! receiver before T + waiting time (RFC 7680 §2.8: "a packet is considered
//! lost if it does not arrive within a reasonable period"); a datagram that
//! arrives later is counted as *late* and, per the RFC, as lost. The waiting
//! time is a parameter (dualperf's default is 2 s, [`DEFAULT_WAITING_TIME_NS`])
//! and is stored with the result.
//!
//! Applying a waiting time compares a receive time with a send time, so it
//! needs clocks that agree (same host or synchronised). When they do not,
//! pass `waiting_time_ns: None`: only datagrams that never arrived are lost.
//!
//! **Loss episodes** are maximal runs of consecutive lost sequence numbers
//! (the "loss periods" of RFC 3357): a burst of 10 and ten isolated losses
//! have the same ratio but hurt a voice call very differently.

use std::collections::HashMap;

use dualperf_model::observation::Arrival;

/// dualperf's default loss waiting time: 2 s, in nanoseconds.
pub const DEFAULT_WAITING_TIME_NS: i64 = 2_000_000_000;

/// A run of consecutive lost sequence numbers.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct LossEpisode {
    /// First lost sequence number of the run.
    pub first_sequence: u64,
    /// Number of consecutive lost datagrams.
    pub length: u64,
}

/// Loss of one trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loss {
    /// Datagrams sent (sequence numbers 0..sent).
    pub sent: u64,
    /// Datagrams that arrived within the waiting time.
    pub received_in_time: u64,
    /// Datagrams that arrived, but after the waiting time (counted lost).
    pub late: u64,
    /// Datagrams lost, late ones included.
    pub lost: u64,
    /// Runs of consecutive losses, in sequence order.
    pub episodes: Vec<LossEpisode>,
}

impl Loss {
    /// lost / sent (RFC 7680 §4.1, the average of the loss singletons);
    /// `None` when nothing was sent.
    pub fn loss_ratio(&self) -> Option<f64> {
        (self.sent > 0).then(|| self.lost as f64 / self.sent as f64)
    }

    /// Mean length of a loss episode, datagrams; `None` without loss.
    pub fn mean_episode_length(&self) -> Option<f64> {
        (!self.episodes.is_empty()).then(|| self.lost as f64 / self.episodes.len() as f64)
    }

    /// Longest loss episode, datagrams; 0 without loss.
    pub fn max_episode_length(&self) -> u64 {
        self.episodes.iter().map(|e| e.length).max().unwrap_or(0)
    }
}

/// RFC 7680 loss of the datagrams `0..sent` given the arrivals (any order,
/// duplicates allowed: the earliest copy decides). Sequence numbers at or
/// above `sent` are ignored.
pub fn loss_of(arrivals: &[Arrival], sent: u64, waiting_time_ns: Option<i64>) -> Loss {
    // Earliest delay (receive − send) of every received sequence number.
    let mut earliest_delay: HashMap<u64, i64> = HashMap::with_capacity(arrivals.len());
    for arrival in arrivals.iter().filter(|a| a.sequence < sent) {
        let delay = arrival.received_ns.saturating_sub(arrival.sent_ns);
        earliest_delay
            .entry(arrival.sequence)
            .and_modify(|d| *d = (*d).min(delay))
            .or_insert(delay);
    }
    let mut received_sequences: Vec<(u64, bool)> = earliest_delay
        .into_iter()
        .map(|(sequence, delay)| {
            let in_time = waiting_time_ns.is_none_or(|wait| delay <= wait);
            (sequence, in_time)
        })
        .collect();
    received_sequences.sort_unstable();

    let mut loss = Loss {
        sent,
        ..Loss::default()
    };
    let mut open: Option<LossEpisode> = None;
    let mut next = 0u64; // first sequence number not yet accounted for
    for (sequence, in_time) in received_sequences {
        add_lost_run(&mut loss, &mut open, next, sequence - next);
        if in_time {
            loss.received_in_time += 1;
            loss.episodes.extend(open.take());
        } else {
            loss.late += 1;
            add_lost_run(&mut loss, &mut open, sequence, 1);
        }
        next = sequence + 1;
    }
    add_lost_run(&mut loss, &mut open, next, sent - next);
    loss.episodes.extend(open.take());
    loss
}

/// Adds `length` lost datagrams starting at `first`, extending the open
/// episode when it ends just before `first`.
fn add_lost_run(loss: &mut Loss, open: &mut Option<LossEpisode>, first: u64, length: u64) {
    if length == 0 {
        return;
    }
    loss.lost += length;
    match open {
        Some(episode) if episode.first_sequence + episode.length == first => {
            episode.length += length
        }
        _ => {
            loss.episodes.extend(open.take());
            *open = Some(LossEpisode {
                first_sequence: first,
                length,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arrivals of the given sequence numbers, each with the given delay.
    fn arrivals(sequences_and_delays_ns: &[(u64, i64)]) -> Vec<Arrival> {
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

    #[test]
    fn nothing_lost_when_everything_arrives_in_time() {
        let loss = loss_of(&arrivals(&[(0, 10), (1, 10), (2, 10)]), 3, Some(100));
        assert_eq!(loss.lost, 0);
        assert_eq!(loss.loss_ratio(), Some(0.0));
        assert!(loss.episodes.is_empty());
        assert_eq!(loss.mean_episode_length(), None);
    }

    #[test]
    fn a_burst_and_an_isolated_loss_are_two_episodes() {
        // Sent 0..10; 2, 3, 4 and 7 missing.
        let received: Vec<(u64, i64)> = [0, 1, 5, 6, 8, 9].iter().map(|&s| (s, 10)).collect();
        let loss = loss_of(&arrivals(&received), 10, Some(100));
        assert_eq!(loss.lost, 4);
        assert_eq!(loss.loss_ratio(), Some(0.4));
        assert_eq!(
            loss.episodes,
            vec![
                LossEpisode {
                    first_sequence: 2,
                    length: 3
                },
                LossEpisode {
                    first_sequence: 7,
                    length: 1
                },
            ]
        );
        assert_eq!(loss.mean_episode_length(), Some(2.0));
        assert_eq!(loss.max_episode_length(), 3);
    }

    #[test]
    fn a_packet_later_than_the_waiting_time_is_lost_and_joins_its_neighbours_episode() {
        // 1 never arrives, 2 arrives after 500 ns with a 100 ns waiting time.
        let loss = loss_of(&arrivals(&[(0, 10), (2, 500), (3, 10)]), 4, Some(100));
        assert_eq!(loss.late, 1);
        assert_eq!(loss.lost, 2);
        assert_eq!(loss.received_in_time, 2);
        assert_eq!(
            loss.episodes,
            vec![LossEpisode {
                first_sequence: 1,
                length: 2
            }]
        );
    }

    #[test]
    fn without_comparable_clocks_only_missing_packets_are_lost() {
        let loss = loss_of(&arrivals(&[(0, 10), (1, 10_000_000_000)]), 2, None);
        assert_eq!(loss.lost, 0);
    }

    #[test]
    fn losses_at_the_end_of_the_stream_count() {
        let loss = loss_of(&arrivals(&[(0, 10)]), 3, Some(100));
        assert_eq!(
            loss.episodes,
            vec![LossEpisode {
                first_sequence: 1,
                length: 2
            }]
        );
    }

    #[test]
    fn duplicates_and_reordering_do_not_change_loss() {
        let loss = loss_of(
            &arrivals(&[(2, 10), (0, 10), (0, 10), (1, 10)]),
            3,
            Some(100),
        );
        assert_eq!(loss.lost, 0);
        assert_eq!(loss.received_in_time, 3);
    }

    #[test]
    fn nothing_sent_has_no_ratio() {
        assert_eq!(loss_of(&[], 0, None).loss_ratio(), None);
    }
}
