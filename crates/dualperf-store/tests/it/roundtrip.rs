//! Save → load gives back what was saved, whatever state the run is in.

use dualperf_model::{MetricId, TestKind, Trial, TrialOutcome};
use dualperf_store::{Headline, RunEnd, StoreError, WriteOptions};

use crate::{as_stored, synthetic_run, temporary_store, three_arm_run, with_raw_samples};

#[test]
fn a_run_saved_with_raw_samples_loads_back_equal_to_the_original() {
    let (_directory, _path, mut store) = temporary_store();
    let run = with_raw_samples(synthetic_run("r-roundtrip"));
    assert!(
        run.trials.len() > 100 && run.analysis.is_some(),
        "the fixture should be a full run"
    );
    store.save_run_with(&run, WriteOptions::RAW).unwrap();
    let loaded = store.load_run("r-roundtrip").unwrap();
    assert_eq!(loaded, run);
    assert!(store.list_runs().unwrap()[0].raw_samples);
}

#[test]
fn by_default_a_run_is_saved_without_raw_samples_and_says_so() {
    let (_directory, _path, mut store) = temporary_store();
    let run = with_raw_samples(synthetic_run("r-compact"));
    store.save_run(&run).unwrap();
    let loaded = store.load_run("r-compact").unwrap();
    assert_eq!(loaded, as_stored(&run, WriteOptions::default()));
    assert_ne!(loaded, run, "the raw samples were meant to be left out");
    for trial in &loaded.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        if let Some(latency) = &observations.latency {
            assert!(latency.raw_ns.is_empty() && latency.raw_limit == 0);
            assert!(latency.count > 0 && !latency.histogram.is_empty());
        }
        if let Some(udp) = &observations.udp {
            match trial.spec.kind {
                // A probe's arrivals are its measurement: kept by default.
                TestKind::UdpProbe => assert!(!udp.arrivals.is_empty()),
                _ => assert!(udp.arrivals.is_empty() && udp.arrivals_limit == 0),
            }
        }
    }
    // The analysis, the series and the histograms are all there.
    assert_eq!(loaded.analysis, run.analysis);
    assert!(!store.list_runs().unwrap()[0].raw_samples);
}

#[test]
fn minimal_options_leave_out_probe_arrivals_too() {
    let (_directory, _path, mut store) = temporary_store();
    let run = crate::three_arm_run("r-minimal");
    store.save_run_with(&run, WriteOptions::MINIMAL).unwrap();
    let loaded = store.load_run("r-minimal").unwrap();
    assert_eq!(loaded, as_stored(&run, WriteOptions::MINIMAL));
    let arrivals: usize = loaded
        .trials
        .iter()
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => Some(o),
            TrialOutcome::Failed { .. } => None,
        })
        .flat_map(|o| o.udp.iter().chain(o.probe.iter().map(|p| &p.udp)))
        .map(|udp| udp.arrivals.len())
        .sum();
    assert_eq!(arrivals, 0);
    // The probe's time series stays.
    assert!(loaded.trials.iter().any(|t| matches!(&t.outcome,
        TrialOutcome::Ok(o) if o.probe.as_ref().is_some_and(|p| !p.intervals.is_empty()))));
}

