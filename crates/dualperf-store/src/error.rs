//! The one error type of the store; every variant names what failed.

use std::path::PathBuf;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Neither `XDG_DATA_HOME` nor `HOME` is set, so there is no default path.
    #[error("no default results database: set XDG_DATA_HOME or HOME, or pass --db PATH")]
    NoDataDirectory,

    /// The directory that should hold the database could not be created.
    #[error("creating directory `{path}` for the results database")]
    CreateDirectory {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },

    /// SQLite could not open or configure the file.
    #[error("opening results database `{path}`")]
    Open {
        /// The database file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },

    /// There is no file at the path a reading command was given.
    #[error("no results database at `{path}`")]
    NotFound {
        /// The path.
        path: PathBuf,
    },

    /// The file could not be read (permissions, a directory …).
    #[error("reading results database `{path}`")]
    Read {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },

    /// The file is not a dualperf results database; nothing was changed.
    #[error("`{path}` is not a dualperf results database ({reason}); it was left unchanged")]
    NotDualperf {
        /// The file.
        path: PathBuf,
        /// What it is instead, e.g. "not an SQLite database".
        reason: String,
    },

    /// A write on a store opened with [`crate::Store::open_read_only`].
    #[error("{action}: the results database is open read-only")]
    ReadOnly {
        /// What was asked, e.g. "writing a run".
        action: String,
    },

    /// A stored value the current code cannot read (an unknown metric name,
    /// an invalid arm id).
    #[error("{what} of run `{run_id}`: {reason}")]
    Corrupt {
        /// Which part, e.g. "comparison 3".
        what: String,
        /// The run id.
        run_id: String,
        /// What is wrong.
        reason: String,
    },

    /// The file was written by a newer dualperf with a schema this one does not know.
    #[error(
        "results database has schema version {found}, newer than this dualperf knows \
         ({supported}); use a newer dualperf or another --db"
    )]
    SchemaTooNew {
        /// `PRAGMA user_version` of the file.
        found: u32,
        /// The newest version this code knows.
        supported: u32,
    },

    /// A migration step failed; the file stays at the version before it.
    #[error("migrating results database to schema version {version}")]
    Migrate {
        /// The version the failed step leads to.
        version: u32,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },

    /// A run with this id is stored already.
    #[error("run `{run_id}` is already stored")]
    DuplicateRun {
        /// The run id.
        run_id: String,
    },

    /// No run with this id is stored.
    #[error("no run `{run_id}` in the results database (see `dualperf history`)")]
    RunNotFound {
        /// The run id asked for.
        run_id: String,
    },

    /// An SQL statement about one run failed.
    #[error("{action} of run `{run_id}`")]
    Sql {
        /// What was being done, e.g. "writing trial 7".
        action: String,
        /// The run id.
        run_id: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },

    /// Listing or querying the whole database failed.
    #[error("{action} in the results database")]
    Query {
        /// What was being done, e.g. "listing runs".
        action: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },

    /// A JSON column could not be encoded or decoded.
    #[error("{action} {what} of run `{run_id}`")]
    Json {
        /// "encoding" or "decoding".
        action: &'static str,
        /// Which part, e.g. "trial 3".
        what: String,
        /// The run id.
        run_id: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },

    /// A value does not fit SQLite's storage (an integer above 2⁶³ − 1, or NaN).
    #[error("{what} of run `{run_id}` is {value}, which SQLite cannot store")]
    Unstorable {
        /// Which field.
        what: String,
        /// The run id.
        run_id: String,
        /// The value, as text.
        value: String,
    },
}

/// Result with [`StoreError`].
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
