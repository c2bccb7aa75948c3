//! Writing the per-flow and per-router analysis of a run (schema v6): its
//! load-flow summaries and comparisons and its router CPU summaries, in the
//! transaction that writes the rest of the analysis.

use dualperf_model::diffserv::{LoadFlowComparison, LoadFlowSummary, RouterCpuSummary};
use dualperf_model::{Analysis, Summary};
use rusqlite::{params, Transaction};

use crate::error::Result;
use crate::integer::{real, real_opt, to_sql};
use crate::write::{check_summary, json, sql_error};

/// The tables this module fills, cleared before a re-finished run's rows.
pub(crate) const FLOW_TABLES: [&str; 3] = [
    "load_flow_summaries",
    "load_flow_comparisons",
    "router_summaries",
];

/// Inserts `analysis.load_flows`, `load_comparisons` and `routers`, each
/// row's `seq` its index in its list.
pub(crate) fn insert_flow_analysis(
    transaction: &Transaction<'_>,
    row_id: i64,
    id: &str,
    analysis: &Analysis,
) -> Result<()> {
    for (seq, flow) in analysis.load_flows.iter().enumerate() {
        insert_load_flow(transaction, row_id, id, seq, flow)?;
    }
    for (seq, comparison) in analysis.load_comparisons.iter().enumerate() {
        insert_load_comparison(transaction, row_id, id, seq, comparison)?;
    }
    for (seq, router) in analysis.routers.iter().enumerate() {
        insert_router(transaction, row_id, id, seq, router)?;
    }
    Ok(())
}

/// The nine summary columns' values, NaN refused.
type SummaryValues = (
    i64,
    f64,
    Option<f64>,
    Option<f64>,
    f64,
    f64,
    f64,
    Option<f64>,
    Option<f64>,
);

fn summary_values(values: &Summary, what: &str, id: &str) -> Result<SummaryValues> {
    let r = |value: Option<f64>| real_opt(value, what, id);
    Ok((
        to_sql(values.count, what, id)?,
        real(values.mean, what, id)?,
        r(values.standard_deviation)?,
        r(values.coefficient_of_variation)?,
        real(values.min, what, id)?,
        real(values.max, what, id)?,
        real(values.median, what, id)?,
        r(values.ci95_low)?,
        r(values.ci95_high)?,
    ))
}

fn insert_load_flow(
    transaction: &Transaction<'_>,
    row_id: i64,
    id: &str,
    seq: usize,
    flow: &LoadFlowSummary,
) -> Result<()> {
    let what = format!("load-flow summary {seq}");
    let s = summary_values(&flow.summary, &what, id)?;
    let marking = if flow.marking.is_empty() {
        None
    } else {
        Some(json(&flow.marking, &what, id)?)
    };
    transaction
        .execute(
            "INSERT INTO load_flow_summaries (run_id, seq, point, arm, flow, label, family,
                 marking_json, metric, count, mean, standard_deviation, coefficient_of_variation,
                 min, max, median, ci95_low, ci95_high)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                     ?18)",
            params![
                row_id,
                seq as i64,
                flow.point as i64,
                flow.arm.as_str(),
                flow.flow as i64,
                flow.label,
                flow.family.key(),
                marking,
                flow.metric.name(),
                s.0,
                s.1,
                s.2,
                s.3,
                s.4,
                s.5,
                s.6,
                s.7,
                s.8,
            ],
        )
        .map_err(sql_error(format!("writing {what}"), id))?;
    Ok(())
}

fn insert_load_comparison(
    transaction: &Transaction<'_>,
    row_id: i64,
    id: &str,
    seq: usize,
    comparison: &LoadFlowComparison,
) -> Result<()> {
    let what = format!("load-flow comparison {seq}");
    let (low, high) = comparison
        .difference_ci95
        .map_or((None, None), |(low, high)| (Some(low), Some(high)));
    let summary = |value: &Summary| -> Result<String> {
        check_summary(value, &what, id)?;
        json(value, &what, id)
    };
    transaction
        .execute(
            "INSERT INTO load_flow_comparisons (run_id, seq, point, flow, label, metric, arm,
                 baseline, pairs, difference_mean, difference_ci95_low, difference_ci95_high,
                 significant, arm_summary_json, baseline_summary_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                row_id,
                seq as i64,
                comparison.point as i64,
                comparison.flow as i64,
                comparison.label,
                comparison.metric.name(),
                comparison.arm.as_str(),
                comparison.baseline.as_str(),
                to_sql(comparison.pairs, &what, id)?,
                real(comparison.difference_mean, &what, id)?,
                real_opt(low, &what, id)?,
                real_opt(high, &what, id)?,
                comparison.significant,
                summary(&comparison.arm_summary)?,
                summary(&comparison.baseline_summary)?,
            ],
        )
        .map_err(sql_error(format!("writing {what}"), id))?;
    Ok(())
}

fn insert_router(
    transaction: &Transaction<'_>,
    row_id: i64,
    id: &str,
    seq: usize,
    router: &RouterCpuSummary,
) -> Result<()> {
    let what = format!("router summary {seq}");
    let s = summary_values(&router.summary, &what, id)?;
    transaction
        .execute(
            "INSERT INTO router_summaries (run_id, seq, point, arm, node, count, mean,
                 standard_deviation, coefficient_of_variation, min, max, median, ci95_low,
                 ci95_high)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                row_id,
                seq as i64,
                router.point as i64,
                router.arm.as_str(),
                router.node,
                s.0,
                s.1,
                s.2,
                s.3,
                s.4,
                s.5,
                s.6,
                s.7,
                s.8,
            ],
        )
        .map_err(sql_error(format!("writing {what}"), id))?;
    Ok(())
}
