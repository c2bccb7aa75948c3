//! Removing old runs (`dualperf history --prune`) and giving the space back.
//!
//! A run is removed whole: deleting its `runs` row cascades (foreign keys
//! with `ON DELETE CASCADE`) to its points, trials, interval samples,
//! histogram buckets, summaries, comparisons and missing metrics.

use rusqlite::Connection;
use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::integer::from_sql;

/// Which runs a prune removes.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Retention {
    /// Keep the N runs that started last; remove the others.
    KeepNewest(usize),
    /// Remove the runs that started before this time, milliseconds since
    /// the Unix epoch.
    StartedBefore(u64),
}

/// What a prune removed.
#[derive(Clone, Debug, Default, Eq, PartialEq, Serialize)]
pub struct Pruned {
    /// The ids of the runs removed, oldest first.
    pub run_ids: Vec<String>,
    /// Pages freed inside the file (reused by later runs; [`crate::Store::vacuum`]
    /// returns them to the file system), in bytes.
    pub freed_bytes: u64,
}

fn query_error(action: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |source| StoreError::Query {
        action: action.to_string(),
        source,
    }
}

/// The row ids and run ids `retention` selects, oldest first.
fn selected(connection: &Connection, retention: Retention) -> Result<Vec<(i64, String)>> {
    let fail = query_error("choosing runs to prune");
    let (sql, bound) = match retention {
        // Everything but the newest N, by the order `history` lists them in.
        Retention::KeepNewest(keep) => (
            "SELECT id, run_id FROM runs WHERE id NOT IN (
                 SELECT id FROM runs ORDER BY started_at_unix_ms DESC, id DESC LIMIT ?1)
             ORDER BY started_at_unix_ms, id",
            i64::try_from(keep).unwrap_or(i64::MAX),
        ),
        Retention::StartedBefore(unix_ms) => (
            "SELECT id, run_id FROM runs WHERE started_at_unix_ms < ?1
             ORDER BY started_at_unix_ms, id",
            i64::try_from(unix_ms).unwrap_or(i64::MAX),
        ),
    };
    let mut statement = connection.prepare(sql).map_err(&fail)?;
    let rows = statement
        .query_map([bound], |row| Ok((row.get(0)?, row.get(1)?)))
        .and_then(|rows| rows.collect())
        .map_err(&fail)?;
    Ok(rows)
}

/// The run ids `retention` selects, oldest first.
pub(crate) fn select(connection: &Connection, retention: Retention) -> Result<Vec<String>> {
    Ok(selected(connection, retention)?
        .into_iter()
        .map(|(_, run_id)| run_id)
        .collect())
}

/// Removes the selected runs in one transaction.
pub(crate) fn remove(connection: &mut Connection, retention: Retention) -> Result<Pruned> {
    let fail = query_error("pruning runs");
    let free_before = free_bytes(connection)?;
    let transaction = connection.transaction().map_err(&fail)?;
    let runs = selected(&transaction, retention)?;
    {
        let mut delete = transaction
            .prepare("DELETE FROM runs WHERE id = ?1")
            .map_err(&fail)?;
        for (row_id, _) in &runs {
            delete.execute([row_id]).map_err(&fail)?;
        }
    }
    transaction.commit().map_err(&fail)?;
    Ok(Pruned {
        run_ids: runs.into_iter().map(|(_, run_id)| run_id).collect(),
        freed_bytes: free_bytes(connection)?.saturating_sub(free_before),
    })
}

/// `VACUUM`, then a checkpoint that truncates the write-ahead log.
pub(crate) fn vacuum(connection: &mut Connection) -> Result<()> {
    connection
        .execute_batch("VACUUM")
        .map_err(query_error("vacuuming"))?;
    // In WAL mode the rebuilt pages sit in the log until a checkpoint; the
    // main file shrinks only then. The pragma returns a row.
    connection
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .map_err(query_error("checkpointing after vacuum"))
}

fn pragma(connection: &Connection, name: &str) -> Result<u64> {
    connection
        .query_row(&format!("PRAGMA {name}"), [], |row| row.get::<_, i64>(0))
        .map(from_sql)
        .map_err(query_error("measuring the database"))
}

/// Pages × page size.
pub(crate) fn size_bytes(connection: &Connection) -> Result<u64> {
    Ok(pragma(connection, "page_count")? * pragma(connection, "page_size")?)
}

fn free_bytes(connection: &Connection) -> Result<u64> {
    Ok(pragma(connection, "freelist_count")? * pragma(connection, "page_size")?)
}
