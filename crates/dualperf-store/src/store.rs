//! [`Store`]: an open results database, and where it lives by default.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dualperf_model::{Analysis, RunResult, Trial};
use rusqlite::Connection;

use crate::error::{Result, StoreError};
use crate::listing::{self, RunListing};
use crate::migrations;
use crate::schema::LATEST_VERSION;
use crate::{read, write};

/// The default database: `$XDG_DATA_HOME/dualperf/results.sqlite`, or
/// `~/.local/share/dualperf/results.sqlite` when `XDG_DATA_HOME` is unset
/// (XDG Base Directory Specification).
///
/// # Errors
/// [`StoreError::NoDataDirectory`] when neither variable is set.
pub fn default_path() -> Result<PathBuf> {
    let non_empty = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = non_empty("XDG_DATA_HOME")
        .or_else(|| non_empty("HOME").map(|home| home.join(".local/share")))
        .ok_or(StoreError::NoDataDirectory)?;
    Ok(base.join("dualperf").join("results.sqlite"))
}

/// An open results database at the latest schema version.
#[derive(Debug)]
pub struct Store {
    pub(crate) connection: Connection,
}

/// A run that has been begun: its database row id and how many trials it has.
/// Get one from [`Store::begin_run`]; pass it to [`Store::append_trial`] and
/// [`Store::finish_run`].
#[derive(Debug)]
pub struct RunHandle {
    pub(crate) row_id: i64,
    pub(crate) run_id: String,
    pub(crate) next_seq: u32,
}

impl RunHandle {
    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Trials written so far.
    pub fn trials_written(&self) -> u32 {
        self.next_seq
    }
}

/// How a run ended: what [`Store::finish_run`] writes.
#[derive(Clone, Copy, Debug)]
pub struct RunEnd<'a> {
    /// Wall-clock end, milliseconds since the Unix epoch.
    pub finished_at_unix_ms: u64,
    /// True when every planned trial ran and succeeded.
    pub complete: bool,
    /// Run-level errors.
    pub errors: &'a [String],
    /// The analysis, if the stats stage ran.
    pub analysis: Option<&'a Analysis>,
}

impl<'a> RunEnd<'a> {
    /// The end as recorded in a finished [`RunResult`].
    pub fn of(run: &'a RunResult) -> Self {
        RunEnd {
            finished_at_unix_ms: run.finished_at_unix_ms,
            complete: run.complete,
            errors: &run.errors,
            analysis: run.analysis.as_ref(),
        }
    }
}

impl Store {
    /// Opens (creating if needed, with its directory) the database at `path`
    /// and migrates it to the latest schema version.
    ///
    /// # Errors
    /// [`StoreError::Open`], [`StoreError::CreateDirectory`],
    /// [`StoreError::SchemaTooNew`] or [`StoreError::Migrate`].
    pub fn open(path: &Path) -> Result<Store> {
        Self::open_at_version(path, LATEST_VERSION)
    }

