//! Writing runs: the run row and its points, one transaction per trial, and
//! the end of the run with its analysis.

use dualperf_model::observation::Arrival;
use dualperf_model::{
    Analysis, ComparisonWarning, HistogramBucket, IntervalSample, MetricSummary, RunResult,
    Summary, Trial, TrialOutcome,
};
use rusqlite::{params, Connection, ErrorCode, Transaction};

use crate::error::{Result, StoreError};
use crate::handle::{RunEnd, RunHandle, WriteOptions};
use crate::integer::{real, real_opt, to_sql};
use crate::schema::FLOW_ANALYSIS_VERSION;
mod flows;

use flows::{insert_flow_analysis, FLOW_TABLES};

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

pub(crate) fn json<T: serde::Serialize>(value: &T, what: &str, run_id: &str) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Json {
        action: "encoding",
        what: what.to_string(),
        run_id: run_id.to_string(),
        source,
    })
}

/// Inserts the run row and its points in one transaction.
pub(crate) fn insert_run(
    connection: &mut Connection,
    run: &RunResult,
    options: WriteOptions,
) -> Result<RunHandle> {
    let id = run.run_id.as_str();
    let config = json(&run.config, "configuration", id)?;
    let client_host = json(&run.client_host, "client host facts", id)?;
    let server_host = run
        .server_host
        .as_ref()
        .map(|h| json(h, "server host facts", id))
        .transpose()?;
    let testbed = run
        .testbed
        .as_ref()
        .map(|t| json(t, "testbed facts", id))
        .transpose()?;
    let errors = json(&run.errors, "errors", id)?;

    let transaction = connection
        .transaction()
        .map_err(sql_error("beginning the run", id))?;
    let inserted = transaction.execute(
        "INSERT INTO runs (run_id, result_schema, result_schema_version, started_at_unix_ms,
             finished_at_unix_ms, tool_version, hostname, testbed_name, config_json,
             client_host_json, server_host_json, testbed_json, complete, errors_json, analysed,
             raw_samples, analysis_version)
         VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12, 0, ?13, ?14)",
        params![
            id,
            run.schema,
            run.schema_version,
            to_sql(run.started_at_unix_ms, "start time", id)?,
            run.client_host.tool_version,
            run.client_host.hostname,
            run.testbed.as_ref().map(|t| t.name.as_str()),
            config,
            client_host,
            server_host,
            testbed,
            errors,
            options.raw_samples,
            FLOW_ANALYSIS_VERSION,
        ],
    );
    match inserted {
        Err(rusqlite::Error::SqliteFailure(failure, _))
            if failure.code == ErrorCode::ConstraintViolation =>
        {
            return Err(StoreError::DuplicateRun {
                run_id: id.to_string(),
            });
        }
        other => other.map_err(sql_error("writing the run row", id))?,
    };
    let row_id = transaction.last_insert_rowid();
    for (index, spec) in run.config.points.iter().enumerate() {
        transaction
            .execute(
                "INSERT INTO points (run_id, point, kind, size_bytes, label) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![row_id, index as i64, spec.kind.name(), spec.size_bytes, spec.label()],
            )
            .map_err(sql_error(format!("writing point {index}"), id))?;
    }
    transaction
        .commit()
        .map_err(sql_error("committing the run row", id))?;
    Ok(RunHandle {
        row_id,
        run_id: id.to_string(),
        next_seq: 0,
        options,
    })
}

/// A trial's outcome split for storage: the series that get their own
/// tables, and the rest as JSON.
struct Split {
    /// Time series: the trial's, its probe's.
    intervals: [Vec<IntervalSample>; 2],
    /// Histogram buckets of the per-transaction times.
    buckets: Vec<HistogramBucket>,
    /// Raw arrivals: the trial's own datagrams, its probe's.
    arrivals: [Vec<Arrival>; 2],
    status: &'static str,
    error: Option<String>,
    /// Observations without the above; `None` when the trial failed.
    observations_json: Option<String>,
}

