//! `dualperf report`: render runs as HTML, Markdown or CSV, or two runs side
//! by side. A run is named by its id in the results database, or by its
//! `result.json` (or results folder), which needs no database. Also the helpers `run` and `lab` use to find the
//! database and write a report ([`database_path`], [`write_report`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use dualperf_model::RunResult;
use dualperf_report::Format;
use dualperf_store::{Store, StoreError};

use super::Failure;

/// Output formats of `dualperf report`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// One self-contained HTML file with SVG charts.
    Html,
    /// Markdown, for a change request or a wiki.
    Md,
    /// Tidy CSV, one row per point × arm × metric.
    Csv,
}

impl From<FormatArg> for Format {
    fn from(value: FormatArg) -> Self {
        match value {
            FormatArg::Html => Format::Html,
            FormatArg::Md => Format::Markdown,
            FormatArg::Csv => Format::Csv,
        }
    }
}

/// Arguments of `dualperf report`.
///
/// Examples:
///   dualperf report                      latest run as dualperf-report-<run>.html
///   dualperf report RUN --format md -o -  Markdown to standard output
///   dualperf report results/RUN/result.json -o r.html   from the file, no database
///   dualperf report --compare OLD NEW    two runs side by side (Welch's t-test)
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub(crate) struct Args {
    /// Runs to render: ids (see `dualperf history`), result.json files or
    /// results folders; default: the latest run in the database.
    pub runs: Vec<String>,
    /// SQLite results database [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Html)]
    pub format: FormatArg,
    /// Output file, `-` for standard output [default: dualperf-report-<run>.<ext>].
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Compare two runs: the same points side by side with their changes.
    #[arg(long, num_args = 2, value_names = ["BEFORE", "AFTER"], conflicts_with = "runs")]
    pub compare: Option<Vec<String>>,
}

/// The database to use: `--db`, else the default path.
///
/// # Errors
/// A usage error when there is no default (no HOME).
pub(crate) fn database_path(db: Option<&Path>) -> anyhow::Result<PathBuf> {
    match db {
        Some(path) => Ok(path.to_path_buf()),
        None => dualperf_store::default_path().map_err(|e| Failure::usage(e.to_string())),
    }
}

/// Opens an existing database for reading (never creates, migrates or
/// changes one; `--db` pointing at another program's file changes nothing).
///
/// # Errors
/// A usage error when the file does not exist or is not a dualperf
/// database; store errors otherwise.
pub(crate) fn open_existing(db: Option<&Path>) -> anyhow::Result<Store> {
    open_read_only(&database_path(db)?)
}

/// Opens the database at `path` read-only; a missing file or another
/// program's file is a usage error (exit code 2), and neither is changed.
///
/// # Errors
/// As [`open_existing`].
pub(crate) fn open_read_only(path: &Path) -> anyhow::Result<Store> {
    Store::open_read_only(path).map_err(|error| match error {
        StoreError::NotFound { .. } => Failure::usage(format!(
            "no results database at {}; measure first (`dualperf run --loopback` or `dualperf lab`) or pass --db PATH",
            path.display()
        )),
        StoreError::NotDualperf { .. } => Failure::usage(error.to_string()),
        other => anyhow::Error::new(other).context(format!("opening {}", path.display())),
    })
}

/// Loads a run; an unknown id is a usage error (exit code 2).
///
/// # Errors
/// A usage error for an unknown id; store errors otherwise.
pub(crate) fn load_run(store: &Store, run_id: &str) -> anyhow::Result<RunResult> {
    let mut run = store.load_run(run_id).map_err(|error| match error {
        StoreError::RunNotFound { .. } => Failure::usage(error.to_string()),
        other => anyhow::Error::new(other),
    })?;
    // Analysed with schema v6 on, the run's per-flow and per-router
    // analysis is in the database and comes back as stored (empty lists
    // included): never recomputed. Only a run analysed before (its load
    // flows and routers were never stored) has them recomputed from its
    // trials, as a fresh run has them; see docs/store-and-report.md.
    let stored = store
        .flow_analysis_stored(run_id)
        .map_err(anyhow::Error::new)?;
    if !stored {
        recompute_flow_analysis(&mut run);
    }
    Ok(run)
}

/// The per-flow and per-router analysis of a run analysed before schema v6,
/// from its trials (which keep the load flows' and routers' observations).
fn recompute_flow_analysis(run: &mut RunResult) {
    if run.analysis.is_none() {
        return;
    }
    let mut extra = dualperf_model::Analysis::default();
    dualperf_stats::load_flows::analyse_load_flows(run, &mut extra);
    if let Some(analysis) = run.analysis.as_mut() {
        analysis.load_flows = extra.load_flows;
        analysis.load_comparisons = extra.load_comparisons;
        analysis.routers = extra.routers;
    }
}

/// Writes `text` to `path` atomically; `-` writes to standard output.
fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    crate::pipeline::output::write_atomically(path, text.as_bytes())
}

/// A run named on the command line: a result file or folder, else an id
/// in the database (opened, read-only, only when needed).
fn resolve(name: &str, store: &mut Option<Store>, db: Option<&Path>) -> anyhow::Result<RunResult> {
    if crate::pipeline::load::is_result_path(name) {
        return crate::pipeline::load::load_result(Path::new(name));
    }
    if store.is_none() {
        *store = Some(open_existing(db)?);
    }
    let store = store.as_ref().expect("opened just above");
    load_run(store, name)
}

/// Renders `run` in `format` and writes it to `output` (default
/// `dualperf-report-<run>.<ext>` in the current directory). Returns the path
/// written. `lab` calls this at its end with `Format::Html` and prints the path.
///
/// # Errors
/// Rendering or file errors.
pub(crate) fn write_report(
    run: &RunResult,
    format: Format,
    output: Option<&Path>,
) -> anyhow::Result<PathBuf> {
    let path = output.map_or_else(|| default_output(&run.run_id, format), Path::to_path_buf);
    crate::pipeline::output::write_report(run, format, &path)?;
    Ok(path)
}

