//! Loading a run back into the model's [`RunResult`], the inverse of `write`.

use dualperf_model::observation::Arrival;
use dualperf_model::{
    Analysis, ArmId, Comparison, HistogramBucket, IntervalSample, MetricId, MetricSummary,
    MissingMetric, Observations, RunResult, Summary, Trial, TrialOutcome,
};
use rusqlite::{Connection, OptionalExtension, Row};

use crate::error::{Result, StoreError};
use crate::integer::from_sql;
pub(crate) mod flows;

use crate::schema::{ARM_ANALYSIS_VERSION, FLOW_ANALYSIS_VERSION};
use flows::load_flow_analysis;

pub(crate) fn sql_error(
    action: impl Into<String>,
    run_id: &str,
) -> impl FnOnce(rusqlite::Error) -> StoreError {
    let action = action.into();
    let run_id = run_id.to_string();
    move |source| StoreError::Sql {
        action,
        run_id,
        source,
    }
}

/// Every row `sql` selects with the run's row id as its one parameter,
/// each read by `read`; an error says it happened while `action` (e.g.
/// "reading summaries") for `run_id`.
pub(crate) fn rows_of<T>(
    connection: &Connection,
    sql: &str,
    row_id: i64,
    action: &str,
    run_id: &str,
    read: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>> {
    let mut statement = connection.prepare(sql).map_err(sql_error(action, run_id))?;
    let rows = statement
        .query_map([row_id], read)
        .and_then(|rows| rows.collect())
        .map_err(sql_error(action, run_id));
    rows
}

/// A row of a table of summaries keyed by point, arm and one more column
/// (`summaries`: the metric; `router_summaries`: the node).
pub(crate) struct SummaryRow {
    pub(crate) seq: i64,
    pub(crate) point: i64,
    pub(crate) arm: String,
    pub(crate) key: String,
    pub(crate) summary: Summary,
}

/// Every row of `table` for the run, its `key` column beside the summary.
pub(crate) fn summary_rows(
    connection: &Connection,
    table: &str,
    key: &str,
    row_id: i64,
    run_id: &str,
) -> Result<Vec<SummaryRow>> {
    let sql = format!(
        "SELECT seq, point, arm, {key}, count, mean, standard_deviation,
                coefficient_of_variation, min, max, median, ci95_low, ci95_high
         FROM {table} WHERE run_id = ?1 ORDER BY seq"
    );
    rows_of(
        connection,
        &sql,
        row_id,
        &format!("reading {}", table.replace('_', " ")),
        run_id,
        |row| {
            Ok(SummaryRow {
                seq: row.get(0)?,
                point: row.get(1)?,
                arm: row.get(2)?,
                key: row.get(3)?,
                summary: summary(row, 4)?,
            })
        },
    )
}

pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &str,
    run_id: &str,
) -> Result<T> {
    serde_json::from_str(text).map_err(|source| StoreError::Json {
        action: "decoding",
        what: what.to_string(),
        run_id: run_id.to_string(),
        source,
    })
}

/// The columns of a `runs` row that a [`RunResult`] needs.
struct RunRow {
    row_id: i64,
    schema: String,
    schema_version: u32,
    started_at_unix_ms: i64,
    finished_at_unix_ms: i64,
    config_json: String,
    client_host_json: String,
    server_host_json: Option<String>,
    testbed_json: Option<String>,
    complete: bool,
    errors_json: String,
    analysed: bool,
    analysis_version: i64,
}

pub(crate) fn load_run(connection: &Connection, run_id: &str) -> Result<RunResult> {
    let row = connection
        .query_row(
            "SELECT id, result_schema, result_schema_version, started_at_unix_ms,
                    finished_at_unix_ms, config_json, client_host_json, server_host_json,
                    testbed_json, complete, errors_json, analysed, analysis_version
             FROM runs WHERE run_id = ?1",
            [run_id],
            |row| {
                Ok(RunRow {
                    row_id: row.get(0)?,
                    schema: row.get(1)?,
                    schema_version: row.get(2)?,
                    started_at_unix_ms: row.get(3)?,
                    finished_at_unix_ms: row.get(4)?,
                    config_json: row.get(5)?,
                    client_host_json: row.get(6)?,
                    server_host_json: row.get(7)?,
                    testbed_json: row.get(8)?,
                    complete: row.get(9)?,
                    errors_json: row.get(10)?,
                    analysed: row.get(11)?,
                    analysis_version: row.get(12)?,
                })
            },
        )
        .optional()
        .map_err(sql_error("reading the run row", run_id))?
        .ok_or_else(|| StoreError::RunNotFound {
            run_id: run_id.to_string(),
        })?;

    Ok(RunResult {
        schema: row.schema,
        schema_version: row.schema_version,
        run_id: run_id.to_string(),
        started_at_unix_ms: from_sql(row.started_at_unix_ms),
        finished_at_unix_ms: from_sql(row.finished_at_unix_ms),
        config: decode(&row.config_json, "configuration", run_id)?,
        client_host: decode(&row.client_host_json, "client host facts", run_id)?,
        server_host: row
            .server_host_json
            .map(|text| decode(&text, "server host facts", run_id))
            .transpose()?,
        testbed: row
            .testbed_json
            .map(|text| decode(&text, "testbed facts", run_id))
            .transpose()?,
        trials: load_trials(connection, row.row_id, run_id)?,
        // An analysis of the per-family shape (written before schema
        // version 4, translated by its migration) is not handed back: its
        // warnings were sentences, not typed, so the caller recomputes it
        // from the trials, as for a schema v1 result file.
        analysis: if row.analysed && row.analysis_version >= ARM_ANALYSIS_VERSION {
            Some(load_analysis(
                connection,
                row.row_id,
                run_id,
                row.analysis_version,
            )?)
        } else {
            None
        },
        complete: row.complete,
        errors: decode(&row.errors_json, "errors", run_id)?,
    })
}

