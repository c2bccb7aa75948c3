//! A writer killed with SIGKILL in the middle of writing leaves a sound
//! database: `PRAGMA integrity_check` is ok, every trial it reported as
//! written is there, and no trial is there in part.
//!
//! The writer is this test binary re-invoked with `DUALPERF_STORE_KILL_CHILD`
//! set, running `writer_child_process`; the parent kills it at varying
//! moments while it appends large trials (SQLite spends most of its time
//! inside a transaction).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dualperf_model::{IntervalSample, TrialOutcome};
use dualperf_store::Store;

const CHILD_ENV: &str = "DUALPERF_STORE_KILL_CHILD";
/// Intervals per trial in the writer: large enough that a kill lands mid-transaction.
const INTERVALS: usize = 4_000;

/// The child's side: appends trials forever, printing the count after each commit.
#[test]
fn writer_child_process() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (path, run_id) = spec.split_once('|').expect("spec is PATH|RUN_ID");
    let mut run = crate::synthetic_run(run_id);
    let template = run.trials[0].clone();
    run.trials.clear();
    run.analysis = None;
    let mut store = Store::open(std::path::Path::new(path)).unwrap();
    let mut handle = store.begin_run(&run).unwrap();
    println!("begun");
    for n in 0u32.. {
        let mut trial = template.clone();
        trial.repetition = n;
        if let TrialOutcome::Ok(observations) = &mut trial.outcome {
            observations.intervals = (0..INTERVALS as u64)
                .map(|i| IntervalSample {
                    end_ns: i + 1,
                    length_ns: 1,
                    ..Default::default()
                })
                .collect();
        }
        store.append_trial(&mut handle, &trial).unwrap();
        println!("{}", n + 1);
    }
}

#[test]
fn a_writer_killed_mid_write_leaves_a_consistent_database_with_whole_trials() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("results.sqlite");
    for round in 0..4u64 {
        let run_id = format!("killed-{round}");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "kill::writer_child_process",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, format!("{}|{run_id}", path.display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Wait for a few committed trials, then kill after a varying delay.
        let target = 3 + round;
        let mut reported = 0;
        let started = Instant::now();
        while reported < target {
            let line = lines.next().expect("writer ended early").unwrap();
            if let Ok(count) = line.trim().parse::<u64>() {
                reported = count;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "writer too slow"
            );
        }
        std::thread::sleep(Duration::from_millis(7 * round + 3));
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();

        let store = Store::open(&path).unwrap();
        assert_eq!(store.integrity_check().unwrap(), "ok", "round {round}");
        let run = store.load_run(&run_id).unwrap();
        assert!(
            run.trials.len() as u64 >= reported,
            "round {round}: {} trials stored, {reported} reported",
            run.trials.len()
        );
        for trial in &run.trials {
            let TrialOutcome::Ok(observations) = &trial.outcome else {
                panic!("only ok trials were written")
            };
            assert_eq!(
                observations.intervals.len(),
                INTERVALS,
                "round {round}: a partial trial"
            );
        }
        assert_eq!(run.finished_at_unix_ms, 0, "a killed run stays unfinished");
    }
}