fn default_output(run_id: &str, format: Format) -> PathBuf {
    let safe: String = run_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from(format!("dualperf-report-{safe}.{}", format.extension()))
}

/// Runs `dualperf report`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = Format::from(args.format);
    let mut store: Option<Store> = None;
    let db = args.db.as_deref();
    if let Some(pair) = &args.compare {
        let before = resolve(&pair[0], &mut store, db)?;
        let after = resolve(&pair[1], &mut store, db)?;
        let text = dualperf_report::render_comparison(&before, &after, format)
            .with_context(|| format!("comparing {} with {}", before.run_id, after.run_id))?;
        let path = args.output.clone().unwrap_or_else(|| {
            default_output(&format!("{}-vs-{}", before.run_id, after.run_id), format)
        });
        write_output(&path, &text)?;
        if path != Path::new("-") {
            println!("{}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let names = if args.runs.is_empty() {
        let opened = open_existing(db)?;
        let latest = opened
            .latest_run_id()?
            .ok_or_else(|| Failure::usage("the results database holds no runs yet"))?;
        store = Some(opened);
        vec![latest]
    } else {
        args.runs.clone()
    };
    if names.len() > 1 && args.output.is_some() {
        return Err(Failure::usage(
            "-o/--output takes one run; give one run or leave out -o",
        ));
    }
    for name in &names {
        let run = resolve(name, &mut store, db)?;
        let path = write_report(&run, format, args.output.as_deref())?;
        if path != Path::new("-") {
            println!("{}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_report_names_keep_only_safe_characters() {
        assert_eq!(
            default_output("20261121T220000Z-a/b c", Format::Html),
            PathBuf::from("dualperf-report-20261121T220000Z-a_b_c.html")
        );
    }

    #[test]
    fn a_report_is_written_whole_and_its_path_returned() {
        let directory =
            std::env::temp_dir().join(format!("dualperf-report-test-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let target = directory.join("report.md");
        let run = dualperf_fixtures::synthetic::small_synthetic_run();
        let written = write_report(&run, Format::Markdown, Some(&target)).unwrap();
        assert_eq!(written, target);
        let text = std::fs::read_to_string(&target).unwrap();
        assert!(text.starts_with("# IPv4 vs IPv6"));
        assert!(
            !target.with_extension("partial").exists(),
            "the temporary file is renamed away"
        );
        std::fs::remove_dir_all(&directory).unwrap();
    }

    /// A DiffServ-shaped run stored in a new database, with its analysis
    /// edited so that only what was stored matches it: no router summaries
    /// (its trials would give eight), no load-flow summaries and a made-up
    /// first comparison.
    fn stored_diffserv_run() -> (tempfile::TempDir, PathBuf, RunResult) {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("results.sqlite");
        let mut run = dualperf_fixtures::diffserv::diffserv_run("r-diffserv");
        let analysis = run.analysis.as_mut().unwrap();
        assert!(!analysis.routers.is_empty() && !analysis.load_comparisons.is_empty());
        analysis.routers.clear();
        analysis.load_flows.clear();
        analysis.load_comparisons[0].difference_mean = -123.5;
        Store::open(&path).unwrap().save_run(&run).unwrap();
        (directory, path, run)
    }

    #[test]
    fn a_stored_diffserv_run_reads_its_flow_analysis_as_stored() {
        let (_directory, path, run) = stored_diffserv_run();
        let store = open_read_only(&path).unwrap();
        let loaded = load_run(&store, "r-diffserv").unwrap();
        let (stored, read) = (run.analysis.unwrap(), loaded.analysis.unwrap());
        // Per-flow and per-router comparisons as the database holds them:
        // recomputing would have brought the routers back and the made-up
        // difference would be gone.
        assert_eq!(read, stored);
        assert!(read.routers.is_empty() && read.load_flows.is_empty());
        assert_eq!(read.load_comparisons[0].difference_mean, -123.5);
        assert!(read
            .load_comparisons
            .iter()
            .any(|c| c.arm.as_str() == "cell-1-v6" && c.baseline.as_str() == "cell-1-v4"));
    }

    #[test]
    fn a_run_analysed_before_schema_6_has_its_flow_analysis_recomputed() {
        let (_directory, path, _run) = stored_diffserv_run();
        // What a run analysed before looks like: analysis version 2, no
        // rows in the flow tables.
        let connection = rusqlite::Connection::open(&path).unwrap();
        connection
            .execute_batch(
                "UPDATE runs SET analysis_version = 2;
                 DELETE FROM load_flow_summaries; DELETE FROM load_flow_comparisons;
                 DELETE FROM router_summaries;",
            )
            .unwrap();
        drop(connection);
        let store = open_read_only(&path).unwrap();
        let read = load_run(&store, "r-diffserv").unwrap().analysis.unwrap();
        assert_eq!(read.routers.len(), 8, "recomputed from the trials");
        assert!(read
            .load_comparisons
            .iter()
            .all(|c| c.difference_mean != -123.5));
        assert!(!read.load_flows.is_empty());
    }

    #[test]
    fn reading_a_missing_database_is_a_usage_error_and_creates_nothing() {
        let path =
            std::env::temp_dir().join(format!("dualperf-missing-{}.sqlite", std::process::id()));
        let error = open_existing(Some(&path)).unwrap_err();
        let failure = error.downcast_ref::<Failure>().expect("a usage failure");
        assert_eq!(failure.code, crate::exit::USAGE);
        assert!(!path.exists());
    }
}
