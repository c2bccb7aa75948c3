//! Exit codes and the mapping from errors to them.

use std::io::ErrorKind;
use std::process::ExitCode;

/// Exit code: a finding, a failed check or trial.
pub(crate) const FINDING: u8 = 1;
/// Exit code: usage or configuration error.
pub(crate) const USAGE: u8 = 2;
/// Exit code: missing privileges or kernel features.
pub(crate) const ENVIRONMENT: u8 = 3;

/// An error that carries its own exit code; wrap it in `anyhow::Error`.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The exit code to end with.
    pub code: u8,
    /// What went wrong, for the user.
    pub message: String,
}

impl Failure {
    /// A usage or configuration error (exit code 2).
    pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Failure {
            code: USAGE,
            message: message.into(),
        })
    }

    /// Missing privileges or kernel features (exit code 3).
    pub(crate) fn environment(message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Failure {
            code: ENVIRONMENT,
            message: message.into(),
        })
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Prints `error` with its cause chain and picks the exit code. A broken pipe
/// (output piped into `head`) is success, as in ripgrep.
pub(crate) fn report_error(error: &anyhow::Error) -> ExitCode {
    for cause in error.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if io.kind() == ErrorKind::BrokenPipe {
                return ExitCode::SUCCESS;
            }
        }
    }
    eprintln!("dualperf: error: {error:#}");
    let code = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<Failure>().map(|f| f.code))
        .unwrap_or(FINDING);
    ExitCode::from(code)
}
