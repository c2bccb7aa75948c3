//! The one error type of the report crate.

/// Why a report could not be rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The plotting library failed to draw a chart.
    #[error("drawing chart `{chart}`: {message}")]
    Chart {
        /// The chart's name.
        chart: String,
        /// What plotters said.
        message: String,
    },
}
