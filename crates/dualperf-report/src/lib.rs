//! Report rendering: a run (or two) in, a document out.
//!
//! Stage: the last one. Input is the model's [`RunResult`] as the store
//! loads it (raw trials plus the stats stage's [`Analysis`]); output is a
//! `String` in one of three [`Format`]s. The crate is pure: no database, no
//! files, no clock; the binary decides where a report goes.
//!
//! - **HTML**: one self-contained file (inline CSS, inline SVG charts drawn
//!   with `plotters`, no network). It opens with the answer in words
//!   ([`summary_sentences`]), then the verdict table, throughput and RTT vs
//!   message size per transport (IPv4 solid, IPv6 dashed, log x, 95 % CI
//!   error bars), measured vs theoretical overhead, CPU and service demand,
//!   RTT CDFs and time series, the configuration and host facts, and the
//!   definition of every number (hover titles and a Definitions section).
//! - **Markdown** for a change request; **CSV**, tidy, one row per point ×
//!   metric × family.
//! - **Comparison** of two runs ([`compare`]): the same points side by side
//!   with Welch's t-test across runs.
//!
//! Which metric a figure draws is chosen by name in one place (`view.rs`).
//!
//! [`Analysis`]: dualperf_model::Analysis

mod charts;
pub mod compare;
mod csv;
mod error;
mod html;
mod markdown;
mod quantity;
mod summary_sentences;
pub mod synthetic;
pub mod terminal;
mod view;

use dualperf_model::RunResult;

pub use compare::{compare_runs, RunComparison};
pub use error::ReportError;

/// A report format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A self-contained HTML page with SVG charts.
    Html,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// Tidy CSV, one row per point × metric × family.
    Csv,
}

impl Format {
    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Markdown => "md",
            Format::Csv => "csv",
        }
    }
}

/// Renders one run.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw (HTML only).
pub fn render(run: &RunResult, format: Format) -> Result<String, ReportError> {
    match format {
        Format::Html => html::render(run),
        Format::Markdown => Ok(markdown::render(run)),
        Format::Csv => Ok(csv::render(run)),
    }
}

/// Renders two runs side by side: `before` then `after`.
///
/// # Errors
/// [`ReportError::Chart`] when a chart fails to draw (HTML only).
pub fn render_comparison(
    before: &RunResult,
    after: &RunResult,
    format: Format,
) -> Result<String, ReportError> {
    let comparison = compare_runs(before, after);
    match format {
        Format::Html => html::render_comparison(&comparison),
        Format::Markdown => Ok(markdown::render_comparison(&comparison)),
        Format::Csv => Ok(csv::render_comparison(&comparison)),
    }
}

/// A date for people, `2026-11-21 22:00 UTC`, from milliseconds since the Unix epoch.
pub fn utc_date(unix_ms: u64) -> String {
    html::date(unix_ms)
}

/// The sentences that open a report, for callers that print them (e.g. `lab`).
pub fn headline(run: &RunResult) -> Vec<String> {
    summary_sentences::headline_sentences(&view::RunView::new(run))
}
