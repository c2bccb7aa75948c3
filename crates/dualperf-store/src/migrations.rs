//! Brings a database to a schema version by applying the steps of
//! [`crate::schema::MIGRATIONS`] in order, each in its own transaction
//! together with its `PRAGMA user_version` bump: a failed or killed migration
//! leaves the file at the version before the step. Each step takes the
//! write lock first and reads the version under it, so several processes
//! creating or migrating one database at once apply every step once.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Result, StoreError};
use crate::schema::{LATEST_VERSION, MIGRATIONS};

/// The `PRAGMA user_version` of the open database (0 for a new file).
pub(crate) fn current_version(connection: &Connection) -> rusqlite::Result<u32> {
    connection.query_row("PRAGMA user_version", [], |row| row.get(0))
}

/// Applies every step above the file's version up to `target`.
///
/// # Errors
/// [`StoreError::SchemaTooNew`] when the file is newer than [`LATEST_VERSION`];
/// [`StoreError::Migrate`] when a step fails.
pub(crate) fn migrate_to(connection: &mut Connection, target: u32) -> Result<u32> {
    let found =
        current_version(connection).map_err(|source| StoreError::Migrate { version: 0, source })?;
    if found > LATEST_VERSION {
        return Err(StoreError::SchemaTooNew {
            found,
            supported: LATEST_VERSION,
        });
    }
    for step in MIGRATIONS
        .iter()
        .filter(|s| s.version > found && s.version <= target)
    {
        let fail = |source| StoreError::Migrate {
            version: step.version,
            source,
        };
        // IMMEDIATE: the write lock is taken before the version is read, so
        // of several processes migrating one new file at once one applies
        // the step and the others, waiting on the busy timeout, find it done
        // (a deferred transaction let two create `runs` and one fail).
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        if current_version(&transaction).map_err(fail)? >= step.version {
            continue;
        }
        transaction.execute_batch(step.sql).map_err(fail)?;
        // PRAGMA takes no bound parameters; the version is our own integer.
        transaction
            .execute_batch(&format!("PRAGMA user_version = {}", step.version))
            .map_err(fail)?;
        transaction.commit().map_err(fail)?;
    }
    current_version(connection).map_err(|source| StoreError::Migrate {
        version: target,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_is_migrated_to_the_latest_version() {
        let mut connection = Connection::open_in_memory().unwrap();
        assert_eq!(
            migrate_to(&mut connection, LATEST_VERSION).unwrap(),
            LATEST_VERSION
        );
        let notes: i64 = connection
            .query_row(
                "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'notes'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(notes, 1);
    }

    #[test]
    fn migrating_twice_changes_nothing() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate_to(&mut connection, LATEST_VERSION).unwrap();
        assert_eq!(
            migrate_to(&mut connection, LATEST_VERSION).unwrap(),
            LATEST_VERSION
        );
    }

    #[test]
    fn a_database_from_a_newer_dualperf_is_refused() {
        let mut connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        let err = migrate_to(&mut connection, LATEST_VERSION).unwrap_err();
        assert!(
            matches!(err, StoreError::SchemaTooNew { found: 99, .. }),
            "{err}"
        );
    }

    #[test]
    fn a_failing_step_leaves_the_previous_version() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate_to(&mut connection, 1).unwrap();
        // Sabotage step 2: its ALTER TABLE must fail on a column that exists.
        connection
            .execute_batch("ALTER TABLE runs ADD COLUMN notes TEXT")
            .unwrap();
        let err = migrate_to(&mut connection, 2).unwrap_err();
        assert!(
            matches!(err, StoreError::Migrate { version: 2, .. }),
            "{err}"
        );
        assert_eq!(current_version(&connection).unwrap(), 1);
    }
}
