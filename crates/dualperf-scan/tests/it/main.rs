//! Integration tests of the scanner: fixtures, output snapshots, SARIF schema,
//! baselines and the tree walker.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

mod fixtures;
mod output;
mod walker;

use std::path::PathBuf;

/// The fixture directory.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}
