//! `history --prune`: whole runs go, the others stay exactly as they were,
//! and the file shrinks after a vacuum.

use dualperf_model::RunResult;
use dualperf_store::{Retention, Store, StoreError, WriteOptions};

use crate::{as_stored, synthetic_run, temporary_store, with_probe_under_load, with_raw_samples};

/// Four runs a day apart, oldest first.
fn four_days(store: &mut Store) -> Vec<RunResult> {
    (0..4u64)
        .map(|day| {
            let run = with_raw_samples(run_day(day));
            store.save_run_with(&run, WriteOptions::RAW).unwrap();
            run
        })
        .collect()
}

fn rows(store_path: &std::path::Path, table: &str) -> i64 {
    rusqlite::Connection::open(store_path)
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

const TABLES: [&str; 10] = [
    "runs",
    "points",
    "trials",
    "interval_samples",
    "probe_interval_samples",
    "arrivals",
    "latency_buckets",
    "summaries",
    "comparisons",
    "missing_metrics",
];

#[test]
fn keep_n_removes_the_oldest_runs_whole_and_keeps_the_rest_intact() {
    let (_directory, path, mut store) = temporary_store();
    let runs = four_days(&mut store);
    let per_run: Vec<i64> = TABLES.iter().map(|t| rows(&path, t) / 4).collect();

    assert_eq!(
        store.runs_to_prune(Retention::KeepNewest(1)).unwrap(),
        ["r-day-0", "r-day-1", "r-day-2"],
        "the dry run names them oldest first"
    );
    assert_eq!(
        store.list_runs().unwrap().len(),
        4,
        "a dry run removes nothing"
    );

    let pruned = store.prune(2).unwrap();
    assert_eq!(pruned.run_ids, ["r-day-0", "r-day-1"]);
    assert!(pruned.freed_bytes > 0);
    for (table, per_run) in TABLES.iter().zip(&per_run) {
        assert_eq!(
            rows(&path, table),
            per_run * 2,
            "{table}: not removed whole"
        );
    }
    let orphans: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(orphans, 0);
    for run in &runs[2..] {
        assert_eq!(&store.load_run(&run.run_id).unwrap(), run);
    }
    assert!(matches!(
        store.load_run("r-day-0").unwrap_err(),
        StoreError::RunNotFound { .. }
    ));
    // Keeping more than there are removes nothing.
    assert!(store.prune(10).unwrap().run_ids.is_empty());
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn prune_before_removes_runs_that_started_earlier() {
    let (_directory, _path, mut store) = temporary_store();
    let runs = four_days(&mut store);
    let pruned = store.prune_before(runs[2].started_at_unix_ms).unwrap();
    assert_eq!(pruned.run_ids, ["r-day-0", "r-day-1"]);
    let left: Vec<String> = store
        .list_runs()
        .unwrap()
        .into_iter()
        .map(|r| r.run_id)
        .collect();
    assert_eq!(left, ["r-day-2", "r-day-3"]);
}

#[test]
fn vacuum_gives_the_space_back_to_the_file_system() {
    let (_directory, path, mut store) = temporary_store();
    four_days(&mut store);
    store.vacuum().unwrap();
    let full = std::fs::metadata(&path).unwrap().len();
    assert_eq!(full, store.size_bytes().unwrap());
    store.prune(1).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        full,
        "deleting alone keeps the pages for later runs"
    );
    store.vacuum().unwrap();
    let after = std::fs::metadata(&path).unwrap().len();
    assert!(after * 3 < full, "{full} B -> {after} B");
    let wal = std::fs::metadata(path.with_extension("sqlite-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "the write-ahead log is truncated");
    assert_eq!(store.list_runs().unwrap().len(), 1);
    assert_eq!(
        store.load_run("r-day-3").unwrap(),
        as_stored(&with_raw_samples(run_day(3)), WriteOptions::RAW)
    );
}

fn run_day(day: u64) -> RunResult {
    let mut run = with_probe_under_load(synthetic_run(&format!("r-day-{day}")));
    run.started_at_unix_ms += day * 86_400_000;
    run
}
