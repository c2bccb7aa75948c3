//! The run history: one [`RunListing`] per stored run, for `dualperf history`.

use rusqlite::Connection;
use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::integer::from_sql;

/// One line of the history: where and when a run measured and what it found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunListing {
    /// The run id (`dualperf report RUN_ID`).
    pub run_id: String,
    /// Wall-clock start, milliseconds since the Unix epoch.
    pub started_at_unix_ms: u64,
    /// Wall-clock end; 0 when the run never finished (killed or still running).
    pub finished_at_unix_ms: u64,
    /// Where it measured: "testbed NAME on HOST" for lab runs, else "HOST → TARGET".
    pub location: String,
    /// dualperf version that measured.
    pub tool_version: String,
    /// Measurement points planned.
    pub points: u64,
    /// Trials stored (finished ones only).
    pub trials: u64,
    /// Trials that failed.
    pub failed_trials: u64,
    /// True when every planned trial ran and succeeded.
    pub complete: bool,
    /// One line of what the run found (the largest significant difference).
    pub headline: String,
    /// Free-text notes (schema version 2).
    pub notes: Option<String>,
}

pub(crate) fn list_runs(connection: &Connection) -> Result<Vec<RunListing>> {
    let query_error = |source| StoreError::Query {
        action: "listing runs".into(),
        source,
    };
    let mut statement = connection
        .prepare(
            "SELECT r.run_id, r.started_at_unix_ms, r.finished_at_unix_ms, r.hostname, r.testbed_name,
                    json_extract(r.config_json, '$.host'),
                    json_extract(r.config_json, '$.targets.v6'),
                    json_extract(r.config_json, '$.targets.v4'),
                    r.tool_version,
                    (SELECT count(*) FROM points p WHERE p.run_id = r.id),
                    (SELECT count(*) FROM trials t WHERE t.run_id = r.id),
                    (SELECT count(*) FROM trials t WHERE t.run_id = r.id AND t.status = 'failed'),
                    r.complete, r.analysed, r.notes, r.id
             FROM runs r ORDER BY r.started_at_unix_ms, r.id",
        )
        .map_err(query_error)?;
    type Raw = (
        String,
        i64,
        i64,
        String,
        Option<String>,
        [Option<String>; 3],
        String,
        [i64; 3],
        bool,
        bool,
        Option<String>,
        i64,
    );
    let rows: Vec<Raw> = statement
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                [row.get(5)?, row.get(6)?, row.get(7)?],
                row.get(8)?,
                [row.get(9)?, row.get(10)?, row.get(11)?],
                row.get(12)?,
                row.get(13)?,
                row.get(14)?,
                row.get(15)?,
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(query_error)?;
    rows.into_iter()
        .map(
            |(
                run_id,
                started,
                finished,
                hostname,
                testbed,
                [host, v6, v4],
                version,
                counts,
                complete,
                analysed,
                notes,
                row_id,
            )| {
                let location = match (testbed, host.or(v6).or(v4)) {
                    (Some(testbed), _) => format!("testbed {testbed} on {hostname}"),
                    (None, Some(target)) => format!("{hostname} → {target}"),
                    (None, None) => hostname,
                };
                let headline = headline(connection, row_id, analysed)?;
                Ok(RunListing {
                    run_id,
                    started_at_unix_ms: from_sql(started),
                    finished_at_unix_ms: from_sql(finished),
                    location,
                    tool_version: version,
                    points: from_sql(counts[0]),
                    trials: from_sql(counts[1]),
                    failed_trials: from_sql(counts[2]),
                    complete,
                    headline,
                    notes,
                })
            },
        )
        .collect()
}

/// The run's headline: the verdict of its largest significant relative
/// difference in goodput or mean RTT (any metric when those have none; the
/// derived wire and sender throughputs would only echo goodput),
/// prefixed with the point and metric; or why there is none.
fn headline(connection: &Connection, row_id: i64, analysed: bool) -> Result<String> {
    if !analysed {
        return Ok("not analysed".to_string());
    }
    let query_error = |source| StoreError::Query {
        action: "finding a run's headline".into(),
        source,
    };
    let total: i64 = connection
        .query_row(
            "SELECT count(*) FROM comparisons WHERE run_id = ?1",
            [row_id],
            |r| r.get(0),
        )
        .map_err(query_error)?;
    if total == 0 {
        return Ok("no IPv4/IPv6 comparison (one family only?)".to_string());
    }
    let largest: Option<(String, String, String)> = {
        use rusqlite::OptionalExtension;
        connection
            .query_row(
                "SELECT p.label, c.metric, c.verdict FROM comparisons c
                 JOIN points p ON p.run_id = c.run_id AND p.point = c.point
                 WHERE c.run_id = ?1 AND c.significant = 1 AND c.relative_difference IS NOT NULL
                 ORDER BY (c.metric IN ('goodput_bps', 'rtt_mean_ns')) DESC,
                          abs(c.relative_difference) DESC, c.seq
                 LIMIT 1",
                [row_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(query_error)?
    };
    Ok(match largest {
        Some((label, metric, verdict)) => format!("{label}, {metric}: {verdict}"),
        None => format!("no significant IPv4/IPv6 difference in {total} comparisons"),
    })
}
