//! When each target is compared: a pure state machine. Time is passed in
//! (a [`Duration`] since any fixed origin, monotonic), randomness comes
//! from a seed, so every rule is tested by simulation.
//!
//! The rules, all enforced here:
//!
//! - **never overlapping**: one comparison at a time, over all targets;
//! - **interval with jitter**: a target is due `interval` plus a random
//!   `0..=jitter` after its previous start (its first start is a random
//!   `0..=jitter` after the schedule begins, which spreads targets apart);
//!   a missed start is not caught up: a late target runs once, then waits
//!   a whole interval again;
//! - **per-target rate limit**: at most `max_runs_per_hour` starts of one
//!   target in any hour;
//! - **duty-cycle cap**: after a comparison that took `d`, nothing starts
//!   for `d × (1 − c) / c`, so measuring never takes more than the
//!   fraction `c` of the time from the first start to any later start;
//! - **bounded**: optionally stop after a number of comparisons.
//!
//! Among due targets, the longest overdue goes first (ties: file order).

use std::collections::VecDeque;
use std::time::Duration;

/// How one target is scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetSchedule {
    /// Nominal time between two starts.
    pub interval: Duration,
    /// Random extra delay of every start, uniform in `0..=jitter`.
    pub jitter: Duration,
    /// Most starts in any hour (the per-target rate limit).
    pub max_runs_per_hour: u32,
}

/// What to do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Start a comparison of the target with this index now.
    Run(usize),
    /// Nothing is due: wait until this time (or a stop).
    WaitUntil(Duration),
    /// A comparison is running; call [`Schedule::finished`] first.
    Busy,
    /// The bound on comparisons is reached.
    Done,
}

const HOUR: Duration = Duration::from_secs(3600);

#[derive(Clone, Debug)]
struct TargetState {
    config: TargetSchedule,
    due: Duration,
    /// Starts within the last hour, oldest first (at most `max_runs_per_hour`).
    recent_starts: VecDeque<Duration>,
}

/// The schedule of every target.
#[derive(Clone, Debug)]
pub struct Schedule {
    targets: Vec<TargetState>,
    duty_cycle: f64,
    /// No start before this (the duty-cycle rest).
    rest_until: Duration,
    running: Option<(usize, Duration)>,
    started: u64,
    limit: Option<u64>,
    busy: Duration,
    random: SplitMix64,
}

impl Schedule {
    /// A schedule that begins at `now`; `seed` draws the jitter; `limit`
    /// bounds the number of comparisons (`None`: unbounded).
    ///
    /// # Panics
    /// When `duty_cycle` is not in (0, 1] (the configuration checks it).
    pub fn new(
        targets: &[TargetSchedule],
        duty_cycle: f64,
        limit: Option<u64>,
        seed: u64,
        now: Duration,
    ) -> Schedule {
        assert!(
            duty_cycle > 0.0 && duty_cycle <= 1.0,
            "duty cycle {duty_cycle} outside (0, 1]"
        );
        let mut random = SplitMix64(seed);
        let targets = targets
            .iter()
            .map(|&config| TargetState {
                config,
                due: now + random.up_to(config.jitter),
                recent_starts: VecDeque::new(),
            })
            .collect();
        Schedule {
            targets,
            duty_cycle,
            rest_until: now,
            running: None,
            started: 0,
            limit,
            busy: Duration::ZERO,
            random,
        }
    }

    /// What to do at `now`.
    pub fn next(&self, now: Duration) -> Next {
        if self.running.is_some() {
            return Next::Busy;
        }
        if self.limit.is_some_and(|limit| self.started >= limit) {
            return Next::Done;
        }
        let mut earliest: Option<Duration> = None;
        let mut chosen: Option<(Duration, usize)> = None;
        for (index, target) in self.targets.iter().enumerate() {
            let allowed = self.earliest_start(target);
            if allowed <= now {
                let earlier = match chosen {
                    Some((due, _)) => target.due < due,
                    None => true,
                };
                if earlier {
                    chosen = Some((target.due, index));
                }
            } else {
                earliest = Some(earliest.map_or(allowed, |e| e.min(allowed)));
            }
        }
        match (chosen, earliest) {
            (Some((_, index)), _) => Next::Run(index),
            (None, Some(at)) => Next::WaitUntil(at),
            (None, None) => Next::Done,
        }
    }

