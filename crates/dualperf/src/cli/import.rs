//! `dualperf import`: add results written elsewhere (another host's
//! `--json`, a results folder copied from a lab machine) to the results
//! database, analysed as a fresh run would be.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

/// Arguments of `dualperf import`.
///
/// Examples:
///   dualperf import result.json               one result
///   dualperf import results/*/                every lab run in a folder
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub(crate) struct Args {
    /// Result files (`--json` output, `.json` or `.json.gz`) or results folders holding a result.json.
    #[arg(required = true, value_name = "FILE|FOLDER")]
    pub results: Vec<PathBuf>,
    /// Results database [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
}

/// Runs `dualperf import`: every file is read and checked before the first is stored.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut results = Vec::new();
    for path in &args.results {
        results.push(crate::pipeline::load::load_result(path)?);
    }
    let database = super::report::database_path(args.db.as_deref())?;
    let mut store = dualperf_store::Store::open(&database)
        .with_context(|| format!("opening results database {}", database.display()))?;
    for result in &results {
        store
            .save_run(result)
            .with_context(|| format!("storing run {}", result.run_id))?;
        println!("imported {} into {}", result.run_id, database.display());
    }
    Ok(ExitCode::SUCCESS)
}
