//! Save → load gives back exactly what was saved, whatever state the run is in.

use dualperf_model::{Trial, TrialOutcome};
use dualperf_store::{RunEnd, Store, StoreError};

use crate::synthetic_run;

fn temporary_store() -> (tempfile::TempDir, Store) {
    let directory = tempfile::tempdir().unwrap();
    let store = Store::open(&directory.path().join("results.sqlite")).unwrap();
    (directory, store)
}

#[test]
fn a_saved_run_loads_back_equal_to_the_original() {
    let (_directory, mut store) = temporary_store();
    let run = synthetic_run("r-roundtrip");
    assert!(
        run.trials.len() > 100 && run.analysis.is_some(),
        "the fixture should be a full run"
    );
    store.save_run(&run).unwrap();
    let loaded = store.load_run("r-roundtrip").unwrap();
    assert_eq!(loaded, run);
}

#[test]
fn the_time_series_and_histograms_are_rows_queryable_with_sql() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("results.sqlite");
    let run = synthetic_run("r-sql");
    Store::open(&path).unwrap().save_run(&run).unwrap();
    let connection = rusqlite::Connection::open(&path).unwrap();
    let intervals: i64 = connection
        .query_row("SELECT count(*) FROM interval_samples", [], |r| r.get(0))
        .unwrap();
    let expected: usize = run
        .trials
        .iter()
        .map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => o.intervals.len(),
            TrialOutcome::Failed { .. } => 0,
        })
        .sum();
    assert_eq!(intervals as usize, expected);
    let buckets: i64 = connection
        .query_row("SELECT count(*) FROM latency_buckets", [], |r| r.get(0))
        .unwrap();
    assert!(buckets > 0);
    let significant: i64 = connection
        .query_row(
            "SELECT count(*) FROM comparisons WHERE significant = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let expected_significant = run
        .analysis
        .as_ref()
        .unwrap()
        .comparisons
        .iter()
        .filter(|c| c.significant)
        .count();
    assert_eq!(significant as usize, expected_significant);
}

#[test]
fn a_failed_trial_and_a_missing_analysis_round_trip() {
    let (_directory, mut store) = temporary_store();
    let mut run = synthetic_run("r-failed");
    run.trials.truncate(5);
    run.trials.push(Trial {
        outcome: TrialOutcome::Failed {
            error: "connecting to [fd00:2::2]:5201: connection refused".into(),
        },
        ..run.trials[0].clone()
    });
    run.analysis = None;
    run.complete = false;
    run.errors = vec!["1 of 6 trials failed".into()];
    store.save_run(&run).unwrap();
    assert_eq!(store.load_run("r-failed").unwrap(), run);
}

#[test]
fn a_run_appended_trial_by_trial_keeps_its_trials_before_it_finishes() {
    let (_directory, mut store) = temporary_store();
    let run = synthetic_run("r-live");
    let mut begun = run.clone();
    begun.trials.clear();
    begun.analysis = None;
    begun.finished_at_unix_ms = 0;
    begun.complete = false;
    let mut handle = store.begin_run(&begun).unwrap();
    for trial in &run.trials[..4] {
        store.append_trial(&mut handle, trial).unwrap();
    }
    let partial = store.load_run("r-live").unwrap();
    assert_eq!(partial.trials, run.trials[..4].to_vec());
    assert_eq!(partial.finished_at_unix_ms, 0);
    assert!(!partial.complete && partial.analysis.is_none());

    for trial in &run.trials[4..] {
        store.append_trial(&mut handle, trial).unwrap();
    }
    store.finish_run(handle, RunEnd::of(&run)).unwrap();
    assert_eq!(store.load_run("r-live").unwrap(), run);
}

#[test]
fn a_second_run_with_the_same_id_is_refused_and_the_first_is_kept() {
    let (_directory, mut store) = temporary_store();
    let run = synthetic_run("r-twice");
    store.save_run(&run).unwrap();
    let err = store.save_run(&run).unwrap_err();
    assert!(matches!(err, StoreError::DuplicateRun { .. }), "{err}");
    assert_eq!(store.load_run("r-twice").unwrap(), run);
    assert_eq!(store.list_runs().unwrap().len(), 1);
}

#[test]
fn an_analysis_with_nan_is_refused_whole_and_the_run_stays_unfinished() {
    let (_directory, mut store) = temporary_store();
    let mut run = synthetic_run("r-nan");
    let trials = std::mem::take(&mut run.trials);
    let mut handle = store.begin_run(&run).unwrap();
    for trial in &trials {
        store.append_trial(&mut handle, trial).unwrap();
    }
    let analysis = run.analysis.as_mut().unwrap();
    let last = analysis.comparisons.len() - 1;
    analysis.comparisons[last].difference_mean = f64::NAN;
    let err = store.finish_run(handle, RunEnd::of(&run)).unwrap_err();
    assert!(err.to_string().contains("NaN"), "{err}");
    let loaded = store.load_run("r-nan").unwrap();
    assert_eq!(
        loaded.trials.len(),
        trials.len(),
        "finished trials are kept"
    );
    assert!(loaded.analysis.is_none(), "no half-written analysis");
    assert_eq!(loaded.finished_at_unix_ms, 0);
}

#[test]
fn an_unknown_run_id_is_a_clear_error() {
    let (_directory, store) = temporary_store();
    let err = store.load_run("nope").unwrap_err();
    assert!(err.to_string().contains("no run `nope`"), "{err}");
}

#[test]
fn history_lists_runs_oldest_first_with_location_counts_notes_and_headline() {
    let (_directory, mut store) = temporary_store();
    let mut older = synthetic_run("r-older");
    older.started_at_unix_ms -= 86_400_000;
    older.analysis = None;
    older.complete = false;
    older.trials.truncate(3);
    store.save_run(&older).unwrap();
    let newer = synthetic_run("r-newer");
    store.save_run(&newer).unwrap();
    store
        .set_notes("r-newer", Some("after kernel upgrade"))
        .unwrap();

    let runs = store.list_runs().unwrap();
    assert_eq!(
        runs.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
        ["r-older", "r-newer"]
    );
    assert_eq!(store.latest_run_id().unwrap().as_deref(), Some("r-newer"));
    let (old, new) = (&runs[0], &runs[1]);
    assert_eq!(old.headline, "not analysed");
    assert_eq!(old.trials, 3);
    assert!(!old.complete);
    assert_eq!(new.location, "testbed one-router on synthetic-lab");
    assert_eq!(new.points as usize, newer.config.points.len());
    assert_eq!(new.trials as usize, newer.trials.len());
    assert_eq!(new.notes.as_deref(), Some("after kernel upgrade"));
    // The headline is the largest significant relative difference in throughput.
    let largest = newer
        .analysis
        .as_ref()
        .unwrap()
        .comparisons
        .iter()
        .filter(|c| c.significant && c.metric.name == "goodput_bps")
        .max_by(|a, b| {
            a.relative_difference
                .unwrap()
                .abs()
                .total_cmp(&b.relative_difference.unwrap().abs())
        })
        .unwrap();
    assert!(new.headline.ends_with(&largest.verdict), "{}", new.headline);
    assert!(
        new.headline.contains(&largest.metric.name),
        "{}",
        new.headline
    );
}