    /// The earliest time `target` may start: due, rested, within its rate limit.
    fn earliest_start(&self, target: &TargetState) -> Duration {
        let mut at = target.due.max(self.rest_until);
        let limit = target.config.max_runs_per_hour as usize;
        if target.recent_starts.len() >= limit {
            let oldest = target.recent_starts[target.recent_starts.len() - limit];
            at = at.max(oldest + HOUR);
        }
        at
    }

    /// Records that the comparison of `target` started at `now`.
    ///
    /// # Panics
    /// When a comparison is already running (they never overlap) or
    /// `target` is out of range.
    pub fn started(&mut self, target: usize, now: Duration) {
        assert!(
            self.running.is_none(),
            "comparisons never overlap: {:?} is still running",
            self.running
        );
        self.running = Some((target, now));
        self.started += 1;
        let state = &mut self.targets[target];
        while state
            .recent_starts
            .front()
            .is_some_and(|&start| start + HOUR <= now)
        {
            state.recent_starts.pop_front();
        }
        state.recent_starts.push_back(now);
        let limit = state.config.max_runs_per_hour.max(1) as usize;
        while state.recent_starts.len() > limit {
            state.recent_starts.pop_front();
        }
        let jitter = self.random.up_to(state.config.jitter);
        state.due = now + state.config.interval + jitter;
    }

    /// Records that the running comparison ended at `now`.
    ///
    /// # Panics
    /// When no comparison is running.
    pub fn finished(&mut self, now: Duration) {
        let (_, started) = self.running.take().expect("finished() follows started()");
        let took = now.saturating_sub(started);
        self.busy += took;
        let rest = took.as_secs_f64() * (1.0 - self.duty_cycle) / self.duty_cycle;
        self.rest_until = now + Duration::from_secs_f64(rest);
    }

    /// Comparisons started so far.
    pub fn runs_started(&self) -> u64 {
        self.started
    }

    /// Time spent in finished comparisons.
    pub fn busy(&self) -> Duration {
        self.busy
    }

    /// When target `index` is next due (before rest and rate limit).
    pub fn due(&self, index: usize) -> Duration {
        self.targets[index].due
    }
}

