//! Integration tests of the results store, against real SQLite files.
//! The runs stored here are SYNTHETIC (`dualperf_report::synthetic`): made-up
//! numbers with the shape of a real run, not measurements.

mod fixtures;
mod kill;
mod roundtrip;

use dualperf_model::RunResult;

/// The synthetic run with a given id.
pub fn synthetic_run(run_id: &str) -> RunResult {
    dualperf_report::synthetic::SyntheticLab {
        run_id: run_id.to_string(),
        ..Default::default()
    }
    .build()
}
