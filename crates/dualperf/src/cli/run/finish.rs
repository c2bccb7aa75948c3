//! What happens to a run's result once the engine is done: the stats stage
//! analyses it, the terminal shows the raw table and the verdicts, and the
//! result goes to the results database, `--json` and `--csv`.
//!
//! Shared by `dualperf run` and (through the `run` child it starts) `dualperf lab`.

use std::path::Path;

use anyhow::Context;
use dualperf_model::RunResult;

use super::table::render_table;

/// Where a finished result goes.
pub struct Destinations<'a> {
    /// The results database, unless the user said `--no-store`.
    pub database: Option<&'a Path>,
    /// `--json FILE`.
    pub json: Option<&'a Path>,
    /// `--csv FILE`: tidy rows, one per point × metric × family.
    pub csv: Option<&'a Path>,
}

/// Adds the analysis to `result` (pure stats stage; never fails: a metric that
/// cannot be computed is listed with its reason).
pub fn analyse(result: &mut RunResult) {
    result.analysis = Some(dualperf_stats::analyse(result));
}

/// Prints the comparison with verdicts (and first the raw side-by-side
/// table when asked, or when there is no analysis).
pub fn print_tables(result: &RunResult, raw_table: bool) {
    if raw_table || result.analysis.is_none() {
        print!("{}", render_table(result));
    }
    if let Some(analysis) = &result.analysis {
        let width = terminal_width();
        println!();
        print!(
            "{}",
            dualperf_report::terminal::render_comparison_table_width(result, analysis, width)
        );
        let verdicts = dualperf_report::terminal::render_verdicts(result, analysis);
        if !verdicts.trim().is_empty() {
            println!("\nVerdicts (IPv6 against IPv4):");
            print!("{verdicts}");
        }
    }
}

/// Writes the result to every destination; a failure to write one is an
/// error, but the others are still attempted first so nothing is lost.
///
/// # Errors
/// The first destination that could not be written.
pub fn save(result: &RunResult, to: &Destinations<'_>) -> anyhow::Result<()> {
    let mut first_error: Option<anyhow::Error> = None;
    if let Some(path) = to.json {
        match super::json::write_json_atomically(path, result) {
            Ok(()) => eprintln!("dualperf: wrote {}", path.display()),
            Err(error) => first_error = first_error.or(Some(error)),
        }
    }
    if let Some(path) = to.csv {
        match write_csv(path, result) {
            Ok(()) => eprintln!("dualperf: wrote {}", path.display()),
            Err(error) => first_error = first_error.or(Some(error)),
        }
    }
    if let Some(database) = to.database {
        match store(database, result) {
            Ok(()) => eprintln!(
                "dualperf: stored run {} in {} (see `dualperf history`, `dualperf report`)",
                result.run_id,
                database.display()
            ),
            Err(error) => first_error = first_error.or(Some(error)),
        }
    }
    first_error.map_or(Ok(()), Err)
}

fn store(database: &Path, result: &RunResult) -> anyhow::Result<()> {
    let mut store = dualperf_store::Store::open(database)
        .with_context(|| format!("opening results database {}", database.display()))?;
    store
        .save_run(result)
        .with_context(|| format!("storing run {}", result.run_id))?;
    Ok(())
}

fn write_csv(path: &Path, result: &RunResult) -> anyhow::Result<()> {
    let analysis = result
        .analysis
        .as_ref()
        .context("the run has no analysis to write as CSV")?;
    let rows = dualperf_stats::tidy_rows(result, analysis);
    let mut buffer = Vec::new();
    dualperf_stats::write_tidy_csv(&rows, &mut buffer).context("encoding CSV")?;
    let temporary = path.with_extension("csv.partial");
    std::fs::write(&temporary, buffer)
        .with_context(|| format!("writing {}", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Columns of the terminal (COLUMNS, else the TIOCGWINSZ of stdout), 100 when unknown.
fn terminal_width() -> usize {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return columns;
    }
    // SAFETY: TIOCGWINSZ writes a winsize into the zeroed struct we own.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col >= 60 {
        size.ws_col as usize
    } else {
        100
    }
}