/// SplitMix64: a small, good-enough generator for jitter (not for secrets).
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=limit`, at millisecond resolution.
    fn up_to(&mut self, limit: Duration) -> Duration {
        let millis = limit.as_millis() as u64;
        if millis == 0 {
            return Duration::ZERO;
        }
        Duration::from_millis(self.next_u64() % (millis + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    fn target(interval: f64, jitter: f64, per_hour: u32) -> TargetSchedule {
        TargetSchedule {
            interval: secs(interval),
            jitter: secs(jitter),
            max_runs_per_hour: per_hour,
        }
    }

    /// One simulated run: (target, start, end).
    type Run = (usize, Duration, Duration);

    /// Drives the schedule for `span` with comparisons that take `took(i)`.
    fn simulate(
        schedule: &mut Schedule,
        span: Duration,
        mut took: impl FnMut(usize) -> Duration,
    ) -> Vec<Run> {
        let mut now = Duration::ZERO;
        let mut runs = Vec::new();
        while now < span {
            match schedule.next(now) {
                Next::Run(index) => {
                    schedule.started(index, now);
                    assert_eq!(schedule.next(now), Next::Busy);
                    let end = now + took(runs.len());
                    schedule.finished(end);
                    runs.push((index, now, end));
                    now = end;
                }
                Next::WaitUntil(at) => {
                    assert!(at > now, "waits move time forward");
                    now = at;
                }
                Next::Busy => unreachable!(),
                Next::Done => break,
            }
        }
        runs
    }

    #[test]
    fn a_lone_target_runs_every_interval_and_never_catches_up() {
        let mut schedule = Schedule::new(&[target(60.0, 0.0, 60)], 1.0, None, 1, Duration::ZERO);
        let runs = simulate(&mut schedule, secs(600.0), |i| {
            secs(if i == 2 { 200.0 } else { 5.0 })
        });
        let starts: Vec<f64> = runs.iter().map(|r| r.1.as_secs_f64()).collect();
        // The third run took 200 s: the next starts right after it, once.
        assert_eq!(
            starts,
            [0.0, 60.0, 120.0, 320.0, 380.0, 440.0, 500.0, 560.0]
        );
    }

    #[test]
    fn the_duty_cycle_rests_after_each_comparison() {
        let mut schedule = Schedule::new(
            &[target(1.0, 0.0, 3600), target(1.0, 0.0, 3600)],
            0.25,
            None,
            1,
            Duration::ZERO,
        );
        let runs = simulate(&mut schedule, secs(100.0), |_| secs(10.0));
        for pair in runs.windows(2) {
            assert!(pair[1].1 - pair[0].2 >= secs(30.0), "{pair:?}");
        }
        assert_eq!(schedule.busy(), secs(10.0) * runs.len() as u32);
    }

    #[test]
    fn the_rate_limit_holds_even_when_the_interval_asks_for_more() {
        let mut schedule = Schedule::new(&[target(1.0, 0.0, 4)], 1.0, None, 1, Duration::ZERO);
        let runs = simulate(&mut schedule, secs(7200.0), |_| secs(0.5));
        let starts: Vec<f64> = runs.iter().map(|r| r.1.as_secs_f64()).collect();
        assert_eq!(starts, [0.0, 1.0, 2.0, 3.0, 3600.0, 3601.0, 3602.0, 3603.0]);
    }

    #[test]
    fn the_bound_ends_the_schedule() {
        let mut schedule =
            Schedule::new(&[target(1.0, 0.5, 3600)], 1.0, Some(5), 9, Duration::ZERO);
        let runs = simulate(&mut schedule, secs(1000.0), |_| secs(0.1));
        assert_eq!(runs.len(), 5);
        assert_eq!(schedule.next(secs(2000.0)), Next::Done);
        assert_eq!(schedule.runs_started(), 5);
    }

    #[test]
    #[should_panic(expected = "never overlap")]
    fn starting_while_running_is_a_bug() {
        let mut schedule = Schedule::new(&[target(1.0, 0.0, 60)], 1.0, None, 1, Duration::ZERO);
        schedule.started(0, Duration::ZERO);
        schedule.started(0, Duration::ZERO);
    }

    #[test]
    fn the_longest_overdue_target_goes_first() {
        let mut schedule = Schedule::new(
            &[target(100.0, 0.0, 60), target(10.0, 0.0, 3600)],
            1.0,
            None,
            1,
            Duration::ZERO,
        );
        let runs = simulate(&mut schedule, secs(35.0), |_| secs(1.0));
        let order: Vec<usize> = runs.iter().map(|r| r.0).collect();
        assert_eq!(order, [0, 1, 1, 1, 1]);
    }

    proptest! {
        #[test]
        fn every_rule_holds_under_random_loads(
            targets in prop::collection::vec((1u32..600, 0u32..100, 1u32..120), 1..6),
            duty in 0.05f64..1.0,
            seed in any::<u64>(),
            durations in prop::collection::vec(1u32..120_000, 1..64),
        ) {
            let configs: Vec<TargetSchedule> = targets
                .iter()
                .map(|&(interval, jitter_percent, per_hour)| {
                    let interval = secs(f64::from(interval));
                    TargetSchedule {
                        interval,
                        jitter: interval.mul_f64(f64::from(jitter_percent) / 100.0),
                        max_runs_per_hour: per_hour,
                    }
                })
                .collect();
            let mut schedule = Schedule::new(&configs, duty, None, seed, Duration::ZERO);
            let runs = simulate(&mut schedule, secs(4.0 * 3600.0), |i| {
                Duration::from_millis(u64::from(durations[i % durations.len()]))
            });
            prop_assert!(!runs.is_empty());
            // Never overlapping, and resting after each run.
            for pair in runs.windows(2) {
                let rest = (pair[0].2 - pair[0].1).as_secs_f64() * (1.0 - duty) / duty;
                prop_assert!(pair[1].1.as_secs_f64() + 1e-6 >= pair[0].2.as_secs_f64() + rest);
            }
            // Duty cycle: busy time before any start ≤ c × the time since the first.
            let mut busy = 0.0;
            for run in &runs {
                prop_assert!(busy <= duty * (run.1 - runs[0].1).as_secs_f64() + 1e-6);
                busy += (run.2 - run.1).as_secs_f64();
            }
            for (index, config) in configs.iter().enumerate() {
                let starts: Vec<Duration> =
                    runs.iter().filter(|r| r.0 == index).map(|r| r.1).collect();
                // Interval: consecutive starts at least one interval apart.
                for pair in starts.windows(2) {
                    prop_assert!(pair[1] - pair[0] >= config.interval);
                }
                // Rate limit: never more than max_runs_per_hour in any hour.
                let limit = config.max_runs_per_hour as usize;
                for window in starts.windows(limit + 1) {
                    prop_assert!(window[limit] - window[0] >= HOUR);
                }
            }
        }
    }
}