#[test]
fn a_run_with_three_arms_round_trips_and_its_arms_are_queryable() {
    let (_directory, path, mut store) = temporary_store();
    let run = three_arm_run("r-arms");
    store.save_run_with(&run, WriteOptions::RAW).unwrap();
    assert_eq!(store.load_run("r-arms").unwrap(), run);
    let analysis = run.analysis.as_ref().unwrap();
    assert!(analysis
        .comparisons
        .iter()
        .any(|c| c.arm.as_str() == "v6-6in4-router-router"));

    let connection = rusqlite::Connection::open(&path).unwrap();
    /// id, label, family, marking, load name, baseline?
    type ArmRow = (String, String, String, Option<String>, Option<String>, bool);
    let arms: Vec<ArmRow> = connection
        .prepare(
            "SELECT arm, label, family, marking_json, json_extract(load_json, '$.load'), is_baseline
             FROM run_arms WHERE run_id = 'r-arms' ORDER BY position",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let expected: Vec<_> = run
        .config
        .arms
        .iter()
        .map(|arm| {
            (
                arm.id.to_string(),
                arm.label.clone(),
                arm.family.key().to_string(),
                (!arm.marking.is_empty()).then(|| serde_json::to_string(&arm.marking).unwrap()),
                match &arm.load {
                    dualperf_model::LoadCondition::Idle => None,
                    dualperf_model::LoadCondition::Under { load } => Some(load.clone()),
                },
                arm.id == run.config.baseline,
            )
        })
        .collect();
    assert_eq!(arms, expected);
    // Trials carry their arm in a column: one group per arm at every point.
    let groups: i64 = connection
        .query_row(
            "SELECT count(*) FROM (SELECT DISTINCT point, arm FROM trials)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(groups as usize, run.config.points.len() * 3);
    // The probe under load has its own time series rows.
    let probe_rows: i64 = connection
        .query_row("SELECT count(*) FROM probe_interval_samples", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(probe_rows > 0);
}

#[test]
fn the_time_series_histograms_and_analysis_are_rows_queryable_with_sql() {
    let (_directory, path, mut store) = temporary_store();
    let run = synthetic_run("r-sql");
    store.save_run(&run).unwrap();
    let connection = rusqlite::Connection::open(&path).unwrap();
    let count = |sql: &str| -> i64 { connection.query_row(sql, [], |r| r.get(0)).unwrap() };
    let expected: usize = run
        .trials
        .iter()
        .map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => o.intervals.len(),
            TrialOutcome::Failed { .. } => 0,
        })
        .sum();
    assert_eq!(
        count("SELECT count(*) FROM interval_samples") as usize,
        expected
    );
    assert!(count("SELECT count(*) FROM latency_buckets") > 0);
    let analysis = run.analysis.as_ref().unwrap();
    let expected_significant = analysis
        .comparisons
        .iter()
        .filter(|c| c.significant)
        .count();
    assert_eq!(
        count("SELECT count(*) FROM comparisons WHERE significant = 1") as usize,
        expected_significant
    );
    assert_eq!(
        count("SELECT count(*) FROM summaries") as usize,
        analysis.summaries.len()
    );
    // Metrics are stored by their typed names, arms by their ids.
    let goodput = MetricId::GoodputBps.name();
    let goodput_comparisons: i64 = connection
        .query_row(
            "SELECT count(*) FROM comparisons WHERE metric = ?1 AND arm = 'v6' AND baseline = 'v4'",
            [goodput],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        goodput_comparisons as usize,
        analysis
            .comparisons
            .iter()
            .filter(|c| c.metric == MetricId::GoodputBps)
            .count()
    );
}

#[test]
fn a_failed_trial_and_a_missing_analysis_round_trip() {
    let (_directory, _path, mut store) = temporary_store();
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
fn missing_metrics_keep_their_arm_and_metric() {
    let (_directory, _path, mut store) = temporary_store();
    let mut run = synthetic_run("r-missing");
    let analysis = run.analysis.as_mut().unwrap();
    analysis.missing.push(dualperf_model::MissingMetric {
        point: 3,
        arm: dualperf_model::ArmId::new("v6").unwrap(),
        metric: MetricId::OwdP50Ns,
        reason: "clocks not shared".into(),
    });
    store.save_run(&run).unwrap();
    assert_eq!(store.load_run("r-missing").unwrap().analysis, run.analysis);
}

#[test]
fn a_run_appended_trial_by_trial_keeps_its_trials_before_it_finishes() {
    let (_directory, _path, mut store) = temporary_store();
    let run = synthetic_run("r-live");
    let mut begun = run.clone();
    begun.trials.clear();
    begun.analysis = None;
    begun.finished_at_unix_ms = 0;
    begun.complete = false;
    let mut handle = store.begin_run_with(&begun, WriteOptions::RAW).unwrap();
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
    assert_eq!(handle.trials_written() as usize, run.trials.len());
    store.finish_run(handle, RunEnd::of(&run)).unwrap();
    assert_eq!(store.load_run("r-live").unwrap(), run);
}

#[test]
fn a_second_run_with_the_same_id_is_refused_and_the_first_is_kept() {
    let (_directory, _path, mut store) = temporary_store();
    let run = synthetic_run("r-twice");
    store.save_run(&run).unwrap();
    let err = store.save_run(&run).unwrap_err();
    assert!(matches!(err, StoreError::DuplicateRun { .. }), "{err}");
    assert_eq!(
        store.load_run("r-twice").unwrap(),
        as_stored(&run, WriteOptions::default())
    );
    assert_eq!(store.list_runs().unwrap().len(), 1);
}

#[test]
fn an_analysis_with_nan_is_refused_whole_and_the_run_stays_unfinished() {
    let (_directory, _path, mut store) = temporary_store();
    for poison in 0..2 {
        let mut run = synthetic_run(&format!("r-nan-{poison}"));
        let trials = std::mem::take(&mut run.trials);
        let mut handle = store.begin_run(&run).unwrap();
        for trial in &trials {
            store.append_trial(&mut handle, trial).unwrap();
        }
        let analysis = run.analysis.as_mut().unwrap();
        let last = analysis.comparisons.len() - 1;
        match poison {
            0 => analysis.comparisons[last].difference_mean = f64::NAN,
            // Inside a JSON column NaN would become null, unreadable.
            _ => analysis.comparisons[last].baseline_summary.median = f64::NAN,
        }
        let err = store.finish_run(handle, RunEnd::of(&run)).unwrap_err();
        assert!(err.to_string().contains("NaN"), "{err}");
        let loaded = store.load_run(&run.run_id).unwrap();
        assert_eq!(
            loaded.trials.len(),
            trials.len(),
            "finished trials are kept"
        );
        assert!(loaded.analysis.is_none(), "no half-written analysis");
        assert_eq!(loaded.finished_at_unix_ms, 0);
    }
}

#[test]
fn an_unknown_run_id_is_a_clear_error() {
    let (_directory, _path, store) = temporary_store();
    let err = store.load_run("nope").unwrap_err();
    assert!(err.to_string().contains("no run `nope`"), "{err}");
}

#[test]
fn history_lists_runs_oldest_first_with_location_counts_notes_and_headline() {
    let (_directory, _path, mut store) = temporary_store();
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
    assert_eq!(old.headline, Headline::NotAnalysed);
    assert_eq!(old.trials, 3);
    assert!(!old.complete);
    assert_eq!(new.location, "testbed one-router on synthetic-lab");
    assert_eq!(new.arms, newer.config.arms);
    assert_eq!(new.baseline, newer.config.baseline);
    assert_eq!(new.points as usize, newer.config.points.len());
    assert_eq!(new.trials as usize, newer.trials.len());
    assert_eq!(new.notes.as_deref(), Some("after kernel upgrade"));
    // The headline is the largest significant relative difference on a
    // point's headline metric (goodput for streams, median RTT for rr …).
    let config = &newer.config;
    let largest = newer
        .analysis
        .as_ref()
        .unwrap()
        .comparisons
        .iter()
        .filter(|c| c.significant && c.metric == MetricId::headline(config.points[c.point].kind))
        .max_by(|a, b| {
            a.relative_difference
                .unwrap()
                .abs()
                .total_cmp(&b.relative_difference.unwrap().abs())
        })
        .unwrap();
    let Headline::Difference {
        point_label,
        comparison,
    } = &new.headline
    else {
        panic!("{:?}", new.headline)
    };
    assert_eq!(comparison.as_ref(), largest);
    assert_eq!(point_label, &config.points[largest.point].label());
}

#[test]
fn history_says_when_nothing_differs_or_nothing_is_compared() {
    let (_directory, _path, mut store) = temporary_store();
    let mut quiet = synthetic_run("r-quiet");
    quiet
        .analysis
        .as_mut()
        .unwrap()
        .comparisons
        .iter_mut()
        .for_each(|c| c.significant = false);
    store.save_run(&quiet).unwrap();
    let mut lonely = synthetic_run("r-lonely");
    lonely.started_at_unix_ms += 1;
    lonely.analysis.as_mut().unwrap().comparisons.clear();
    store.save_run(&lonely).unwrap();
    let runs = store.list_runs().unwrap();
    let headline_comparisons = quiet
        .analysis
        .as_ref()
        .unwrap()
        .comparisons
        .iter()
        .filter(|c| c.metric == MetricId::headline(quiet.config.points[c.point].kind))
        .count() as u64;
    assert!(headline_comparisons > 0);
    assert_eq!(
        runs[0].headline,
        Headline::NoSignificantDifference {
            comparisons: headline_comparisons
        }
    );
    assert_eq!(runs[1].headline, Headline::NoComparison);
    // Every test kind of the run has its headline metric among the comparisons.
    for kind in [TestKind::TcpStream, TestKind::UdpRr] {
        assert!(quiet
            .analysis
            .as_ref()
            .unwrap()
            .comparisons
            .iter()
            .any(|c| quiet.config.points[c.point].kind == kind
                && c.metric == MetricId::headline(kind)));
    }
}

#[test]
fn a_run_stored_by_default_analyses_again_to_the_same_numbers() {
    // The synthetic run's raw per-transaction series are partial (as in a
    // real rr trial), so the analysis never used them; probe arrivals are
    // kept by default, so one-way delay, PDV and the voice MOS survive.
    let run = crate::three_arm_run("r-again");
    let analysis = run.analysis.clone().unwrap();
    let (_directory, _path, mut store) = temporary_store();
    store.save_run(&run).unwrap();
    let mut loaded = store.load_run("r-again").unwrap();
    loaded.analysis = None;
    assert_eq!(
        dualperf_fixtures::analysed(loaded).analysis.unwrap(),
        analysis
    );

    // Without probe arrivals those metrics cannot be computed again (the
    // stored analysis keeps them).
    let minimal = as_stored(&run, WriteOptions::MINIMAL);
    let again = dualperf_fixtures::analysed(minimal).analysis.unwrap();
    let has = |a: &dualperf_model::Analysis, metric| a.summaries.iter().any(|s| s.metric == metric);
    assert!(has(&analysis, MetricId::OwdP99Ns) && has(&analysis, MetricId::VoiceMos));
    assert!(!has(&again, MetricId::OwdP99Ns) && !has(&again, MetricId::VoiceMos));
}

#[test]
fn an_iperf3_peer_s_run_and_the_server_s_account_load_back() {
    let (_directory, _path, mut store) = temporary_store();
    let mut run = synthetic_run("r-iperf3");
    run.config.peer = dualperf_model::PeerKind::Iperf3;
    let report = dualperf_model::Iperf3Report {
        server_received: true,
        bytes: 12_345_678_901,
        interval_ns: 2_000_400_000,
        udp_packets: Some(1500),
        udp_lost: Some(8),
        udp_jitter_ns: Some(250_000),
        streams: vec![dualperf_model::Iperf3StreamReport {
            id: 1,
            bytes: 12_345_678_901,
            ..Default::default()
        }],
        ..Default::default()
    };
    for trial in &mut run.trials {
        if let TrialOutcome::Ok(observations) = &mut trial.outcome {
            observations.iperf3 = Some(report.clone());
        }
    }
    store.save_run(&run).unwrap();
    let loaded = store.load_run("r-iperf3").unwrap();
    assert_eq!(loaded.config.peer, dualperf_model::PeerKind::Iperf3);
    let stored = loaded
        .trials
        .iter()
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => o.iperf3.as_ref(),
            TrialOutcome::Failed { .. } => None,
        })
        .collect::<Vec<_>>();
    assert!(!stored.is_empty());
    assert!(stored.iter().all(|r| **r == report));
}
