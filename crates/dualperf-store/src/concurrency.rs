//! Several processes on one database: what the store does when SQLite
//! answers "busy" or "cannot open" because another process holds a lock
//! or because this one cannot write next to the file. Creating, migrating
//! and reading are safe when runs start at once (issue 29: 8 runs into one
//! new database all stored).

use std::time::Duration;

/// How long a statement waits for another process's lock before failing.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `step` again while SQLite answers "busy" or "locked" (a lock the
/// busy handler cannot wait for, e.g. during another process's switch to
/// WAL), for at most [`BUSY_TIMEOUT`].
pub(crate) fn with_busy_retry<T>(
    mut step: impl FnMut() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let started = std::time::Instant::now();
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// True for SQLITE_CANTOPEN (a file or its `-shm` could not be opened).
pub(crate) fn is_cannot_open(error: &rusqlite::Error) -> bool {
    matches!(error, rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::CannotOpen)
}
