//! A seeded, simulated network path: the ground truth the observers are
//! tested against (smoltcp's netsim tests are the model: a deterministic
//! in-memory path, every impairment known).
//!
//! A [`Sender`] emits `count` datagrams numbered 0, 1, 2, … every
//! `interval_ns`, each stamped with its send time. The [`PathConfig`] then
//! applies, per datagram and in this order:
//!
//! 1. **loss** ([`LossModel`]): independent (Bernoulli) or bursty
//!    (Gilbert–Elliott: a two-state Markov chain, each state with its own
//!    loss probability, the state changing after every datagram);
//! 2. **a bottleneck** of `rate_bps` with a FIFO of `queue_limit_packets`
//!    (tail drop): a datagram leaves `size × 8 / rate` after the previous
//!    one left or after it arrived, whichever is later;
//! 3. **fixed delay** `delay_ns` plus **delay jitter** ([`DelayJitter`]),
//!    drawn independently per datagram (jitter larger than the send
//!    interval reorders, as on a real multi-path link);
//! 4. **reordering** ([`Reordering`]): with a probability, the datagram is
//!    held back `hold_ns` more;
//! 5. **duplication** ([`Duplication`]): with a probability, a copy follows
//!    `lag_ns` after it.
//!
//! The receiver's clock may run at an offset (`receiver_clock_offset_ns`),
//! which one-way delay sees and PDV, IPDV and jitter must not. The output is
//! the arrivals `(sequence, sent_ns, received_ns)` in delivery order (ties
//! in emission order) and the [`GroundTruth`]: what the path did, counted by
//! the path itself, never by the observers' algorithms.
//!
//! Every impairment draws from its own xoshiro256** stream seeded from the
//! seed (SplitMix64), and draws the same numbers per datagram whatever the
//! others do: seed 7's loss pattern is the same with or without duplication.

use std::collections::VecDeque;

use dualperf_model::observation::Arrival;

use crate::sequence::LossEpisodes;

/// xoshiro256** (Blackman & Vigna), seeded by SplitMix64: small, fast and
/// deterministic on every platform.
#[derive(Clone, Debug)]
pub struct Rng {
    state: [u64; 4],
}

impl Rng {
    /// A generator whose whole sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut splitmix = seed;
        let mut next = || {
            splitmix = splitmix.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = splitmix;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng {
            state: [next(), next(), next(), next()],
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The sending side: an isochronous stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sender {
    /// Datagrams sent, numbered `0..count`.
    pub count: u64,
    /// Time between two sends, ns.
    pub interval_ns: u64,
    /// Payload size, bytes (matters only with a rate).
    pub size_bytes: u32,
    /// Send time of datagram 0 on the sender's clock, ns.
    pub start_ns: i64,
}

impl Default for Sender {
    fn default() -> Self {
        Sender {
            count: 10_000,
            interval_ns: 1_000_000,
            size_bytes: 172,
            start_ns: 1_700_000_000_000_000_000,
        }
    }
}

/// Extra delay drawn independently for every datagram.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum DelayJitter {
    /// None: every datagram sees the fixed delay.
    #[default]
    None,
    /// Uniform in `0..=max_ns`.
    Uniform {
        /// Largest extra delay, ns.
        max_ns: u64,
    },
    /// Exponential with mean `mean_ns` (a queue's waiting time).
    Exponential {
        /// Mean extra delay, ns.
        mean_ns: u64,
    },
}

/// Which datagrams the path drops.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum LossModel {
    /// No loss.
    #[default]
    None,
    /// Each datagram independently with `probability`.
    Random {
        /// Loss probability, 0..=1.
        probability: f64,
    },
    /// Gilbert–Elliott: in state Good a datagram is lost with `loss_in_good`,
    /// in Bad with `loss_in_bad`; after each datagram Good turns Bad with
    /// `good_to_bad` and Bad turns Good with `bad_to_good`. Starts Good.
    /// With losses only in Bad (0 and 1), episodes average `1 / bad_to_good`
    /// datagrams and the loss ratio tends to `good_to_bad / (good_to_bad + bad_to_good)`.
    GilbertElliott {
        /// P(Good → Bad) per datagram.
        good_to_bad: f64,
        /// P(Bad → Good) per datagram.
        bad_to_good: f64,
        /// Loss probability in Good.
        loss_in_good: f64,
        /// Loss probability in Bad.
        loss_in_bad: f64,
    },
}

/// Holding datagrams back so later ones overtake them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reordering {
    /// Probability a datagram is held back, 0..=1.
    pub probability: f64,
    /// How long, ns (more than the send interval to be overtaken).
    pub hold_ns: u64,
}

