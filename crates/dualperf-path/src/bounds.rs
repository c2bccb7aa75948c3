//! Bounds on what a probe run may send: packets per second, probes in
//! total, hop limit and time. Every probe passes through one [`Budget`].

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The limits of one family's probe run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Probes per second at most (pacing between sends).
    pub packets_per_second: u32,
    /// Probes in total at most, per family.
    pub max_probes: u32,
    /// Highest hop limit (IPv6) or TTL (IPv4) a sweep uses.
    pub max_hops: u8,
    /// Time for one family at most, milliseconds.
    pub max_time_ms: u64,
    /// How long one probe waits for its answer, milliseconds.
    pub wait_ms: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            packets_per_second: 50,
            max_probes: 400,
            max_hops: 16,
            max_time_ms: 60_000,
            wait_ms: 500,
        }
    }
}

impl Bounds {
    /// Checks the bounds are usable: 1 to 1000 probes per second, 1 to 10 000
    /// probes, hop limit 1 to 64, 1 s to 10 min, a wait of 10 ms to 5 s.
    ///
    /// # Errors
    /// A sentence naming the bound out of range.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=1000).contains(&self.packets_per_second) {
            return Err("packets per second: 1 to 1000".into());
        }
        if !(1..=10_000).contains(&self.max_probes) {
            return Err("probes per family: 1 to 10000".into());
        }
        if !(1..=64).contains(&self.max_hops) {
            return Err("hop limit: 1 to 64".into());
        }
        if !(1_000..=600_000).contains(&self.max_time_ms) {
            return Err("time per family: 1 to 600 seconds".into());
        }
        if !(10..=5_000).contains(&self.wait_ms) {
            return Err("wait per probe: 10 ms to 5 s".into());
        }
        Ok(())
    }

    /// The wait for one answer.
    pub fn wait(&self) -> Duration {
        Duration::from_millis(self.wait_ms)
    }
}

/// Why a probe may not be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exhausted {
    /// [`Bounds::max_probes`] reached.
    Probes,
    /// [`Bounds::max_time_ms`] passed.
    Time,
}

/// Paces and counts probes against [`Bounds`].
#[derive(Debug)]
pub struct Budget {
    bounds: Bounds,
    started: Instant,
    next_send: Instant,
    sent: u32,
}

impl Budget {
    /// A fresh budget; the clock starts now.
    pub fn new(bounds: Bounds) -> Self {
        let now = Instant::now();
        Budget {
            bounds,
            started: now,
            next_send: now,
            sent: 0,
        }
    }

    /// The bounds.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// Probes sent so far.
    pub fn sent(&self) -> u32 {
        self.sent
    }

    /// Takes one probe from the budget, sleeping until the pacing allows it.
    ///
    /// # Errors
    /// [`Exhausted`] when the count or the time is used up.
    pub fn take(&mut self) -> Result<(), Exhausted> {
        if self.sent >= self.bounds.max_probes {
            return Err(Exhausted::Probes);
        }
        let now = Instant::now();
        if now.duration_since(self.started) >= Duration::from_millis(self.bounds.max_time_ms) {
            return Err(Exhausted::Time);
        }
        if self.next_send > now {
            std::thread::sleep(self.next_send - now);
        }
        let gap = Duration::from_secs(1) / self.bounds.packets_per_second.max(1);
        self.next_send = Instant::now() + gap;
        self.sent += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_stops_at_the_probe_count_and_paces_sends() {
        let mut budget = Budget::new(Bounds {
            packets_per_second: 100,
            max_probes: 3,
            ..Bounds::default()
        });
        let start = Instant::now();
        assert!(budget.take().is_ok());
        assert!(budget.take().is_ok());
        assert!(budget.take().is_ok());
        assert_eq!(budget.take(), Err(Exhausted::Probes));
        // three sends at 100/s: at least two gaps of 10 ms
        assert!(start.elapsed() >= Duration::from_millis(20));
        assert_eq!(budget.sent(), 3);
    }

    #[test]
    fn bounds_out_of_range_are_refused() {
        assert!(Bounds::default().validate().is_ok());
        let bad = Bounds {
            packets_per_second: 0,
            ..Bounds::default()
        };
        assert!(bad.validate().unwrap_err().contains("per second"));
        let bad = Bounds {
            max_hops: 0,
            ..Bounds::default()
        };
        assert!(bad.validate().unwrap_err().contains("hop limit"));
    }
}