    /// Opens the database at `path`, migrating it only up to `version`.
    /// For fixture generators and migration tests; everything else uses
    /// [`Store::open`]. Writing into an older schema works only while the
    /// writer uses no column added after `version`.
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, version: u32) -> Result<Store> {
        if let Some(directory) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(directory).map_err(|source| StoreError::CreateDirectory {
                path: directory.to_path_buf(),
                source,
            })?;
        }
        let open_error = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let connection = Connection::open(path).map_err(open_error)?;
        Self::configure(connection, version).map_err(|err| match err {
            StoreError::Query { source, .. } => open_error(source),
            other => other,
        })
    }

    /// A database in memory, for tests and dry runs.
    ///
    /// # Errors
    /// As [`Store::open`].
    pub fn open_in_memory() -> Result<Store> {
        let connection = Connection::open_in_memory().map_err(|source| StoreError::Open {
            path: PathBuf::from(":memory:"),
            source,
        })?;
        Self::configure(connection, LATEST_VERSION)
    }

    fn configure(mut connection: Connection, version: u32) -> Result<Store> {
        let pragma_error = |source| StoreError::Query {
            action: "configuring".into(),
            source,
        };
        // WAL: readers never block the writer and a killed writer leaves the
        // main file intact; FULL: a committed trial survives a power loss too.
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| connection.pragma_update(None, "synchronous", "FULL"))
            .and_then(|_| connection.pragma_update(None, "foreign_keys", "ON"))
            .and_then(|_| connection.busy_timeout(Duration::from_secs(10)))
            .map_err(pragma_error)?;
        migrations::migrate_to(&mut connection, version)?;
        Ok(Store { connection })
    }

    /// The file's schema version (`PRAGMA user_version`).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn schema_version(&self) -> Result<u32> {
        migrations::current_version(&self.connection).map_err(|source| StoreError::Query {
            action: "reading the schema version".into(),
            source,
        })
    }

    /// Writes the run row and its points, then every trial `run` already
    /// holds (each in its own transaction). Call it before the first trial
    /// runs, with `run.trials` empty, to keep trials as they finish.
    ///
    /// # Errors
    /// [`StoreError::DuplicateRun`] when the id is taken; otherwise SQL or
    /// encoding errors. Nothing of the run is written when the run row fails.
    pub fn begin_run(&mut self, run: &RunResult) -> Result<RunHandle> {
        let mut handle = write::insert_run(&mut self.connection, run)?;
        for trial in &run.trials {
            self.append_trial(&mut handle, trial)?;
        }
        Ok(handle)
    }

    /// Writes one finished trial, with its time series and histogram, in one
    /// transaction: after a crash it is there whole or not at all.
    ///
    /// # Errors
    /// SQL or encoding errors; the trial is then not written at all.
    pub fn append_trial(&mut self, handle: &mut RunHandle, trial: &Trial) -> Result<()> {
        write::insert_trial(&mut self.connection, handle, trial)
    }

    /// Records the end of the run and its analysis, in one transaction.
    ///
    /// # Errors
    /// SQL or encoding errors; the run then stays as it was (unfinished).
    pub fn finish_run(&mut self, handle: RunHandle, end: RunEnd<'_>) -> Result<()> {
        write::finish_run(&mut self.connection, &handle, end)
    }

    /// Writes a whole run: [`Store::begin_run`] then [`Store::finish_run`].
    ///
    /// # Errors
    /// As those two.
    pub fn save_run(&mut self, run: &RunResult) -> Result<()> {
        let handle = self.begin_run(run)?;
        self.finish_run(handle, RunEnd::of(run))
    }

    /// Loads a run exactly as it was saved (or as far as it got).
    ///
    /// # Errors
    /// [`StoreError::RunNotFound`], SQL or decoding errors.
    pub fn load_run(&self, run_id: &str) -> Result<RunResult> {
        read::load_run(&self.connection, run_id)
    }

    /// Every stored run, oldest first, with what `dualperf history` shows.
    ///
    /// # Errors
    /// [`StoreError::Query`] or decoding errors.
    pub fn list_runs(&self) -> Result<Vec<RunListing>> {
        listing::list_runs(&self.connection)
    }

    /// The id of the run that started last, if any.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn latest_run_id(&self) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.connection
            .query_row(
                "SELECT run_id FROM runs ORDER BY started_at_unix_ms DESC, id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(|source| StoreError::Query {
                action: "finding the latest run".into(),
                source,
            })
    }

    /// Sets the free-text notes of a run (schema version 2), e.g. "after
    /// kernel 6.8 upgrade". `None` clears them.
    ///
    /// # Errors
    /// [`StoreError::RunNotFound`] or [`StoreError::Sql`].
    pub fn set_notes(&mut self, run_id: &str, notes: Option<&str>) -> Result<()> {
        let changed = self
            .connection
            .execute(
                "UPDATE runs SET notes = ?1 WHERE run_id = ?2",
                (notes, run_id),
            )
            .map_err(|source| StoreError::Sql {
                action: "setting the notes".into(),
                run_id: run_id.to_string(),
                source,
            })?;
        if changed == 0 {
            return Err(StoreError::RunNotFound {
                run_id: run_id.to_string(),
            });
        }
        Ok(())
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file, else SQLite's findings.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn integrity_check(&self) -> Result<String> {
        let mut statement =
            self.connection
                .prepare("PRAGMA integrity_check")
                .map_err(|source| StoreError::Query {
                    action: "checking integrity".into(),
                    source,
                })?;
        let lines: rusqlite::Result<Vec<String>> = statement
            .query_map([], |row| row.get(0))
            .and_then(|rows| rows.collect());
        lines
            .map(|lines| lines.join("\n"))
            .map_err(|source| StoreError::Query {
                action: "checking integrity".into(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_and_its_directory_are_created_in_wal_mode() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("nested/dir/results.sqlite");
        let store = Store::open(&path).unwrap();
        assert!(path.exists());
        let mode: String = store
            .connection
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let foreign_keys: i64 = store
            .connection
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(foreign_keys, 1);
        assert_eq!(store.schema_version().unwrap(), LATEST_VERSION);
        assert_eq!(store.integrity_check().unwrap(), "ok");
    }

    #[test]
    fn a_file_that_is_not_sqlite_gives_an_error_naming_it() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("notes.txt");
        std::fs::write(
            &path,
            "this is not a database, and it must survive".repeat(100),
        )
        .unwrap();
        let err = Store::open(&path).unwrap_err();
        assert!(format!("{err}").contains("notes.txt"), "{err}");
        let kept = std::fs::read_to_string(&path).unwrap();
        assert!(
            kept.starts_with("this is not a database"),
            "the file was changed"
        );
    }

    #[test]
    fn notes_of_an_unknown_run_are_refused() {
        let mut store = Store::open_in_memory().unwrap();
        let err = store.set_notes("nope", Some("x")).unwrap_err();
        assert!(matches!(err, StoreError::RunNotFound { .. }), "{err}");
    }
}