/// Duplicating datagrams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duplication {
    /// Probability a delivered datagram gets a copy, 0..=1.
    pub probability: f64,
    /// The copy's delay after the original, ns.
    pub lag_ns: u64,
}

/// The path's impairments; the default is a clean 1 ms path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathConfig {
    /// Bottleneck rate, bit/s of payload; `None`: no bottleneck.
    pub rate_bps: Option<u64>,
    /// Bottleneck FIFO size, datagrams (the one being sent included); `None`: unbounded.
    pub queue_limit_packets: Option<usize>,
    /// Fixed one-way delay, ns.
    pub delay_ns: u64,
    /// Random extra delay per datagram.
    pub jitter: DelayJitter,
    /// Loss before the bottleneck.
    pub loss: LossModel,
    /// Hold-backs.
    pub reordering: Option<Reordering>,
    /// Copies.
    pub duplication: Option<Duplication>,
    /// Receiver's clock minus sender's clock, ns.
    pub receiver_clock_offset_ns: i64,
}

impl Default for PathConfig {
    fn default() -> Self {
        PathConfig {
            rate_bps: None,
            queue_limit_packets: None,
            delay_ns: 1_000_000,
            jitter: DelayJitter::None,
            loss: LossModel::None,
            reordering: None,
            duplication: None,
            receiver_clock_offset_ns: 0,
        }
    }
}

/// What the path did, counted by the path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroundTruth {
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams never delivered (loss model and tail drop).
    pub lost: u64,
    /// Of those, dropped by the loss model.
    pub dropped_by_loss_model: u64,
    /// Of those, dropped because the bottleneck queue was full.
    pub dropped_by_queue: u64,
    /// Runs of consecutive undelivered sequence numbers.
    pub loss_episodes: LossEpisodes,
    /// Copies delivered on top of the originals.
    pub duplicates: u64,
    /// Datagrams held back by the reordering impairment.
    pub held_back: u64,
    /// First copies delivered after a higher-numbered first copy (the
    /// reordered packets of RFC 4737 §3.3, from the delivery schedule).
    pub overtaken: u64,
    /// Per sequence number: the true transit time (delivery − send, without
    /// the clock offset) of its first delivered copy, ns; `None` if lost.
    pub transit_ns: Vec<Option<i64>>,
}

/// One simulated run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Simulation {
    /// Arrivals in delivery order, receive times on the receiver's clock.
    pub arrivals: Vec<Arrival>,
    /// What the path did.
    pub truth: GroundTruth,
}

/// Seeds of the impairments' random streams (any distinct constants).
const LOSS_STREAM: u64 = 0x6C6F_7373;
const JITTER_STREAM: u64 = 0x6A69_7474;
const REORDER_STREAM: u64 = 0x7265_6F72;
const DUPLICATE_STREAM: u64 = 0x6475_706C;