fn split_outcome(outcome: TrialOutcome, what: &str, id: &str) -> Result<Split> {
    Ok(match outcome {
        TrialOutcome::Ok(mut observations) => {
            let o = &mut *observations;
            let probe = o.probe.as_deref_mut();
            let (probe_intervals, probe_arrivals) = probe.map_or_else(Default::default, |p| {
                (
                    std::mem::take(&mut p.intervals),
                    std::mem::take(&mut p.udp.arrivals),
                )
            });
            Split {
                intervals: [std::mem::take(&mut o.intervals), probe_intervals],
                buckets: o
                    .latency
                    .as_mut()
                    .map(|latency| std::mem::take(&mut latency.histogram))
                    .unwrap_or_default(),
                arrivals: [
                    o.udp
                        .as_mut()
                        .map(|udp| std::mem::take(&mut udp.arrivals))
                        .unwrap_or_default(),
                    probe_arrivals,
                ],
                status: "ok",
                error: None,
                observations_json: Some(json(&observations, what, id)?),
            }
        }
        TrialOutcome::Failed { error } => Split {
            intervals: Default::default(),
            buckets: Vec::new(),
            arrivals: Default::default(),
            status: "failed",
            error: Some(error),
            observations_json: None,
        },
    })
}

/// Inserts one trial with its series, histogram and arrivals in one transaction.
pub(crate) fn insert_trial(
    connection: &mut Connection,
    handle: &mut RunHandle,
    trial: &Trial,
) -> Result<()> {
    let id = handle.run_id.as_str();
    let seq = handle.next_seq;
    let what = format!("trial {seq}");
    // The time series (the trial's and its probe's), the histogram and the
    // raw arrivals go to their own tables; the rest of the observations
    // (counters, CPU, socket facts, notes) is one JSON column and the
    // trial's own fields another. The outcome is split out of the trial
    // because serde cannot read the u128 `sum_ns` back through the
    // internally tagged `TrialOutcome` (its buffering has no u128); plain
    // structs can.
    let mut rest = trial.clone();
    handle.options.apply(&mut rest);
    let outcome = std::mem::replace(
        &mut rest.outcome,
        TrialOutcome::Failed {
            error: String::new(),
        },
    );
    let parts = split_outcome(outcome, &what, id)?;
    let counters = match &trial.outcome {
        TrialOutcome::Ok(o) => Some((
            o.measured_ns,
            o.sender.bytes,
            o.receiver.bytes,
            o.sender.packets,
            o.receiver.packets,
        )),
        TrialOutcome::Failed { .. } => None,
    };
    let int = |value: u64, field: &str| to_sql(value, &format!("{what} {field}"), id);
    let counter = |pick: fn(&(u64, u64, u64, u64, u64)) -> u64, field: &str| {
        counters.as_ref().map(|c| int(pick(c), field)).transpose()
    };
    let trial_json = json(&rest, &what, id)?;

    let fail = |action: &str| sql_error(format!("{action} {what}"), id);
    let transaction = connection.transaction().map_err(fail("beginning"))?;
    transaction
        .execute(
            "INSERT INTO trials (run_id, seq, point, arm, family, repetition, started_at_unix_ms,
                 status, error, measured_ns, sent_bytes, received_bytes, sent_packets,
                 received_packets, interval_count, bucket_count, trial_json, observations_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
            params![
                handle.row_id,
                seq,
                trial.point as i64,
                trial.arm.as_str(),
                trial.family.key(),
                trial.repetition,
                int(trial.started_at_unix_ms, "start time")?,
                parts.status,
                parts.error,
                counter(|c| c.0, "measured time")?,
                counter(|c| c.1, "sent bytes")?,
                counter(|c| c.2, "received bytes")?,
                counter(|c| c.3, "sent packets")?,
                counter(|c| c.4, "received packets")?,
                parts.intervals[0].len() as i64,
                parts.buckets.len() as i64,
                trial_json,
                parts.observations_json,
            ],
        )
        .map_err(fail("writing"))?;
    let trial_row = transaction.last_insert_rowid();
    for (table, samples) in [
        ("interval_samples", &parts.intervals[0]),
        ("probe_interval_samples", &parts.intervals[1]),
    ] {
        let mut statement = transaction
            .prepare_cached(&format!(
                "INSERT INTO {table} (trial_id, seq, end_ns, length_ns, sent_bytes, sent_packets,
                     received_bytes, received_packets, lost_packets, mean_delay_ns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
            ))
            .map_err(fail("preparing intervals of"))?;
        for (index, sample) in samples.iter().enumerate() {
            let optional = |value: Option<u64>, field| value.map(|v| int(v, field)).transpose();
            statement
                .execute(params![
                    trial_row,
                    index as i64,
                    int(sample.end_ns, "interval end")?,
                    int(sample.length_ns, "interval length")?,
                    int(sample.sent_bytes, "interval sent bytes")?,
                    int(sample.sent_packets, "interval sent packets")?,
                    int(sample.received_bytes, "interval received bytes")?,
                    int(sample.received_packets, "interval received packets")?,
                    optional(sample.lost_packets, "interval lost packets")?,
                    optional(sample.mean_delay_ns, "interval delay")?,
                ])
                .map_err(fail("writing intervals of"))?;
        }
    }
    {
        let mut statement = transaction
            .prepare_cached(
                "INSERT INTO latency_buckets (trial_id, seq, value_ns, count) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(fail("preparing histogram of"))?;
        for (index, bucket) in parts.buckets.iter().enumerate() {
            statement
                .execute(params![
                    trial_row,
                    index as i64,
                    int(bucket.value_ns, "bucket value")?,
                    int(bucket.count, "bucket count")?,
                ])
                .map_err(fail("writing histogram of"))?;
        }
        let mut statement = transaction
            .prepare_cached(
                "INSERT INTO arrivals (trial_id, stream, seq, sequence, sent_ns, delay_ns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .map_err(fail("preparing arrivals of"))?;
        for (stream, arrivals) in parts.arrivals.iter().enumerate() {
            for (index, arrival) in arrivals.iter().enumerate() {
                statement
                    .execute(params![
                        trial_row,
                        stream as i64,
                        index as i64,
                        int(arrival.sequence, "arrival sequence")?,
                        arrival.sent_ns,
                        arrival.received_ns.wrapping_sub(arrival.sent_ns),
                    ])
                    .map_err(fail("writing arrivals of"))?;
            }
        }
    }
    transaction.commit().map_err(fail("committing"))?;
    handle.next_seq += 1;
    Ok(())
}

/// Records the end of a run and its analysis in one transaction.
pub(crate) fn finish_run(
    connection: &mut Connection,
    handle: &RunHandle,
    end: RunEnd<'_>,
) -> Result<()> {
    let id = handle.run_id.as_str();
    let errors = json(&end.errors, "errors", id)?;
    let transaction = connection
        .transaction()
        .map_err(sql_error("beginning the end", id))?;
    transaction
        .execute(
            "UPDATE runs SET finished_at_unix_ms = ?1, complete = ?2, errors_json = ?3, analysed = ?4,
                 analysis_version = ?5
             WHERE id = ?6",
            params![
                to_sql(end.finished_at_unix_ms, "end time", id)?,
                end.complete,
                errors,
                end.analysis.is_some(),
                FLOW_ANALYSIS_VERSION,
                handle.row_id
            ],
        )
        .map_err(sql_error("writing the end", id))?;
    if let Some(analysis) = end.analysis {
        insert_analysis(&transaction, handle.row_id, id, analysis)?;
    }
    transaction
        .commit()
        .map_err(sql_error("committing the end", id))
}

fn insert_analysis(
    transaction: &Transaction<'_>,
    row_id: i64,
    id: &str,
    analysis: &Analysis,
) -> Result<()> {
    let method_json = analysis
        .method
        .as_ref()
        .map(|method| json(method, "analysis method", id))
        .transpose()?;
    transaction
        .execute(
            "UPDATE runs SET analysis_method_json = ?1 WHERE id = ?2",
            rusqlite::params![method_json, row_id],
        )
        .map_err(sql_error("recording the analysis method", id))?;
    let regimes_json = (!analysis.regimes.is_empty())
        .then(|| json(&analysis.regimes, "regimes", id))
        .transpose()?;
    transaction
        .execute(
            "UPDATE runs SET regimes_json = ?1 WHERE id = ?2",
            rusqlite::params![regimes_json, row_id],
        )
        .map_err(sql_error("recording the regimes", id))?;
    // A re-finished run replaces its analysis instead of failing on keys.
    let tables = ["summaries", "comparisons", "missing_metrics"];
    for table in tables.into_iter().chain(FLOW_TABLES) {
        transaction
            .execute(&format!("DELETE FROM {table} WHERE run_id = ?1"), [row_id])
            .map_err(sql_error(format!("clearing old {table}"), id))?;
    }
    for (seq, summary) in analysis.summaries.iter().enumerate() {
        insert_summary(transaction, row_id, id, seq, summary)?;
    }
    for (seq, comparison) in analysis.comparisons.iter().enumerate() {
        let what = format!("comparison {seq}");
        let (low, high) = split(comparison.difference_ci95);
        let (relative_low, relative_high) = split(comparison.relative_difference_ci95);
        let r = |value: Option<f64>| real_opt(value, &what, id);
        let summary = |value: &Summary| -> Result<String> {
            check_summary(value, &what, id)?;
            json(value, &what, id)
        };
        transaction
            .execute(
                "INSERT INTO comparisons (run_id, seq, point, metric, arm, baseline, pairs,
                     difference_mean, difference_ci95_low, difference_ci95_high,
                     relative_difference, relative_difference_ci95_low,
                     relative_difference_ci95_high, significant, theoretical_relative_difference,
                     warnings_json, arm_summary_json, baseline_summary_json, p_value,
                     adjusted_p_value, attribution_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                         ?19, ?20, ?21)",
                params![
                    row_id,
                    seq as i64,
                    comparison.point as i64,
                    comparison.metric.name(),
                    comparison.arm.as_str(),
                    comparison.baseline.as_str(),
                    to_sql(comparison.pairs, &what, id)?,
                    real(comparison.difference_mean, &what, id)?,
                    r(low)?,
                    r(high)?,
                    r(comparison.relative_difference)?,
                    r(relative_low)?,
                    r(relative_high)?,
                    comparison.significant,
                    r(comparison.theoretical_relative_difference)?,
                    warnings(&comparison.warnings, &what, id)?,
                    summary(&comparison.arm_summary)?,
                    summary(&comparison.baseline_summary)?,
                    r(comparison.p_value)?,
                    r(comparison.adjusted_p_value)?,
                    comparison
                        .attribution
                        .as_ref()
                        .map(|a| json(a, &what, id))
                        .transpose()?,
                ],
            )
            .map_err(sql_error(format!("writing {what}"), id))?;
    }
    for (seq, missing) in analysis.missing.iter().enumerate() {
        transaction
            .execute(
                "INSERT INTO missing_metrics (run_id, seq, point, arm, metric, reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    row_id,
                    seq as i64,
                    missing.point as i64,
                    missing.arm.as_str(),
                    missing.metric.name(),
                    missing.reason
                ],
            )
            .map_err(sql_error(format!("writing missing metric {seq}"), id))?;
    }
    // Written once, read back as is: `report` never recomputes them.
    insert_flow_analysis(transaction, row_id, id, analysis)
}

