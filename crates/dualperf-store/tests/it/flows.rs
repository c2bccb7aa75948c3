//! The per-flow and per-router analysis of a DiffServ-shaped run (schema
//! v6, issue 22): written once, read back as is, never recomputed; runs
//! analysed before keep loading, without it.
//!
//! ```text
//! cargo test -p dualperf-store --test it -- flows --nocapture
//! ```

use dualperf_fixtures::diffserv::{diffserv_run, LEVELS, ROUTERS};
use dualperf_model::{Analysis, RunResult};
use dualperf_store::{Store, WriteOptions};

use crate::{as_stored, temporary_store};

fn analysis(run: &RunResult) -> &Analysis {
    run.analysis.as_ref().expect("analysed")
}

fn count(path: &std::path::Path, table: &str) -> i64 {
    let connection = rusqlite::Connection::open(path).unwrap();
    connection
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// A copy of the version-5 fixture database (tests never change the original).
fn copy_of_v5() -> (tempfile::TempDir, std::path::PathBuf) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("v5.sqlite");
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/v5-synthetic.sqlite");
    std::fs::copy(fixture, &path).unwrap();
    (directory, path)
}

#[test]
fn the_fixture_has_per_flow_and_per_router_analysis() {
    let run = diffserv_run("r-diffserv");
    let analysis = analysis(&run);
    let loaded_arms = 2 * LEVELS.len();
    assert_eq!(
        analysis.routers.len(),
        loaded_arms * ROUTERS.len(),
        "{:?}",
        analysis.routers
    );
    assert!(!analysis.load_flows.is_empty());
    // IPv6 against IPv4 at each load level, for each metric of the flow.
    assert!(!analysis.load_comparisons.is_empty());
    for level in 0..LEVELS.len() {
        assert!(analysis
            .load_comparisons
            .iter()
            .any(|c| c.arm.as_str() == format!("cell-{level}-v6")
                && c.baseline.as_str() == format!("cell-{level}-v4")));
    }
}

#[test]
fn a_diffserv_run_reads_back_its_flow_and_router_analysis_as_stored() {
    let (_directory, path, mut store) = temporary_store();
    let run = diffserv_run("r-diffserv");
    store.save_run(&run).unwrap();
    let loaded = store.load_run("r-diffserv").unwrap();
    // Equal, flows and routers included: nothing recomputed, nothing lost.
    assert_eq!(loaded, as_stored(&run, WriteOptions::default()));
    assert_eq!(analysis(&loaded), analysis(&run));
    assert!(store.flow_analysis_stored("r-diffserv").unwrap());
    // In the tables, one row per item.
    let stored = analysis(&run);
    assert_eq!(
        count(&path, "load_flow_summaries"),
        stored.load_flows.len() as i64
    );
    assert_eq!(
        count(&path, "load_flow_comparisons"),
        stored.load_comparisons.len() as i64
    );
    assert_eq!(
        count(&path, "router_summaries"),
        stored.routers.len() as i64
    );
}

#[test]
fn the_stored_analysis_is_what_comes_back_not_a_recomputation() {
    let (_directory, _path, mut store) = temporary_store();
    let mut run = diffserv_run("r-edited");
    // An analysis that the trials would not give: only what was stored can
    // come back with it (an empty list included).
    let analysis = run.analysis.as_mut().unwrap();
    analysis.routers[0].summary.mean = 0.4242;
    analysis.load_comparisons[0].difference_mean = -123.5;
    analysis.load_flows.clear();
    store.save_run(&run).unwrap();
    let loaded = store.load_run("r-edited").unwrap();
    let back = loaded.analysis.as_ref().unwrap();
    assert_eq!(back.routers[0].summary.mean, 0.4242);
    assert_eq!(back.load_comparisons[0].difference_mean, -123.5);
    assert!(back.load_flows.is_empty());
    assert!(store.flow_analysis_stored("r-edited").unwrap());
}

#[test]
fn a_run_analysed_before_version_6_has_no_stored_flow_analysis() {
    // The version-5 fixture: written by the code of its time, before the
    // flow tables. Its analysis loads; its flow lists are empty and the
    // store says they were never stored (a reader may recompute them).
    let (_directory, path) = copy_of_v5();
    let store = Store::open(&path).unwrap();
    let run_id = store.latest_run_id().unwrap().unwrap();
    let loaded = store.load_run(&run_id).unwrap();
    let analysis = loaded.analysis.as_ref().expect("an arm-shaped analysis");
    assert!(!analysis.comparisons.is_empty());
    assert!(analysis.load_flows.is_empty() && analysis.routers.is_empty());
    assert!(!store.flow_analysis_stored(&run_id).unwrap());
    // Read-only, without migrating: the same answer.
    drop(store);
    let (_untouched_directory, untouched) = copy_of_v5();
    let read_only = Store::open_read_only(&untouched).unwrap();
    assert!(!read_only.flow_analysis_stored(&run_id).unwrap());
    assert_eq!(read_only.load_run(&run_id).unwrap(), loaded);
}

/// Bytes the flow and router analysis adds to a DiffServ-shaped run's
/// database (the same run stored with and without it, both vacuumed).
#[test]
fn flow_analysis_growth_per_run() {
    let size = |with: bool| {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("results.sqlite");
        let mut store = Store::open(&path).unwrap();
        let mut run = diffserv_run("r-growth");
        if !with {
            let analysis = run.analysis.as_mut().unwrap();
            analysis.load_flows.clear();
            analysis.load_comparisons.clear();
            analysis.routers.clear();
        }
        store.save_run(&run).unwrap();
        store.vacuum().unwrap();
        let bytes = std::fs::metadata(&path).unwrap().len();
        (bytes, run.analysis.unwrap())
    };
    let (without, _) = size(false);
    let (with, analysis) = size(true);
    let rows = analysis.load_flows.len() + analysis.load_comparisons.len() + analysis.routers.len();
    println!(
        "flow analysis of a DiffServ-shaped run: {rows} rows ({} load-flow summaries, {} \
         comparisons, {} router summaries), {} bytes ({} → {} bytes)",
        analysis.load_flows.len(),
        analysis.load_comparisons.len(),
        analysis.routers.len(),
        with - without,
        without,
        with
    );
    // A few rows: well under a kilobyte each (pages are 4 KiB).
    assert!(with >= without && with - without <= 4096 * (rows as u64 / 8 + 3));
}
