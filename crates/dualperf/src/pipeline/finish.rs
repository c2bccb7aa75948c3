//! The end of every run, `run` and `lab` alike, in this order:
//!
//! 1. **analyse** once (the stats stage; a metric that cannot be computed
//!    is listed with its reason, never NaN);
//! 2. **compact** (unless `--raw`): the raw per-transaction times and
//!    per-datagram arrivals of the load, most of a result's bytes, are
//!    dropped after the analysis used them — histograms, counters, time
//!    series and probe arrivals stay (`dualperf_store::WriteOptions`, one
//!    definition for the JSON and the database);
//! 3. **save** before anything is printed: the JSON result, the results
//!    database, `--csv`, the HTML report — each attempted even when another
//!    failed, so nothing is lost;
//! 4. **print** the answer: the verdicts first, the per-metric table with
//!    `--verbose`. A closed standard output (`| head`) ends printing quietly;
//!    the run is already stored.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use dualperf_model::RunResult;

use super::output::{is_stdout, write_atomically, write_json};

/// Where a finished result goes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outputs {
    /// The JSON result (`-`: standard output).
    pub json: Option<PathBuf>,
    /// Indent the JSON.
    pub pretty: bool,
    /// Tidy CSV, one row per point × arm × metric.
    pub csv: Option<PathBuf>,
    /// The self-contained HTML report.
    pub html: Option<PathBuf>,
    /// The results database, unless the user said `--no-store`.
    pub database: Option<PathBuf>,
    /// Keep every raw series (`--raw`) instead of the compact result.
    pub raw: bool,
}

/// How much to print.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct View {
    /// Also print the per-metric comparison table.
    pub verbose: bool,
    /// Print nothing on standard output (the JSON goes there).
    pub quiet: bool,
    /// The flag that sets `verbose` (`--verbose` for run, `--table` for lab),
    /// named in the hint under the answer.
    pub more: &'static str,
}

/// Analyses `result`, saves it everywhere `outputs` says, then prints it.
///
/// # Errors
/// The first output that could not be written (after trying all of them).
pub(crate) fn finish(
    mut result: RunResult,
    outputs: &Outputs,
    view: View,
) -> anyhow::Result<RunResult> {
    result.analysis = Some(dualperf_stats::analyse(&result));
    let keep = keeping(outputs);
    for trial in &mut result.trials {
        keep.apply(trial);
    }
    save(&result, outputs)?;
    let quiet = view.quiet || outputs.json.as_deref().is_some_and(is_stdout);
    if !quiet {
        print(&result, view);
        if let Some(database) = &outputs.database {
            for line in super::resolution::cite(&result, database) {
                println!("{line}");
            }
        }
    }
    Ok(result)
}

/// Writes `result` to every output; each is attempted even when an earlier one failed.
///
/// # Errors
/// The first output that could not be written.
pub(crate) fn save(result: &RunResult, outputs: &Outputs) -> anyhow::Result<()> {
    let mut first_error: Option<anyhow::Error> = None;
    let mut keep = |what: anyhow::Result<String>| match what {
        Ok(line) if !line.is_empty() => eprintln!("dualperf: {line}"),
        Ok(_) => {}
        Err(error) => {
            eprintln!("dualperf: {error:#}");
            first_error.get_or_insert(error);
        }
    };
    if let Some(path) = &outputs.json {
        keep(write_json(path, result, outputs.pretty).map(|()| {
            if is_stdout(path) {
                String::new()
            } else {
                format!("wrote {}", path.display())
            }
        }));
    }
    if let Some(database) = &outputs.database {
        keep(store(database, result, keeping(outputs)).map(|()| {
            format!(
                "stored run {} in {} (see `dualperf history`, `dualperf report`)",
                result.run_id,
                database.display()
            )
        }));
    }
    if let Some(path) = &outputs.csv {
        keep(write_csv(path, result).map(|()| format!("wrote {}", path.display())));
    }
    if let Some(path) = &outputs.html {
        keep(
            crate::pipeline::output::write_report(result, dualperf_report::Format::Html, path)
                .map(|()| format!("report: {}", path.display())),
        );
    }
    first_error.map_or(Ok(()), Err)
}

/// What a saved result keeps: everything with `--raw`, else the compact set.
fn keeping(outputs: &Outputs) -> dualperf_store::WriteOptions {
    if outputs.raw {
        dualperf_store::WriteOptions::RAW
    } else {
        dualperf_store::WriteOptions::default()
    }
}

