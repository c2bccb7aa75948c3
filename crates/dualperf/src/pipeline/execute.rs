//! Executors: where a plan's trials run. Both produce the same raw
//! [`RunResult`] (trials, host facts, no analysis):
//!
//! - **in process**: the engine's client in this process, against `serve`
//!   peers at the arms' targets (`dualperf run`); with `--repeat auto`,
//!   one point at a time until it is precise enough
//!   ([`in_process_until_precise`]);
//! - **in a namespace**: the lab writes the plan as JSON, starts
//!   `dualperf run --plan PLAN --measure-only RAW` inside the client node
//!   (the server is another process in the server node, so each end's CPU
//!   figures are its own) and reads the raw result back. The plan crosses
//!   the process boundary as the typed value it is, never as re-spelled flags.

use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use dualperf_engine::client::{finish_result, Client, ClientOptions, PlannedTrial};
use dualperf_model::{RunConfig, RunResult};
use dualperf_stats::repetition::{is_precise, Precision};

use super::output::write_json;
use super::progress::ProgressView;

/// The hidden `run` flag of the measuring child: write the raw result here.
pub const MEASURE_ONLY_FLAG: &str = "--measure-only";

/// Runs every trial of `config` in this process. Never fails: a failed
/// trial is recorded as such; a raised `stop` flag ends the run after the
/// current trial with `complete = false` and the reason in `errors`.
pub fn in_process(
    config: &RunConfig,
    options: ClientOptions,
    stop: Option<Arc<AtomicBool>>,
    view: &mut ProgressView,
) -> RunResult {
    let client = Client::new(ClientOptions {
        stop: stop.clone(),
        ..options
    });
    let mut result = client.run_plan(config, &mut |progress| view.show(progress));
    view.done();
    if stop.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
        result.complete = false;
        if result.errors.is_empty() {
            result.errors.push("interrupted".into());
        }
    }
    result
}

/// Runs `config` in this process, repeating every point until its
/// headline metric is precise enough on every arm or `target`'s cap is
/// reached (`dualperf run --repeat auto`; [`dualperf_stats::repetition`]):
/// `target.min_repetitions` interleaved repetitions first, then one more
/// (every arm) at a time. `config.repeat` of the result becomes the most
/// repetitions any point needed. Never fails, like [`in_process`].
pub fn in_process_until_precise(
    config: &RunConfig,
    options: ClientOptions,
    stop: Option<Arc<AtomicBool>>,
    view: &mut ProgressView,
    target: &Precision,
) -> RunResult {
    let client = Client::new(ClientOptions {
        stop: stop.clone(),
        ..options
    });
    let mut result = client.begin(config);
    let arms = config.arms.len();
    let cap = config.points.len() * arms * target.max_repetitions as usize;
    let mut ran = 0;
    let mut most = 0;
    'points: for point in 0..config.points.len() {
        let mut repetitions = 0;
        loop {
            let batch = if repetitions == 0 {
                target.min_repetitions.max(1)
            } else {
                1
            };
            let planned: Vec<PlannedTrial> = (repetitions..repetitions + batch)
                .flat_map(|repetition| (0..arms).map(move |arm| (point, arm, repetition)))
                .collect();
            let going = client.run_planned(config, &planned, &mut result, (ran, cap), &mut |p| {
                view.show(p)
            });
            ran += planned.len();
            repetitions += batch;
            if !going {
                break 'points;
            }
            if repetitions >= target.max_repetitions || is_precise(&result, point, target) {
                break;
            }
        }
        most = most.max(repetitions);
        view.point_done(&config.points[point].label());
    }
    result.config.repeat = most.max(1);
    finish_result(&mut result, ran);
    view.done();
    if stop.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
        result.complete = false;
        if result.errors.is_empty() {
            result.errors.push("interrupted".into());
        }
    }
    result
}

/// `run` arguments of the measuring child: `run --plan PLAN --measure-only RAW`.
pub fn child_args(plan: &Path, raw: &Path) -> Vec<OsString> {
    vec![
        "run".into(),
        "--plan".into(),
        plan.into(),
        MEASURE_ONLY_FLAG.into(),
        raw.into(),
    ]
}

/// Writes `config` as the child's plan file.
///
/// # Errors
/// When the file cannot be written.
pub fn write_plan(path: &Path, config: &RunConfig) -> anyhow::Result<()> {
    write_json(path, config, true)
}

/// Reads the raw result the measuring child wrote.
///
/// # Errors
/// When the child wrote nothing (it died) or something unreadable.
pub fn read_raw(path: &Path) -> anyhow::Result<RunResult> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("the measuring child wrote no result {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("reading the raw result {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_gets_the_plan_file_and_where_to_write() {
        let args = child_args(Path::new("/r/plan.json"), Path::new("/r/raw.json"));
        let words: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            words,
            [
                "run",
                "--plan",
                "/r/plan.json",
                "--measure-only",
                "/r/raw.json"
            ]
        );
    }
}
