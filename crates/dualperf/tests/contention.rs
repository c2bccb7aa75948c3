//! End to end (issues 14 and 23): contention judged by its effect on the
//! tool.
//!
//! * With a CPU hog pinned beside the client, no significant difference
//!   is reported and the output names the contention: the tests start
//!   spinning threads pinned to CPU 0, then run `dualperf run --loopback
//!   --pin --tests tcp-rr --quick`; both ends of the ping-pong are pinned
//!   to CPU 0 too, so the scheduler shares that CPU between the hog and
//!   the tool, and every round trip waits for the hog.
//! * With a hog that spins only while an IPv4 trial runs (it watches
//!   `/proc/net/tcp` for an established socket of the dualperf process)
//!   beside a CPU-bound run (unshaped loopback tcp-stream), IPv4 is slowed
//!   down (to a fraction of IPv6 on a quiet machine), and no verdict is
//!   called significant: every IPv4 trial waited for a CPU. The network-bound case, where hogs must not veto, is
//!   `contention_netns.rs` (it needs root).

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

    // The verdict says why there is no significance claim (wrapped to the
    // terminal: its continuation lines are indented).
    let mut lines = stdout
        .lines()
        .skip_while(|line| !line.starts_with("[1] tcp-rr"));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no verdict line:\n{stdout}"));
    let verdict = lines
        .take_while(|line| line.starts_with("    "))
        .fold(first.to_string(), |verdict, line| {
            format!("{verdict} {}", line.trim_start())
        });
    assert!(
        verdict.contains("Not significant: ")
            && verdict.contains("trials ran while the tool's threads waited for a CPU")
            && verdict.contains("of CPU 0, where the tool was pinned"),
        "{verdict}"
    );
    assert!(
        !stdout.replace("\n    ", " ").contains(", significant)"),
        "{stdout}"
    );

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
    // half of CPU 0, and every round trip waits for them.
    assert_eq!(evidence.len(), 2, "{:?}", headline.warnings);
    for (contended, trials, evidence) in evidence {
        assert_eq!((contended, trials), (3, 3));
        assert_eq!(evidence.cause, ContentionCause::TransactionWait);
        assert!(
            evidence.wait_per_transaction_ratio.unwrap() >= 0.05,
            "{evidence:?}"
        );
        // Other programs' share is kept beside it, as evidence.
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

/// One thread per CPU spinning while process `pid` has an established IPv4 TCP
/// socket (an IPv4 trial's control and data connections), until dropped.
struct Ipv4OnlyHog {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// Milliseconds the hog spun (the watcher saw an IPv4 session).
    on_ms: Arc<std::sync::atomic::AtomicU64>,
}

impl Ipv4OnlyHog {
    fn watching(pid: u32) -> Ipv4OnlyHog {
        let stop = Arc::new(AtomicBool::new(false));
        let on = Arc::new(AtomicBool::new(false));
        let on_ms = Arc::new(std::sync::atomic::AtomicU64::new(0));
        // One spinner per CPU: the tool's threads must wait whatever the
        // machine's size.
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut threads: Vec<JoinHandle<()>> = (0..cpus)
            .map(|_| {
                let (stop, on) = (stop.clone(), on.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        if on.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        } else {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                    }
                })
            })
            .collect();
        let (watch_stop, watch_on, watch_ms) = (stop.clone(), on.clone(), on_ms.clone());
        threads.push(std::thread::spawn(move || {
            while !watch_stop.load(Ordering::Relaxed) {
                let since = std::time::Instant::now();
                let v4 = ipv4_session_open(pid);
                watch_on.store(v4, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(1));
                if v4 {
                    let ms = since.elapsed().as_millis() as u64;
                    watch_ms.fetch_add(ms, Ordering::Relaxed);
                }
            }
            watch_on.store(false, Ordering::Relaxed);
        }));
        Ipv4OnlyHog {
            stop,
            threads,
            on_ms,
        }
    }
}

impl Drop for Ipv4OnlyHog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Whether `/proc/net/tcp` (IPv4 only) lists an established connection
/// whose socket is one of process `pid`'s open files.
fn ipv4_session_open(pid: u32) -> bool {
    let Ok(files) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    let sockets: std::collections::HashSet<String> = files
        .flatten()
        .filter_map(|file| std::fs::read_link(file.path()).ok())
        .filter_map(|target| {
            let target = target.to_string_lossy().into_owned();
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_string(),
            )
        })
        .collect();
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return false;
    };
    table.lines().skip(1).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.len() > 9 && fields[3] == "01" && sockets.contains(fields[9])
    })
}

#[test]
fn a_hog_during_ipv4_trials_only_of_a_cpu_bound_run_never_gives_a_significant_verdict() {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let json = std::env::temp_dir().join(format!("dpc-v4hog-{}.json", std::process::id()));
    let child = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["run", "--loopback", "--tests", "tcp-stream"])
        .args([
            "-t",
            "0.5",
            "--warmup",
            "0.2",
            "--repeat",
            "4",
            "--no-store",
        ])
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running dualperf");
    let hog = Ipv4OnlyHog::watching(child.id());
    let output = child.wait_with_output().expect("running dualperf");
    let hog_on_ms = hog.on_ms.load(Ordering::Relaxed);
    drop(hog);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    print!("{stdout}");
    assert!(
        output.status.success(),
        "exit {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();

    // The hog ran during the IPv4 trials (4 × 0.7 s).
    assert!(hog_on_ms >= 1_000, "the hog spun {hog_on_ms} ms");
    let goodput = |family: dualperf_model::IpFamily| {
        let rates: Vec<f64> = result
            .trials
            .iter()
            .filter(|t| t.family == family)
            .map(|t| match &t.outcome {
                dualperf_model::TrialOutcome::Ok(o) => {
                    o.receiver.bytes as f64 * 8e3 / o.measured_ns as f64
                }
                failed => panic!("{failed:?}"),
            })
            .collect();
        rates.iter().sum::<f64>() / rates.len() as f64
    };
    let (v4, v6) = (
        goodput(dualperf_model::IpFamily::V4),
        goodput(dualperf_model::IpFamily::V6),
    );
    eprintln!("hog on for {hog_on_ms} ms; goodput IPv4 {v4:.0} Mbit/s, IPv6 {v6:.0} Mbit/s");
    // Not asserted: on a busy machine other programs slow either family as
    // much (measured here: IPv4 at 0.28 to 1.9 times IPv6).

    // Yet nothing is significant: every IPv4 trial waited for a CPU.
    let analysis = result.analysis.as_ref().unwrap();
    assert!(
        analysis.comparisons.iter().all(|c| !c.significant),
        "{:#?}",
        analysis.comparisons
    );
    assert!(
        !stdout.replace("\n    ", " ").contains(", significant)"),
        "{stdout}"
    );
    let headline = analysis
        .comparisons
        .iter()
        .find(|c| c.metric == MetricId::headline(TestKind::TcpStream))
        .unwrap();
    let v4_evidence = headline
        .warnings
        .iter()
        .find_map(|w| match w {
            ComparisonWarning::Contended {
                arm,
                contended,
                trials,
                evidence,
            } if arm.as_str() == "v4" => Some((*contended, *trials, evidence.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:?}", headline.warnings));
    let (contended, trials, evidence) = v4_evidence;
    assert_eq!(contended, trials, "{evidence:?}");
    assert_eq!(evidence.cause, ContentionCause::RunQueueWait);
    assert!(
        evidence.busiest_thread_demand_ratio.unwrap() >= 0.5,
        "{evidence:?}"
    );
}
