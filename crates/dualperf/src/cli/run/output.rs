//! What `dualperf run` writes and prints once the trials ran: where the
//! outputs go ([`Outputs`] from `--json`/`-J`, `--csv`, `--db`,
//! `--no-store`), the lines after the verdicts (`--get-server-output`,
//! `--openmetrics`, the `--loopback` note) and the exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use dualperf_model::{RunResult, TrialOutcome};

use super::{iperf3, Args};
use crate::pipeline::finish::Outputs;
use crate::pipeline::output::is_stdout;

/// True when the JSON result goes to standard output (`-J` or `--json -`).
pub(super) fn json_on_stdout(args: &Args) -> bool {
    args.json_stdout || args.json.as_deref().is_some_and(is_stdout)
}

/// Where the finished run is written and stored.
///
/// # Errors
/// When the default database path cannot be found.
pub(super) fn outputs(args: &Args) -> anyhow::Result<Outputs> {
    Ok(Outputs {
        json: if args.json_stdout {
            Some(PathBuf::from("-"))
        } else {
            args.json.clone()
        },
        pretty: args.pretty,
        csv: args.csv.clone(),
        html: None,
        raw: args.raw,
        database: if args.no_store {
            None
        } else {
            Some(crate::cli::report::database_path(args.db.as_deref())?)
        },
    })
}

/// The lines after the verdicts: the server's own output
/// (`--get-server-output`; to standard error when standard output carries
/// JSON), the OpenMetrics text file, and the `--loopback` CPU note.
///
/// # Errors
/// When the OpenMetrics file cannot be written.
pub(super) fn epilogue(args: &Args, result: &RunResult) -> anyhow::Result<()> {
    if args.iperf3.get_server_output {
        for line in iperf3::server_output_lines(result) {
            match json_on_stdout(args) || args.iperf3.json_stream {
                true => eprintln!("{line}"),
                false => crate::cli::say(&line),
            }
        }
    }
    if let Some(path) = &args.openmetrics {
        crate::cli::exporter::write_textfile(result, path)?;
    }
    if args.loopback {
        eprintln!("dualperf: with --loopback the server runs in this process, so both CPU figures show the whole process.");
    }
    Ok(())
}

/// 0 when every trial ran, 130 after an interrupt, 1 when a trial failed.
pub(super) fn exit_code(result: &RunResult, interrupted: bool) -> ExitCode {
    ExitCode::from(exit_status(result, interrupted))
}

/// The number behind [`exit_code`], saying on standard error why it is not 0.
fn exit_status(result: &RunResult, interrupted: bool) -> u8 {
    if interrupted {
        eprintln!(
            "dualperf: interrupted after {} trials; they are kept",
            result.trials.len()
        );
        return crate::guard::INTERRUPTED;
    }
    if result.complete {
        return 0;
    }
    let failed = result
        .trials
        .iter()
        .filter(|t| matches!(t.outcome, TrialOutcome::Failed { .. }))
        .count();
    let mut line = format!(
        "dualperf: {failed} of {} trials failed",
        result.trials.len()
    );
    if !result.errors.is_empty() {
        line.push_str("; ");
        line.push_str(&result.errors.join("; "));
    }
    eprintln!("{line}");
    crate::exit::FINDING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_signal_makes_the_exit_code_130() {
        let mut result = dualperf_fixtures::result(
            dualperf_fixtures::config(
                vec![],
                dualperf_fixtures::native_arms(dualperf_fixtures::LOOPBACK),
            ),
            vec![],
        );
        result.complete = false;
        assert_eq!(exit_status(&result, true), 130);
        assert_eq!(exit_status(&result, false), 1);
        result.complete = true;
        assert_eq!(exit_status(&result, false), 0);
    }
}
