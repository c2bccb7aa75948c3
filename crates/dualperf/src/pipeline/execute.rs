//! Executors: where a plan's trials run. Both produce the same raw
//! [`RunResult`] (trials, host facts, no analysis):
//!
//! - **in process**: the engine's client in this process, against `serve`
//!   peers at the arms' targets (`dualperf run`): [`in_process`], with
//!   as many repetitions as [`Repetitions`] says (fixed, until precise
//!   with `--repeat auto`, or to a `--precision` goal);
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
use dualperf_engine::client::{
    finish_result, plan_order, Client, ClientOptions, PlannedTrial, Progress,
};
use dualperf_model::{Goal, RunConfig, RunResult, TrialOutcome};
use dualperf_stats::contention;
use dualperf_stats::repetition::{is_precise, Precision};

use super::output::write_json;
use super::progress::ProgressView;
use dualperf_engine::router_cpu::RouterCpuMeter;

/// The hidden `run` flag of the measuring child: write the raw result here.
pub(crate) const MEASURE_ONLY_FLAG: &str = "--measure-only";

/// How many repetitions every point of a plan gets.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Repetitions<'a> {
    /// `config.repeat` of every arm at every point, in the plan's order
    /// ([`plan_order`]: interleaved or blocked).
    Fixed,
    /// `--repeat auto` ([`dualperf_stats::repetition`]): every point until
    /// its headline metric is precise enough on every arm or the target's
    /// cap is reached — `target.min_repetitions` interleaved repetitions
    /// first, then one more (every arm) at a time.
    UntilPrecise(&'a Precision),
    /// `--precision P --budget D` ([`RunConfig::goal`];
    /// [`dualperf_stats::stopping`]): the first stage — `goal.first_stage`
    /// interleaved repetitions of every arm at every point — then rounds of
    /// one more repetition of every arm at each point whose first stage asks
    /// for more, while a round fits in what is left of the budget (estimated
    /// from the trials so far).
    ToGoal(Goal),
}

/// Runs the trials of `config` in this process, as many repetitions as
/// `repetitions` says; with [`Repetitions::UntilPrecise`] and
/// [`Repetitions::ToGoal`] `config.repeat` of the result becomes the most
/// repetitions any point got. Never fails: a failed trial is recorded as
/// such; a raised `stop` flag ends the run after the current trial with
/// `complete = false` and the reason in `errors`. A trial that ran contended
/// ([`dualperf_stats::contention`]) is run again up to `reruns` times
/// (`--rerun-contended`); the last attempt is kept.
pub(crate) fn in_process(
    config: &RunConfig,
    options: ClientOptions,
    stop: Option<Arc<AtomicBool>>,
    view: &mut ProgressView,
    repetitions: Repetitions<'_>,
    reruns: u32,
    routers: &RouterCpuMeter,
) -> RunResult {
    let client = Client::new(ClientOptions {
        stop: stop.clone(),
        ..options
    });
    let mut result = client.begin(config);
    let mut runner = Runner {
        client: &client,
        config,
        view,
        reruns,
        routers,
    };
    let ran = match repetitions {
        Repetitions::Fixed => runner.fixed(&mut result),
        Repetitions::UntilPrecise(target) => runner.until_precise(&mut result, target),
        Repetitions::ToGoal(goal) => runner.toward_goal(&mut result, &goal),
    };
    finish_result(&mut result, ran);
    runner.view.done();
    mark_interrupted(&mut result, stop.as_ref());
    result
}

/// After a raised `stop` flag: incomplete, with a reason.
fn mark_interrupted(result: &mut RunResult, stop: Option<&Arc<AtomicBool>>) {
    if stop.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
        result.complete = false;
        if result.errors.is_empty() {
            result.errors.push("interrupted".into());
        }
    }
}

/// Runs planned trials one at a time, running a contended one again.
struct Runner<'a> {
    client: &'a Client,
    config: &'a RunConfig,
    view: &'a mut ProgressView,
    /// Most extra attempts of a contended trial.
    reruns: u32,
    /// Router CPU recorded around each trial (lab testbeds with steered routers).
    routers: &'a RouterCpuMeter,
}

