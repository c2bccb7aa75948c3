//! Jitter-buffer playout: which packets of an isochronous stream a receiver
//! would have played, which came too late, and how long it held them.
//!
//! A voice receiver plays packet `i` at `S(i) + offset`, where `S(i)` is
//! its send time (RTP timestamp) and `offset` the playout delay: network
//! one-way delay plus the time the packet waits in the buffer. A packet
//! that arrives after its playout time is discarded: **late packets count
//! as lost** (ITU-T G.1020 §6.2; the E-model's Ppl includes them).
//!
//! Two buffers, both from the receiver's point of view (no knowledge of
//! packets not yet arrived):
//!
//! * **fixed** ([`BufferModel::Fixed`]): the offset is the first arrived
//!   packet's delay plus a constant depth (ITU-T G.1020 §6.2.1's "fixed
//!   jitter buffer");
//! * **adaptive** ([`BufferModel::Adaptive`]): the playout delay is a high
//!   percentile of the delays of the last `window` packets that arrived
//!   (Moon, Kurose and Towsley, "Packet audio playout delay adjustment:
//!   performance bounds and algorithms", Multimedia Systems 6, 1998 — their
//!   windowed-percentile algorithm, here the maximum: q = 100 %) plus a
//!   margin of `min_depth_ns`. A receiver without silence suppression has no
//!   talk-spurt boundary to adjust at, so the delay is re-evaluated every
//!   `adapt_every` packets (a frame stretched or dropped by the concealment,
//!   as real receivers do). A delay that jumps by more than the margin
//!   between two re-evaluations makes packets late: that is the buffer's
//!   real cost, and it is counted.
//!
//! All times are nanoseconds on the receiver's clock for arrivals and the
//! sender's for sends; with unshared clocks the constant offset cancels in
//! everything but the absolute playout offset. Pure and deterministic: the
//! same trace gives the same playout ([`play_out`]).

use dualperf_model::observation::Arrival;

/// Which jitter buffer plays the stream out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferModel {
    /// Offset = first arrived packet's delay + `depth_ns`.
    Fixed {
        /// Buffer depth beyond the first packet's delay, ns.
        depth_ns: u64,
    },
    /// The maximum delay of the last `window` arrivals plus `min_depth_ns`,
    /// re-evaluated every `adapt_every` packets.
    Adaptive {
        /// Packets between two re-evaluations of the playout delay.
        adapt_every: u64,
        /// Arrivals whose delays the playout delay covers.
        window: usize,
        /// Margin beyond the window's largest delay, ns (one packet
        /// interval is usual: a packet always has a slot to arrive in).
        min_depth_ns: u64,
    },
}

impl BufferModel {
    /// The fixed buffer dualperf reports: 40 ms beyond the first packet's delay.
    pub const FIXED_40_MS: BufferModel = BufferModel::Fixed {
        depth_ns: 40_000_000,
    };

    /// The adaptive buffer dualperf reports for a stream of `interval_ns`:
    /// the largest delay of the last second of packets plus one packet
    /// interval, re-evaluated every 100 ms.
    pub fn adaptive_for(interval_ns: u64) -> BufferModel {
        let interval = interval_ns.max(1);
        BufferModel::Adaptive {
            adapt_every: (100_000_000 / interval).max(1),
            window: (1_000_000_000 / interval).max(1) as usize,
            min_depth_ns: interval,
        }
    }
}

/// The fate of one sent packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Played; `offset_ns` is its playout time minus its send time (one-way
    /// delay + buffer), `delay_ns` its one-way delay.
    Played {
        /// Playout offset, ns.
        offset_ns: i64,
        /// One-way delay (receive − send), ns.
        delay_ns: i64,
    },
    /// Arrived after its playout time: discarded.
    Late,
    /// Never arrived.
    Lost,
}

/// Counts over a run of packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayoutSummary {
    /// Packets sent.
    pub sent: u64,
    /// Packets played.
    pub played: u64,
    /// Packets that arrived too late.
    pub late: u64,
    /// Packets that never arrived.
    pub lost: u64,
    /// Mean playout offset of the played packets (one-way delay + buffer), ns.
    pub mean_offset_ns: Option<f64>,
    /// Mean buffer delay of the played packets (offset − one-way delay), ns.
    pub mean_buffer_ns: Option<f64>,
    /// Runs of consecutive packets not played (lost or late).
    pub gap_episodes: u64,
    /// Longest such run, packets.
    pub longest_gap: u64,
}

