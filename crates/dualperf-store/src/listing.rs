//! The run history: one [`RunListing`] per stored run, for `dualperf history`.
//! Numbers and names only; the binary words them through the report crate.

use dualperf_model::{Arm, ArmId, Comparison, MetricId, RunConfig, TestKind};
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::integer::from_sql;
use crate::read::{comparison_row, decode, COMPARISON_COLUMNS, COMPARISON_COLUMN_COUNT};

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
    /// The arms measured, in table order (labels for people, ids for machines).
    pub arms: Vec<Arm>,
    /// The arm the others were compared with.
    pub baseline: ArmId,
    /// Measurement points planned.
    pub points: u64,
    /// Trials stored (finished ones only).
    pub trials: u64,
    /// Trials that failed.
    pub failed_trials: u64,
    /// True when every planned trial ran and succeeded.
    pub complete: bool,
    /// True when the raw per-transaction and per-packet samples were kept.
    pub raw_samples: bool,
    /// What the run found, on the headline metrics.
    pub headline: Headline,
    /// Free-text notes (schema version 2).
    pub notes: Option<String>,
}

/// What a run found, in one value: the largest significant relative
/// difference on a point's headline metric ([`MetricId::headline`] of its
/// test kind, the metric the terminal, `report --compare` and the report's
/// first screen headline too), or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Headline {
    /// The run has no analysis (killed, or stored without one).
    NotAnalysed,
    /// The analysis compares nothing (one arm only).
    NoComparison,
    /// No headline comparison is significant.
    NoSignificantDifference {
        /// Headline comparisons in the run.
        comparisons: u64,
    },
    /// The largest significant relative difference on a headline metric.
    Difference {
        /// The point's label, e.g. "tcp-stream 1024 B".
        point_label: String,
        /// The comparison.
        comparison: Box<Comparison>,
    },
}

/// The `runs` columns a listing needs.
struct Row {
    run_id: String,
    started: i64,
    finished: i64,
    hostname: String,
    testbed: Option<String>,
    config_json: String,
    tool_version: String,
    counts: [i64; 3],
    complete: bool,
    analysed: bool,
    raw_samples: bool,
    notes: Option<String>,
    row_id: i64,
}

pub(crate) fn list_runs(connection: &Connection) -> Result<Vec<RunListing>> {
    let query_error = |source| StoreError::Query {
        action: "listing runs".into(),
        source,
    };
    let mut statement = connection
        .prepare(
            "SELECT r.run_id, r.started_at_unix_ms, r.finished_at_unix_ms, r.hostname,
                    r.testbed_name, r.config_json, r.tool_version,
                    (SELECT count(*) FROM points p WHERE p.run_id = r.id),
                    (SELECT count(*) FROM trials t WHERE t.run_id = r.id),
                    (SELECT count(*) FROM trials t WHERE t.run_id = r.id AND t.status = 'failed'),
                    r.complete, r.analysed, r.raw_samples, r.notes, r.id
             FROM runs r ORDER BY r.started_at_unix_ms, r.id",
        )
        .map_err(query_error)?;
    let rows: Vec<Row> = statement
        .query_map([], |row| {
            Ok(Row {
                run_id: row.get(0)?,
                started: row.get(1)?,
                finished: row.get(2)?,
                hostname: row.get(3)?,
                testbed: row.get(4)?,
                config_json: row.get(5)?,
                tool_version: row.get(6)?,
                counts: [row.get(7)?, row.get(8)?, row.get(9)?],
                complete: row.get(10)?,
                analysed: row.get(11)?,
                raw_samples: row.get(12)?,
                notes: row.get(13)?,
                row_id: row.get(14)?,
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(query_error)?;
    rows.into_iter()
        .map(|row| {
            let config: RunConfig = decode(&row.config_json, "configuration", &row.run_id)?;
            let target = config.host.clone().or_else(|| {
                config
                    .compared_arms()
                    .chain(config.baseline_arm())
                    .find_map(|arm| arm.target.clone())
            });
            let location = match (row.testbed, target) {
                (Some(testbed), _) => format!("testbed {testbed} on {}", row.hostname),
                (None, Some(target)) => format!("{} → {target}", row.hostname),
                (None, None) => row.hostname,
            };
            let headline = headline(connection, row.row_id, &row.run_id, row.analysed)?;
            Ok(RunListing {
                run_id: row.run_id,
                started_at_unix_ms: from_sql(row.started),
                finished_at_unix_ms: from_sql(row.finished),
                location,
                tool_version: row.tool_version,
                arms: config.arms,
                baseline: config.baseline,
                points: from_sql(row.counts[0]),
                trials: from_sql(row.counts[1]),
                failed_trials: from_sql(row.counts[2]),
                complete: row.complete,
                raw_samples: row.raw_samples,
                headline,
                notes: row.notes,
            })
        })
        .collect()
}

/// The run's [`Headline`].
fn headline(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
    analysed: bool,
) -> Result<Headline> {
    if !analysed {
        return Ok(Headline::NotAnalysed);
    }
    let query_error = |source| StoreError::Query {
        action: "finding a run's headline".into(),
        source,
    };
    // Every comparison, lightly: which are on their point's headline metric
    // is decided here, by the typed table, not by names in SQL.
    let mut statement = connection
        .prepare(
            "SELECT c.seq, c.metric, p.kind, c.significant, c.relative_difference
             FROM comparisons c JOIN points p ON p.run_id = c.run_id AND p.point = c.point
             WHERE c.run_id = ?1 ORDER BY c.seq",
        )
        .map_err(query_error)?;
    type Light = (i64, String, String, bool, Option<f64>);
    let rows: Vec<Light> = statement
        .query_map([row_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .and_then(|rows| rows.collect())
        .map_err(query_error)?;
    if rows.is_empty() {
        return Ok(Headline::NoComparison);
    }
    let on_headline = |metric: &str, kind: &str| {
        let kind: Option<TestKind> = kind.parse().ok();
        kind.is_some_and(|kind| MetricId::from_name(metric) == Some(MetricId::headline(kind)))
    };
    let mut comparisons = 0u64;
    let mut largest: Option<(i64, f64)> = None;
    for (seq, metric, kind, significant, relative) in &rows {
        if !on_headline(metric, kind) {
            continue;
        }
        comparisons += 1;
        if let (true, Some(relative)) = (significant, relative) {
            let larger = match largest {
                Some((_, best)) => relative.abs() > best,
                None => true,
            };
            if larger {
                largest = Some((*seq, relative.abs()));
            }
        }
    }
    let Some((seq, _)) = largest else {
        return Ok(Headline::NoSignificantDifference { comparisons });
    };
    let found = connection
        .query_row(
            &format!(
                "SELECT {COMPARISON_COLUMNS}, p.label FROM comparisons c
                 JOIN points p ON p.run_id = c.run_id AND p.point = c.point
                 WHERE c.run_id = ?1 AND c.seq = ?2"
            ),
            [row_id, seq],
            |r| {
                Ok((
                    comparison_row(r)?,
                    r.get::<_, String>(COMPARISON_COLUMN_COUNT)?,
                ))
            },
        )
        .optional()
        .map_err(query_error)?;
    Ok(match found {
        Some((row, point_label)) => Headline::Difference {
            point_label,
            comparison: Box::new(row.decode(run_id)?),
        },
        None => Headline::NoSignificantDifference { comparisons },
    })
}