impl Runner<'_> {
    /// Runs `planned` into `result`, numbered from `first` of `total`.
    /// False when stopped.
    fn run(
        &mut self,
        planned: &[PlannedTrial],
        result: &mut RunResult,
        (first, total): (usize, usize),
    ) -> bool {
        for (offset, &trial) in planned.iter().enumerate() {
            if !self.run_one(trial, result, (first + offset, total)) {
                return false;
            }
        }
        true
    }

    fn run_one(
        &mut self,
        planned: PlannedTrial,
        result: &mut RunResult,
        (index, total): (usize, usize),
    ) -> bool {
        let mut earlier: Vec<dualperf_model::ContentionEvidence> = Vec::new();
        loop {
            let view = &mut *self.view;
            let routers_before = (!self.routers.is_empty()).then(|| self.routers.sample());
            // The progress view hears of the kept attempt only.
            let going = self.client.run_planned(
                self.config,
                &[planned],
                result,
                (index, total),
                &mut |progress| {
                    if matches!(
                        progress,
                        Progress::TrialStarted { .. } | Progress::IntervalFinished { .. }
                    ) {
                        view.show(progress);
                    }
                },
            );
            if !going {
                return false;
            }
            if let (Some(before), Some(trial)) = (&routers_before, result.trials.last_mut()) {
                if let TrialOutcome::Ok(observations) = &mut trial.outcome {
                    observations.routers = self.routers.since(before);
                }
            }
            let Some(trial) = result.trials.last() else {
                return true;
            };
            let stopping = self
                .client
                .options
                .stop
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::SeqCst));
            match contention::classify(trial) {
                Some(evidence) if (earlier.len() as u32) < self.reruns && !stopping => {
                    earlier.push(evidence);
                    result.trials.pop();
                }
                _ => break,
            }
        }
        let Some(trial) = result.trials.last_mut() else {
            return true;
        };
        if !earlier.is_empty() {
            let strongest = earlier
                .iter()
                .max_by(|a, b| contention::strength(a).total_cmp(&contention::strength(b)));
            if let (TrialOutcome::Ok(observations), Some(strongest)) =
                (&mut trial.outcome, strongest)
            {
                observations.notes.push(format!(
                    "run {} time{} more: the earlier attempt{} ran contended ({}, at worst; \
                     --rerun-contended)",
                    earlier.len(),
                    if earlier.len() == 1 { "" } else { "s" },
                    if earlier.len() == 1 { "" } else { "s" },
                    dualperf_report::present::contention::contention_cause(strongest)
                ));
            }
        }
        self.view.show(&Progress::TrialFinished {
            index,
            total,
            trial,
        });
        true
    }
}

