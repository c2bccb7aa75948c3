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
/// rr trials, the raw samples a real run records (10,000 per-transaction
/// times per rr trial, 2,000 arrivals per udp-stream trial, 100 arrivals per
/// probe) and the whole analysis; with `probe`, a probe under load on every
/// stream trial (`--probe`: its 40-sample series and 100 arrivals).
fn lab_sized_run(run_id: &str, day: u64, probe: bool) -> RunResult {
    let mut stream_sizes = dualperf_fixtures::synthetic::STREAM_SIZES.to_vec();
    stream_sizes.push(8192);
    stream_sizes.sort_unstable();
    let lab = SyntheticLab {
        run_id: run_id.to_string(),
        started_at_unix_ms: SyntheticLab::default().started_at_unix_ms + day * 86_400_000,
        stream_sizes,
        ..Default::default()
    };
    let run = with_raw_samples(lab.build());
    if probe {
        dualperf_fixtures::analysed(with_probe_under_load(run))
    } else {
        run
    }
}

/// Bytes the database file grows by when a lab-sized run is saved after
/// one like it (both vacuumed, so no free pages count).
fn growth(options: WriteOptions, probe: bool) -> u64 {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("results.sqlite");
    let mut store = Store::open(&path).unwrap();
    store
        .save_run_with(&lab_sized_run("first", 0, probe), options)
        .unwrap();
    store.vacuum().unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    store
        .save_run_with(&lab_sized_run("second", 1, probe), options)
        .unwrap();
    store.vacuum().unwrap();
    std::fs::metadata(&path).unwrap().len() - before
}

fn megabytes(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

#[test]
fn a_lab_run_adds_at_most_two_megabytes() {
    let run = lab_sized_run("shape", 0, true);
    let (intervals, arrivals) = run
        .trials
        .iter()
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => Some(o),
            TrialOutcome::Failed { .. } => None,
        })
        .fold((0, 0), |(i, a), o| {
            let probe = o.probe.as_ref().map_or(0, |p| p.udp.arrivals.len());
            (i + o.intervals.len(), a + probe)
        });
    let analysis = run.analysis.as_ref().unwrap();
    assert_eq!(run.config.points.len(), 25);
    assert_eq!(run.trials.len(), 150);
    println!(
        "lab-sized run: {} points x {} arms x {} repetitions = {} trials, {intervals} interval \
         samples; with --probe {arrivals} probe arrivals under load, {} summaries, {} comparisons",
        run.config.points.len(),
        run.config.arms.len(),
        run.config.repeat,
        run.trials.len(),
        analysis.summaries.len(),
        analysis.comparisons.len(),
    );
    let default = growth(WriteOptions::default(), false);
    let probe = growth(WriteOptions::default(), true);
    let minimal = growth(WriteOptions::MINIMAL, true);
    let raw = growth(WriteOptions::RAW, true);
    println!("database growth per lab run:");
    println!("  default options:                 {}", megabytes(default));
    println!("  default options, --probe:        {}", megabytes(probe));
    println!("  no probe arrivals, --probe:      {}", megabytes(minimal));
    println!("  raw samples (--raw), --probe:    {}", megabytes(raw));
    println!(
        "  one probe arrival costs {:.1} B",
        (probe - minimal) as f64 / arrivals as f64
    );
    assert!(default <= 2_000_000, "{default} B per lab run");
    assert!(probe <= 2_000_000, "{probe} B per lab run with --probe");
    assert!(minimal < probe && probe < raw);
}

#[test]
fn a_competing_loads_arrivals_are_raw_samples_kept_only_with_raw() {
    use dualperf_model::{LoadObservations, Trial};
    let run = with_raw_samples(lab_sized_run("loads", 0, false));
    let stream = run
        .trials
        .iter()
        .find(|t| t.spec.kind == dualperf_model::TestKind::UdpStream)
        .unwrap();
    let TrialOutcome::Ok(load_observations) = &stream.outcome else {
        panic!("a synthetic trial is ok")
    };
    assert!(!load_observations.udp.as_ref().unwrap().arrivals.is_empty());
    let loaded = |mut trial: Trial| {
        if let TrialOutcome::Ok(o) = &mut trial.outcome {
            o.loads = vec![LoadObservations {
                flow: 0,
                label: "BE UDP".into(),
                family: stream.family,
                marking: Default::default(),
                spec: stream.spec.clone(),
                observations: load_observations.clone(),
            }];
        }
        trial
    };
    let arrivals_of = |trial: &Trial| match &trial.outcome {
        TrialOutcome::Ok(o) => o.loads[0].observations.udp.as_ref().unwrap().arrivals.len(),
        TrialOutcome::Failed { .. } => unreachable!(),
    };
    let mut compact = loaded(stream.clone());
    WriteOptions::default().apply(&mut compact);
    assert_eq!(arrivals_of(&compact), 0, "the load's arrivals are dropped");
    let mut raw = loaded(stream.clone());
    WriteOptions::RAW.apply(&mut raw);
    assert!(arrivals_of(&raw) > 0, "--raw keeps them");
}
