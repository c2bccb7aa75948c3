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
        Headline::NoComparison if run.arms.len() <= 1 => {
            "one arm measured: nothing to compare".to_string()
        }
        Headline::NoComparison => "no comparison (no arm had a trial to pair)".to_string(),
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

/// The listing as one table ([`dualperf_report::terminal::render_table`]),
/// wrapped to the terminal: long headlines and locations wrap inside their
/// column instead of running off the screen.
fn print_table(runs: &[RunListing]) {
    print!(
        "{}",
        history_table(runs, crate::pipeline::finish::terminal_width())
    );
}

fn history_table(runs: &[RunListing], width: usize) -> String {
    use dualperf_report::terminal::{render_table, Align, Fit};
    // Stored text reaches the terminal: control characters (an escape
    // sequence in a run id, a newline in a location) are printed escaped.
    let inert = dualperf_lab::shell::inert;
    let mut rows = vec![[
        "RUN", "STARTED", "WHERE", "ARMS", "POINTS", "TRIALS", "COMPLETE", "HEADLINE",
    ]
    .map(String::from)
    .to_vec()];
    for run in runs {
        let complete = match (run.complete, run.finished_at_unix_ms) {
            (true, _) => "yes".to_string(),
            (false, 0) => "unfinished".to_string(),
            (false, _) => format!("no ({} failed)", run.failed_trials),
        };
        let notes = run
            .notes
            .as_ref()
            .map_or(String::new(), |n| format!(" [{}]", inert(n)));
        rows.push(vec![
            inert(&run.run_id),
            utc_date(run.started_at_unix_ms),
            inert(&run.location),
            run.arms.len().to_string(),
            run.points.to_string(),
            run.trials.to_string(),
            complete,
            format!("{}{notes}", headline(run)),
        ]);
    }
    use Align::{Left, Right};
    render_table(
        &rows,
        &[Left, Left, Left, Right, Right, Right, Left, Left],
        // The location and the headline wrap; ids, dates and counts do not.
        Some(Fit {
            width,
            wrapping: &[2, 7],
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{Arm, ArmId, IpFamily};

    fn listing(run_id: &str, location: &str, headline: Headline) -> RunListing {
        RunListing {
            run_id: run_id.into(),
            started_at_unix_ms: 1_764_000_000_000,
            finished_at_unix_ms: 1_764_000_060_000,
            location: location.into(),
            tool_version: "0.1.0".into(),
            arms: vec![Arm::native(IpFamily::V4, None)],
            baseline: ArmId::native(IpFamily::V4),
            points: 22,
            trials: 132,
            failed_trials: 0,
            complete: true,
            raw_samples: false,
            headline,
            notes: Some("a note that is rather long, as notes are".into()),
        }
    }

    #[test]
    fn the_listing_fits_the_terminal_and_keeps_ids_whole() {
        let long_where = "testbed dumbbell with a long description on build-host-17 in rack 4";
        let runs = vec![
            listing(
                "20261123T041300Z-84215459",
                long_where,
                Headline::NoComparison,
            ),
            listing(
                "20261124T041300Z-00000001",
                "host → 192.0.2.1",
                Headline::NoSignificantDifference { comparisons: 22 },
            ),
        ];
        let table = history_table(&runs, 140);
        for line in table.lines() {
            assert!(line.chars().count() <= 140, "too wide: {line}\n{table}");
        }
        // Too narrow for every column: the table overflows instead of
        // spelling its headings one letter a line.
        let narrow = history_table(&runs, 80);
        let header = narrow.lines().next().unwrap();
        assert!(
            header.contains("WHERE") && header.contains("HEADLINE"),
            "{narrow}"
        );
        assert!(table.contains("20261123T041300Z-84215459"), "{table}");
        assert!(table.contains("20261124T041300Z-00000001"), "{table}");
        // Wrapped, not cut: every word of the location and headline is there.
        for word in long_where
            .split_whitespace()
            .chain("one arm measured: nothing to compare".split_whitespace())
        {
            assert!(table.contains(word), "{word} missing:\n{table}");
        }
        assert!(!table.contains("one arm only?"), "{table}");
    }
}
