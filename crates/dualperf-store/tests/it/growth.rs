//! How much a lab run adds to the database (issue 15: at most 2 MB).
//!
//! ```text
//! cargo test -p dualperf-store --test it -- growth --nocapture
//! ```

use dualperf_fixtures::synthetic::SyntheticLab;
use dualperf_model::{RunResult, TrialOutcome};
use dualperf_store::{Store, WriteOptions};

use crate::{with_probe_under_load, with_raw_samples};

/// A lab-sized SYNTHETIC run: 25 points (9 tcp-stream and 9 udp-stream
/// sizes, 3 tcp-rr, 3 udp-rr, 1 udp-probe) × 2 arms × 3 repetitions, each
/// trial 2 s with a 50 ms time series (40 samples), HDR histograms for the
/// rr and probe trials, the raw samples a real run records (10,000
/// per-transaction times per rr trial, 2,000 arrivals per udp-stream trial,
/// 100 probe arrivals), a probe under load on every stream trial (`--probe`:
/// its 40-sample series and 100 arrivals) and the whole analysis.
fn lab_sized_run(run_id: &str, day: u64) -> RunResult {
    let mut stream_sizes = dualperf_fixtures::synthetic::STREAM_SIZES.to_vec();
    stream_sizes.push(8192);
    stream_sizes.sort_unstable();
    let lab = SyntheticLab {
        run_id: run_id.to_string(),
        started_at_unix_ms: SyntheticLab::default().started_at_unix_ms + day * 86_400_000,
        stream_sizes,
        ..Default::default()
    };
    dualperf_fixtures::analysed(with_probe_under_load(with_raw_samples(lab.build())))
}

/// Bytes the database file grows by when `run` is saved after one like it.
fn growth(options: WriteOptions) -> (u64, RunResult) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("results.sqlite");
    let mut store = Store::open(&path).unwrap();
    store
        .save_run_with(&lab_sized_run("first", 0), options)
        .unwrap();
    store.vacuum().unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    let run = lab_sized_run("second", 1);
    store.save_run_with(&run, options).unwrap();
    store.vacuum().unwrap();
    let after = std::fs::metadata(&path).unwrap().len();
    (after - before, run)
}

#[test]
fn a_lab_run_adds_at_most_two_megabytes() {
    let (compact, run) = growth(WriteOptions::default());
    let (raw, _) = growth(WriteOptions::RAW);
    let intervals: usize = run
        .trials
        .iter()
        .map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => o.intervals.len(),
            TrialOutcome::Failed { .. } => 0,
        })
        .sum();
    let analysis = run.analysis.as_ref().unwrap();
    println!(
        "lab-sized run: {} points x {} arms x {} repetitions = {} trials, {intervals} interval \
         samples, {} summaries, {} comparisons",
        run.config.points.len(),
        run.config.arms.len(),
        run.config.repeat,
        run.trials.len(),
        analysis.summaries.len(),
        analysis.comparisons.len(),
    );
    println!(
        "database growth per run: {:.2} MB by default, {:.2} MB with raw samples",
        compact as f64 / 1e6,
        raw as f64 / 1e6
    );
    assert_eq!(run.config.points.len(), 25);
    assert_eq!(run.trials.len(), 150);
    assert!(compact <= 2_000_000, "{compact} B per lab run");
    assert!(raw > compact);
}