fn split(pair: Option<(f64, f64)>) -> (Option<f64>, Option<f64>) {
    pair.map_or((None, None), |(low, high)| (Some(low), Some(high)))
}

/// The warnings as JSON, NaN refused (see [`check_summary`]).
fn warnings(warnings: &[ComparisonWarning], what: &str, id: &str) -> Result<String> {
    for warning in warnings {
        if let ComparisonWarning::Unstable {
            coefficient_of_variation,
            threshold,
            ..
        } = warning
        {
            real(*coefficient_of_variation, what, id)?;
            real(*threshold, what, id)?;
        }
    }
    json(&warnings, what, id)
}

/// Refuses NaN anywhere in a summary: JSON would turn it into `null`, which
/// does not read back as an `f64`.
pub(crate) fn check_summary(summary: &Summary, what: &str, id: &str) -> Result<()> {
    for value in [summary.mean, summary.min, summary.max, summary.median] {
        real(value, what, id)?;
    }
    for value in [
        summary.standard_deviation,
        summary.coefficient_of_variation,
        summary.ci95_low,
        summary.ci95_high,
    ] {
        real_opt(value, what, id)?;
    }
    Ok(())
}

fn insert_summary(
    transaction: &Transaction<'_>,
    row_id: i64,
    id: &str,
    seq: usize,
    summary: &MetricSummary,
) -> Result<()> {
    let what = format!("summary {seq}");
    let r = |value: Option<f64>| real_opt(value, &what, id);
    let values = &summary.summary;
    transaction
        .execute(
            "INSERT INTO summaries (run_id, seq, point, arm, metric, count, mean, standard_deviation,
                 coefficient_of_variation, min, max, median, ci95_low, ci95_high)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                row_id,
                seq as i64,
                summary.point as i64,
                summary.arm.as_str(),
                summary.metric.name(),
                to_sql(values.count, &what, id)?,
                real(values.mean, &what, id)?,
                r(values.standard_deviation)?,
                r(values.coefficient_of_variation)?,
                real(values.min, &what, id)?,
                real(values.max, &what, id)?,
                real(values.median, &what, id)?,
                r(values.ci95_low)?,
                r(values.ci95_high)?,
            ],
        )
        .map_err(sql_error(format!("writing {what}"), id))?;
    Ok(())
}
