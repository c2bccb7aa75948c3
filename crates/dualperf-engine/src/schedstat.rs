//! Run-queue wait of this process's own threads: did the tool itself wait
//! for a CPU while it measured?
//!
//! Linux keeps, per thread, the time it spent runnable but not running
//! ("time spent waiting on a runqueue", field 2 of
//! `/proc/<pid>/task/<tid>/schedstat`, nanoseconds; kernel
//! Documentation/scheduler/sched-stats.rst, needs `CONFIG_SCHED_INFO`).
//! Other programs that use only *spare* CPU leave it at zero; a program
//! that takes a CPU the tool wanted shows up here as the tool's waiting,
//! whoever it was. That is the evidence contention is judged by
//! (docs/metrics.md, "Contention").
//!
//! Field 1 (time spent running) beside it says how much each thread
//! *wanted* a CPU: running + waiting over the wall time is a thread's
//! demand; a thread whose demand is well below 1 spent the rest blocked
//! (on its socket: ahead of the network), one near 1 was CPU-bound.
//!
//! A [`ThreadWaits`] is one snapshot of every thread's counters; the wait
//! over an interval is the per-thread difference of two snapshots, summed,
//! and the demand of the busiest thread ([`ThreadWaits::since`]). Threads started during the interval count
//! from 0 (their wait since they were created); threads that ended before
//! the second snapshot are lost, so take it while the measuring threads
//! still run. Parsing is pure ([`parse_schedstat`]) and tested on known
//! text.

use std::collections::BTreeMap;

/// Fields 1 and 2 of a `schedstat` line ("run_ns wait_ns timeslices"):
/// the time spent running and the time spent waiting on a run queue,
/// nanoseconds; `None` unless the line has three numbers.
pub fn parse_schedstat(text: &str) -> Option<ThreadTimes> {
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match fields.as_slice() {
        [run, wait, _, ..] => Some(ThreadTimes {
            run_ns: *run,
            wait_ns: *wait,
        }),
        _ => None,
    }
}

/// One thread's cumulative scheduler times, nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadTimes {
    /// Time spent running on a CPU.
    pub run_ns: u64,
    /// Time spent runnable, waiting on a run queue.
    pub wait_ns: u64,
}

/// What the threads did between two snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaitDelta {
    /// Run-queue wait summed over the threads, nanoseconds.
    pub wait_ns: u64,
    /// Running + waiting of the busiest thread, nanoseconds: how much of
    /// the interval the most CPU-hungry thread wanted a CPU.
    pub busiest_thread_demand_ns: u64,
}

/// Every thread's scheduler times at one moment, by thread id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadWaits {
    times: BTreeMap<u32, ThreadTimes>,
}

impl ThreadWaits {
    /// Reads `/proc/self/task/*/schedstat` now; `None` when the directory
    /// cannot be listed or no thread's counters could be read (a kernel
    /// without schedstat). A thread that ends while it is read is skipped.
    pub fn read() -> Option<ThreadWaits> {
        let entries = std::fs::read_dir("/proc/self/task").ok()?;
        let mut times = BTreeMap::new();
        for entry in entries.flatten() {
            let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
                continue;
            };
            let path = entry.path().join("schedstat");
            if let Some(counters) = std::fs::read_to_string(path)
                .ok()
                .as_deref()
                .and_then(parse_schedstat)
            {
                times.insert(tid, counters);
            }
        }
        (!times.is_empty()).then_some(ThreadWaits { times })
    }

    /// A snapshot from known counters (tests).
    pub fn from_counters(counters: impl IntoIterator<Item = (u32, ThreadTimes)>) -> ThreadWaits {
        ThreadWaits {
            times: counters.into_iter().collect(),
        }
    }

    /// What the threads of `self` did since `earlier`: a thread in both
    /// counts its increase (never below 0), a thread new in `self` its
    /// whole count.
    pub fn since(&self, earlier: &ThreadWaits) -> WaitDelta {
        let mut delta = WaitDelta::default();
        for (tid, now) in &self.times {
            let before = earlier.times.get(tid).copied().unwrap_or_default();
            let wait = now.wait_ns.saturating_sub(before.wait_ns);
            let run = now.run_ns.saturating_sub(before.run_ns);
            delta.wait_ns += wait;
            delta.busiest_thread_demand_ns = delta.busiest_thread_demand_ns.max(run + wait);
        }
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_fields_are_run_and_wait() {
        assert_eq!(
            parse_schedstat("12345 678 9\n"),
            Some(ThreadTimes {
                run_ns: 12345,
                wait_ns: 678
            })
        );
        assert_eq!(parse_schedstat("12345 678"), None);
        assert_eq!(parse_schedstat("a b c"), None);
        assert_eq!(parse_schedstat(""), None);
    }

    #[test]
    fn waits_are_summed_per_thread_and_new_threads_count_whole() {
        let times = |run_ns, wait_ns| ThreadTimes { run_ns, wait_ns };
        let start = ThreadWaits::from_counters([
            (1, times(0, 100)),
            (2, times(0, 5_000)),
            (3, times(0, 7)),
        ]);
        // Thread 3 ended (lost), thread 4 started (counts from 0), thread 2's
        // counter is lower than before (a reused id): it counts 0.
        let end = ThreadWaits::from_counters([
            (1, times(9_000, 1_100)),
            (2, times(50, 4_000)),
            (4, times(10, 250)),
        ]);
        assert_eq!(
            end.since(&start),
            WaitDelta {
                wait_ns: 1_000 + 250,
                busiest_thread_demand_ns: 9_000 + 1_000,
            }
        );
    }

    #[test]
    fn a_thread_kept_from_its_cpu_shows_up_as_wait() {
        let Some(start) = ThreadWaits::read() else {
            eprintln!("skipped: this kernel has no schedstat");
            return;
        };
        // Twice as many spinning threads as CPUs for 200 ms: at least half
        // of them are runnable but not running at any moment.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..2 * cpus)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let end = ThreadWaits::read().unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for spinner in spinners {
            spinner.join().unwrap();
        }
        // cpus threads waiting for 200 ms each would be cpus × 200 ms; at
        // least a quarter of that, whatever else runs on the machine.
        let delta = end.since(&start);
        assert!(delta.wait_ns >= cpus as u64 * 50_000_000, "{delta:?}");
        // A spinner wanted a CPU the whole 200 ms.
        assert!(delta.busiest_thread_demand_ns >= 190_000_000, "{delta:?}");
    }
}
