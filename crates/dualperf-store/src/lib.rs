//! The results store: every run dualperf measures, kept in one SQLite file.
//!
//! Stage: after `engine` (raw trials) and `stats` (the [`Analysis`]); before
//! `report`, which renders what this crate loads. Input and output are the
//! model's [`RunResult`]: [`Store::save_run`] writes one, [`Store::load_run`]
//! gives back an equal one (the round trip is lossless and tested).
//!
//! Invariants:
//! - The schema version lives in `PRAGMA user_version`. Migrations are an
//!   append-only list of SQL steps ([`schema::MIGRATIONS`]); an old step is
//!   never edited, and every earlier version has a fixture database in
//!   `fixtures/` that a test opens with the current code.
//! - A run is written as it happens: [`Store::begin_run`] writes the run row
//!   and its points, [`Store::append_trial`] writes each finished trial in its
//!   own transaction, [`Store::finish_run`] adds the end time and the analysis.
//!   A process killed half-way leaves the run row and its finished trials,
//!   never a half-written trial and never a corrupt file (WAL journal,
//!   `synchronous = FULL`, foreign keys on).
//! - The relational tables (`trials`, `interval_samples`, `latency_buckets`,
//!   `summaries`, `comparisons`) are the data, queryable with plain SQL; the
//!   few nested parts that SQL has no use for (a trial's counters, the
//!   comparison's per-family summaries) are JSON columns.
//!
//! ```text
//! sqlite3 ~/.local/share/dualperf/results.sqlite \
//!   "SELECT point, family, avg(received_bytes * 8e9 / measured_ns) FROM trials GROUP BY 1, 2"
//! ```
//!
//! [`Analysis`]: dualperf_model::Analysis
//! [`RunResult`]: dualperf_model::RunResult

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
