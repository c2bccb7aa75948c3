//! Loading a run back into the model's [`RunResult`], the inverse of `write`.

use dualperf_model::{
    Analysis, Comparison, HistogramBucket, IntervalSample, IpFamily, Metric, MetricSummary,
    Observations, PerFamily, RunResult, Summary, Trial, TrialOutcome,
};
use rusqlite::{Connection, OptionalExtension, Row};

use crate::error::{Result, StoreError};
use crate::integer::from_sql;

fn sql_error(
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
}

pub(crate) fn load_run(connection: &Connection, run_id: &str) -> Result<RunResult> {
    let row = connection
        .query_row(
            "SELECT id, result_schema, result_schema_version, started_at_unix_ms,
                    finished_at_unix_ms, config_json, client_host_json, server_host_json,
                    testbed_json, complete, errors_json, analysed
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
        analysis: if row.analysed {
            Some(load_analysis(connection, row.row_id, run_id)?)
        } else {
            None
        },
        complete: row.complete,
        errors: decode(&row.errors_json, "errors", run_id)?,
    })
}

fn load_trials(connection: &Connection, row_id: i64, run_id: &str) -> Result<Vec<Trial>> {
    let mut statement = connection
        .prepare(
            "SELECT id, seq, trial_json, status, error, observations_json
             FROM trials WHERE run_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading trials", run_id))?;
    type Raw = (i64, i64, String, String, Option<String>, Option<String>);
    let rows: Vec<Raw> = statement
        .query_map([row_id], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(sql_error("reading trials", run_id))?;
    let mut intervals = connection
        .prepare_cached(
            "SELECT end_ns, length_ns, sent_bytes, sent_packets, received_bytes,
                    received_packets, lost_packets, mean_delay_ns
             FROM interval_samples WHERE trial_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading intervals", run_id))?;
    let mut buckets = connection
        .prepare_cached(
            "SELECT value_ns, count FROM latency_buckets WHERE trial_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading histograms", run_id))?;

    let mut trials = Vec::with_capacity(rows.len());
    for (trial_row, seq, text, status, error, observations_json) in rows {
        let what = format!("trial {seq}");
        let mut trial: Trial = decode(&text, &what, run_id)?;
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

fn metric(row: &Row<'_>, first: usize) -> rusqlite::Result<Metric> {
    Ok(Metric {
        name: row.get(first)?,
        unit: row.get(first + 1)?,
        higher_is_better: row.get(first + 2)?,
        definition: row.get(first + 3)?,
    })
}

fn load_analysis(connection: &Connection, row_id: i64, run_id: &str) -> Result<Analysis> {
    let method_json: Option<String> = connection
        .query_row(
            "SELECT analysis_method_json FROM runs WHERE id = ?1",
            [row_id],
            |row| row.get(0),
        )
        .map_err(sql_error("reading the analysis method", run_id))?;
    let method = method_json
        .map(|text| decode(&text, "analysis method", run_id))
        .transpose()?;
    Ok(Analysis {
        method,
        summaries: load_summaries(connection, row_id, run_id)?,
        comparisons: load_comparisons(connection, row_id, run_id)?,
        missing: {
            let mut statement = connection
                .prepare("SELECT point, metric, reason FROM missing_metrics WHERE run_id = ?1 ORDER BY seq")
                .map_err(sql_error("reading missing metrics", run_id))?;
            statement
                .query_map([row_id], |row| {
                    Ok((row.get::<_, i64>(0)? as usize, row.get(1)?, row.get(2)?))
                })
                .and_then(|rows| rows.collect())
                .map_err(sql_error("reading missing metrics", run_id))?
        },
    })
}

fn load_summaries(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
) -> Result<Vec<MetricSummary>> {
    let mut statement = connection
        .prepare(
            "SELECT seq, family, point, metric, unit, higher_is_better, definition, count, mean,
                    standard_deviation, coefficient_of_variation, min, max, median, ci95_low, ci95_high
             FROM summaries WHERE run_id = ?1 ORDER BY seq, family",
        )
        .map_err(sql_error("reading summaries", run_id))?;
    let rows = statement
        .query_map([row_id], |row| {
            let family = if row.get::<_, String>(1)? == "v6" {
                IpFamily::V6
            } else {
                IpFamily::V4
            };
            let count: Option<i64> = row.get(7)?;
            let summary = match count {
                None => None,
                Some(count) => Some(Summary {
                    count: from_sql(count),
                    mean: row.get(8)?,
                    standard_deviation: row.get(9)?,
                    coefficient_of_variation: row.get(10)?,
                    min: row.get(11)?,
                    max: row.get(12)?,
                    median: row.get(13)?,
                    ci95_low: row.get(14)?,
                    ci95_high: row.get(15)?,
                }),
            };
            Ok((
                row.get::<_, i64>(0)?,
                family,
                row.get::<_, i64>(2)? as usize,
                metric(row, 3)?,
                summary,
            ))
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sql_error("reading summaries", run_id))?;
    let mut summaries: Vec<MetricSummary> = Vec::new();
    let mut last_seq = None;
    for (seq, family, point, metric, summary) in rows {
        if last_seq != Some(seq) {
            summaries.push(MetricSummary {
                point,
                metric,
                per_family: PerFamily { v4: None, v6: None },
            });
            last_seq = Some(seq);
        }
        let current = summaries
            .last_mut()
            .expect("a summary was pushed for this seq just above");
        *current.per_family.get_mut(family) = summary;
    }
    Ok(summaries)
}

fn pair(low: Option<f64>, high: Option<f64>) -> Option<(f64, f64)> {
    low.zip(high)
}

fn load_comparisons(connection: &Connection, row_id: i64, run_id: &str) -> Result<Vec<Comparison>> {
    let mut statement = connection
        .prepare(
            "SELECT seq, point, metric, unit, higher_is_better, definition, pairs, difference_mean,
                    difference_ci95_low, difference_ci95_high, relative_difference,
                    relative_difference_ci95_low, relative_difference_ci95_high, significant,
                    theoretical_relative_difference, verdict, warnings_json, per_family_json
             FROM comparisons WHERE run_id = ?1 ORDER BY seq",
        )
        .map_err(sql_error("reading comparisons", run_id))?;
    type Raw = (
        i64,
        usize,
        Metric,
        u64,
        f64,
        [Option<f64>; 5],
        bool,
        Option<f64>,
        String,
        String,
        String,
    );
    let rows: Vec<Raw> = statement
        .query_map([row_id], |row| {
            Ok((
                row.get(0)?,
                row.get::<_, i64>(1)? as usize,
                metric(row, 2)?,
                from_sql(row.get(6)?),
                row.get(7)?,
                [
                    row.get(8)?,
                    row.get(9)?,
                    row.get(10)?,
                    row.get(11)?,
                    row.get(12)?,
                ],
                row.get(13)?,
                row.get(14)?,
                row.get(15)?,
                row.get(16)?,
                row.get(17)?,
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(sql_error("reading comparisons", run_id))?;
    rows.into_iter()
        .map(
            |(
                seq,
                point,
                metric,
                pairs,
                difference_mean,
                ci,
                significant,
                theory,
                verdict,
                warnings,
                per_family,
            )| {
                let what = format!("comparison {seq}");
                Ok(Comparison {
                    point,
                    metric,
                    per_family: decode::<PerFamily<Summary>>(&per_family, &what, run_id)?,
                    pairs,
                    difference_mean,
                    difference_ci95: pair(ci[0], ci[1]),
                    relative_difference: ci[2],
                    relative_difference_ci95: pair(ci[3], ci[4]),
                    significant,
                    theoretical_relative_difference: theory,
                    verdict,
                    warnings: decode(&warnings, &what, run_id)?,
                })
            },
        )
        .collect()
}
