//! Turning lab errors into the CLI's exit codes: a bad topology is a usage
//! error (2); missing privileges, namespaces or kernel features are an
//! environment error (3); everything else is a failure (1).

use dualperf_lab::LabError;

use crate::cli::Failure;

/// The error with its cause chain, `a: b: c`.
pub(super) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Wraps `error` with the exit code its kind calls for.
pub(super) fn to_cli_error(error: LabError) -> anyhow::Error {
    let message = describe(&error);
    match error {
        LabError::Parse { .. }
        | LabError::Topology { .. }
        | LabError::UnknownTopology { .. }
        | LabError::ReadTopology { .. }
        | LabError::UnknownNode { .. }
        | LabError::InvalidRunId { .. }
        | LabError::InvalidLinkRate { .. } => Failure::usage(message),
        LabError::NamespacesUnavailable { .. } => Failure::environment(format!(
            "{message}\ndualperf lab needs root (or CAP_NET_ADMIN) to build network namespaces; \
             without them, measure this host's loopback instead: dualperf run --loopback"
        )),
        LabError::MissingFeatures { .. } => Failure::environment(message),
        other => anyhow::Error::new(other),
    }
}