impl Runner<'_> {
    /// [`Repetitions::Fixed`]: the plan's order, every trial once. Returns
    /// how many trials were planned.
    fn fixed(&mut self, result: &mut RunResult) -> usize {
        let order = plan_order(self.config);
        self.run(&order, result, (0, order.len()));
        order.len()
    }

    /// [`Repetitions::UntilPrecise`]. Returns how many trials ran.
    fn until_precise(&mut self, result: &mut RunResult, target: &Precision) -> usize {
        let config = self.config;
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
                let going = self.run(&planned, result, (ran, cap));
                ran += planned.len();
                repetitions += batch;
                if !going {
                    break 'points;
                }
                if repetitions >= target.max_repetitions || is_precise(result, point, target) {
                    break;
                }
            }
            most = most.max(repetitions);
            self.view.point_done(&config.points[point].label());
        }
        result.config.repeat = most.max(1);
        ran
    }

    /// [`Repetitions::ToGoal`]. Returns how many trials ran.
    fn toward_goal(&mut self, result: &mut RunResult, goal: &Goal) -> usize {
        let config = self.config;
        let started = std::time::Instant::now();
        let budget = std::time::Duration::from_millis(goal.budget_ms);
        let arms = config.arms.len();
        let points = config.points.len();
        let cap = points * arms * goal.max_repetitions as usize;
        let mut ran = 0;
        let mut repetitions = vec![0u32; points];
        let mut going = true;
        // The first stage, point by point, arms interleaved (as a fixed run).
        'first: for (point, (done, spec)) in repetitions.iter_mut().zip(&config.points).enumerate()
        {
            for repetition in 0..goal.first_stage {
                let planned: Vec<PlannedTrial> =
                    (0..arms).map(|arm| (point, arm, repetition)).collect();
                going = self.run(&planned, result, (ran, cap));
                ran += planned.len();
                *done = repetition + 1;
                if !going {
                    break 'first;
                }
            }
            self.view.point_done(&spec.label());
        }
        let mut rounds = 0;
        // Further rounds while the budget lasts.
        while going {
            let short: Vec<usize> = (0..points)
                .filter(|&point| {
                    let progress = dualperf_stats::stopping::point_progress(result, point, goal);
                    progress
                        .needed
                        .is_some_and(|needed| repetitions[point] < needed)
                })
                .collect();
            if short.is_empty() {
                break;
            }
            let elapsed = started.elapsed();
            let per_trial = elapsed / (ran.max(1) as u32);
            let round = per_trial * (short.len() * arms) as u32;
            if elapsed + round > budget {
                eprintln!(
                    "dualperf: the budget ({} s) leaves no time for another round: {} point{} \
                     short of their goal",
                    budget.as_secs(),
                    short.len(),
                    if short.len() == 1 { "" } else { "s" }
                );
                break;
            }
            rounds += 1;
            eprintln!(
                "dualperf: round {rounds}: one more repetition at {} point{} short of ±{:.1} % \
                 ({} s of the budget left)",
                short.len(),
                if short.len() == 1 { "" } else { "s" },
                goal.half_width_ratio * 100.0,
                budget.saturating_sub(elapsed).as_secs()
            );
            for point in short {
                let repetition = repetitions[point];
                let planned: Vec<PlannedTrial> =
                    (0..arms).map(|arm| (point, arm, repetition)).collect();
                going = self.run(&planned, result, (ran, cap));
                ran += planned.len();
                repetitions[point] = repetition + 1;
                if !going {
                    break;
                }
            }
        }
        result.config.repeat = repetitions.iter().copied().max().unwrap_or(0).max(1);
        ran
    }
}

/// `run` arguments of the measuring child: `run --plan PLAN --measure-only
/// RAW`, and `--path-pids P,…` when the testbed has user-space forwarders
/// whose CPU belongs to the path.
pub(crate) fn child_args(plan: &Path, raw: &Path, path_pids: &[i32]) -> Vec<OsString> {
    child_args_with_routers(plan, raw, path_pids, &[])
}

/// [`child_args`] plus `--router-cpus NODE:CPU,…` when the lab steered
/// routers to CPUs of their own ([`RouterCpuMeter`]).
pub(crate) fn child_args_with_routers(
    plan: &Path,
    raw: &Path,
    path_pids: &[i32],
    routers: &[String],
) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "run".into(),
        "--plan".into(),
        plan.into(),
        MEASURE_ONLY_FLAG.into(),
        raw.into(),
    ];
    if !path_pids.is_empty() {
        let list: Vec<String> = path_pids.iter().map(i32::to_string).collect();
        args.push("--path-pids".into());
        args.push(list.join(",").into());
    }
    if !routers.is_empty() {
        args.push("--router-cpus".into());
        args.push(routers.join(",").into());
    }
    args
}

/// Writes `config` and how to execute it (`--repeat auto`,
/// `--rerun-contended`) as the child's plan file.
///
/// # Errors
/// When the file cannot be written.
pub(crate) fn write_plan(
    path: &Path,
    config: &RunConfig,
    execution: &dualperf_model::Execution,
) -> anyhow::Result<()> {
    let plan = dualperf_model::PlanFile {
        config: config.clone(),
        execution: execution.clone(),
    };
    write_json(path, &plan, true)
}

/// Reads the raw result the measuring child wrote.
///
/// # Errors
/// When the child wrote nothing (it died) or something unreadable.
pub(crate) fn read_raw(path: &Path) -> anyhow::Result<RunResult> {
    let text = super::gzip::read_document(path)
        .with_context(|| format!("the measuring child wrote no result {}", path.display()))?;
    serde_json::from_slice(&text)
        .with_context(|| format!("reading the raw result {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_gets_the_plan_file_and_where_to_write() {
        let args = child_args(Path::new("/r/plan.json"), Path::new("/r/raw.json"), &[]);
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
