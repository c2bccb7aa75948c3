//! Report rendering and the one presentation layer: a run (or two) in,
//! text out.
//!
//! Stage: the last one. Input is the model's [`RunResult`] (raw trials plus
//! the stats stage's [`Analysis`], numbers only); output is a `String`. The
//! crate is pure: no database, no files, no clock; the binary decides where
//! the text goes. It does not depend on the stats crate: everything it
//! needs is in the model.
//!
//! **Presentation** ([`present`]) is where every number and word people
//! read is made, for every output alike: one formatter per
//! [`MetricId::quantity`](dualperf_model::MetricId::quantity)
//! ([`present::format_value`]), the verdict sentence of a comparison
//! ("IPv6 is 4.8 % slower than IPv4 (95 % CI 3.9–5.7 %, significant); the
//! header explains 1.4 %") with what else explains it, and the words for
//! each typed warning. Metrics are named by their labels
//! ([`MetricId::label`](dualperf_model::MetricId::label)), arms by theirs
//! ("IPv6 via 6in4, router to router"); machine names (`goodput_bps`,
//! `v6-6in4-router-router`) appear only in CSV and as link targets.
//! Honesty rules live there too: no "95 % CI 22–22 %" for pairs without
//! spread, no significance claim on fewer than 3 pairs.
//!
//! **Arms.** A run compares every arm with a baseline arm (native IPv4
//! unless the user chose another). Every output speaks arms: the terminal
//! table has a column per arm and a difference per compared arm, the
//! verdicts name both arms, charts draw one series per arm (first arm solid
//! blue with circles, second dashed vermillion with triangles, then further
//! colour-blind-safe colours) with a legend of labels, CSV has one row per
//! point × arm × metric, and `--compare` matches points by parameters and
//! arms by id.
//!
//! **Headline.** Each test kind has one headline metric,
//! [`MetricId::headline`](dualperf_model::MetricId::headline) (goodput,
//! median RTT, median setup time, median one-way delay): the terminal's
//! verdict lines, the report's answer and key table and `--compare`'s
//! summary all use it.
//!
//! Outputs:
//! - **Terminal** ([`terminal`]): the comparison table and one verdict line
//!   per point and compared arm, width-aware.
//! - **HTML**: one self-contained file (inline CSS and a few lines of
//!   script, inline SVG charts drawn with `plotters`, no network). It opens
//!   with the answer in words, then the headline verdicts, throughput and
//!   RTT vs message size per transport (log x, 95 % CI error bars),
//!   measured vs theoretical overhead, CPU and service demand, distributions
//!   (CDFs clipped at p99.9, log x for long tails), time series (repetitions
//!   chained when a trial has few samples), every comparison (collapsed,
//!   sortable), the configuration and host facts, and the definition of
//!   every number.
//! - **Markdown** for a change request; **CSV**, tidy, one layout for
//!   `run --csv` and `report --format csv` ([`tidy_csv`], [`TIDY_COLUMNS`]).
//! - **Comparison** of two runs ([`compare`]): the same points and arms
//!   side by side with Welch's t-test across runs.
//!
//! Which metric a figure draws is chosen in one place (`view.rs`).
//!
//! [`Analysis`]: dualperf_model::Analysis

mod charts;
pub mod compare;
mod csv;
mod error;
mod html;
mod markdown;
pub mod measured;
pub mod present;
mod summary_sentences;
pub mod terminal;
mod view;

use dualperf_model::RunResult;

pub use compare::{compare_runs, RunComparison};
pub use csv::{tidy_csv, COMPARISON_COLUMNS, TIDY_COLUMNS};
pub use error::ReportError;
pub use markdown::MAX_MARKDOWN_CHARS;

/// A report format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A self-contained HTML page with SVG charts.
    Html,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// Tidy CSV, one row per point × arm × metric ([`TIDY_COLUMNS`]).
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
