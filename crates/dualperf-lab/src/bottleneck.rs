//! A shaped testbed's bottleneck, and how long a paced sender takes to
//! fill the queue in front of it.
//!
//! A paced UDP stream across a shaped path only shows the path once the
//! bottleneck's queue is full: until then the queue absorbs what the link
//! cannot carry, nothing is dropped, and every datagram sent in the
//! measured interval reaches the receiver, some of them after the interval
//! ends. Counted that way the receiver "delivers" more than the link
//! carries, and the header's cost (an IPv6 datagram is 20 bytes longer on
//! the wire, RFC 8200) disappears into the queue. Once the queue is full,
//! what leaves it in the interval is the link's rate exactly. So a trial
//! must warm up for at least the fill time: the queue's bytes divided by
//! the rate the sender offers above the link.

use std::time::Duration;

use dualperf_model::BitRate;

use crate::topology::Topology;

/// The largest frame a queue in front of a lab link holds, bytes: a
/// 1500-byte IP packet (the lab's MTU) with its 14-byte Ethernet header,
/// which is what `htb` and `pfifo` count on a veth egress.
pub const LARGEST_FRAME_BYTES: u64 = 1514;

/// The slowest shaped link direction of a testbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bottleneck {
    /// The rate it is shaped to (frames, as `htb` counts them).
    pub rate: BitRate,
    /// The longest queue in front of a direction shaped to that rate, packets.
    pub queue_limit_packets: u32,
}

impl Bottleneck {
    /// The slowest shaped direction of `topology`, `None` when no link sets
    /// a rate. When several directions share the slowest rate, the longest
    /// of their queues (the one that takes longest to fill).
    pub fn of(topology: &Topology) -> Option<Bottleneck> {
        let shaped: Vec<(BitRate, u32)> = topology
            .links()
            .iter()
            .flat_map(|link| link.egress.iter().flatten())
            .filter_map(|s| s.rate.map(|(_, rate)| (rate, s.queue_limit_packets)))
            .collect();
        let rate = shaped.iter().map(|(rate, _)| *rate).min()?;
        let queue_limit_packets = shaped
            .iter()
            .filter(|(r, _)| *r == rate)
            .map(|(_, queue)| *queue)
            .max()?;
        Some(Bottleneck {
            rate,
            queue_limit_packets,
        })
    }

    /// At most how long a sender offering `offered` (frames as the shaper
    /// counts them, bits per second, all streams together; pass the
    /// smaller family's frames for a bound) takes to fill the queue: the
    /// queue's largest frames over the excess of the offered rate above
    /// the link. `None` when the offered frames do not exceed the link.
    pub fn fill_time(&self, offered: BitRate) -> Option<Duration> {
        let excess = offered
            .bits_per_second()
            .checked_sub(self.rate.bits_per_second())
            .filter(|bits| *bits > 0)?;
        let queue_bits = u64::from(self.queue_limit_packets) * LARGEST_FRAME_BYTES * 8;
        Some(Duration::from_secs_f64(queue_bits as f64 / excess as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link_rate::{apply, LinkRateChoice};
    use crate::preset;

    #[test]
    fn the_bottleneck_preset_has_a_10_mbit_link_with_a_100_packet_queue() {
        let bottleneck = Bottleneck::of(&preset::load("bottleneck").unwrap()).unwrap();
        assert_eq!(bottleneck.rate, BitRate::from_mbit(10));
        assert_eq!(bottleneck.queue_limit_packets, 100);
        assert_eq!(Bottleneck::of(&preset::load("router").unwrap()), None);
        let (shaped, _) = apply(
            preset::load("router").unwrap(),
            LinkRateChoice::Rate(BitRate::from_mbit(100)),
        );
        assert_eq!(
            Bottleneck::of(&shaped).map(|b| b.rate),
            Some(BitRate::from_mbit(100))
        );
    }

    #[test]
    fn the_fill_time_is_the_queue_over_the_excess_and_none_at_or_below_the_link() {
        let bottleneck = Bottleneck {
            rate: BitRate::from_mbit(10),
            queue_limit_packets: 100,
        };
        // 100 × 1514 B × 8 = 1.2112 Mbit at 2.5 Mbit/s above the link: 0.48448 s.
        let fill = bottleneck.fill_time(BitRate::from_bits_per_second(12_500_000));
        assert_eq!(fill.map(|d| d.as_micros()), Some(484_480));
        assert_eq!(bottleneck.fill_time(BitRate::from_mbit(10)), None);
        assert_eq!(bottleneck.fill_time(BitRate::from_mbit(5)), None);
    }
}