/// Runs `sender` over `path`; the same `seed` gives the same run.
pub fn simulate(sender: &Sender, path: &PathConfig, seed: u64) -> Simulation {
    let mut loss_rng = Rng::new(seed ^ LOSS_STREAM);
    let mut jitter_rng = Rng::new(seed ^ JITTER_STREAM);
    let mut reorder_rng = Rng::new(seed ^ REORDER_STREAM);
    let mut duplicate_rng = Rng::new(seed ^ DUPLICATE_STREAM);
    let transmission_ns: i64 = path.rate_bps.map_or(0, |rate| {
        let bits = u128::from(sender.size_bytes) * 8 * 1_000_000_000;
        bits.div_ceil(u128::from(rate.max(1))).min(i64::MAX as u128) as i64
    });
    let mut bad_state = false;
    let mut queue: VecDeque<i64> = VecDeque::new(); // departure times of queued datagrams
    let mut last_departure = i64::MIN;
    let mut truth = GroundTruth {
        sent: sender.count,
        transit_ns: vec![None; sender.count as usize],
        ..GroundTruth::default()
    };
    // (delivery time, emission index, sequence, send time)
    let mut deliveries: Vec<(i64, u64, u64, i64)> = Vec::with_capacity(sender.count as usize);
    let mut dropped = vec![false; sender.count as usize];
    for sequence in 0..sender.count {
        let sent_ns = sender.start_ns + (sequence * sender.interval_ns) as i64;
        // Every stream draws the same numbers for every datagram.
        let (loss_draw, transition_draw) = (loss_rng.next_f64(), loss_rng.next_f64());
        let jitter_draw = jitter_rng.next_f64();
        let reorder_draw = reorder_rng.next_f64();
        let duplicate_draw = duplicate_rng.next_f64();

        let lost_by_model = match path.loss {
            LossModel::None => false,
            LossModel::Random { probability } => loss_draw < probability,
            LossModel::GilbertElliott {
                good_to_bad,
                bad_to_good,
                loss_in_good,
                loss_in_bad,
            } => {
                let lost = loss_draw < if bad_state { loss_in_bad } else { loss_in_good };
                bad_state = if bad_state {
                    transition_draw >= bad_to_good
                } else {
                    transition_draw < good_to_bad
                };
                lost
            }
        };
        if lost_by_model {
            truth.dropped_by_loss_model += 1;
            dropped[sequence as usize] = true;
            continue;
        }
        let departure = if path.rate_bps.is_some() {
            while queue.front().is_some_and(|&d| d <= sent_ns) {
                queue.pop_front();
            }
            if path
                .queue_limit_packets
                .is_some_and(|limit| queue.len() >= limit)
            {
                truth.dropped_by_queue += 1;
                dropped[sequence as usize] = true;
                continue;
            }
            let departure = sent_ns.max(last_departure) + transmission_ns;
            last_departure = departure;
            queue.push_back(departure);
            departure
        } else {
            sent_ns
        };
        let jitter_ns = match path.jitter {
            DelayJitter::None => 0.0,
            DelayJitter::Uniform { max_ns } => (jitter_draw * (max_ns as f64 + 1.0)).floor(),
            DelayJitter::Exponential { mean_ns } => -(mean_ns as f64) * (1.0 - jitter_draw).ln(),
        };
        let held = path
            .reordering
            .is_some_and(|r| reorder_draw < r.probability);
        let hold_ns = match (held, path.reordering) {
            (true, Some(r)) => {
                truth.held_back += 1;
                r.hold_ns as i64
            }
            _ => 0,
        };
        let delivered = departure + path.delay_ns as i64 + jitter_ns.round() as i64 + hold_ns;
        let emission = deliveries.len() as u64;
        deliveries.push((delivered, emission, sequence, sent_ns));
        if let Some(duplication) = path.duplication {
            if duplicate_draw < duplication.probability {
                truth.duplicates += 1;
                let copy = delivered + duplication.lag_ns as i64;
                deliveries.push((copy, emission + 1, sequence, sent_ns));
            }
        }
    }
    deliveries.sort_unstable_by_key(|&(time, emission, _, _)| (time, emission));

    let mut arrivals = Vec::with_capacity(deliveries.len());
    let mut next_expected = 0u64;
    for &(delivered, _, sequence, sent_ns) in &deliveries {
        let transit = &mut truth.transit_ns[sequence as usize];
        if transit.is_none() {
            *transit = Some(delivered - sent_ns);
            if sequence < next_expected {
                truth.overtaken += 1;
            }
            next_expected = next_expected.max(sequence + 1);
        }
        arrivals.push(Arrival {
            sequence,
            sent_ns,
            received_ns: delivered + path.receiver_clock_offset_ns,
        });
    }
    truth.lost = truth.dropped_by_loss_model + truth.dropped_by_queue;
    truth.loss_episodes = episodes_of(&dropped);
    Simulation { arrivals, truth }
}

