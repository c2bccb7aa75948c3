//! `dualperf history`: the runs in the results database, oldest first,
//! read-only; `--prune --keep N` removes all but the newest N runs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use dualperf_report::present::{verdict, ArmNames};
use dualperf_report::utc_date;
use dualperf_store::{Headline, Retention, RunListing, Store};

/// Arguments of `dualperf history`.
///
/// Examples:
///   dualperf history                         every stored run, oldest first
///   dualperf history --prune --keep 20 --dry-run   which runs would go
///   dualperf history --prune --keep 20       keep the newest 20 runs, shrink the file
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub(crate) struct Args {
    /// SQLite results database [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Print as JSON (the list of runs; with --prune, what was removed).
    #[arg(long)]
    pub json: bool,
    /// Remove every run but the newest N (--keep N), then give the space
    /// back to the file system (VACUUM).
    #[arg(long, requires = "keep")]
    pub prune: bool,
    /// With --prune: how many of the newest runs to keep (at least 1, so a
    /// run being written is never removed).
    #[arg(long, value_name = "N", requires = "prune",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub keep: Option<u64>,
    /// With --prune: list the runs that would be removed; remove nothing.
    #[arg(long, requires = "prune")]
    pub dry_run: bool,
}

/// Runs `dualperf history`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = super::report::database_path(args.db.as_deref())?;
    if let (true, Some(keep)) = (args.prune, args.keep) {
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        return prune(&path, keep, args.dry_run, args.json);
    }
    let runs = super::report::open_read_only(&path)?.list_runs()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&runs)?);
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() {
        println!("no runs stored yet");
        return Ok(ExitCode::SUCCESS);
    }
    print_table(&runs);
    Ok(ExitCode::SUCCESS)
}

fn prune(path: &Path, keep: usize, dry_run: bool, json: bool) -> anyhow::Result<ExitCode> {
    let retention = Retention::KeepNewest(keep);
    if dry_run {
        let doomed = super::report::open_read_only(path)?.runs_to_prune(retention)?;
        if json {
            println!("{}", serde_json::to_string_pretty(&doomed)?);
        } else {
            println!(
                "would remove {} run(s), keeping the newest {keep}:",
                doomed.len()
            );
            doomed
                .iter()
                .for_each(|id| println!("  {}", dualperf_lab::shell::inert(id)));
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Checked read-only first: a missing file is an error here (opening for
    // writing would create one) and another program's file stays untouched.
    drop(super::report::open_read_only(path)?);
    let mut store = Store::open(path).with_context(|| format!("opening {}", path.display()))?;
    let before = store.size_bytes()?;
    let pruned = store.prune(keep)?;
    if !pruned.run_ids.is_empty() {
        store.vacuum()?;
    }
    let after = store.size_bytes()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&pruned)?);
    } else {
        println!(
            "removed {} run(s), kept the newest {keep}; {} is now {:.1} MB (was {:.1} MB)",
            pruned.run_ids.len(),
            path.display(),
            after as f64 / 1e6,
            before as f64 / 1e6
        );
        pruned
            .run_ids
            .iter()
            .for_each(|id| println!("  {}", dualperf_lab::shell::inert(id)));
    }
    Ok(ExitCode::SUCCESS)
}

/// What a run found, in words (the report crate's verdict sentence).
fn headline(run: &RunListing) -> String {
    match &run.headline {
        Headline::NotAnalysed => "not analysed".to_string(),
        Headline::NoComparison => "nothing compared (one arm only?)".to_string(),
        Headline::NoSignificantDifference { comparisons } => {
            format!("no significant difference in {comparisons} headline comparisons")
        }
        Headline::Difference {
            point_label,
            comparison,
        } => {
            let names = ArmNames::from_arms(&run.arms);
            format!(
                "{point_label}, {}: {}",
                comparison.metric.label(),
                verdict(
                    comparison,
                    names.label(&comparison.arm),
                    names.label(&comparison.baseline)
                )
            )
        }
    }
}

fn print_table(runs: &[RunListing]) {
    // Stored text reaches the terminal: control characters (an escape
    // sequence in a run id, a newline in a location) are printed escaped.
    let inert = dualperf_lab::shell::inert;
    let id_width = runs
        .iter()
        .map(|r| inert(&r.run_id).chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let where_width = runs
        .iter()
        .map(|r| inert(&r.location).chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, 40);
    println!(
        "{:<id_width$}  {:<20}  {:<where_width$}  {:>4}  {:>6}  {:>6}  {:<8}  HEADLINE",
        "RUN", "STARTED", "WHERE", "ARMS", "POINTS", "TRIALS", "COMPLETE"
    );
    for run in runs {
        let location: String = inert(&run.location).chars().take(where_width).collect();
        let complete = match (run.complete, run.finished_at_unix_ms) {
            (true, _) => "yes".to_string(),
            (false, 0) => "unfinished".to_string(),
            (false, _) => format!("no ({} failed)", run.failed_trials),
        };
        let notes = run
            .notes
            .as_ref()
            .map_or(String::new(), |n| format!(" [{}]", inert(n)));
        println!(
            "{:<id_width$}  {:<20}  {:<where_width$}  {:>4}  {:>6}  {:>6}  {:<8}  {}{}",
            inert(&run.run_id),
            utc_date(run.started_at_unix_ms),
            location,
            run.arms.len(),
            run.points,
            run.trials,
            complete,
            headline(run),
            notes
        );
    }
}
