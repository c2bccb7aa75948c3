//! [`Store`]: an open results database, and where it lives by default.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dualperf_model::{RunResult, Trial};
use rusqlite::{Connection, OpenFlags};

use crate::error::{Result, StoreError};
use crate::handle::{RunEnd, RunHandle, WriteOptions};
use crate::identity::{self, Identity};
use crate::listing::{self, RunListing};
use crate::migrations;
use crate::prune::{self, Pruned, Retention};
use crate::read::flows as read_flows;
use crate::schema::LATEST_VERSION;
use crate::{read, write};

use crate::concurrency::BUSY_TIMEOUT;

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

/// An open results database at the latest schema version, for writing
/// ([`Store::open`]) or for reading only ([`Store::open_read_only`]).
#[derive(Debug)]
pub struct Store {
    pub(crate) connection: Connection,
    read_only: bool,
}

impl Store {
    /// Opens (creating if needed, with its directory) the database at `path`
    /// for writing and migrates it to the latest schema version. A file that
    /// is not a dualperf database (another program's SQLite file, text …)
    /// is refused before anything is written to it.
    ///
    /// # Errors
    /// [`StoreError::NotDualperf`], [`StoreError::Open`],
    /// [`StoreError::CreateDirectory`], [`StoreError::SchemaTooNew`] or
    /// [`StoreError::Migrate`].
    pub fn open(path: &Path) -> Result<Store> {
        Self::open_at_version(path, LATEST_VERSION)
    }

