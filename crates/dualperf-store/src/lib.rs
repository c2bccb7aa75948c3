//! The results store: every run dualperf measures, kept in one SQLite file.
//!
//! Stage: after `engine` (raw trials) and `stats` (the [`Analysis`]); before
//! `report`, which renders what this crate loads. Input and output are the
//! model's [`RunResult`]: [`Store::save_run`] writes one, [`Store::load_run`]
//! gives it back — equal, except for the raw series the [`WriteOptions`]
//! left out (tested both ways).
//!
//! A run compares **arms** (family × path × marking × load) with a baseline
//! arm. Trials carry their arm's id, summaries are per point × arm × metric,
//! comparisons are arm against baseline; metrics are stored by
//! [`MetricId::name`] and read back as typed ids. The arms themselves live
//! in the run's configuration (`config_json`), the one source of truth,
//! and the `run_arms` view lists them for SQL.
//!
//! Invariants:
//! - The schema version lives in `PRAGMA user_version`, the identity in
//!   `PRAGMA application_id` ([`schema::APPLICATION_ID`], from version 4).
//!   Migrations are an append-only list of SQL steps
//!   ([`schema::MIGRATIONS`]); an old step is never edited, and every
//!   version has a fixture database in `fixtures/` that a test opens with
//!   the current code.
//! - Nothing changes a file that is not a dualperf database: both
//!   [`Store::open`] and [`Store::open_read_only`] look at the file first
//!   (its header with plain file I/O, then its schema) and refuse another
//!   program's database, a text file or an empty file unchanged.
//! - Reading commands use [`Store::open_read_only`]: SQLite's read-only
//!   mode plus `query_only`, so no table, journal-mode switch or migration
//!   is ever written; a database of an older schema is read through a
//!   migrated copy in memory. Every write method of such a store fails with
//!   [`StoreError::ReadOnly`].
//! - A run is written as it happens: [`Store::begin_run`] writes the run row
//!   and its points, [`Store::append_trial`] writes each finished trial in its
//!   own transaction, [`Store::finish_run`] adds the end time and the analysis.
//!   A process killed half-way leaves the run row and its finished trials,
//!   never a half-written trial and never a corrupt file (WAL journal,
//!   `synchronous = FULL`, foreign keys on).
//! - Compact by default (issue 15): the analysis, counters, time series,
//!   histograms and probe arrivals are kept; the raw per-transaction times
//!   and per-datagram arrivals of the load only with
//!   [`WriteOptions::raw_samples`]. A lab-sized run adds about 0.8 MB
//!   (1.3 MB with a probe under load), 6.5 MB with everything
//!   (`tests/it/growth.rs`). [`Store::prune`] removes whole runs,
//!   [`Store::vacuum`] gives the space back.
//! - The relational tables (`trials`, `interval_samples`,
//!   `probe_interval_samples`, `latency_buckets`, `arrivals`, `summaries`,
//!   `comparisons`, `load_flow_summaries`, `load_flow_comparisons`,
//!   `router_summaries`) are the data, queryable with plain SQL; the few nested
//!   parts that SQL has little use for (a trial's counters, a comparison's
//!   two summaries and its typed warnings) are JSON columns.
//! - The store keeps what was analysed (issue 22): every summary and
//!   comparison of a run, its competing-load flows (`load_flow_summaries`,
//!   `load_flow_comparisons`) and routers (`router_summaries`) included, is
//!   written once in [`Store::finish_run`] and read back as is. Runs
//!   analysed from schema version 6 on carry `analysis_version` 3
//!   ([`schema::FLOW_ANALYSIS_VERSION`]); runs analysed before (version 2)
//!   have no flow rows, and [`Store::flow_analysis_stored`] says so: for
//!   those only may a reader recompute the lists from the trials.
//! - Runs written before schema version 4 load with native arms (`v4`,
//!   `v6`) and without analysis: theirs was per family, its numbers are
//!   kept (IPv6 against IPv4) for `history` and SQL, and the caller analyses
//!   the trials again, as for a result file of schema v1.
//!
//! ```text
//! sqlite3 ~/.local/share/dualperf/results.sqlite \
//!   "SELECT point, arm, avg(received_bytes * 8e9 / measured_ns) FROM trials GROUP BY 1, 2"
//! ```
//!
//! [`Analysis`]: dualperf_model::Analysis
//! [`RunResult`]: dualperf_model::RunResult
//! [`MetricId::name`]: dualperf_model::MetricId::name

mod calibration;
mod concurrency;
mod error;
mod handle;
mod identity;
mod integer;
mod listing;
mod migrations;
mod prune;
mod read;
pub mod schema;
mod store;
mod write;

pub use error::{Result, StoreError};
pub use handle::{RunEnd, RunHandle, WriteOptions};
pub use listing::{Headline, RunListing};
pub use prune::{Pruned, Retention};
pub use store::{default_path, Store};
