//! RFC 3550 §6.4.1 interarrival jitter, what RTP receivers and iperf report.
//!
//! For consecutive packets `i − 1`, `i` **in order of arrival**, with send
//! times `S` (sender's clock) and receive times `R` (receiver's clock):
//!
//! ```text
//! D(i−1, i) = (R(i) − R(i−1)) − (S(i) − S(i−1))      (the change of transit time)
//! J(i)      = J(i−1) + (|D(i−1, i)| − J(i−1)) / 16    from J = 0
//! ```
//!
//! Only differences of transit times enter, so a constant offset between the
//! two clocks cancels. The gain 1/16 makes `J` an exponentially smoothed mean
//! of `|D|` that forgets old packets (RFC 3550 §6.4.1: it "reduces noise");
//! it is not a standard deviation. The RFC's reference code (appendix A.8)
//! keeps `J` in integers scaled by 16; this keeps it in `f64`, in
//! nanoseconds, so the value is the RFC's formula without rounding.
//!
//! Feed first copies only (duplicates are not packets of the stream,
//! RFC 4737 §3.3), late ones included: they did arrive.

/// RFC 3550 interarrival jitter, fed one packet at a time. 24 bytes, no heap.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InterarrivalJitter {
    previous_transit_ns: Option<i64>,
    jitter_ns: f64,
    packets: u64,
}

impl InterarrivalJitter {
    /// Jitter 0 before any packet.
    pub fn new() -> InterarrivalJitter {
        InterarrivalJitter::default()
    }

    /// Records one packet sent at `sent_ns` (sender's clock) and received at
    /// `received_ns` (receiver's clock), nanoseconds, in arrival order.
    #[inline]
    pub fn observe(&mut self, sent_ns: i64, received_ns: i64) {
        let transit = received_ns.wrapping_sub(sent_ns);
        if let Some(previous) = self.previous_transit_ns.replace(transit) {
            let change = transit.wrapping_sub(previous).unsigned_abs() as f64;
            self.jitter_ns += (change - self.jitter_ns) / 16.0;
        }
        self.packets += 1;
    }

    /// The current estimate `J`, nanoseconds; `None` before two packets.
    pub fn current_ns(&self) -> Option<f64> {
        (self.packets >= 2).then_some(self.jitter_ns)
    }

    /// Packets observed.
    pub fn packets(&self) -> u64 {
        self.packets
    }
}

/// RFC 3550 jitter at the end of a series of transit times
/// (`received − sent`, nanoseconds) in arrival order; `None` for fewer than
/// two. The formula applied directly, for ground truth in tests.
pub fn jitter_of_transits(transits_ns: impl IntoIterator<Item = i64>) -> Option<f64> {
    let mut jitter = InterarrivalJitter::new();
    for transit in transits_ns {
        jitter.observe(0, transit);
    }
    jitter.current_ns()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jitter(transits: &[i64]) -> Option<f64> {
        let mut j = InterarrivalJitter::new();
        for (i, &t) in transits.iter().enumerate() {
            let sent = i as i64 * 10_000_000;
            j.observe(sent, sent + t);
        }
        j.current_ns()
    }

    // The vectors of dualperf-stats' ippm::jitter tests.
    #[test]
    fn constant_transit_time_has_zero_jitter() {
        assert_eq!(jitter(&[5_000; 50]), Some(0.0));
        assert_eq!(jitter(&[5_000]), None);
    }

    #[test]
    fn one_step_of_transit_time_moves_jitter_by_a_sixteenth() {
        assert_eq!(jitter(&[1_000, 2_600]), Some(100.0));
        assert_eq!(jitter(&[1_000, 2_600, 2_600]), Some(93.75));
    }

    #[test]
    fn alternating_transit_converges_to_the_alternation() {
        let transits: Vec<i64> = (0..200)
            .map(|i| if i % 2 == 0 { 0 } else { 1_000 })
            .collect();
        let j = jitter(&transits).unwrap_or_default();
        let expected = 1_000.0 * (1.0 - (15.0f64 / 16.0).powi(199));
        assert!((j - expected).abs() < 1e-6, "{j} vs {expected}");
    }

    #[test]
    fn a_constant_clock_offset_cancels() {
        let mut a = InterarrivalJitter::new();
        let mut b = InterarrivalJitter::new();
        for (i, t) in [1_000i64, 2_600, 1_800, 3_000].into_iter().enumerate() {
            let sent = i as i64 * 1_000;
            a.observe(sent, sent + t);
            b.observe(sent, sent + t + 3_600_000_000_000);
        }
        assert_eq!(a.current_ns(), b.current_ns());
        assert_eq!(jitter_of_transits([1_000, 2_600]), Some(100.0));
    }
}
