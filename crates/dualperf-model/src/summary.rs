//! Summary statistics of one sample: the shape every summarised number takes,
//! whether it summarises an arm's metric or a DiffServ class's load flow.

use serde::{Deserialize, Serialize};

/// Summary statistics of one sample (e.g. one metric over R repetitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1); `None` for fewer than 2 values.
    pub standard_deviation: Option<f64>,
    /// Coefficient of variation, sd / |mean|; `None` when undefined.
    pub coefficient_of_variation: Option<f64>,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Median.
    pub median: f64,
    /// Lower end of the Student-t 95 % confidence interval of the mean.
    pub ci95_low: Option<f64>,
    /// Upper end of the Student-t 95 % confidence interval of the mean.
    pub ci95_high: Option<f64>,
}
