//! The one error type of this crate: every variant names what failed.

use std::io;
use std::path::PathBuf;

use crate::feature::Feature;

/// A topology definition that does not hold together, pointing at the key.
///
/// Displayed as `KEY: MESSAGE`, e.g.
/// `link[1].between[1]: no node named "sever" (did you mean "server"?)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct TopologyError {
    /// Path of the offending key, e.g. `link[0].mtu_bytes`.
    pub key: String,
    /// What is wrong with it.
    pub message: String,
}

impl TopologyError {
    /// An error at `key`.
    pub fn at(key: impl Into<String>, message: impl Into<String>) -> Self {
        TopologyError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// A kernel feature a topology needs but this kernel lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingFeature {
    /// The feature.
    pub feature: Feature,
    /// What in the topology needs it, e.g. "link[1] (router1—router2) delay".
    pub needed_by: String,
}

/// Why building, using or tearing down a testbed failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LabError {
    /// The TOML text does not parse or has unknown keys.
    #[error("topology `{name}` does not parse: {message}")]
    Parse {
        /// Preset name or file path.
        name: String,
        /// The parser's message (it names the line and the key).
        message: String,
    },

    /// The topology parses but does not hold together.
    #[error("topology `{name}`")]
    Topology {
        /// Preset name or file path.
        name: String,
        /// What is wrong, at which key.
        #[source]
        source: TopologyError,
    },

    /// Neither a preset nor a readable file.
    #[error("no preset or file named `{name}`{suggestion} (presets: {presets})")]
    UnknownTopology {
        /// What the user asked for.
        name: String,
        /// ` (did you mean "router"?)` or empty.
        suggestion: String,
        /// The preset names, comma-separated.
        presets: String,
    },

    /// A topology file could not be read.
    #[error("reading topology file `{path}`")]
    ReadTopology {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },

    /// A run id is not 1..=7 characters of `[a-z0-9]`.
    #[error("run id `{run_id}` must be 1 to 7 characters of a-z and 0-9")]
    InvalidRunId {
        /// The rejected id.
        run_id: String,
    },

    /// A `--link-rate` that is neither `none` nor a rate in range.
    #[error("link rate `{text}`: {reason}")]
    InvalidLinkRate {
        /// The rejected text.
        text: String,
        /// Why, e.g. "outside 1.000 Mbit/s to 100.000 Gbit/s".
        reason: String,
    },

    /// A program could not be started at all (not installed, not executable).
    #[error("starting `{command}`")]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: io::Error,
    },

    /// A kernel command ran and failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    Command {
        /// The command line, pasteable into a shell.
        command: String,
        /// Exit status as text.
        status: String,
        /// What it printed on stderr, trimmed.
        stderr: String,
    },

    /// The topology needs kernel features this kernel lacks; nothing was built.
    #[error("{}", describe_missing(.missing))]
    MissingFeatures {
        /// Each missing feature and what needs it.
        missing: Vec<MissingFeature>,
    },

    /// Network namespaces cannot be created (no root / CAP_NET_ADMIN, or no kernel support).
    #[error("network namespaces are not usable here: {reason}")]
    NamespacesUnavailable {
        /// What was tried and how it failed.
        reason: String,
    },

    /// A thread could not enter a node's network namespace.
    #[error("entering network namespace `{netns}`")]
    EnterNamespace {
        /// The namespace.
        netns: String,
        /// Why.
        #[source]
        source: io::Error,
    },

    /// A node name that the testbed does not have.
    #[error("no node named `{name}` in this testbed (nodes: {nodes})")]
    UnknownNode {
        /// The name asked for.
        name: String,
        /// The nodes there are, comma-separated.
        nodes: String,
    },

    /// The user interrupted (Ctrl-C, SIGTERM); what was built has been removed.
    #[error("interrupted")]
    Interrupted,

    /// A process in a node did not do what was expected in time.
    #[error("{what}")]
    Timeout {
        /// What was being waited for.
        what: String,
    },

    /// A node has no address of the family asked for (a single-stack node).
    #[error("node `{node}` has no {family} address (it is {stack})")]
    NoAddress {
        /// The node.
        node: String,
        /// The family asked for.
        family: dualperf_model::IpFamily,
        /// Its stack, e.g. `ipv4-only`.
        stack: String,
    },

    /// The topology offers no arm towards the node asked for.
    #[error("no arm reaches `{server}`: {reason}")]
    NoArms {
        /// The server node.
        server: String,
        /// Why.
        reason: String,
    },

    /// The user-space delay line of a link direction could not start.
    #[error("starting the delay line of {direction}")]
    DelayLine {
        /// `link[N] A→B`.
        direction: String,
        /// The system call that failed.
        #[source]
        source: io::Error,
    },

    /// A file of the testbed's work directory could not be written.
    #[error("writing `{path}`")]
    WorkFile {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },

    /// The state file of a testbed left up by `lab up`.
    #[error("state file `{path}`")]
    State {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },

    /// A state file whose content does not parse.
    #[error("state file `{path}` is damaged: {message}")]
    StateContent {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

fn describe_missing(missing: &[MissingFeature]) -> String {
    let parts: Vec<String> = missing
        .iter()
        .map(|m| {
            format!(
                "{} needs {}, which is missing here ({})",
                m.needed_by,
                m.feature.label(),
                m.feature.remedy()
            )
        })
        .collect();
    format!(
        "{}; nothing was built (or remove that setting from the topology; `dualperf doctor` lists what this machine has)",
        parts.join("; ")
    )
}
