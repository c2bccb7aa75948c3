//! What set the pace of a point: the link, a CPU, or neither (issue 23).
//!
//! A throughput comparison measures the path only where the path is the
//! bottleneck. On a shaped testbed a point is **network-bound** when the
//! carried rate on the wire reached the bottleneck link's rate; it is
//! **CPU-bound** when the link was not full and a CPU held the sender back
//! (an unpaced stream below the link, or an end's measuring process at a
//! whole core) (then the comparison measures the two
//! stacks' CPU cost, and the service demand is the stable figure). The
//! stats stage derives the regime once per point and arm
//! (`dualperf_stats::regime`); the report words it. Thresholds and method
//! are in docs/metrics.md, "Regime".

use serde::{Deserialize, Serialize};

use crate::arm::ArmId;

/// What limited a point's rate on one arm.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    /// The link set the pace: the wire rate (payload plus every header the
    /// shaper counts) reached at least [`RegimeThresholds::link_share`] of
    /// the bottleneck's rate.
    NetworkBound,
    /// A CPU set the pace: the link was not full (or not shaped), and the
    /// point is a stream with no rate of its own (only a CPU holds an
    /// unpaced sender below the link) or an end's measuring process used
    /// at least [`RegimeThresholds::busy_cores`] of a core.
    CpuBound,
    /// Neither was full: the test's own pacing (one transaction in flight,
    /// a rate below the link's) set the pace, or the figures are missing.
    #[default]
    Unsaturated,
}

impl Regime {
    /// The word the terminal, JSON and report use: `network-bound`,
    /// `cpu-bound` or `unsaturated`.
    pub fn key(self) -> &'static str {
        match self {
            Regime::NetworkBound => "network-bound",
            Regime::CpuBound => "cpu-bound",
            Regime::Unsaturated => "unsaturated",
        }
    }
}

/// The regime of one point on one arm, with the figures it was decided on
/// (medians over the arm's successful repetitions).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PointRegime {
    /// Index of the point in the run's config.
    pub point: usize,
    /// The arm.
    pub arm: ArmId,
    /// What set the pace.
    pub regime: Regime,
    /// The bottleneck's rate, bits per second: the slowest shaped hop from
    /// client to server; `None` on an unshaped path.
    pub link_bits_per_second: Option<u64>,
    /// Median wire rate / bottleneck rate, 0..≈1; `None` on an unshaped
    /// path or for test kinds with no wire rate.
    pub link_share: Option<f64>,
    /// Median CPU cores of the busier end's measuring process (user +
    /// system time / wall time; 1.0 = one core); `None` when unrecorded.
    pub busiest_end_cores: Option<f64>,
}

/// The thresholds of the regime decision (docs/metrics.md, "Regime").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RegimeThresholds {
    /// A point is network-bound when its wire rate reached at least this
    /// share of the bottleneck's rate, e.g. 0.95.
    pub link_share: f64,
    /// A point that is not network-bound is CPU-bound when an end's
    /// measuring process used at least this many cores, e.g. 0.9.
    pub busy_cores: f64,
}

impl Default for RegimeThresholds {
    fn default() -> Self {
        Self {
            link_share: 0.95,
            busy_cores: 0.9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regimes_serialise_as_their_words() {
        for regime in [Regime::NetworkBound, Regime::CpuBound, Regime::Unsaturated] {
            let text = serde_json::to_string(&regime).unwrap();
            assert_eq!(text, format!("\"{}\"", regime.key()));
        }
    }
}
