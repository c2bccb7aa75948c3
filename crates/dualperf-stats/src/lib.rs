//! The stats stage: raw observations in, numbers out — metrics, summaries
//! over repetitions, every arm against a baseline arm, and header-overhead
//! theory.
//!
//! Inputs are the engine's [`Trial`](dualperf_model::Trial)s (counters,
//! latency histograms, arrival traces, CPU times), each recorded on one
//! **arm** of the run (family × path × marking × load); outputs are
//! [`Analysis`](dualperf_model::Analysis) values and plain numbers. The
//! crate is **pure and deterministic**: no I/O, no clock, no randomness, so
//! every function can be tested on hand-written data and replayed on stored
//! results.
//!
//! **Numbers only.** Metrics are typed ([`MetricId`](dualperf_model::MetricId),
//! defined once in the model); this crate never spells a metric name, never
//! formats a value and never words a verdict or a warning: warnings are
//! typed ([`ComparisonWarning`](dualperf_model::ComparisonWarning)) and the
//! report crate's presentation layer turns numbers into sentences, tables
//! and CSV.
//!
//! **Arms against a baseline.** Every arm is summarised on its own; every
//! arm but the baseline (`RunConfig::baseline`, native IPv4 unless the user
//! chose another) is compared with the baseline, repetition k with
//! repetition k. The classic IPv4-against-IPv6 run is two native arms, and
//! its comparison is the v6 − v4 difference the papers report.
//!
//! Map of the crate:
//!
//! * [`summary`], [`student_t`]: mean, sd, percentiles, CV, Student-t CIs
//!   (quantiles from statrs).
//! * [`ippm`]: RFC 3550 jitter, RFC 4737 reordering, RFC 7680 loss and loss
//!   episodes, duplicates, RFC 7679 one-way delay, RFC 5481 PDV, RFC 3393 IPDV
//!   of a stored arrival trace, replayed through `dualperf-meter` (the one
//!   implementation, which the engine also runs live).
//! * [`latency`]: RTT and connection-setup distributions from HDR buckets.
//! * [`throughput`], [`cpu`]: goodput, packet rates, RFC 6349 TCP
//!   efficiency, CPU utilisation and service demand.
//! * [`extraction`]: which metrics a trial of each test kind yields
//!   ([`trial_metrics`], [`measure_trial`]).
//! * [`comparison`]: [`analyse`] — per-arm summaries over repetitions,
//!   paired arm − baseline differences, significance, typed warnings.
//! * [`contention`]: whether the scheduler delayed the tool enough to
//!   matter for a trial's metric (its own threads' run-queue wait, a paced
//!   sender's schedule; other programs' CPU share, steal and pressure kept
//!   as evidence); a comparison resting on contended trials is never
//!   significant.
//! * [`pacing`]: achieved against asked rate of paced trials, per trial
//!   and per sampling interval.
//! * [`repetition`]: how precisely a point is measured so far (the
//!   stopping rule of `--repeat auto`, netperf's `-I 99,5 -i 10,3`).
//! * [`attribution`]: why an arm differs — the parts the header,
//!   encapsulation, fragmentation and CPU cost per packet explain.
//! * [`overhead`], [`theory`]: the header-overhead model (Table 1 of the
//!   papers, tunnels and translation) and the difference it predicts
//!   between an arm and its baseline.
//! * [`tidy`]: one row of numbers per point × arm × metric.
//! * [`voice`]: the ITU-T G.107 E-model (R factor, MOS) from delay and loss.
//! * [`wire`]: trials whose packet capture contradicts the engine or the
//!   plan (`--verify-wire`); a comparison resting on them is never significant.
//!
//! Every metric's definition is listed in `docs/metrics.md`.

#![warn(missing_docs)]

pub mod attribution;
pub mod calibration;
pub mod comparison;
pub mod contention;
pub mod contrast;
pub mod cpu;
pub mod error;
pub mod extraction;
pub mod ippm;
pub mod latency;
pub mod load_flows;
pub mod media_link;
pub mod overhead;
pub mod paced_link;
pub mod pacing;
pub mod regime;
pub mod relative;
pub mod repetition;
pub mod serialisation;
pub mod stopping;
pub mod student_t;
pub mod summary;
pub mod theory;
pub mod throughput;
pub mod tidy;
pub mod voice;
pub mod wire;

pub use comparison::{analyse, analyse_with, AnalysisOptions};
pub use error::StatsError;
pub use extraction::{measure_trial, measure_trial_on, trial_metrics, TrialMetrics};
pub use tidy::{tidy_rows, TidyRow};