impl PlayoutSummary {
    /// (lost + late) / sent: the E-model's Ppl as a ratio.
    pub fn unplayed_ratio(&self) -> Option<f64> {
        (self.sent > 0).then(|| (self.lost + self.late) as f64 / self.sent as f64)
    }

    /// Mean length of a run of unplayed packets.
    pub fn mean_gap_length(&self) -> Option<f64> {
        (self.gap_episodes > 0).then(|| (self.lost + self.late) as f64 / self.gap_episodes as f64)
    }
}

/// The fate of packets `0..sent` of a stream whose arrivals are `arrivals`
/// (any order; duplicates and sequence numbers ≥ `sent` ignored), played
/// through `model`. Decisions are taken in arrival order, as a receiver
/// would; a packet's playout offset is the one in force when it arrives.
pub fn play_out(arrivals: &[Arrival], sent: u64, model: BufferModel) -> Vec<Fate> {
    let count = usize::try_from(sent).unwrap_or(usize::MAX);
    let mut fates = vec![Fate::Lost; count];
    let mut seen = vec![false; count];
    let mut order: Vec<&Arrival> = arrivals
        .iter()
        .filter(|a| (a.sequence as usize) < count)
        .collect();
    order.sort_by_key(|a| (a.received_ns, a.sequence));
    let mut offset: Option<i64> = None;
    let mut recent: std::collections::VecDeque<i64> = std::collections::VecDeque::new();
    let mut since_change = 0u64;
    for arrival in order {
        let index = arrival.sequence as usize;
        if seen[index] {
            continue; // a duplicate: the first copy decided
        }
        seen[index] = true;
        let delay = arrival.received_ns - arrival.sent_ns;
        match model {
            BufferModel::Fixed { depth_ns } => {
                offset.get_or_insert(delay + depth_ns as i64);
            }
            BufferModel::Adaptive {
                adapt_every,
                window,
                min_depth_ns,
            } => {
                // The decision for this packet uses what arrived before it.
                if offset.is_none() || since_change >= adapt_every {
                    since_change = 0;
                    let largest = recent.iter().copied().max().unwrap_or(delay);
                    offset = Some(largest + min_depth_ns as i64);
                }
                since_change += 1;
                recent.push_back(delay);
                if recent.len() > window.max(1) {
                    recent.pop_front();
                }
            }
        }
        let current = offset.unwrap_or(delay);
        fates[index] = if delay <= current {
            Fate::Played {
                offset_ns: current,
                delay_ns: delay,
            }
        } else {
            Fate::Late
        };
    }
    fates
}

