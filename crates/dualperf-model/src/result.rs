//! The result of a run: configuration, host facts, every trial's raw
//! observations and, once computed, the analysis. This is the `--json`
//! document and what the store keeps.

use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::host::HostFacts;
use crate::observation::Trial;
use crate::spec::RunConfig;
use crate::testbed::TestbedFacts;

/// Name of the JSON schema of [`RunResult`].
pub const RESULT_SCHEMA: &str = "dualperf.run";
/// Version of the JSON schema; bump when a field changes meaning or is removed.
pub const RESULT_SCHEMA_VERSION: u32 = 1;

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Always [`RESULT_SCHEMA`].
    pub schema: String,
    /// [`RESULT_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// Unique id of the run (e.g. `20261121T235000Z-1a2b`).
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
