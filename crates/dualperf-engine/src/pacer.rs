//! Rate pacing for UDP senders: a token bucket with a bounded burst.
//!
//! Credit accrues at the target rate (one token per datagram interval) and
//! is capped at the burst size, so a sender that stalls (descheduled on a
//! busy machine) never catches up with a burst of back-to-back datagrams.
//! The credit above the cap becomes **debt**, repaid at no more than
//! [`CATCH_UP_RATIO`] above the target rate, so the average over a trial
//! still meets the target while no 100 ms window ever runs faster than
//! `rate × (1 + CATCH_UP_RATIO)` (plus one burst). What stays unpaid at the
//! end, and the longest stall, are reported: a sender that could not hold
//! its rate says so.
//!
//! Pure: the caller passes the time (nanoseconds of a monotonic clock), so
//! the schedule is tested on made-up timelines.

use std::time::Duration;

/// After a stall, the sender may run this much faster than the target rate
/// (0.10: 10 %) until the datagrams it owes are sent.
pub const CATCH_UP_RATIO: f64 = 0.10;

/// A token bucket pacing one stream of equal-sized datagrams.
#[derive(Clone, Debug)]
pub struct Pacer {
    /// Nanoseconds between datagrams at the target rate.
    interval_ns: f64,
    /// Most datagrams sent back to back (bucket depth).
    burst_packets: f64,
    /// Datagrams that may be sent now.
    tokens: f64,
    /// Time of the last update, ns.
    last_ns: u64,
    /// Credit above the bucket's depth: datagrams owed after stalls, repaid
    /// at up to [`CATCH_UP_RATIO`] of the rate.
    debt: f64,
    /// Longest gap between two updates, ns (a stall of the sending thread).
    longest_gap_ns: u64,
}

/// The default burst: 2 ms of traffic (iperf3 paces on a 1 ms timer), at
/// least 4 and at most 128 datagrams.
pub fn default_burst(interval_ns: f64) -> u32 {
    ((2_000_000.0 / interval_ns) as u32).clamp(4, 128)
}

impl Pacer {
    /// A pacer for `rate_bps` payload bits per second of `payload_bytes`
    /// datagrams, starting at `now_ns` with a full bucket of `burst_packets`.
    pub fn new(rate_bps: u64, payload_bytes: usize, burst_packets: u32, now_ns: u64) -> Pacer {
        let interval_ns =
            (payload_bytes.max(1) as f64 * 8.0 * 1e9 / rate_bps.max(1) as f64).max(1.0);
        let burst = f64::from(burst_packets.max(1));
        Pacer {
            interval_ns,
            burst_packets: burst,
            tokens: 1.0,
            last_ns: now_ns,
            debt: 0.0,
            longest_gap_ns: 0,
        }
    }

    /// Nanoseconds between datagrams at the target rate.
    pub fn interval_ns(&self) -> f64 {
        self.interval_ns
    }

    /// Datagrams that may go at `now_ns`, at most `want`; or, when none may,
    /// how long to wait for the next one. Granted datagrams are spent.
    pub fn grant(&mut self, now_ns: u64, want: usize) -> Result<usize, Duration> {
        let gap = now_ns.saturating_sub(self.last_ns);
        self.longest_gap_ns = self.longest_gap_ns.max(gap);
        self.last_ns = now_ns.max(self.last_ns);
        let earned = gap as f64 / self.interval_ns;
        // Repay debt with extra credit at CATCH_UP_RATIO of the rate.
        let repaid = (earned * CATCH_UP_RATIO).min(self.debt);
        self.debt -= repaid;
        self.tokens += earned + repaid;
        if self.tokens > self.burst_packets {
            self.debt += self.tokens - self.burst_packets;
            self.tokens = self.burst_packets;
        }
        // Wake up for half a bucket at a time: fewer wake-ups, each of which
        // may be late on a busy machine, and never more than the bucket.
        let batch = (self.burst_packets / 2.0).max(1.0).floor();
        if self.tokens >= batch.min(want.max(1) as f64) {
            let granted = (self.tokens.floor() as usize).min(want.max(1));
            self.tokens -= granted as f64;
            Ok(granted)
        } else {
            let wait = ((batch - self.tokens) * self.interval_ns).ceil() as u64;
            Err(Duration::from_nanos(wait.max(1)))
        }
    }

    /// Returns unused grants (the kernel took fewer datagrams than granted).
    pub fn refund(&mut self, packets: usize) {
        self.tokens = (self.tokens + packets as f64).min(self.burst_packets);
    }

