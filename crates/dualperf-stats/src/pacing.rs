//! Pacing truth: did a paced udp-stream trial send at the rate asked?
//!
//! Asked: the point's `rate` per stream × streams (payload bits per
//! second). Achieved: payload bytes the sending end put into its sockets in
//! the measured interval × 8 / its length, over the whole trial and over
//! every sampling interval (the sending end's per-interval counts).
//!
//! A trial is **off rate** when
//!
//! * the whole trial is more than [`TRIAL_TOLERANCE_RATIO`] (2 %) away
//!   from the rate, or
//! * an interval is further off than 2 % plus one burst: the engine's
//!   pacer may send [`BURST_NS`] (2 ms) of traffic back to back, which in a
//!   100 ms interval is another 2 %. A sender that stalled (descheduled)
//!   and caught up shows here even when its trial average is right.
//!   Intervals shorter than half the sampling interval (the tail of the
//!   measured interval) are not judged.
//!
//! Pure; docs/metrics.md ("Pacing") has the same definitions.

use dualperf_model::{TestKind, Trial, TrialOutcome};

/// A trial more than this far from the asked rate is off rate.
pub const TRIAL_TOLERANCE_RATIO: f64 = 0.02;
/// The pacer's burst, nanoseconds of traffic (the engine's `default_burst`).
pub const BURST_NS: f64 = 2_000_000.0;

/// Asked against achieved rate of one paced trial.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pacing {
    /// The rate asked, all streams together, payload bit/s.
    pub asked_bps: f64,
    /// The rate sent over the measured interval, payload bit/s.
    pub achieved_bps: f64,
    /// achieved / asked − 1 over the trial.
    pub trial_ratio: f64,
    /// The judged interval furthest off: achieved / asked − 1 (signed).
    pub worst_interval_ratio: Option<f64>,
    /// Intervals further off than their tolerance.
    pub intervals_off: u64,
    /// Intervals judged.
    pub intervals: u64,
}

impl Pacing {
    /// True when the trial or one of its intervals missed the rate.
    pub fn is_off(&self) -> bool {
        self.trial_ratio.abs() > TRIAL_TOLERANCE_RATIO || self.intervals_off > 0
    }
}

/// How far an interval of `length_ns` may be off: 2 % plus one burst.
pub fn interval_tolerance(length_ns: u64) -> f64 {
    TRIAL_TOLERANCE_RATIO + BURST_NS / length_ns.max(1) as f64
}

/// Asked against achieved rate of `trial`; `None` unless it is a
/// successful udp-stream trial with a rate and a measured interval.
pub fn pacing(trial: &Trial) -> Option<Pacing> {
    let spec = &trial.spec;
    if spec.kind != TestKind::UdpStream {
        return None;
    }
    let asked_bps = spec.rate?.bits_per_second() as f64 * f64::from(spec.parallel_streams.max(1));
    let TrialOutcome::Ok(o) = &trial.outcome else {
        return None;
    };
    if asked_bps <= 0.0 || o.measured_ns == 0 {
        return None;
    }
    let rate = |bytes: u64, ns: u64| bytes as f64 * 8.0 / (ns as f64 / 1e9);
    let achieved_bps = rate(o.sender.bytes, o.measured_ns);
    let shortest = spec.sample_interval_ms * 1_000_000 / 2;
    let mut worst: Option<f64> = None;
    let (mut intervals, mut intervals_off) = (0, 0);
    for interval in o
        .intervals
        .iter()
        .filter(|i| i.length_ns > 0 && i.length_ns >= shortest)
    {
        intervals += 1;
        let ratio = rate(interval.sent_bytes, interval.length_ns) / asked_bps - 1.0;
        if ratio.abs() > interval_tolerance(interval.length_ns) {
            intervals_off += 1;
        }
        if worst.is_none_or(|w| ratio.abs() > w.abs()) {
            worst = Some(ratio);
        }
    }
    Some(Pacing {
        asked_bps,
        achieved_bps,
        trial_ratio: achieved_bps / asked_bps - 1.0,
        worst_interval_ratio: worst,
        intervals_off,
        intervals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::{ok, spec};
    use dualperf_model::{Arm, BitRate, FlowCounters, IntervalSample, IpFamily, Observations};

    /// A 1 s udp-stream trial asked for 85 Mbit/s that sent `per_interval`
    /// bytes in each of its 100 ms intervals.
    fn trial(per_interval: &[u64]) -> Trial {
        let mut point = spec(TestKind::UdpStream, 1408);
        point.rate = Some(BitRate::from_mbit(85));
        let intervals: Vec<IntervalSample> = per_interval
            .iter()
            .enumerate()
            .map(|(i, &bytes)| IntervalSample {
                end_ns: (i as u64 + 1) * 100_000_000,
                length_ns: 100_000_000,
                sent_bytes: bytes,
                ..IntervalSample::default()
            })
            .collect();
        let bytes: u64 = per_interval.iter().sum();
        let observations = Observations {
            measured_ns: per_interval.len() as u64 * 100_000_000,
            sender: FlowCounters { bytes, packets: 1 },
            intervals,
            ..Observations::default()
        };
        let v4 = Arm::native(IpFamily::V4, None);
        dualperf_fixtures::trial(0, &point, &v4, 0, ok(observations))
    }

    /// 85 Mbit/s for 100 ms: 1 062 500 bytes.
    const ON_RATE: u64 = 1_062_500;

    #[test]
    fn a_trial_on_rate_in_every_interval_is_not_off() {
        let p = pacing(&trial(&[ON_RATE; 10])).unwrap();
        assert_eq!(p.asked_bps, 85e6);
        assert!(p.trial_ratio.abs() < 1e-12);
        assert_eq!((p.intervals, p.intervals_off), (10, 0));
        assert!(!p.is_off());
    }

    #[test]
    fn asked_85_delivered_94_is_off() {
        // Issue 14: "asked 85 Mbit/s, delivered 94; nothing warns".
        let p = pacing(&trial(&[1_175_000; 10])).unwrap();
        assert!((p.achieved_bps - 94e6).abs() < 1.0);
        assert!((p.trial_ratio - (94.0 / 85.0 - 1.0)).abs() < 1e-12);
        assert!(p.is_off());
    }

    #[test]
    fn a_stall_made_up_later_is_off_in_its_intervals_not_on_average() {
        // 20 ms of silence in interval 3, made up 10 % faster after it.
        let mut bytes = [ON_RATE; 10];
        bytes[2] = ON_RATE * 8 / 10;
        bytes[3] = ON_RATE * 11 / 10;
        bytes[4] = ON_RATE * 11 / 10;
        let p = pacing(&trial(&bytes)).unwrap();
        assert!(p.trial_ratio.abs() < 1e-9);
        assert_eq!(p.intervals_off, 3);
        assert!((p.worst_interval_ratio.unwrap() + 0.2).abs() < 1e-9);
        assert!(p.is_off());
        // One burst in one interval is within the tolerance (2 % + 2 ms / 100 ms).
        let mut burst = [ON_RATE; 10];
        burst[0] = ON_RATE * 1035 / 1000;
        burst[1] = ON_RATE * 965 / 1000;
        assert!(!pacing(&trial(&burst)).unwrap().is_off());
    }

    #[test]
    fn unpaced_and_other_kinds_have_no_pacing() {
        let mut unpaced = trial(&[ON_RATE; 10]);
        unpaced.spec.rate = None;
        assert_eq!(pacing(&unpaced), None);
        let mut rr = trial(&[ON_RATE; 10]);
        rr.spec.kind = TestKind::UdpRr;
        assert_eq!(pacing(&rr), None);
    }
}
