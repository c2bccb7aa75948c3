//! Reading back the per-flow and per-router analysis of a run (schema v6),
//! the inverse of `write::flows`: rows in `seq` order, decoded exactly.

use dualperf_model::diffserv::{LoadFlowComparison, LoadFlowSummary, RouterCpuSummary};
use dualperf_model::{IpFamily, Marking, Summary};
use rusqlite::{Connection, OptionalExtension};

use crate::error::{Result, StoreError};
use crate::integer::from_sql;
use crate::read::{arm_id, decode, metric_id, rows_of, sql_error, summary, summary_rows};
use crate::schema::FLOW_ANALYSIS_VERSION;

/// The run's `(load_flows, load_comparisons, routers)`.
pub(crate) type FlowAnalysis = (
    Vec<LoadFlowSummary>,
    Vec<LoadFlowComparison>,
    Vec<RouterCpuSummary>,
);

/// Reads the three tables of the run at `row_id`.
pub(crate) fn load_flow_analysis(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
) -> Result<FlowAnalysis> {
    Ok((
        load_flows(connection, row_id, run_id)?,
        load_comparisons(connection, row_id, run_id)?,
        load_routers(connection, row_id, run_id)?,
    ))
}

/// Whether the run was analysed with its flows and routers stored.
pub(crate) fn flow_analysis_stored(connection: &Connection, run_id: &str) -> Result<bool> {
    let (analysed, version): (bool, i64) = connection
        .query_row(
            "SELECT analysed, analysis_version FROM runs WHERE run_id = ?1",
            [run_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .map_err(sql_error("reading the analysis version", run_id))?
        .ok_or_else(|| StoreError::RunNotFound {
            run_id: run_id.to_string(),
        })?;
    Ok(analysed && version >= FLOW_ANALYSIS_VERSION)
}

fn family(text: &str, what: &str, run_id: &str) -> Result<IpFamily> {
    match text {
        "v4" => Ok(IpFamily::V4),
        "v6" => Ok(IpFamily::V6),
        other => Err(StoreError::Corrupt {
            what: what.to_string(),
            run_id: run_id.to_string(),
            reason: format!("family {other:?} is neither v4 nor v6"),
        }),
    }
}

fn load_flows(connection: &Connection, row_id: i64, run_id: &str) -> Result<Vec<LoadFlowSummary>> {
    type Raw = (
        i64,
        i64,
        String,
        i64,
        String,
        String,
        Option<String>,
        String,
        Summary,
    );
    let rows: Vec<Raw> = rows_of(
        connection,
        "SELECT seq, point, arm, flow, label, family, marking_json, metric, count, mean,
                standard_deviation, coefficient_of_variation, min, max, median, ci95_low,
                ci95_high
         FROM load_flow_summaries WHERE run_id = ?1 ORDER BY seq",
        row_id,
        "reading load-flow summaries",
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
                row.get(7)?,
                summary(row, 8)?,
            ))
        },
    )?;
    rows.into_iter()
        .map(
            |(seq, point, arm, flow, label, family_key, marking, metric, summary)| {
                let what = format!("load-flow summary {seq}");
                Ok(LoadFlowSummary {
                    point: from_sql(point) as usize,
                    arm: arm_id(&arm, &what, run_id)?,
                    flow: from_sql(flow) as usize,
                    label,
                    family: family(&family_key, &what, run_id)?,
                    marking: marking
                        .map(|text| decode::<Marking>(&text, &what, run_id))
                        .transpose()?
                        .unwrap_or_default(),
                    metric: metric_id(&metric, &what, run_id)?,
                    summary,
                })
            },
        )
        .collect()
}

fn load_comparisons(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
) -> Result<Vec<LoadFlowComparison>> {
    struct Raw {
        seq: i64,
        point: i64,
        flow: i64,
        label: String,
        metric: String,
        arm: String,
        baseline: String,
        pairs: i64,
        difference_mean: f64,
        low: Option<f64>,
        high: Option<f64>,
        significant: bool,
        arm_summary: String,
        baseline_summary: String,
    }
    let rows: Vec<Raw> = rows_of(
        connection,
        "SELECT seq, point, flow, label, metric, arm, baseline, pairs, difference_mean,
                difference_ci95_low, difference_ci95_high, significant, arm_summary_json,
                baseline_summary_json
         FROM load_flow_comparisons WHERE run_id = ?1 ORDER BY seq",
        row_id,
        "reading load-flow comparisons",
        run_id,
        |row| {
            Ok(Raw {
                seq: row.get(0)?,
                point: row.get(1)?,
                flow: row.get(2)?,
                label: row.get(3)?,
                metric: row.get(4)?,
                arm: row.get(5)?,
                baseline: row.get(6)?,
                pairs: row.get(7)?,
                difference_mean: row.get(8)?,
                low: row.get(9)?,
                high: row.get(10)?,
                significant: row.get(11)?,
                arm_summary: row.get(12)?,
                baseline_summary: row.get(13)?,
            })
        },
    )?;
    rows.into_iter()
        .map(|raw| {
            let what = format!("load-flow comparison {}", raw.seq);
            Ok(LoadFlowComparison {
                point: from_sql(raw.point) as usize,
                flow: from_sql(raw.flow) as usize,
                label: raw.label,
                metric: metric_id(&raw.metric, &what, run_id)?,
                arm: arm_id(&raw.arm, &what, run_id)?,
                baseline: arm_id(&raw.baseline, &what, run_id)?,
                arm_summary: decode(&raw.arm_summary, &what, run_id)?,
                baseline_summary: decode(&raw.baseline_summary, &what, run_id)?,
                pairs: from_sql(raw.pairs),
                difference_mean: raw.difference_mean,
                difference_ci95: raw.low.zip(raw.high),
                significant: raw.significant,
            })
        })
        .collect()
}

fn load_routers(
    connection: &Connection,
    row_id: i64,
    run_id: &str,
) -> Result<Vec<RouterCpuSummary>> {
    summary_rows(connection, "router_summaries", "node", row_id, run_id)?
        .into_iter()
        .map(|row| {
            let what = format!("router summary {}", row.seq);
            Ok(RouterCpuSummary {
                point: from_sql(row.point) as usize,
                arm: arm_id(&row.arm, &what, run_id)?,
                node: row.key,
                summary: row.summary,
            })
        })
        .collect()
}
