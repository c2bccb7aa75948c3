//! What `dualperf lab calibrate` found out about this host: how often the
//! tool calls noise a difference, whether its estimate of a known effect
//! covers the truth, and the smallest effect it resolves in a given time.
//!
//! A calibration is one lab run with three arms at every point: IPv4,
//! IPv4 again (an A/A **replica**: the same treatment, compared with IPv4
//! through a [`crate::Factor::Replica`] contrast) and IPv6, whose traffic a
//! per-family htb class shapes to a known share of IPv4's rate
//! ([`CalibrationSetup`]). The statistics crate turns the analysed run into
//! a [`Calibration`]; the store keeps one row per calibration so later
//! verdicts on this host can cite it.

use serde::{Deserialize, Serialize};

use crate::metric::MetricId;
use crate::spec::TestKind;

/// The known effect a calibration testbed is built with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CalibrationSetup {
    /// Rate of the IPv4 class on the shaped link, bit/s, as htb counts it:
    /// the IP packet plus [`CalibrationSetup::framing_bytes`].
    pub link_rate_bps: u64,
    /// IPv6's class rate over IPv4's, e.g. 0.95.
    pub v6_rate_ratio: f64,
    /// Bytes htb counts per packet on top of the IP packet (14: the
    /// Ethernet header of a veth).
    pub framing_bytes: u32,
}

/// One point of a calibration (a test kind and size).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CalibrationPoint {
    /// The test kind.
    pub kind: TestKind,
    /// Message size, bytes.
    pub size_bytes: u32,
    /// The headline metric the point was judged by.
    pub metric: MetricId,
    /// Pairs (repetitions) the comparisons used.
    pub pairs: u64,
    /// The A/A replica against IPv4: relative difference, its 95 % CI,
    /// and whether the tool called it significant (a false positive).
    pub replica: Estimate,
    /// IPv6 against IPv4 where the shaping sets a true value (the rate
    /// metrics); `None` for latency points, which have no known effect.
    pub effect: Option<KnownEffect>,
    /// Standard deviation of the paired relative differences of the
    /// replica (the noise a paired comparison sees), as a ratio.
    pub paired_sd_ratio: f64,
    /// Seconds one repetition of the two compared arms took, wall time.
    pub seconds_per_pair: f64,
}

/// A relative difference as the tool reported it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Estimate {
    /// (arm − baseline) / baseline.
    pub relative: f64,
    /// Its 95 % CI; `None` with fewer than 2 pairs.
    pub ci95: Option<(f64, f64)>,
    /// The verdict: significant after contention and multiple-comparison control.
    pub significant: bool,
    /// The paired t-test's p-value before multiple-comparison control.
    pub p_value: Option<f64>,
}

/// The estimate of a known effect against its truth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KnownEffect {
    /// The true relative difference: the class-rate ratio times the ratio
    /// of payload per byte htb counts (IPv6's larger header), minus 1.
    pub truth: f64,
    /// What the tool estimated.
    pub estimate: Estimate,
}

impl KnownEffect {
    /// True when the 95 % CI contains the truth.
    pub fn covered(&self) -> bool {
        self.estimate
            .ci95
            .is_some_and(|(low, high)| (low..=high).contains(&self.truth))
    }

    /// The estimate minus the truth (ratio points).
    pub fn bias(&self) -> f64 {
        self.estimate.relative - self.truth
    }
}

/// What one calibration found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Calibration {
    /// The lab run it was measured in.
    pub run_id: String,
    /// The host's name.
    pub host: String,
    /// When the run finished, Unix ms.
    pub finished_at_ms: u64,
    /// The known effect the testbed was built with.
    pub setup: CalibrationSetup,
    /// Every point, in plan order.
    pub points: Vec<CalibrationPoint>,
}

impl Calibration {
    /// A/A comparisons and how many of them the tool called significant.
    pub fn false_positives(&self) -> (usize, usize) {
        let significant = self.points.iter().filter(|p| p.replica.significant).count();
        (significant, self.points.len())
    }

    /// Known effects, how many the tool detected and how many CIs covered the truth.
    pub fn effects(&self) -> (usize, usize, usize) {
        let effects: Vec<&KnownEffect> = self
            .points
            .iter()
            .filter_map(|p| p.effect.as_ref())
            .collect();
        (
            effects.len(),
            effects.iter().filter(|e| e.estimate.significant).count(),
            effects.iter().filter(|e| e.covered()).count(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(relative: f64, ci95: (f64, f64), significant: bool) -> Estimate {
        Estimate {
            relative,
            ci95: Some(ci95),
            significant,
            p_value: None,
        }
    }

    #[test]
    fn a_ci_covers_the_truth_only_when_it_contains_it() {
        let effect = KnownEffect {
            truth: -0.0631,
            estimate: estimate(-0.0625, (-0.064, -0.061), true),
        };
        assert!(effect.covered());
        assert!((effect.bias() - 0.0006).abs() < 1e-12);
        let missed = KnownEffect {
            truth: -0.0631,
            estimate: estimate(-0.05, (-0.055, -0.045), true),
        };
        assert!(!missed.covered());
    }

    #[test]
    fn an_estimate_without_a_ci_covers_nothing() {
        let effect = KnownEffect {
            truth: 0.0,
            estimate: Estimate {
                relative: 0.0,
                ci95: None,
                significant: false,
                p_value: None,
            },
        };
        assert!(!effect.covered());
    }
}
