//! Interarrival jitter as defined in RFC 3550 §6.4.1 (what RTP receivers and
//! iperf report).
//!
//! For consecutive packets i−1, i **in order of arrival**,
//! `D(i−1,i) = (R(i) − R(i−1)) − (S(i) − S(i−1))` and
//! `J(i) = J(i−1) + (|D(i−1,i)| − J(i−1)) / 16`, starting from J = 0.
//! Only differences of transit times enter, so the two clocks need not be
//! synchronised. The 1/16 gain makes J an exponentially smoothed mean of
//! |D| that forgets old packets; it is *not* a standard deviation.
//! Computed in floating point (the RFC's reference code uses integers).

use dualperf_model::observation::Arrival;

/// RFC 3550 interarrival jitter, fed one packet at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Jitter {
    previous_transit_ns: Option<i64>,
    jitter_ns: f64,
    packets: u64,
}

impl Jitter {
    /// Records one packet sent at `sent_ns` (sender clock) and received at
    /// `received_ns` (receiver clock), nanoseconds.
    pub fn observe(&mut self, sent_ns: i64, received_ns: i64) {
        let transit = received_ns.wrapping_sub(sent_ns);
        if let Some(previous) = self.previous_transit_ns.replace(transit) {
            let change = transit.wrapping_sub(previous).unsigned_abs() as f64;
            self.jitter_ns += (change - self.jitter_ns) / 16.0;
        }
        self.packets += 1;
    }

    /// The current estimate in nanoseconds; `None` before two packets.
    pub fn current_ns(&self) -> Option<f64> {
        (self.packets >= 2).then_some(self.jitter_ns)
    }
}

/// RFC 3550 jitter at the end of a trace, in nanoseconds; `None` for fewer
/// than two arrivals. Pass the trace without duplicates.
pub fn interarrival_jitter_ns(arrivals: &[Arrival]) -> Option<f64> {
    let mut jitter = Jitter::default();
    for arrival in arrivals {
        jitter.observe(arrival.sent_ns, arrival.received_ns);
    }
    jitter.current_ns()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(transits_ns: &[i64]) -> Vec<Arrival> {
        transits_ns
            .iter()
            .enumerate()
            .map(|(i, &transit)| {
                let sent_ns = i as i64 * 10_000_000;
                Arrival {
                    sequence: i as u64,
                    sent_ns,
                    received_ns: sent_ns + transit,
                }
            })
            .collect()
    }

    #[test]
    fn constant_transit_time_has_zero_jitter() {
        assert_eq!(interarrival_jitter_ns(&trace(&[5_000; 50])), Some(0.0));
    }

    #[test]
    fn a_single_packet_has_no_jitter_yet() {
        assert_eq!(interarrival_jitter_ns(&trace(&[5_000])), None);
    }

    #[test]
    fn one_step_of_transit_time_moves_jitter_by_a_sixteenth() {
        // D = 1600 ns once: J = 0 + (1600 − 0)/16 = 100 ns.
        assert_eq!(interarrival_jitter_ns(&trace(&[1_000, 2_600])), Some(100.0));
        // Then constant: J decays by 15/16 per packet: 100·15/16 = 93.75.
        assert_eq!(
            interarrival_jitter_ns(&trace(&[1_000, 2_600, 2_600])),
            Some(93.75)
        );
    }

    #[test]
    fn alternating_transit_converges_to_the_alternation() {
        // |D| = 1000 every packet: J(n) = 1000·(1 − (15/16)^n).
        let transits: Vec<i64> = (0..200)
            .map(|i| if i % 2 == 0 { 0 } else { 1_000 })
            .collect();
        let j = interarrival_jitter_ns(&trace(&transits)).unwrap();
        let expected = 1_000.0 * (1.0 - (15.0f64 / 16.0).powi(199));
        assert!((j - expected).abs() < 1e-6, "{j} vs {expected}");
    }

    #[test]
    fn a_constant_clock_offset_does_not_change_jitter() {
        let base = trace(&[1_000, 2_600, 1_800, 3_000]);
        let shifted: Vec<Arrival> = base
            .iter()
            .map(|a| Arrival {
                received_ns: a.received_ns + 3_600_000_000_000,
                ..*a
            })
            .collect();
        assert_eq!(
            interarrival_jitter_ns(&base),
            interarrival_jitter_ns(&shifted)
        );
    }
}
