//! What this host's last calibration says about a run's verdicts
//! (`dualperf lab calibrate`, stored in the results database): for every
//! test kind of the run that the calibration measured, the smallest
//! difference a comparison of the run's repetitions detects there, so that
//! "no significant difference" reads against a stated resolution.
//!
//! The calibration's noise was measured on its own testbed (a router with
//! per-family htb classes); the line says so, because another path has
//! other noise: only lab runs cite it.

use std::path::Path;

use dualperf_model::{Calibration, RunResult, TestKind};
use dualperf_stats::calibration::minimum_detectable_effect;

/// The lines citing the newest calibration of the run's host, empty when
/// there is none (or the database cannot be read: citing is optional).
pub(crate) fn cite(result: &RunResult, database: &Path) -> Vec<String> {
    // The calibration's noise is that of a network-bound lab path; a run
    // over another path (loopback, a real network) has its own.
    if !database.exists() || result.testbed.is_none() {
        return Vec::new();
    }
    let host = &result.client_host.hostname;
    let Ok(Some(calibration)) = dualperf_store::Store::open_read_only(database)
        .and_then(|store| store.latest_calibration(host))
    else {
        return Vec::new();
    };
    if calibration.run_id == result.run_id {
        return Vec::new();
    }
    lines(result, &calibration)
}

/// [`cite`]'s lines for a given calibration.
pub(crate) fn lines(result: &RunResult, calibration: &Calibration) -> Vec<String> {
    let mut kinds: Vec<TestKind> = result.config.points.iter().map(|p| p.kind).collect();
    kinds.dedup();
    let date = dualperf_model::UtcDateTime::from_unix_ms(calibration.finished_at_ms);
    let pairs = u64::from(result.config.repeat);
    let resolved: Vec<String> = kinds
        .iter()
        .filter_map(|kind| {
            let point = calibration.points.iter().find(|p| p.kind == *kind)?;
            let mde = minimum_detectable_effect(point.paired_sd_ratio, pairs)?;
            Some(format!(
                "{kind} {} {:.1} %",
                point.metric.label(),
                mde * 100.0
            ))
        })
        .collect();
    if resolved.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "resolution: with {pairs} repetitions this host resolves {} (80 % power; `lab \
         calibrate` of {} on its shaped testbed, run {})",
        resolved.join(", "),
        date.readable(),
        calibration.run_id
    )]
}
