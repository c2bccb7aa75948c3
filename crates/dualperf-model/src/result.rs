//! The result of a run: configuration, host facts, every trial's raw
//! observations and, once computed, the analysis. This is the `--json`
//! document and what the store keeps.

use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::arm::ArmId;
use crate::host::HostFacts;
use crate::observation::Trial;
use crate::spec::RunConfig;
use crate::testbed::TestbedFacts;

/// Name of the JSON schema of [`RunResult`].
pub const RESULT_SCHEMA: &str = "dualperf.run";
/// Version of the JSON schema; bump when a field changes meaning or is removed.
pub const RESULT_SCHEMA_VERSION: u32 = 2;

/// A whole run.
///
/// Reads schema v1 (two families) and v2 (arms): a v1 trial gets its
/// family's native arm, and a v1 analysis, whose shape was per family, is
/// dropped so that the stats stage recomputes it from the trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "RunResultWire")]
pub struct RunResult {
    /// Always [`RESULT_SCHEMA`].
    pub schema: String,
    /// [`RESULT_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// Unique id of the run (e.g. `20261121T235000Z-1a2b`): the same in the
    /// results folder, the JSON, the database and the report.
    pub run_id: String,
    /// Wall-clock start and end, milliseconds since the Unix epoch.
    pub started_at_unix_ms: u64,
    /// Wall-clock end; 0 while running.
    pub finished_at_unix_ms: u64,
    /// The exact configuration.
    pub config: RunConfig,
    /// The client's host.
    pub client_host: HostFacts,
    /// The server's host, as it reported itself.
    pub server_host: Option<HostFacts>,
    /// The emulated testbed, for lab runs.
    pub testbed: Option<TestbedFacts>,
    /// Every trial, in the order it ran.
    pub trials: Vec<Trial>,
    /// Summaries and comparisons, once the stats stage ran.
    pub analysis: Option<Analysis>,
    /// True when every planned trial ran and succeeded.
    pub complete: bool,
    /// Run-level errors (e.g. "interrupted by Ctrl-C after 12 of 40 trials").
    pub errors: Vec<String>,
}

/// [`RunResult`] as stored, any schema version.
#[derive(Deserialize, schemars::JsonSchema)]
struct RunResultWire {
    schema: String,
    schema_version: u32,
    run_id: String,
    started_at_unix_ms: u64,
    finished_at_unix_ms: u64,
    config: RunConfig,
    client_host: HostFacts,
    server_host: Option<HostFacts>,
    #[serde(default)]
    testbed: Option<TestbedFacts>,
    trials: Vec<Trial>,
    #[serde(default)]
    analysis: Option<AnalysisWire>,
    complete: bool,
    #[serde(default)]
    errors: Vec<String>,
}

/// A v2 analysis, or anything else (a v1 analysis), which is dropped.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum AnalysisWire {
    Current(Box<Analysis>),
    Older(#[schemars(with = "crate::schema::AnyValue")] serde::de::IgnoredAny),
}

impl TryFrom<RunResultWire> for RunResult {
    type Error = String;

    /// Refuses a document of another schema, or of a schema version this
    /// build does not know (a newer dualperf wrote it), naming the version:
    /// loading it silently would misread fields whose meaning changed.
    fn try_from(wire: RunResultWire) -> Result<RunResult, String> {
        if wire.schema != RESULT_SCHEMA {
            return Err(format!(
                "schema `{}` is not a dualperf result (`{RESULT_SCHEMA}`)",
                wire.schema.escape_default()
            ));
        }
        if !(1..=RESULT_SCHEMA_VERSION).contains(&wire.schema_version) {
            return Err(format!(
                "result schema version {} is not supported: this dualperf reads versions 1 to \
                 {RESULT_SCHEMA_VERSION} (was it written by a newer dualperf?)",
                wire.schema_version
            ));
        }
        let mut trials = wire.trials;
        for trial in &mut trials {
            if trial.arm.is_unset() {
                trial.arm = ArmId::native(trial.family);
            }
        }
        let analysis = match wire.analysis {
            Some(AnalysisWire::Current(analysis)) if wire.schema_version >= 2 => Some(*analysis),
            _ => None,
        };
        Ok(RunResult {
            schema: wire.schema,
            schema_version: wire.schema_version,
            run_id: wire.run_id,
            started_at_unix_ms: wire.started_at_unix_ms,
            finished_at_unix_ms: wire.finished_at_unix_ms,
            config: wire.config,
            client_host: wire.client_host,
            server_host: wire.server_host,
            testbed: wire.testbed,
            trials,
            analysis,
            complete: wire.complete,
            errors: wire.errors,
        })
    }
}