/// Loss runs of a per-sequence "dropped" flag list.
fn episodes_of(dropped: &[bool]) -> LossEpisodes {
    let mut episodes = LossEpisodes::default();
    let mut run = 0u64;
    for &lost in dropped.iter().chain([false].iter()) {
        if lost {
            run += 1;
            continue;
        }
        if run > 0 {
            episodes.lost += run;
            episodes.episodes += 1;
            episodes.max_length = episodes.max_length.max(run);
            episodes.length_histogram[LossEpisodes::bucket_of(run)] += 1;
            run = 0;
        }
    }
    episodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_deterministic_and_roughly_uniform() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let draws: Vec<f64> = (0..100_000).map(|_| a.next_f64()).collect();
        assert!(draws
            .iter()
            .zip((0..).map(|_| b.next_f64()))
            .all(|(x, y)| *x == y));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
        assert!(draws.iter().all(|d| (0.0..1.0).contains(d)));
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn a_clean_path_delivers_everything_in_order_after_the_delay() {
        let sender = Sender {
            count: 100,
            ..Sender::default()
        };
        let run = simulate(&sender, &PathConfig::default(), 1);
        assert_eq!(run.arrivals.len(), 100);
        assert!(run
            .arrivals
            .iter()
            .enumerate()
            .all(|(i, a)| a.sequence == i as u64 && a.received_ns - a.sent_ns == 1_000_000));
        assert_eq!(run.truth.lost, 0);
        assert_eq!(run.truth.overtaken, 0);
    }

    #[test]
    fn the_same_seed_gives_the_same_run_and_impairments_do_not_disturb_each_other() {
        let sender = Sender::default();
        let lossy = PathConfig {
            loss: LossModel::Random { probability: 0.05 },
            ..PathConfig::default()
        };
        let with_copies = PathConfig {
            duplication: Some(Duplication {
                probability: 0.1,
                lag_ns: 0,
            }),
            ..lossy
        };
        assert_eq!(simulate(&sender, &lossy, 9), simulate(&sender, &lossy, 9));
        assert_ne!(simulate(&sender, &lossy, 9), simulate(&sender, &lossy, 10));
        assert_eq!(
            simulate(&sender, &lossy, 9).truth.loss_episodes,
            simulate(&sender, &with_copies, 9).truth.loss_episodes
        );
    }

    #[test]
    fn a_bottleneck_queues_and_tail_drops() {
        // 1000 datagrams of 1250 B every 1 µs into a 10 Mbit/s link (1 ms
        // each): the queue of 10 fills at once, the rest is dropped.
        let sender = Sender {
            count: 1_000,
            interval_ns: 1_000,
            size_bytes: 1_250,
            start_ns: 0,
        };
        let path = PathConfig {
            rate_bps: Some(10_000_000),
            queue_limit_packets: Some(10),
            delay_ns: 0,
            ..PathConfig::default()
        };
        let run = simulate(&sender, &path, 3);
        assert_eq!(run.arrivals.len(), 10);
        assert_eq!(run.truth.dropped_by_queue, 990);
        assert_eq!(run.truth.loss_episodes.episodes, 1);
        assert_eq!(run.arrivals[9].received_ns, 10_000_000);
    }

    #[test]
    fn episodes_of_flags() {
        let e = episodes_of(&[true, false, true, true, true, false, false, true]);
        assert_eq!((e.lost, e.episodes, e.max_length), (5, 3, 3));
        assert_eq!(e.length_histogram[0], 2);
        assert_eq!(e.length_histogram[1], 1);
    }
}