fn load_trials(connection: &Connection, row_id: i64, run_id: &str) -> Result<Vec<Trial>> {
    type Raw = (
        i64,
        i64,
        String,
        String,
        Option<String>,
        Option<String>,
        String,
    );
    let rows: Vec<Raw> = rows_of(
        connection,
        "SELECT id, seq, trial_json, status, error, observations_json, arm
         FROM trials WHERE run_id = ?1 ORDER BY seq",
        row_id,
        "reading trials",
        run_id,
        |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
                row.get(6)?,
            ))
        },
    )?;
    let mut intervals = connection
        .prepare_cached(
            "SELECT end_ns, length_ns, sent_bytes, sent_packets, received_bytes,
                    received_packets, lost_packets, mean_delay_ns
             FROM interval_samples WHERE trial_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading intervals", run_id))?;
    let mut probe_intervals = connection
        .prepare_cached(
            "SELECT end_ns, length_ns, sent_bytes, sent_packets, received_bytes,
                    received_packets, lost_packets, mean_delay_ns
             FROM probe_interval_samples WHERE trial_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading probe intervals", run_id))?;
    let mut arrivals = connection
        .prepare_cached(
            "SELECT sequence, sent_ns, delay_ns FROM arrivals
             WHERE trial_id = ?1 AND stream = ?2 ORDER BY seq",
        )
        .map_err(sql_error("reading arrivals", run_id))?;
    let mut buckets = connection
        .prepare_cached(
            "SELECT value_ns, count FROM latency_buckets WHERE trial_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading histograms", run_id))?;

    let mut trials = Vec::with_capacity(rows.len());
    for (trial_row, seq, text, status, error, observations_json, arm) in rows {
        let what = format!("trial {seq}");
        let mut trial: Trial = decode(&text, &what, run_id)?;
        if trial.arm.is_unset() {
            // Written before schema version 4: the `arm` column holds the
            // family's native arm, set by the migration.
            trial.arm = arm_id(&arm, &what, run_id)?;
        }
        trial.outcome = match (status.as_str(), observations_json) {
            ("ok", Some(json)) => {
                TrialOutcome::Ok(Box::new(decode::<Observations>(&json, &what, run_id)?))
            }
            _ => TrialOutcome::Failed {
                error: error.unwrap_or_default(),
            },
        };
        if let TrialOutcome::Ok(observations) = &mut trial.outcome {
            observations.intervals = intervals
                .query_map([trial_row], interval_sample)
                .and_then(|rows| rows.collect())
                .map_err(sql_error(format!("reading intervals of {what}"), run_id))?;
            // Before schema version 4 the probe's series and every arrival
            // stayed in the JSON, and no rows were written: rows replace
            // the JSON's (then empty) lists only when there are some.
            let mut arrivals_of = |stream: i64| {
                arrivals
                    .query_map([trial_row, stream], |row| {
                        let sent_ns: i64 = row.get(1)?;
                        Ok(Arrival {
                            sequence: from_sql(row.get(0)?),
                            sent_ns,
                            received_ns: sent_ns.wrapping_add(row.get(2)?),
                        })
                    })
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                    .map_err(sql_error(format!("reading arrivals of {what}"), run_id))
            };
            if let Some(udp) = observations.udp.as_mut() {
                let rows = arrivals_of(0)?;
                if !rows.is_empty() {
                    udp.arrivals = rows;
                }
            }
            if let Some(probe) = observations.probe.as_mut() {
                let rows = arrivals_of(1)?;
                if !rows.is_empty() {
                    probe.udp.arrivals = rows;
                }
                let rows: Vec<IntervalSample> = probe_intervals
                    .query_map([trial_row], interval_sample)
                    .and_then(|rows| rows.collect())
                    .map_err(sql_error(
                        format!("reading probe intervals of {what}"),
                        run_id,
                    ))?;
                if !rows.is_empty() {
                    probe.intervals = rows;
                }
            }
            if let Some(latency) = observations.latency.as_mut() {
                latency.histogram = buckets
                    .query_map([trial_row], |row| {
                        Ok(HistogramBucket {
                            value_ns: from_sql(row.get(0)?),
                            count: from_sql(row.get(1)?),
                        })
                    })
                    .and_then(|rows| rows.collect())
                    .map_err(sql_error(format!("reading histogram of {what}"), run_id))?;
            }
        }
        trials.push(trial);
    }
    Ok(trials)
}

