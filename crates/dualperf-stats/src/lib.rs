//! The stats stage: raw observations in, metrics, summaries, IPv4-versus-IPv6
//! comparisons and header-overhead theory out.
//!
//! Inputs are the engine's [`Trial`](dualperf_model::Trial)s (counters,
//! latency histograms, arrival traces, CPU times); outputs are
//! [`Analysis`](dualperf_model::Analysis) values and plain numbers. The
//! crate is **pure and deterministic**: no I/O, no clock, no randomness, so
//! every function can be tested on hand-written data and replayed on stored
//! results.
//!
//! Map of the crate:
//!
//! * [`summary`], [`student_t`]: mean, sd, percentiles, CV, Student-t CIs.
//! * [`ippm`]: RFC 3550 jitter, RFC 4737 reordering, RFC 7680 loss and loss
//!   episodes, duplicates, RFC 7679 one-way delay, RFC 5481 PDV, RFC 3393 IPDV.
//! * [`latency`]: RTT and connection-setup distributions from HDR buckets.
//! * [`throughput`], [`cpu`]: goodput, packet rates, RFC 6349 TCP
//!   efficiency, CPU utilisation and service demand.
//! * [`catalogue`]: every metric's name (with its unit), direction and RFC.
//! * [`extraction`]: which metrics a trial of each test kind yields.
//! * [`comparison`]: [`analyse`] — per-family summaries over repetitions,
//!   paired v6 − v4 differences, significance, warnings, verdicts.
//! * [`overhead`], [`theory`]: the header-overhead model (Table 1 of the
//!   papers) and the difference it predicts for a measured point.
//! * [`tidy`]: one row per point × metric × family, and a CSV writer.
//! * [`voice`]: the ITU-T G.107 E-model (R factor, MOS) from delay and loss.
//!
//! Every metric's definition is listed in `docs/metrics.md`.

#![warn(missing_docs)]

pub mod catalogue;
pub mod comparison;
pub mod cpu;
pub mod error;
pub mod extraction;
pub mod ippm;
pub mod latency;
pub mod overhead;
pub mod student_t;
pub mod summary;
pub mod theory;
pub mod throughput;
pub mod tidy;
pub mod verdict;
pub mod voice;

pub use comparison::{analyse, analyse_with, AnalysisOptions};
pub use error::StatsError;
pub use extraction::{measure_trial, metrics_of_trial, TrialMetrics};
pub use tidy::{tidy_rows, write_tidy_csv, TidyRow};