    /// Opens the database at `path` for writing, migrating it only up to
    /// `version`. For fixture generators and migration tests; everything
    /// else uses [`Store::open`]. Writing into an older schema works only
    /// while the writer uses no column added after `version`.
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, version: u32) -> Result<Store> {
        if let Some(directory) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(directory).map_err(|source| StoreError::CreateDirectory {
                path: directory.to_path_buf(),
                source,
            })?;
        }
        if path.exists() {
            match precheck(path)? {
                Identity::Foreign(reason) => return Err(not_dualperf(path, reason)),
                Identity::Empty | Identity::Dualperf => {}
            }
        }
        let open_error = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let connection = Connection::open(path).map_err(open_error)?;
        // Before anything is read: another process may be creating the file.
        connection.busy_timeout(BUSY_TIMEOUT).map_err(open_error)?;
        match crate::concurrency::with_busy_retry(|| identity::identify(&connection)) {
            Ok(Identity::Foreign(reason)) => return Err(not_dualperf(path, reason)),
            Ok(Identity::Empty | Identity::Dualperf) => {}
            Err(source) => return Err(open_error(source)),
        }
        Self::configure(connection, version).map_err(|err| match err {
            StoreError::Query { source, .. } => open_error(source),
            other => other,
        })
    }

    /// Opens the database at `path` for reading only (`history`, `report`):
    /// SQLite's read-only mode, so nothing in the file changes — no table is
    /// created, the journal mode stays, no migration is written. A file that
    /// is not a dualperf database is refused with
    /// [`StoreError::NotDualperf`] and left as it was.
    ///
    /// A database of an older schema version (written by an older dualperf)
    /// is copied into memory and migrated there, so it reads like a current
    /// one; the file itself is migrated by the next writing command.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Read`],
    /// [`StoreError::NotDualperf`], [`StoreError::Open`],
    /// [`StoreError::SchemaTooNew`] or [`StoreError::Migrate`] (of the copy).
    pub fn open_read_only(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Err(StoreError::NotFound {
                path: path.to_path_buf(),
            });
        }
        match precheck(path)? {
            Identity::Foreign(reason) => return Err(not_dualperf(path, reason)),
            Identity::Empty => return Err(not_dualperf(path, "an empty file".into())),
            Identity::Dualperf => {}
        }
        let open_error = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(open_error)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(open_error)?;
        let connection = match check_identity(&connection, path) {
            Ok(()) => connection,
            // A WAL database in a directory this process cannot write (a
            // read-only mount, another user's folder): SQLite cannot create
            // the shared-memory file a WAL reader needs. Without a log the
            // main file is the whole database, so it is read as immutable.
            Err(StoreError::Open { source, .. })
                if crate::concurrency::is_cannot_open(&source) && !wal_file(path).exists() =>
            {
                let immutable = Connection::open_with_flags(
                    immutable_uri(path),
                    OpenFlags::SQLITE_OPEN_READ_ONLY
                        | OpenFlags::SQLITE_OPEN_URI
                        | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(open_error)?;
                check_identity(&immutable, path)?;
                immutable
            }
            Err(other) => return Err(other),
        };
        let version = migrations::current_version(&connection).map_err(open_error)?;
        if version > LATEST_VERSION {
            return Err(StoreError::SchemaTooNew {
                found: version,
                supported: LATEST_VERSION,
            });
        }
        let connection = if version < LATEST_VERSION {
            migrated_copy(&connection).map_err(|err| match err {
                StoreError::Query { source, .. } => open_error(source),
                other => other,
            })?
        } else {
            connection
        };
        connection
            .pragma_update(None, "query_only", true)
            .map_err(open_error)?;
        Ok(Store {
            connection,
            read_only: true,
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
        // The busy timeout first: switching to WAL takes a lock another
        // process creating the same file may hold.
        connection
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(pragma_error)?;
        crate::concurrency::with_busy_retry(|| {
            connection.pragma_update(None, "journal_mode", "WAL")
        })
        .and_then(|_| connection.pragma_update(None, "synchronous", "FULL"))
        .and_then(|_| connection.pragma_update(None, "foreign_keys", "ON"))
        .map_err(pragma_error)?;
        migrations::migrate_to(&mut connection, version)?;
        Ok(Store {
            connection,
            read_only: false,
        })
    }

    /// True for a store opened with [`Store::open_read_only`]: every write
    /// fails with [`StoreError::ReadOnly`].
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    pub(crate) fn writable(&mut self, action: &str) -> Result<&mut Connection> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                action: action.to_string(),
            });
        }
        Ok(&mut self.connection)
    }

    /// The schema version of the open database (`PRAGMA user_version`); for
    /// a read-only store of an older file, that of its migrated copy.
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
    /// holds (each in its own transaction), with the default
    /// [`WriteOptions`] (no raw load series; probe arrivals kept). Call it before the first trial
    /// runs, with `run.trials` empty, to keep trials as they finish.
    ///
    /// # Errors
    /// [`StoreError::DuplicateRun`] when the id is taken,
    /// [`StoreError::ReadOnly`]; otherwise SQL or encoding errors. Nothing of
    /// the run is written when the run row fails.
    pub fn begin_run(&mut self, run: &RunResult) -> Result<RunHandle> {
        self.begin_run_with(run, WriteOptions::default())
    }

    /// [`Store::begin_run`] with explicit [`WriteOptions`], which hold for
    /// every trial appended through the handle.
    ///
    /// # Errors
    /// As [`Store::begin_run`].
    pub fn begin_run_with(&mut self, run: &RunResult, options: WriteOptions) -> Result<RunHandle> {
        let connection = self.writable("writing a run")?;
        let mut handle = write::insert_run(connection, run, options)?;
        for trial in &run.trials {
            self.append_trial(&mut handle, trial)?;
        }
        Ok(handle)
    }

    /// Writes one finished trial, with its time series and histogram, in one
    /// transaction: after a crash it is there whole or not at all. Its raw
    /// series are kept as the handle's [`WriteOptions`] say.
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`], SQL or encoding errors; the trial is then
    /// not written at all.
    pub fn append_trial(&mut self, handle: &mut RunHandle, trial: &Trial) -> Result<()> {
        let connection = self.writable("writing a trial")?;
        write::insert_trial(connection, handle, trial)
    }

    /// Records the end of the run and its analysis, in one transaction.
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`], SQL or encoding errors; the run then stays
    /// as it was (unfinished).
    pub fn finish_run(&mut self, handle: RunHandle, end: RunEnd<'_>) -> Result<()> {
        let connection = self.writable("finishing a run")?;
        write::finish_run(connection, &handle, end)
    }

    /// Writes a whole run with the default [`WriteOptions`] (no raw load
    /// series; probe arrivals kept): [`Store::begin_run`] then
    /// [`Store::finish_run`].
    ///
    /// # Errors
    /// As those two.
    pub fn save_run(&mut self, run: &RunResult) -> Result<()> {
        self.save_run_with(run, WriteOptions::default())
    }

    /// Writes a whole run with explicit [`WriteOptions`].
    ///
    /// # Errors
    /// As [`Store::begin_run`] and [`Store::finish_run`].
    pub fn save_run_with(&mut self, run: &RunResult, options: WriteOptions) -> Result<()> {
        let handle = self.begin_run_with(run, options)?;
        self.finish_run(handle, RunEnd::of(run))
    }

    /// Loads a run as it was saved (or as far as it got). Trials come back
    /// as [`WriteOptions::apply`] of the options they were saved with left
    /// them. A run stored before schema version 4 comes back with native
    /// arms and `analysis: None` (its analysis was per family): analyse it
    /// again from its trials.
    ///
    /// # Errors
    /// [`StoreError::RunNotFound`], SQL or decoding errors.
    pub fn load_run(&self, run_id: &str) -> Result<RunResult> {
        read::load_run(&self.connection, run_id)
    }

    /// True when the run's analysis was stored with its per-flow and
    /// per-router part (analysed with schema v6 on): [`Store::load_run`]
    /// hands it back as written, empty lists included, and nobody
    /// recomputes it. False for a run analysed before (its load flows and
    /// routers were never stored: a reader may recompute them from the
    /// trials) and for a run without analysis.
    ///
    /// # Errors
    /// [`StoreError::RunNotFound`] or SQL errors.
    pub fn flow_analysis_stored(&self, run_id: &str) -> Result<bool> {
        read_flows::flow_analysis_stored(&self.connection, run_id)
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
    /// [`StoreError::RunNotFound`], [`StoreError::ReadOnly`] or
    /// [`StoreError::Sql`].
    pub fn set_notes(&mut self, run_id: &str, notes: Option<&str>) -> Result<()> {
        let changed = self
            .writable("setting notes")?
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

    /// The ids of the runs `retention` would remove, oldest first, without
    /// removing them (`history --prune --dry-run`; works read-only).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn runs_to_prune(&self, retention: Retention) -> Result<Vec<String>> {
        prune::select(&self.connection, retention)
    }

    /// Removes every run but the `keep` that started last, each whole
    /// (trials, series, histograms, analysis), in one transaction. The
    /// space is reused by later runs; [`Store::vacuum`] gives it back to
    /// the file system. A run still being written is among the newest, so
    /// `keep` ≥ 1 never removes it.
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] or [`StoreError::Query`]; nothing is removed then.
    pub fn prune(&mut self, keep: usize) -> Result<Pruned> {
        self.prune_by(Retention::KeepNewest(keep))
    }

    /// Removes every run that started before `unix_ms` (milliseconds since
    /// the Unix epoch), as [`Store::prune`] does.
    ///
    /// # Errors
    /// As [`Store::prune`].
    pub fn prune_before(&mut self, unix_ms: u64) -> Result<Pruned> {
        self.prune_by(Retention::StartedBefore(unix_ms))
    }

    /// Removes the runs `retention` selects, as [`Store::prune`] does.
    ///
    /// # Errors
    /// As [`Store::prune`].
    pub fn prune_by(&mut self, retention: Retention) -> Result<Pruned> {
        let connection = self.writable("pruning runs")?;
        prune::remove(connection, retention)
    }

    /// Rebuilds the file without the space removed runs left (`VACUUM`) and
    /// truncates the write-ahead log, so the file shrinks on disk. Takes as
    /// long as copying the database, and as much free disk space.
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] or [`StoreError::Query`].
    pub fn vacuum(&mut self) -> Result<()> {
        let connection = self.writable("vacuuming")?;
        prune::vacuum(connection)
    }

    /// The database's size in bytes (pages × page size, free pages included;
    /// the write-ahead log not).
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn size_bytes(&self) -> Result<u64> {
        prune::size_bytes(&self.connection)
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

/// What the file at `path` is, as far as can be told without opening it in
/// a way that could change it: its header, and for a WAL-mode file of
/// application id 0 without a write-ahead log, its schema read as an
/// immutable file (a normal read-only open would create `-wal` and `-shm`
/// files beside another program's database). `Dualperf` here can still be
/// refuted once the file is open.
fn precheck(path: &Path) -> Result<Identity> {
    let header = identity::read_header(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => StoreError::NotFound {
            path: path.to_path_buf(),
        },
        _ => StoreError::Read {
            path: path.to_path_buf(),
            source,
        },
    })?;
    if let Some(verdict) = header.verdict {
        return Ok(verdict);
    }
    if !header.wal || wal_file(path).exists() {
        return Ok(Identity::Dualperf);
    }
    // No log: the main file is the whole database.
    let probe = Connection::open_with_flags(
        immutable_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    // An empty schema stays `Empty`: another process may have just created
    // the file (WAL header, no table yet), and a writer may go on with it.
    identity::identify(&probe).map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })
}