    /// Datagrams owed after stalls and not yet sent (rounded down).
    pub fn debt_packets(&self) -> u64 {
        self.debt as u64
    }

    /// The longest stall seen between two calls, ns.
    pub fn longest_gap_ns(&self) -> u64 {
        self.longest_gap_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends greedily on a 10 µs polling loop for `duration_ns`; returns send times.
    fn simulate(
        pacer: &mut Pacer,
        start: u64,
        duration_ns: u64,
        stall: Option<(u64, u64)>,
    ) -> Vec<u64> {
        let mut sent = Vec::new();
        let mut now = start;
        while now < start + duration_ns {
            if let Some((from, to)) = stall {
                if now >= from && now < to {
                    now = to;
                    continue;
                }
            }
            match pacer.grant(now, 64) {
                Ok(n) => sent.extend(std::iter::repeat_n(now, n)),
                Err(wait) => now += (wait.as_nanos() as u64).min(10_000),
            }
            now += 1;
        }
        sent
    }

    #[test]
    fn the_rate_holds_within_one_percent_in_every_100_ms_window() {
        // 85 Mbit/s of 1408-byte datagrams: one every 132.5 µs.
        let mut pacer = Pacer::new(85_000_000, 1408, 8, 0);
        let sent = simulate(&mut pacer, 0, 1_000_000_000, None);
        let expected = 0.1e9 / pacer.interval_ns();
        for window in 0..10u64 {
            let (from, to) = (window * 100_000_000, (window + 1) * 100_000_000);
            let count = sent.iter().filter(|&&t| t >= from && t < to).count() as f64;
            assert!(
                (count - expected).abs() / expected < 0.01,
                "window {window}: {count} datagrams, expected {expected:.1}"
            );
        }
    }

    #[test]
    fn after_a_stall_the_sender_catches_up_gently_never_in_a_burst() {
        let mut pacer = Pacer::new(85_000_000, 1408, 8, 0);
        // The thread is descheduled from 100 ms to 120 ms.
        let sent = simulate(&mut pacer, 0, 500_000_000, Some((100_000_000, 120_000_000)));
        let at_resume = sent.iter().filter(|&&t| t == 120_000_000).count();
        assert!(
            at_resume <= 8,
            "{at_resume} datagrams back to back after the stall"
        );
        // No 10 ms window after the stall runs faster than 110 % of the rate plus a burst.
        let per_10_ms = 10e6 / pacer.interval_ns();
        for window in 12..50u64 {
            let (from, to) = (window * 10_000_000, (window + 1) * 10_000_000);
            let count = sent.iter().filter(|&&t| t >= from && t < to).count() as f64;
            assert!(
                count <= per_10_ms * (1.0 + CATCH_UP_RATIO) + 8.0,
                "window {window}: {count}"
            );
        }
        // 20 ms at 132.5 µs is ~151 datagrams; by 500 ms all of them are repaid.
        let expected = 500e6 / pacer.interval_ns();
        assert!(
            (sent.len() as f64 - expected).abs() < 9.0,
            "{} of {expected:.0}",
            sent.len()
        );
        assert_eq!(pacer.debt_packets(), 0);
        assert!(pacer.longest_gap_ns() >= 20_000_000);
    }

    #[test]
    fn a_waiting_sender_is_told_how_long_to_wait() {
        let mut pacer = Pacer::new(8_000_000, 1000, 2, 0); // one datagram per ms
        assert_eq!(pacer.grant(0, 64), Ok(1));
        assert_eq!(pacer.grant(0, 64), Err(Duration::from_millis(1)));
        assert_eq!(pacer.grant(1_000_000, 64), Ok(1));
        pacer.refund(1);
        assert_eq!(pacer.grant(1_000_000, 64), Ok(1));
    }

    #[test]
    fn a_sender_wakes_for_half_a_bucket() {
        let mut pacer = Pacer::new(8_000_000, 1000, 8, 0); // one datagram per ms
        assert_eq!(pacer.grant(0, 64), Err(Duration::from_millis(3)));
        assert_eq!(pacer.grant(4_000_000, 64), Ok(5));
    }

    #[test]
    fn the_default_burst_is_two_milliseconds_of_traffic_within_bounds() {
        assert_eq!(default_burst(132_518.0), 15);
        assert_eq!(default_burst(10.0), 128);
        assert_eq!(default_burst(10_000_000.0), 4);
    }
}