fn store(
    database: &std::path::Path,
    result: &RunResult,
    keep: dualperf_store::WriteOptions,
) -> anyhow::Result<()> {
    let mut store = dualperf_store::Store::open(database)
        .with_context(|| format!("opening results database {}", database.display()))?;
    store
        .save_run_with(result, keep)
        .with_context(|| format!("storing run {}", result.run_id))?;
    Ok(())
}

fn write_csv(path: &std::path::Path, result: &RunResult) -> anyhow::Result<()> {
    let analysis = result
        .analysis
        .as_ref()
        .context("the run has no analysis to write as CSV")?;
    write_atomically(path, dualperf_report::tidy_csv(result, analysis).as_bytes())
}

/// Prints the verdicts (and with `verbose` the comparison table) to
/// standard output; stops quietly when standard output is closed.
pub(crate) fn print(result: &RunResult, view: View) {
    let Some(analysis) = &result.analysis else {
        return;
    };
    let mut text = String::new();
    let width = terminal_width();
    // One arm compares nothing: its measured values first, as iperf3 prints them.
    if dualperf_report::measured::is_one_arm(result) {
        text.push_str(&dualperf_report::measured::render_measured(
            result, analysis,
        ));
    }
    // With more than two arms the answer is a table; the sentences (what
    // explains each difference) come with --verbose.
    let answer = dualperf_report::terminal::render_answer(result, analysis, width);
    if !answer.trim().is_empty() {
        text.push_str(&answer);
    }
    if let Some(regimes) = dualperf_report::terminal::render_regimes(result, analysis) {
        text.push_str(&regimes);
    }
    if let Some(cost) = dualperf_report::terminal::render_cpu_cost(result, analysis) {
        text.push_str(&cost);
    }
    if let Some(routers) = dualperf_report::terminal::render_router_cpu(result) {
        text.push_str(&routers);
    }
    let table_first = dualperf_report::terminal::answer_is_a_table(result);
    if let Some(media) = dualperf_report::terminal::render_media(result, analysis) {
        text.push_str(&media);
    }
    if let Some(stamp) = dualperf_report::terminal::render_stamp(result) {
        text.push_str(&stamp);
    }
    // -n/-k: whether every budgeted trial sent its budget.
    for kind in [
        dualperf_model::TestKind::UdpStream,
        dualperf_model::TestKind::TcpStream,
    ] {
        if let Some(budget) = dualperf_report::terminal::render_budget(result, kind) {
            text.push_str(&budget);
        }
    }
    if let Some(instability) = dualperf_report::terminal::render_instability(result) {
        text.push_str(&instability);
        if !instability.ends_with('\n') {
            text.push('\n');
        }
    }
    for line in dualperf_report::present::goal::goal_lines(result, analysis) {
        text.push_str(&line);
        text.push('\n');
    }
    for line in dualperf_report::present::mechanisms::mechanism_lines(result) {
        text.push_str(&format!("path: {line}\n"));
    }
    for line in dualperf_report::present::marking::marking_lines(result) {
        text.push_str(&format!("marking: {line}\n"));
    }
    for line in dualperf_report::present::wire::wire_summary(result, view.verbose) {
        text.push_str(&line);
        text.push('\n');
    }
    if !view.verbose {
        let what = if table_first {
            "each verdict in words and the per-metric tables"
        } else {
            "the per-metric table"
        };
        text.push_str(&format!(
            "({what}: {}; every value: --json or `dualperf report`)\n",
            view.more
        ));
    }
    if view.verbose {
        if table_first {
            text.push('\n');
            text.push_str(&dualperf_report::terminal::render_verdicts_width(
                result, analysis, width,
            ));
        }
        text.push('\n');
        text.push_str(&dualperf_report::terminal::render_comparison_table_width(
            result, analysis, width,
        ));
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error: the run is stored already.
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// The width given to output that goes to no terminal: wide enough that
/// nothing wraps.
const UNWRAPPED_COLUMNS: usize = 10_000;

/// Columns to lay the answer out in: COLUMNS, else the width of the
/// terminal on standard output (100 when narrower than 60), else — not a
/// terminal — [`UNWRAPPED_COLUMNS`].
pub(crate) fn terminal_width() -> usize {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return columns;
    }
    match terminal_size::terminal_size_of(std::io::stdout()) {
        Some((terminal_size::Width(columns), _)) if columns >= 60 => usize::from(columns),
        Some(_) => 100,
        // Not a terminal (a pipe, a file): one verdict per line, whole, so
        // that `grep` and scripts see it as printed before wrapping existed.
        None => UNWRAPPED_COLUMNS,
    }
}
