//! Calibrations of a host (`dualperf lab calibrate`): written once per
//! calibration run, read back newest first so that later verdicts on the
//! same host can cite the resolution it proved (schema version 7).

use dualperf_model::calibration::{Estimate, KnownEffect};
use dualperf_model::{Calibration, CalibrationPoint, CalibrationSetup, MetricId, TestKind};
use rusqlite::{params, OptionalExtension, Row};

use crate::error::{Result, StoreError};
use crate::store::Store;

fn query_error(action: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |source| StoreError::Query {
        action: action.to_string(),
        source,
    }
}

impl Store {
    /// Writes `calibration` (replacing an earlier one of the same run).
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] or [`StoreError::Query`].
    pub fn save_calibration(&mut self, calibration: &Calibration) -> Result<()> {
        let connection = self.writable("writing a calibration")?;
        let fail = query_error("writing a calibration");
        let transaction = connection.transaction().map_err(&fail)?;
        transaction
            .execute(
                "DELETE FROM calibrations WHERE run_id = ?1",
                params![calibration.run_id],
            )
            .map_err(&fail)?;
        let setup = &calibration.setup;
        transaction
            .execute(
                "INSERT INTO calibrations (run_id, host, finished_at_ms, link_rate_bps, \
                 v6_rate_ratio, framing_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    calibration.run_id,
                    calibration.host,
                    i64::try_from(calibration.finished_at_ms).unwrap_or(i64::MAX),
                    i64::try_from(setup.link_rate_bps).unwrap_or(i64::MAX),
                    setup.v6_rate_ratio,
                    setup.framing_bytes,
                ],
            )
            .map_err(&fail)?;
        let id = transaction.last_insert_rowid();
        for (seq, point) in calibration.points.iter().enumerate() {
            let effect = point.effect.as_ref();
            let replica = &point.replica;
            transaction
                .execute(
                    "INSERT INTO calibration_points (calibration_id, seq, kind, size_bytes, \
                     metric, pairs, replica_relative, replica_ci95_low, replica_ci95_high, \
                     replica_significant, replica_p_value, effect_truth, effect_relative, \
                     effect_ci95_low, effect_ci95_high, effect_significant, effect_p_value, \
                     paired_sd_ratio, seconds_per_pair) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, \
                     ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
                    params![
                        id,
                        seq as i64,
                        point.kind.name(),
                        point.size_bytes,
                        point.metric.name(),
                        i64::try_from(point.pairs).unwrap_or(i64::MAX),
                        replica.relative,
                        replica.ci95.map(|c| c.0),
                        replica.ci95.map(|c| c.1),
                        replica.significant,
                        replica.p_value,
                        effect.map(|e| e.truth),
                        effect.map(|e| e.estimate.relative),
                        effect.and_then(|e| e.estimate.ci95.map(|c| c.0)),
                        effect.and_then(|e| e.estimate.ci95.map(|c| c.1)),
                        effect.map(|e| e.estimate.significant),
                        effect.and_then(|e| e.estimate.p_value),
                        point.paired_sd_ratio,
                        point.seconds_per_pair,
                    ],
                )
                .map_err(&fail)?;
        }
        transaction.commit().map_err(&fail)
    }

    /// The calibrations of `host`, newest first.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn calibrations(&self, host: &str) -> Result<Vec<Calibration>> {
        let fail = query_error("reading calibrations");
        let mut statement = self
            .connection
            .prepare(
                "SELECT id, run_id, host, finished_at_ms, link_rate_bps, v6_rate_ratio, \
                 framing_bytes FROM calibrations WHERE host = ?1 \
                 ORDER BY finished_at_ms DESC, id DESC",
            )
            .map_err(&fail)?;
        let heads = statement
            .query_map(params![host], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    Calibration {
                        run_id: row.get(1)?,
                        host: row.get(2)?,
                        finished_at_ms: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
                        setup: CalibrationSetup {
                            link_rate_bps: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                            v6_rate_ratio: row.get(5)?,
                            framing_bytes: row.get(6)?,
                        },
                        points: Vec::new(),
                    },
                ))
            })
            .map_err(&fail)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(&fail)?;
        heads
            .into_iter()
            .map(|(id, mut calibration)| {
                calibration.points = self.calibration_points(id)?;
                Ok(calibration)
            })
            .collect()
    }

    /// The newest calibration of `host`, if any.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn latest_calibration(&self, host: &str) -> Result<Option<Calibration>> {
        let fail = query_error("reading calibrations");
        let id: Option<i64> = self
            .connection
            .query_row(
                "SELECT id FROM calibrations WHERE host = ?1 \
                 ORDER BY finished_at_ms DESC, id DESC LIMIT 1",
                params![host],
                |row| row.get(0),
            )
            .optional()
            .map_err(&fail)?;
        match id {
            None => Ok(None),
            Some(_) => Ok(self.calibrations(host)?.into_iter().next()),
        }
    }

    fn calibration_points(&self, id: i64) -> Result<Vec<CalibrationPoint>> {
        let fail = query_error("reading calibration points");
        let mut statement = self
            .connection
            .prepare(
                "SELECT kind, size_bytes, metric, pairs, replica_relative, replica_ci95_low, \
                 replica_ci95_high, replica_significant, replica_p_value, effect_truth, \
                 effect_relative, effect_ci95_low, effect_ci95_high, effect_significant, \
                 effect_p_value, paired_sd_ratio, seconds_per_pair \
                 FROM calibration_points WHERE calibration_id = ?1 ORDER BY seq",
            )
            .map_err(&fail)?;
        let points = statement
            .query_map(params![id], point_of_row)
            .map_err(&fail)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(&fail)?;
        Ok(points.into_iter().flatten().collect())
    }
}

