//! End to end (issue 14): with a CPU hog pinned beside the client, no
//! significant difference is reported and the output names the contention.
//!
//! The test starts spinning threads pinned to CPU 0, then runs
//! `dualperf run --loopback --pin --tests tcp-rr --quick`: both ends of the
//! ping-pong are pinned to CPU 0 too, so the scheduler shares that CPU
//! between the hog and the tool, and every trial is contended.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use dualperf_model::{ComparisonWarning, ContentionCause, MetricId, RunResult, TestKind};

/// Threads spinning on CPU 0 until dropped.
struct Hog {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Hog {
    fn on_cpu_0(threads: usize) -> Hog {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    pin_this_thread_to_cpu_0();
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Hog { stop, threads }
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn pin_this_thread_to_cpu_0() {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes into
    // the set we own; sched_setaffinity(0, …) changes only this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        let rc = libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        assert_eq!(rc, 0, "pinning the hog to CPU 0");
    }
}

/// `dualperf run --loopback --pin --tests tcp-rr --no-store` with `extra`
/// arguments beside a 2-thread hog on CPU 0: (standard output, result).
fn run_beside_a_hog(name: &str, extra: &[&str]) -> (String, RunResult) {
    // One hog at a time: two would starve the runs of each other's tests.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let json = std::env::temp_dir().join(format!("dpc-{name}-{}.json", std::process::id()));
    let hog = Hog::on_cpu_0(2);
    // Let the hog settle on its CPU before the first trial.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "run",
            "--loopback",
            "--pin",
            "--tests",
            "tcp-rr",
            "--no-store",
        ])
        .args(extra)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("running dualperf");
    drop(hog);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    (stdout, result)
}

#[test]
fn a_cpu_hog_beside_the_client_makes_every_verdict_not_significant_and_says_why() {
    let (stdout, result) = run_beside_a_hog("hog", &["--quick"]);
    print!("{stdout}");

    // The verdict says why there is no significance claim.
    let verdict = stdout
        .lines()
        .find(|line| line.starts_with("[1] tcp-rr"))
        .unwrap_or_else(|| panic!("no verdict line:\n{stdout}"));
    assert!(
        verdict.contains("Not significant: ")
            && verdict.contains("trials ran while other programs used")
            && verdict.contains("of CPU 0, where the tool was pinned"),
        "{verdict}"
    );
    assert!(!stdout.contains(", significant)"), "{stdout}");

    // Nothing in the analysis is significant, and the headline names the
    // contention as typed data.
    let analysis = result.analysis.as_ref().unwrap();
    assert!(!analysis.comparisons.is_empty());
    assert!(
        analysis.comparisons.iter().all(|c| !c.significant),
        "{:#?}",
        analysis.comparisons
    );
    let headline = analysis
        .comparisons
        .iter()
        .find(|c| c.metric == MetricId::headline(TestKind::TcpRr))
        .unwrap();
    let evidence: Vec<_> = headline
        .warnings
        .iter()
        .filter_map(|w| match w {
            ComparisonWarning::Contended {
                contended,
                trials,
                evidence,
                ..
            } => Some((*contended, *trials, evidence.clone())),
            _ => None,
        })
        .collect();
    // Both arms, every trial: two spinning threads leave the tool at most
    // half of CPU 0.
    assert_eq!(evidence.len(), 2, "{:?}", headline.warnings);
    for (contended, trials, evidence) in evidence {
        assert_eq!((contended, trials), (3, 3));
        assert_eq!(evidence.cause, ContentionCause::ForeignCpu);
        assert_eq!(evidence.cpus, vec![0]);
        assert!(evidence.foreign_cpu_ratio.unwrap() >= 0.25, "{evidence:?}");
    }
}

#[test]
fn a_contended_trial_is_run_again_a_bounded_number_of_times() {
    let (_, result) = run_beside_a_hog(
        "rerun",
        &[
            "-t",
            "0.1",
            "--warmup",
            "0.05",
            "--repeat",
            "3",
            "--rerun-contended",
            "1",
        ],
    );
    // Every attempt beside the hog is contended: each trial ran twice and
    // kept its second attempt, which says so.
    assert_eq!(result.trials.len(), 6);
    for trial in &result.trials {
        let dualperf_model::TrialOutcome::Ok(o) = &trial.outcome else {
            panic!("{:?}", trial.outcome);
        };
        assert!(
            o.notes
                .iter()
                .any(|n| n.starts_with("run 1 time more: the earlier attempt ran contended")),
            "{:?}",
            o.notes
        );
    }
    let analysis = result.analysis.as_ref().unwrap();
    assert!(analysis.comparisons.iter().all(|c| !c.significant));
}
