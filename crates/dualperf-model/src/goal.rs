//! A run's precision goal (`--precision P --budget D`): a leaf type the
//! run configuration carries ([`crate::RunConfig::goal`]) and the
//! statistics read (`dualperf_stats::stopping`).

use serde::{Deserialize, Serialize};

/// A precision goal for a run's headline comparisons (`--precision P
/// --budget D`), met by Stein's two-stage procedure (docs/metrics.md,
/// "Stopping rule"): every point runs [`Goal::first_stage`] interleaved
/// repetitions; the spread of their paired relative differences decides
/// how many repetitions each point needs for a 95 % CI half-width of at
/// most [`Goal::half_width_ratio`]; further rounds (one repetition of every
/// arm at every point still short) run while the budget allows. The
/// statistics then report each headline comparison with Stein's interval,
/// which keeps its 95 % coverage under this data-dependent stopping.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Goal {
    /// Largest 95 % CI half-width of a headline relative difference, e.g. 0.02.
    pub half_width_ratio: f64,
    /// Wall-clock budget of the measurement, milliseconds.
    pub budget_ms: u64,
    /// Repetitions of the first stage (at least 2; the variance estimate
    /// has `first_stage − 1` degrees of freedom).
    pub first_stage: u32,
    /// Most repetitions per arm and point, whatever the first stage asks.
    pub max_repetitions: u32,
}