fn interval_sample(row: &Row<'_>) -> rusqlite::Result<IntervalSample> {
    Ok(IntervalSample {
        end_ns: from_sql(row.get(0)?),
        length_ns: from_sql(row.get(1)?),
        sent_bytes: from_sql(row.get(2)?),
        sent_packets: from_sql(row.get(3)?),
        received_bytes: from_sql(row.get(4)?),
        received_packets: from_sql(row.get(5)?),
        lost_packets: row.get::<_, Option<i64>>(6)?.map(from_sql),
        mean_delay_ns: row.get::<_, Option<i64>>(7)?.map(from_sql),
    })
}

/// An arm id read from a column, checked.
pub(crate) fn arm_id(text: &str, what: &str, run_id: &str) -> Result<ArmId> {
    ArmId::new(text).map_err(|reason| StoreError::Corrupt {
        what: what.to_string(),
        run_id: run_id.to_string(),
        reason,
    })
}

/// A metric read from a column by its name.
pub(crate) fn metric_id(name: &str, what: &str, run_id: &str) -> Result<MetricId> {
    name.parse().map_err(|reason| StoreError::Corrupt {
        what: what.to_string(),
        run_id: run_id.to_string(),
        reason,
    })
}

fn load_analysis(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
    version: i64,
) -> Result<Analysis> {
    let (method_json, regimes_json): (Option<String>, Option<String>) = connection
        .query_row(
            "SELECT analysis_method_json, regimes_json FROM runs WHERE id = ?1",
            [row_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .map_err(sql_error("reading the analysis method", run_id))?;
    let method = method_json
        .map(|text| decode(&text, "analysis method", run_id))
        .transpose()?;
    // Analysed with schema v6 on: the per-flow and per-router analysis is
    // in its tables, read as stored. Analysed before (version 2): there are
    // no such rows, the lists stay empty, and only for such a run may the
    // caller recompute them from the trials (see
    // `Store::flow_analysis_stored`).
    let (load_flows, flow_comparisons, routers) = if version >= FLOW_ANALYSIS_VERSION {
        load_flow_analysis(connection, row_id, run_id)?
    } else {
        Default::default()
    };
    Ok(Analysis {
        method,
        summaries: load_summaries(connection, row_id, run_id)?,
        comparisons: load_comparisons(connection, row_id, run_id)?,
        missing: load_missing(connection, row_id, run_id)?,
        load_flows,
        load_comparisons: flow_comparisons,
        routers,
        regimes: regimes_json
            .map(|text| decode(&text, "regimes", run_id))
            .transpose()?
            .unwrap_or_default(),
    })
}

fn load_missing(connection: &Connection, row_id: i64, run_id: &str) -> Result<Vec<MissingMetric>> {
    type Raw = (i64, i64, Option<String>, String, String);
    let rows: Vec<Raw> = rows_of(
        connection,
        "SELECT seq, point, arm, metric, reason FROM missing_metrics
         WHERE run_id = ?1 ORDER BY seq",
        row_id,
        "reading missing metrics",
        run_id,
        |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        },
    )?;
    rows.into_iter()
        .map(|(seq, point, arm, metric, reason)| {
            let what = format!("missing metric {seq}");
            Ok(MissingMetric {
                point: from_sql(point) as usize,
                arm: arm_id(arm.as_deref().unwrap_or_default(), &what, run_id)?,
                metric: metric_id(&metric, &what, run_id)?,
                reason,
            })
        })
        .collect()
}

pub(crate) fn summary(row: &Row<'_>, first: usize) -> rusqlite::Result<Summary> {
    Ok(Summary {
        count: from_sql(row.get(first)?),
        mean: row.get(first + 1)?,
        standard_deviation: row.get(first + 2)?,
        coefficient_of_variation: row.get(first + 3)?,
        min: row.get(first + 4)?,
        max: row.get(first + 5)?,
        median: row.get(first + 6)?,
        ci95_low: row.get(first + 7)?,
        ci95_high: row.get(first + 8)?,
    })
}

fn load_summaries(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
) -> Result<Vec<MetricSummary>> {
    summary_rows(connection, "summaries", "metric", row_id, run_id)?
        .into_iter()
        .map(|row| {
            let what = format!("summary {}", row.seq);
            Ok(MetricSummary {
                point: from_sql(row.point) as usize,
                arm: arm_id(&row.arm, &what, run_id)?,
                metric: metric_id(&row.key, &what, run_id)?,
                summary: row.summary,
            })
        })
        .collect()
}

fn pair(low: Option<f64>, high: Option<f64>) -> Option<(f64, f64)> {
    low.zip(high)
}

/// The columns of `comparisons` that [`comparison`] reads, in its order.
/// The table is aliased `c`.
pub(crate) const COMPARISON_COLUMNS: &str = "c.seq, c.point, c.metric, c.arm, c.baseline, c.pairs,
    c.difference_mean, c.difference_ci95_low, c.difference_ci95_high, c.relative_difference,
    c.relative_difference_ci95_low, c.relative_difference_ci95_high, c.significant,
    c.theoretical_relative_difference, c.warnings_json, c.arm_summary_json,
    c.baseline_summary_json, c.p_value, c.adjusted_p_value, c.attribution_json";

/// How many columns [`COMPARISON_COLUMNS`] selects: the index of the first
/// column a query selects after them.
pub(crate) const COMPARISON_COLUMN_COUNT: usize = 20;

/// A `comparisons` row as read, before its names and JSON are decoded.
pub(crate) struct ComparisonRow {
    seq: i64,
    point: i64,
    metric: String,
    arm: String,
    baseline: String,
    pairs: i64,
    difference_mean: f64,
    ci: [Option<f64>; 5],
    significant: bool,
    theory: Option<f64>,
    warnings: String,
    arm_summary: String,
    baseline_summary: String,
    p_value: Option<f64>,
    adjusted_p_value: Option<f64>,
    attribution: Option<String>,
}

/// Reads a row selected with [`COMPARISON_COLUMNS`] first.
pub(crate) fn comparison_row(row: &Row<'_>) -> rusqlite::Result<ComparisonRow> {
    Ok(ComparisonRow {
        seq: row.get(0)?,
        point: row.get(1)?,
        metric: row.get(2)?,
        arm: row.get(3)?,
        baseline: row.get(4)?,
        pairs: row.get(5)?,
        difference_mean: row.get(6)?,
        ci: [
            row.get(7)?,
            row.get(8)?,
            row.get(9)?,
            row.get(10)?,
            row.get(11)?,
        ],
        significant: row.get(12)?,
        theory: row.get(13)?,
        warnings: row.get(14)?,
        arm_summary: row.get(15)?,
        baseline_summary: row.get(16)?,
        p_value: row.get(17)?,
        adjusted_p_value: row.get(18)?,
        attribution: row.get(19)?,
    })
}

impl ComparisonRow {
    /// The model's comparison.
    pub(crate) fn decode(self, run_id: &str) -> Result<Comparison> {
        let what = format!("comparison {}", self.seq);
        Ok(Comparison {
            point: from_sql(self.point) as usize,
            metric: metric_id(&self.metric, &what, run_id)?,
            arm: arm_id(&self.arm, &what, run_id)?,
            baseline: arm_id(&self.baseline, &what, run_id)?,
            arm_summary: decode(&self.arm_summary, &what, run_id)?,
            baseline_summary: decode(&self.baseline_summary, &what, run_id)?,
            pairs: from_sql(self.pairs),
            difference_mean: self.difference_mean,
            difference_ci95: pair(self.ci[0], self.ci[1]),
            relative_difference: self.ci[2],
            relative_difference_ci95: pair(self.ci[3], self.ci[4]),
            significant: self.significant,
            theoretical_relative_difference: self.theory,
            warnings: decode(&self.warnings, &what, run_id)?,
            p_value: self.p_value,
            adjusted_p_value: self.adjusted_p_value,
            attribution: self
                .attribution
                .as_deref()
                .map(|text| decode(text, &what, run_id))
                .transpose()?,
        })
    }
}

fn load_comparisons(connection: &Connection, row_id: i64, run_id: &str) -> Result<Vec<Comparison>> {
    let sql = format!(
        "SELECT {COMPARISON_COLUMNS} FROM comparisons c WHERE c.run_id = ?1 ORDER BY c.seq"
    );
    rows_of(
        connection,
        &sql,
        row_id,
        "reading comparisons",
        run_id,
        comparison_row,
    )?
    .into_iter()
    .map(|row| row.decode(run_id))
    .collect()
}
