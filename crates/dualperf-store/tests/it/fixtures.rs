//! Databases written by earlier schema versions open with the current code.
//!
//! `fixtures/v<N>-synthetic.sqlite` is a database at schema version N holding
//! the SYNTHETIC run in `fixtures/v<N>-synthetic.json` (made-up data). They
//! were written by `write_fixture_database` below; regenerate only when adding
//! a schema version (never overwrite an old version's file):
//!
//! ```text
//! DUALPERF_FIXTURE_VERSION=2 cargo test -p dualperf-store --test it -- --ignored write_fixture
//! ```
//!
//! `v2-synthetic.sqlite` is `v1-synthetic.sqlite` with schema step 2's SQL
//! applied verbatim (Python's sqlite3, `PRAGMA user_version = 2`) when step 3
//! was added, so it holds the same run as `v2-synthetic.json`.

use std::path::PathBuf;

use dualperf_model::{Observations, RunResult, TrialOutcome};
use dualperf_store::schema::LATEST_VERSION;
use dualperf_store::Store;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn user_version(path: &std::path::Path) -> u32 {
    let connection = rusqlite::Connection::open(path).unwrap();
    connection
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

/// Copies a fixture into a temporary directory (tests never change the originals).
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join(name);
    std::fs::copy(fixture(name), &path).unwrap();
    (directory, path)
}

/// The fixture's run as JSON: the run with every trial's outcome blanked,
/// and the outcomes beside it. (serde cannot read `LatencySamples::sum_ns`,
/// a u128, back through the internally tagged `TrialOutcome`, so the
/// outcomes are kept outside it, as the store does.)
#[derive(serde::Serialize, serde::Deserialize)]
struct FixtureJson {
    run: RunResult,
    outcomes: Vec<Result<Observations, String>>,
}

fn to_fixture_json(run: &RunResult) -> String {
    let mut run = run.clone();
    let outcomes = run
        .trials
        .iter_mut()
        .map(|t| {
            match std::mem::replace(
                &mut t.outcome,
                TrialOutcome::Failed {
                    error: String::new(),
                },
            ) {
                TrialOutcome::Ok(o) => Ok(*o),
                TrialOutcome::Failed { error } => Err(error),
            }
        })
        .collect();
    serde_json::to_string(&FixtureJson { run, outcomes }).unwrap()
}

fn expected_run(version: u32) -> RunResult {
    let text = std::fs::read_to_string(fixture(&format!("v{version}-synthetic.json"))).unwrap();
    let FixtureJson { mut run, outcomes } = serde_json::from_str(&text).unwrap();
    for (trial, outcome) in run.trials.iter_mut().zip(outcomes) {
        trial.outcome = match outcome {
            Ok(o) => TrialOutcome::Ok(Box::new(o)),
            Err(error) => TrialOutcome::Failed { error },
        };
    }
    run
}

#[test]
fn every_schema_version_before_the_latest_has_a_fixture() {
    for version in 1..LATEST_VERSION {
        let path = fixture(&format!("v{version}-synthetic.sqlite"));
        assert!(path.exists(), "missing fixture {}", path.display());
        assert_eq!(
            user_version(&path),
            version,
            "{} is not at version {version}",
            path.display()
        );
    }
}

#[test]
fn a_version_1_database_is_migrated_to_the_latest_and_its_run_loads_unchanged() {
    let (_directory, path) = copy_of("v1-synthetic.sqlite");
    assert_eq!(user_version(&path), 1);
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), LATEST_VERSION);
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let expected = expected_run(1);
    assert_eq!(store.load_run(&expected.run_id).unwrap(), expected);
    // Version 2's column works on the migrated file.
    store
        .set_notes(&expected.run_id, Some("migrated from v1"))
        .unwrap();
    assert_eq!(
        store.list_runs().unwrap()[0].notes.as_deref(),
        Some("migrated from v1")
    );
    drop(store);
    assert_eq!(user_version(&path), LATEST_VERSION);
}

#[test]
fn every_old_fixture_loads_with_the_current_code() {
    for version in 1..LATEST_VERSION {
        let (_directory, path) = copy_of(&format!("v{version}-synthetic.sqlite"));
        let store = Store::open(&path).unwrap();
        let expected = expected_run(version);
        assert_eq!(
            store.load_run(&expected.run_id).unwrap(),
            expected,
            "fixture v{version}"
        );
    }
}

/// Writes `fixtures/v<N>-synthetic.{sqlite,json}` for N = $DUALPERF_FIXTURE_VERSION.
#[test]
#[ignore = "generator: run by hand when adding a schema version"]
fn write_fixture_database() {
    let version: u32 =
        std::env::var("DUALPERF_FIXTURE_VERSION").map_or(LATEST_VERSION, |v| v.parse().unwrap());
    let mut run = crate::synthetic_run(&format!("fixture-v{version}"));
    // Keep the committed file small: two points of each kind, all their trials.
    let keep: Vec<usize> = run
        .config
        .points
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.size_bytes, 64 | 1472 | 8192))
        .map(|(i, _)| i)
        .collect();
    run.trials.retain(|t| keep.contains(&t.point));
    if let Some(analysis) = run.analysis.as_mut() {
        analysis.summaries.retain(|s| keep.contains(&s.point));
        analysis.comparisons.retain(|c| keep.contains(&c.point));
        analysis.missing.retain(|m| keep.contains(&m.0));
    }
    let sqlite = fixture(&format!("v{version}-synthetic.sqlite"));
    let _ = std::fs::remove_file(&sqlite);
    let mut store = Store::open_at_version(&sqlite, version).unwrap();
    store.save_run(&run).unwrap();
    drop(store);
    let connection = rusqlite::Connection::open(&sqlite).unwrap();
    connection
        .execute_batch("PRAGMA journal_mode = DELETE; VACUUM;")
        .unwrap();
    drop(connection);
    std::fs::write(
        fixture(&format!("v{version}-synthetic.json")),
        to_fixture_json(&run),
    )
    .unwrap();
    assert_eq!(user_version(&sqlite), version);
}
