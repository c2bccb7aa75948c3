//! `dualperf history`: the runs in the results database, oldest first.

use std::path::PathBuf;
use std::process::ExitCode;

use dualperf_report::utc_date;

/// Arguments of `dualperf history`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SQLite results database [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Print the list as JSON (one object per run).
    #[arg(long)]
    pub json: bool,
}

/// Runs `dualperf history`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let store = super::report::open_existing(args.db.as_deref())?;
    let runs = store.list_runs()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&runs)?);
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() {
        println!("no runs stored yet");
        return Ok(ExitCode::SUCCESS);
    }
    let id_width = runs
        .iter()
        .map(|r| r.run_id.len())
        .max()
        .unwrap_or(3)
        .max(3);
    let where_width = runs
        .iter()
        .map(|r| r.location.chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, 40);
    println!(
        "{:<id_width$}  {:<20}  {:<where_width$}  {:>6}  {:>6}  {:<8}  HEADLINE",
        "RUN", "STARTED", "WHERE", "POINTS", "TRIALS", "COMPLETE"
    );
    for run in &runs {
        let location: String = run.location.chars().take(where_width).collect();
        let complete = match (run.complete, run.finished_at_unix_ms) {
            (true, _) => "yes".to_string(),
            (false, 0) => "unfinished".to_string(),
            (false, _) => format!("no ({} failed)", run.failed_trials),
        };
        let notes = run
            .notes
            .as_ref()
            .map_or(String::new(), |n| format!(" [{n}]"));
        println!(
            "{:<id_width$}  {:<20}  {:<where_width$}  {:>6}  {:>6}  {:<8}  {}{}",
            run.run_id,
            utc_date(run.started_at_unix_ms),
            location,
            run.points,
            run.trials,
            complete,
            run.headline,
            notes
        );
    }
    Ok(ExitCode::SUCCESS)
}