/// Counts and means over `fates`.
pub fn summarise(fates: &[Fate]) -> PlayoutSummary {
    let mut summary = PlayoutSummary {
        sent: fates.len() as u64,
        ..Default::default()
    };
    let (mut offsets, mut buffers) = (0.0f64, 0.0f64);
    let mut run = 0u64;
    for fate in fates {
        match fate {
            Fate::Played {
                offset_ns,
                delay_ns,
            } => {
                summary.played += 1;
                offsets += *offset_ns as f64;
                buffers += (*offset_ns - *delay_ns) as f64;
                run = 0;
            }
            Fate::Late | Fate::Lost => {
                if matches!(fate, Fate::Late) {
                    summary.late += 1;
                } else {
                    summary.lost += 1;
                }
                if run == 0 {
                    summary.gap_episodes += 1;
                }
                run += 1;
                summary.longest_gap = summary.longest_gap.max(run);
            }
        }
    }
    if summary.played > 0 {
        summary.mean_offset_ns = Some(offsets / summary.played as f64);
        summary.mean_buffer_ns = Some(buffers / summary.played as f64);
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{simulate, DelayJitter, LossModel, PathConfig, Sender};

    fn stream(path: PathConfig, count: u64, seed: u64) -> (Vec<Arrival>, u64) {
        let sender = Sender {
            count,
            interval_ns: 20_000_000,
            ..Sender::default()
        };
        (simulate(&sender, &path, seed).arrivals, count)
    }

    #[test]
    fn a_clean_path_plays_every_packet_at_its_delay_plus_the_depth() {
        let path = PathConfig {
            delay_ns: 50_000_000,
            ..PathConfig::default()
        };
        let (arrivals, sent) = stream(path, 500, 1);
        let fixed = summarise(&play_out(&arrivals, sent, BufferModel::FIXED_40_MS));
        assert_eq!((fixed.played, fixed.late, fixed.lost), (500, 0, 0));
        assert_eq!(fixed.mean_offset_ns, Some(90_000_000.0));
        let adaptive = summarise(&play_out(
            &arrivals,
            sent,
            BufferModel::adaptive_for(20_000_000),
        ));
        assert_eq!(adaptive.played, 500);
        assert_eq!(adaptive.mean_buffer_ns, Some(20_000_000.0));
    }

    #[test]
    fn random_loss_is_counted_lost_not_late() {
        let path = PathConfig {
            delay_ns: 20_000_000,
            loss: LossModel::Random { probability: 0.05 },
            ..PathConfig::default()
        };
        let sim_sender = Sender {
            count: 5_000,
            interval_ns: 20_000_000,
            ..Sender::default()
        };
        let simulation = simulate(&sim_sender, &path, 7);
        let summary = summarise(&play_out(
            &simulation.arrivals,
            5_000,
            BufferModel::adaptive_for(20_000_000),
        ));
        assert_eq!(summary.lost, simulation.truth.lost);
        assert_eq!(summary.late, 0);
        assert_eq!(
            summary.gap_episodes,
            simulation.truth.loss_episodes.episodes
        );
    }

    #[test]
    fn jitter_beyond_a_shallow_fixed_buffer_makes_packets_late_and_the_adaptive_one_grows() {
        let path = PathConfig {
            delay_ns: 20_000_000,
            jitter: DelayJitter::Exponential { mean_ns: 5_000_000 },
            ..PathConfig::default()
        };
        let (arrivals, sent) = stream(path, 3_000, 3);
        let shallow = summarise(&play_out(
            &arrivals,
            sent,
            BufferModel::Fixed {
                depth_ns: 2_000_000,
            },
        ));
        assert!(shallow.late > 300, "{shallow:?}");
        let adaptive = summarise(&play_out(
            &arrivals,
            sent,
            BufferModel::adaptive_for(20_000_000),
        ));
        assert!(adaptive.late < shallow.late / 20, "{adaptive:?}");
        // The maximum of 50 exponential draws (mean 5 ms) is about
        // 5 ms · H(50) ≈ 22 ms above the base, plus the 20 ms margin.
        let buffer = adaptive.mean_buffer_ns.unwrap();
        assert!(buffer > 20_000_000.0 && buffer < 60_000_000.0, "{buffer}");
        assert_eq!(adaptive.played + adaptive.late + adaptive.lost, sent);
    }

    #[test]
    fn a_delay_that_ramps_up_like_a_filling_queue_is_tracked_by_the_adaptive_buffer_only() {
        // 20 ms of base delay growing by 0.1 ms per packet to 120 ms: a
        // queue filling behind a competing TCP load.
        let arrivals: Vec<Arrival> = (0..1_000u64)
            .map(|k| {
                let sent = k as i64 * 20_000_000;
                let delay = 20_000_000 + (k.min(1_000) as i64) * 100_000;
                Arrival {
                    sequence: k,
                    sent_ns: sent,
                    received_ns: sent + delay,
                }
            })
            .collect();
        let adaptive = summarise(&play_out(
            &arrivals,
            1_000,
            BufferModel::adaptive_for(20_000_000),
        ));
        assert_eq!(adaptive.late, 0, "{adaptive:?}");
        let fixed = summarise(&play_out(&arrivals, 1_000, BufferModel::FIXED_40_MS));
        assert!(fixed.late > 500, "{fixed:?}");
    }

    #[test]
    fn the_same_trace_plays_out_the_same_way() {
        let path = PathConfig {
            jitter: DelayJitter::Uniform { max_ns: 9_000_000 },
            loss: LossModel::Random { probability: 0.02 },
            ..PathConfig::default()
        };
        let (arrivals, sent) = stream(path, 1_000, 11);
        let model = BufferModel::adaptive_for(20_000_000);
        assert_eq!(
            play_out(&arrivals, sent, model),
            play_out(&arrivals, sent, model)
        );
    }
}