fn not_dualperf(path: &Path, reason: String) -> StoreError {
    StoreError::NotDualperf {
        path: path.to_path_buf(),
        reason,
    }
}

/// Refuses anything but a dualperf database (an empty one too: there is
/// nothing to read).
fn check_identity(connection: &Connection, path: &Path) -> Result<()> {
    match identity::identify(connection) {
        Ok(Identity::Dualperf) => Ok(()),
        Ok(Identity::Empty) => Err(not_dualperf(path, "an empty database".into())),
        Ok(Identity::Foreign(reason)) => Err(not_dualperf(path, reason)),
        // SQLITE_NOTADB and friends: not a database at all.
        Err(rusqlite::Error::SqliteFailure(failure, _))
            if failure.code == rusqlite::ErrorCode::NotADatabase =>
        {
            Err(not_dualperf(path, "not an SQLite database".into()))
        }
        Err(source) => Err(StoreError::Open {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The write-ahead log beside a database file.
fn wal_file(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// `file:PATH?immutable=1`, with the characters URIs reserve escaped.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for byte in path.as_os_str().as_encoded_bytes() {
        match byte {
            b'%' | b'?' | b'#' => uri.push_str(&format!("%{byte:02X}")),
            _ if byte.is_ascii() && !byte.is_ascii_control() => uri.push(char::from(*byte)),
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// An in-memory copy of `source` migrated to the latest version, read-only
/// afterwards: how an older file is read without changing it.
fn migrated_copy(source: &Connection) -> Result<Connection> {
    let copy_error = |source| StoreError::Query {
        action: "copying an older database into memory".into(),
        source,
    };
    let mut memory = Connection::open_in_memory().map_err(copy_error)?;
    {
        let backup = rusqlite::backup::Backup::new(source, &mut memory).map_err(copy_error)?;
        backup
            .run_to_completion(i32::MAX, Duration::from_millis(20), None)
            .map_err(copy_error)?;
    }
    memory
        .pragma_update(None, "foreign_keys", "ON")
        .map_err(copy_error)?;
    migrations::migrate_to(&mut memory, LATEST_VERSION)?;
    Ok(memory)
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
        assert!(!store.is_read_only());
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
    fn an_empty_file_becomes_a_database_when_opened_for_writing() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("touched.sqlite");
        std::fs::write(&path, "").unwrap();
        assert!(matches!(
            Store::open_read_only(&path).unwrap_err(),
            StoreError::NotDualperf { .. }
        ));
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), LATEST_VERSION);
        drop(store);
        assert!(Store::open_read_only(&path).unwrap().is_read_only());
    }

    #[test]
    fn notes_of_an_unknown_run_are_refused() {
        let mut store = Store::open_in_memory().unwrap();
        let err = store.set_notes("nope", Some("x")).unwrap_err();
        assert!(matches!(err, StoreError::RunNotFound { .. }), "{err}");
    }

    #[test]
    fn a_read_only_store_is_refused_writes_by_sqlite_too() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("results.sqlite");
        drop(Store::open(&path).unwrap());
        let reader = Store::open_read_only(&path).unwrap();
        let err = reader
            .connection
            .execute("DELETE FROM runs", [])
            .unwrap_err();
        assert!(err.to_string().contains("readonly"), "{err}");
    }

    #[test]
    fn uris_escape_what_sqlite_would_read_as_query_or_fragment() {
        assert_eq!(
            immutable_uri(Path::new("/tmp/a?b#c%d é.db")),
            "file:/tmp/a%3Fb%23c%25d %C3%A9.db?immutable=1"
        );
        assert_eq!(
            wal_file(Path::new("/x/r.sqlite")),
            PathBuf::from("/x/r.sqlite-wal")
        );
    }
}