/// One row as a point; `None` for a kind or metric this code does not know
/// (a newer writer's), which is skipped rather than misread.
fn point_of_row(row: &Row) -> rusqlite::Result<Option<CalibrationPoint>> {
    let ci = |low: Option<f64>, high: Option<f64>| low.zip(high);
    let kind: String = row.get(0)?;
    let metric: String = row.get(2)?;
    let (Ok(kind), Some(metric)) = (kind.parse::<TestKind>(), MetricId::from_name(&metric)) else {
        return Ok(None);
    };
    let effect = match row.get::<_, Option<f64>>(9)? {
        Some(truth) => Some(KnownEffect {
            truth,
            estimate: Estimate {
                relative: row.get::<_, Option<f64>>(10)?.unwrap_or(0.0),
                ci95: ci(row.get(11)?, row.get(12)?),
                significant: row.get::<_, Option<bool>>(13)?.unwrap_or(false),
                p_value: row.get(14)?,
            },
        }),
        None => None,
    };
    Ok(Some(CalibrationPoint {
        kind,
        size_bytes: row.get(1)?,
        metric,
        pairs: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
        replica: Estimate {
            relative: row.get(4)?,
            ci95: ci(row.get(5)?, row.get(6)?),
            significant: row.get(7)?,
            p_value: row.get(8)?,
        },
        effect,
        paired_sd_ratio: row.get(15)?,
        seconds_per_pair: row.get(16)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calibration(run_id: &str, finished_at_ms: u64) -> Calibration {
        let estimate = |relative: f64, significant: bool| Estimate {
            relative,
            ci95: Some((relative - 0.01, relative + 0.01)),
            significant,
            p_value: Some(0.3),
        };
        Calibration {
            run_id: run_id.into(),
            host: "lab-host".into(),
            finished_at_ms,
            setup: CalibrationSetup {
                link_rate_bps: 400_000_000,
                v6_rate_ratio: 0.95,
                framing_bytes: 14,
            },
            points: vec![
                CalibrationPoint {
                    kind: TestKind::TcpStream,
                    size_bytes: 1408,
                    metric: MetricId::GoodputBps,
                    pairs: 8,
                    replica: estimate(0.001, false),
                    effect: Some(KnownEffect {
                        truth: -0.0631,
                        estimate: estimate(-0.063, true),
                    }),
                    paired_sd_ratio: 0.004,
                    seconds_per_pair: 3.1,
                },
                CalibrationPoint {
                    kind: TestKind::TcpRr,
                    size_bytes: 64,
                    metric: MetricId::RttP50Ns,
                    pairs: 8,
                    replica: estimate(0.02, true),
                    effect: None,
                    paired_sd_ratio: 0.03,
                    seconds_per_pair: 2.9,
                },
            ],
        }
    }

    #[test]
    fn a_calibration_reads_back_as_written_newest_first() {
        let mut store = Store::open_in_memory().unwrap();
        assert_eq!(store.latest_calibration("lab-host").unwrap(), None);
        let (older, newer) = (calibration("r1", 1_000), calibration("r2", 2_000));
        store.save_calibration(&older).unwrap();
        store.save_calibration(&newer).unwrap();
        assert_eq!(
            store.calibrations("lab-host").unwrap(),
            vec![newer.clone(), older]
        );
        assert_eq!(
            store.latest_calibration("lab-host").unwrap(),
            Some(newer.clone())
        );
        assert!(store.calibrations("other-host").unwrap().is_empty());
        // Saving a run's calibration again replaces it.
        store.save_calibration(&newer).unwrap();
        assert_eq!(store.calibrations("lab-host").unwrap().len(), 2);
    }
}
