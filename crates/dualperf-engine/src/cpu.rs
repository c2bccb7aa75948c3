//! CPU use over a measured interval: the measuring process's own CPU time
//! (`getrusage(2)`) and the whole system's (`/proc/stat`, `proc(5)`).
//!
//! Both are needed. The process figure says what the tool itself costs (and,
//! divided by bytes moved, the "service demand" of each stack). The
//! system-wide figure catches the network stack's work that runs in softirq
//! context outside any process: on a veth pair the receiver's softirq often
//! runs on the *sender's* CPU and is charged to whoever happened to be
//! running there.
//!
//! The process figure carries the run-queue wait of the process's
//! threads too ([`crate::schedstat`]): whether the tool itself waited for
//! a CPU.
//!
//! A [`CpuMeter`] takes a snapshot when started and returns deltas when
//! finished; it does no work in between, so it costs nothing in the timed
//! path. The `/proc/stat` parsing is a pure function ([`parse_proc_stat`])
//! tested on a known text.

use std::time::Instant;

use dualperf_model::{ProcessCpu, SystemCpu};

use crate::schedstat::ThreadWaits;

/// Cumulative CPU times from the aggregate `cpu` line of `/proc/stat`, in
/// jiffies (`USER_HZ`, normally 1/100 s), plus the number of per-CPU lines.
///
/// Field order of the line (see `proc(5)`, "/proc/stat"): user, nice,
/// system, idle, iowait, irq, softirq, steal, guest, guest_nice. Guest time
/// is already included in user and nice, so it is not added again.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct CpuJiffies {
    /// Time in user mode.
    pub user: u64,
    /// Time in user mode with low priority.
    pub nice: u64,
    /// Time in kernel mode.
    pub system: u64,
    /// Time idle.
    pub idle: u64,
    /// Time idle waiting for I/O (may decrease on some kernels: not reliable).
    pub iowait: u64,
    /// Time servicing hardware interrupts.
    pub irq: u64,
    /// Time servicing softirqs (most of the network receive path).
    pub softirq: u64,
    /// Time stolen by the hypervisor.
    pub steal: u64,
    /// Number of `cpuN` lines: the CPUs the aggregate covers.
    pub cpus: u32,
}

impl CpuJiffies {
    /// The change from `earlier` to `self`, in the model's shape. Each field
    /// saturates at 0 because iowait can go backwards (see `proc(5)`).
    pub fn since(&self, earlier: &CpuJiffies) -> SystemCpu {
        SystemCpu {
            user: (self.user + self.nice).saturating_sub(earlier.user + earlier.nice),
            system: self.system.saturating_sub(earlier.system),
            irq: self.irq.saturating_sub(earlier.irq),
            softirq: self.softirq.saturating_sub(earlier.softirq),
            steal: self.steal.saturating_sub(earlier.steal),
            idle: (self.idle + self.iowait).saturating_sub(earlier.idle + earlier.iowait),
            cpus: self.cpus,
            pressure_some_us: None,
        }
    }
}

/// Parses the text of `/proc/stat`: the first line starting with `cpu `
/// (the sum over all CPUs) and the count of `cpuN` lines.
///
/// Returns `None` when there is no aggregate line or it has fewer than the
/// four fields every kernel since 2.4 writes. Fields a kernel does not
/// write (iowait before 2.6, steal before 2.6.11) count as 0.
pub fn parse_proc_stat(text: &str) -> Option<CpuJiffies> {
    let mut aggregate = None;
    let mut cpus = 0u32;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("cpu") else {
            continue;
        };
        if rest.starts_with(' ') {
            if aggregate.is_none() {
                let fields: Vec<u64> = rest
                    .split_whitespace()
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .ok()?;
                if fields.len() < 4 {
                    return None;
                }
                let field = |i: usize| fields.get(i).copied().unwrap_or(0);
                aggregate = Some(CpuJiffies {
                    user: field(0),
                    nice: field(1),
                    system: field(2),
                    idle: field(3),
                    iowait: field(4),
                    irq: field(5),
                    softirq: field(6),
                    steal: field(7),
                    cpus: 0,
                });
            }
        } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
            cpus += 1;
        }
    }
    aggregate.map(|jiffies| CpuJiffies { cpus, ..jiffies })
}

/// Parses the `cpuN` lines of `/proc/stat` for the CPUs in `cpus` and sums
/// them; `cpus` of the result counts the lines found. `None` when none of
/// them is there (or `cpus` is empty).
pub fn parse_proc_stat_cpus(text: &str, cpus: &[u32]) -> Option<CpuJiffies> {
    let mut sum: Option<CpuJiffies> = None;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("cpu") else {
            continue;
        };
        let Some((number, fields)) = rest.split_once(' ') else {
            continue;
        };
        let Ok(number) = number.parse::<u32>() else {
            continue;
        };
        if !cpus.contains(&number) {
            continue;
        }
        let fields: Vec<u64> = fields
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        if fields.len() < 4 {
            return None;
        }
        let field = |i: usize| fields.get(i).copied().unwrap_or(0);
        let total = sum.get_or_insert_with(CpuJiffies::default);
        total.user += field(0);
        total.nice += field(1);
        total.system += field(2);
        total.idle += field(3);
        total.iowait += field(4);
        total.irq += field(5);
        total.softirq += field(6);
        total.steal += field(7);
        total.cpus += 1;
    }
    sum
}

/// Reads and parses `/proc/stat` now; `None` if it cannot be read or parsed
/// (for example outside Linux or without `/proc` mounted).
pub fn read_proc_stat() -> Option<CpuJiffies> {
    read_proc_stat_with(&[]).0
}

/// Reads `/proc/stat` once: the aggregate, and the sum over `cpus` (`None`
/// when `cpus` is empty).
fn read_proc_stat_with(cpus: &[u32]) -> (Option<CpuJiffies>, Option<CpuJiffies>) {
    let Ok(text) = std::fs::read_to_string("/proc/stat") else {
        return (None, None);
    };
    (parse_proc_stat(&text), parse_proc_stat_cpus(&text, cpus))
}

/// User and system CPU time of the whole process (all threads), nanoseconds,
/// from `getrusage(RUSAGE_SELF)`.
pub fn process_cpu_ns() -> (u64, u64) {
    let (user, system, _) = process_usage();
    (user, system)
}

/// User ns, system ns and involuntary context switches of the whole process.
fn process_usage() -> (u64, u64, u64) {
    // SAFETY: an all-zero rusage is valid and getrusage only writes into it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        // RUSAGE_SELF with a valid pointer cannot fail (getrusage(2)); report
        // nothing used rather than panic in a meter.
        return (0, 0, 0);
    }
    (
        timeval_ns(&usage.ru_utime),
        timeval_ns(&usage.ru_stime),
        u64::try_from(usage.ru_nivcsw).unwrap_or(0),
    )
}

/// User and system CPU time of process `pid`, nanoseconds, from fields 14
/// and 15 of `/proc/PID/stat` (clock ticks, `proc(5)`); `None` when the
/// process is gone or the file unreadable.
pub fn pid_cpu_ns(pid: i32) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_pid_stat_cpu(&text, clock_ticks_per_second())
}

/// Fields 14 (utime) and 15 (stime) of a `/proc/PID/stat` line as
/// nanoseconds; the command name (field 2) may hold spaces and parentheses,
/// so fields are counted after its closing `)`.
pub fn parse_pid_stat_cpu(text: &str, ticks_per_second: u64) -> Option<(u64, u64)> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ")": field 3 is fields[0], so utime (14) is fields[11], stime (15) fields[12].
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    let per_tick = 1_000_000_000 / ticks_per_second.max(1);
    Some((ticks(11)? * per_tick, ticks(12)? * per_tick))
}

fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf reads a constant and touches no memory.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|&t| t > 0).unwrap_or(100)
}

/// The "some" total of `/proc/pressure/cpu` (Linux PSI), microseconds: the
/// time at least one runnable task waited for a CPU since boot.
///
/// ```text
/// some avg10=0.00 avg60=0.00 avg300=0.00 total=123456
/// full avg10=0.00 avg60=0.00 avg300=0.00 total=0
/// ```
pub fn parse_cpu_pressure(text: &str) -> Option<u64> {
    text.lines()
        .find(|line| line.starts_with("some "))?
        .split_whitespace()
        .find_map(|field| field.strip_prefix("total="))?
        .parse()
        .ok()
}

/// Reads `/proc/pressure/cpu` now; `None` without PSI.
pub fn read_cpu_pressure() -> Option<u64> {
    std::fs::read_to_string("/proc/pressure/cpu")
        .ok()
        .as_deref()
        .and_then(parse_cpu_pressure)
}

/// A `timeval` (seconds, microseconds) as nanoseconds, negative parts as 0.
fn timeval_ns(tv: &libc::timeval) -> u64 {
    let seconds = u64::try_from(tv.tv_sec).unwrap_or(0);
    let micros = u64::try_from(tv.tv_usec).unwrap_or(0);
    seconds * 1_000_000_000 + micros * 1_000
}

/// Measures CPU use between [`CpuMeter::start`] and [`CpuMeter::finish`].
///
/// Process CPU covers every thread of this process (`RUSAGE_SELF`), so start
/// the meter around the measured interval only and keep unrelated work out
/// of the process while it runs. Wall time uses the monotonic clock.
#[derive(Clone, Debug)]
pub struct CpuMeter {
    started: Instant,
    user_ns: u64,
    system_ns: u64,
    involuntary_switches: u64,
    system: Option<CpuJiffies>,
    pressure_us: Option<u64>,
    /// CPUs whose own counters are kept (the measuring threads' pinned CPUs).
    watched: Vec<u32>,
    watched_start: Option<CpuJiffies>,
    /// Run-queue wait of every thread at the start (`None` without schedstat).
    waits: Option<ThreadWaits>,
}

/// What a [`CpuMeter`] measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuDeltas {
    /// This process.
    pub process: ProcessCpu,
    /// Every CPU (`/proc/stat` aggregate), with CPU pressure.
    pub system: Option<SystemCpu>,
    /// The watched CPUs only (see [`CpuMeter::start_watching`]).
    pub watched: Option<SystemCpu>,
}

impl CpuMeter {
    /// Takes the starting snapshot: process times, monotonic time, and
    /// `/proc/stat` (if readable).
    pub fn start() -> CpuMeter {
        CpuMeter::start_watching(&[])
    }

    /// [`CpuMeter::start`], also keeping the counters of `cpus` on their
    /// own (the CPUs the measuring threads are pinned to: whether other
    /// programs ran there is what contention detection needs).
    pub fn start_watching(cpus: &[u32]) -> CpuMeter {
        let (system, watched_start) = read_proc_stat_with(cpus);
        let pressure_us = read_cpu_pressure();
        let (user_ns, system_ns, involuntary_switches) = process_usage();
        let waits = ThreadWaits::read();
        CpuMeter {
            waits,
            started: Instant::now(),
            user_ns,
            system_ns,
            involuntary_switches,
            system,
            pressure_us,
            watched: cpus.to_vec(),
            watched_start,
        }
    }

    /// CPU used since [`CpuMeter::start`]: the process's user and system
    /// nanoseconds over the elapsed wall nanoseconds, and system-wide jiffy
    /// deltas (`None` when `/proc/stat` could not be read at either end).
    /// May be called more than once; each call measures from the start.
    pub fn finish(&self) -> (ProcessCpu, Option<SystemCpu>) {
        let deltas = self.finish_all();
        (deltas.process, deltas.system)
    }

    /// [`CpuMeter::finish`] with the watched CPUs' own deltas.
    pub fn finish_all(&self) -> CpuDeltas {
        let wall_ns = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let (user_ns, system_ns, involuntary_switches) = process_usage();
        let waits = match (&self.waits, ThreadWaits::read()) {
            (Some(start), Some(end)) => Some(end.since(start)),
            _ => None,
        };
        let pressure = match (self.pressure_us, read_cpu_pressure()) {
            (Some(start), Some(end)) => Some(end.saturating_sub(start)),
            _ => None,
        };
        let (system_end, watched_end) = read_proc_stat_with(&self.watched);
        let system = match (self.system, system_end) {
            (Some(start), Some(end)) => Some(SystemCpu {
                pressure_some_us: pressure,
                ..end.since(&start)
            }),
            _ => None,
        };
        let watched = match (self.watched_start, watched_end) {
            (Some(start), Some(end)) if start.cpus == end.cpus => Some(end.since(&start)),
            _ => None,
        };
        CpuDeltas {
            process: ProcessCpu {
                user_ns: user_ns.saturating_sub(self.user_ns),
                system_ns: system_ns.saturating_sub(self.system_ns),
                wall_ns,
                involuntary_switches: involuntary_switches
                    .saturating_sub(self.involuntary_switches),
                run_queue_wait_ns: waits.map(|w| w.wait_ns),
                busiest_thread_demand_ns: waits.map(|w| w.busiest_thread_demand_ns),
            },
            system,
            watched,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pid_stat_line_gives_user_and_system_time_even_with_odd_names() {
        let line =
            "4242 (tay ga (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 1 0 12345 0 0";
        assert_eq!(
            parse_pid_stat_cpu(line, 100),
            Some((2_500_000_000, 750_000_000))
        );
        assert_eq!(parse_pid_stat_cpu("garbage", 100), None);
        let own = pid_cpu_ns(i32::try_from(std::process::id()).unwrap());
        assert!(own.is_some());
    }

    #[test]
    fn cpu_pressure_reads_the_some_total() {
        let text = "some avg10=1.50 avg60=0.20 avg300=0.05 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=7\n";
        assert_eq!(parse_cpu_pressure(text), Some(123_456));
        assert_eq!(parse_cpu_pressure("garbage"), None);
    }

    #[test]
    fn a_busy_loop_beside_the_meter_counts_involuntary_switches_and_pressure() {
        let meter = CpuMeter::start();
        // Three spinning threads on this machine's CPUs force the scheduler
        // to take CPUs away from somebody for a while.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..3)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for spinner in spinners {
            spinner.join().unwrap();
        }
        let (process, system) = meter.finish();
        // Two spinners for 300 ms: well over 30 ms of user time even when
        // other work shares the machine's CPUs.
        assert!(process.user_ns > 30_000_000, "{process:?}");
        if std::thread::available_parallelism().map_or(1, |n| n.get()) < 3 {
            assert!(process.involuntary_switches > 0, "{process:?}");
        }
        if read_cpu_pressure().is_some() {
            assert!(system.and_then(|s| s.pressure_some_us).is_some());
        }
    }

    /// A /proc/stat from a 2-CPU machine (trimmed after `intr`).
    const PROC_STAT: &str = "\
cpu  10132153 290696 3084719 46828483 16683 0 25195 7 0 0
cpu0 1393280 32966 572056 13343292 6130 0 17875 3 0 0
cpu1 1335405 31521 567939 13470390 4120 0 4432 4 0 0
intr 199292750 34 0 0 0 0 0 0 0 1 0 0 0 0
ctxt 404338930
";

    #[test]
    fn the_lines_of_chosen_cpus_are_summed_on_their_own() {
        let cpu1 = parse_proc_stat_cpus(PROC_STAT, &[1]).unwrap();
        assert_eq!((cpu1.user, cpu1.idle, cpu1.cpus), (1335405, 13470390, 1));
        let both = parse_proc_stat_cpus(PROC_STAT, &[0, 1, 7]).unwrap();
        assert_eq!(
            (both.user, both.softirq, both.cpus),
            (1393280 + 1335405, 17875 + 4432, 2)
        );
        assert_eq!(parse_proc_stat_cpus(PROC_STAT, &[]), None);
        assert_eq!(parse_proc_stat_cpus(PROC_STAT, &[5]), None);
    }

    #[test]
    fn aggregate_line_and_cpu_count_are_parsed() {
        let jiffies = parse_proc_stat(PROC_STAT).unwrap();
        assert_eq!(
            jiffies,
            CpuJiffies {
                user: 10132153,
                nice: 290696,
                system: 3084719,
                idle: 46828483,
                iowait: 16683,
                irq: 0,
                softirq: 25195,
                steal: 7,
                cpus: 2,
            }
        );
    }

    #[test]
    fn deltas_fold_nice_into_user_and_iowait_into_idle() {
        let start = parse_proc_stat(PROC_STAT).unwrap();
        let end = CpuJiffies {
            user: start.user + 100,
            nice: start.nice + 5,
            system: start.system + 40,
            idle: start.idle + 50,
            iowait: start.iowait + 2,
            irq: start.irq + 1,
            softirq: start.softirq + 30,
            steal: start.steal + 3,
            cpus: 2,
        };
        assert_eq!(
            end.since(&start),
            SystemCpu {
                user: 105,
                system: 40,
                irq: 1,
                softirq: 30,
                steal: 3,
                idle: 52,
                cpus: 2,
                pressure_some_us: None,
            }
        );
    }

    #[test]
    fn iowait_going_backwards_does_not_underflow() {
        let start = CpuJiffies {
            idle: 10,
            iowait: 10,
            ..Default::default()
        };
        let end = CpuJiffies {
            idle: 10,
            iowait: 5,
            ..Default::default()
        };
        assert_eq!(end.since(&start).idle, 0);
    }

    #[test]
    fn old_kernels_with_four_fields_parse_with_zeros() {
        let jiffies = parse_proc_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!(jiffies.idle, 4);
        assert_eq!(jiffies.steal, 0);
        assert_eq!(jiffies.cpus, 1);
    }

    #[test]
    fn text_without_an_aggregate_line_is_rejected() {
        assert_eq!(parse_proc_stat("intr 1 2 3\n"), None);
        assert_eq!(parse_proc_stat("cpu 1 2\n"), None);
        assert_eq!(parse_proc_stat("cpu 1 two 3 4\n"), None);
    }

    #[test]
    fn this_machines_proc_stat_parses() {
        let jiffies = read_proc_stat().expect("Linux has /proc/stat");
        assert!(jiffies.cpus >= 1);
        assert!(jiffies.user + jiffies.system + jiffies.idle > 0);
    }

    /// CPU time of the calling thread alone (CLOCK_THREAD_CPUTIME_ID), ns:
    /// an independent clock to check the meter against.
    fn thread_cpu_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[test]
    fn busy_loop_shows_up_as_process_cpu_time() {
        let meter = CpuMeter::start();
        let spin_from = thread_cpu_ns();
        let mut x = 0u64;
        // Spin until this thread alone has used 30 ms of CPU, however busy
        // the machine is.
        while thread_cpu_ns() - spin_from < 30_000_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let (process, system) = meter.finish();
        // getrusage accounts at tick/scheduler granularity: allow 5 ms slack.
        assert!(
            process.user_ns + process.system_ns >= 25_000_000,
            "{process:?}"
        );
        assert!(process.wall_ns >= 30_000_000, "{process:?}");
        let system = system.expect("/proc/stat readable");
        assert!(system.cpus >= 1);
        assert!(system.user + system.system + system.idle + system.softirq > 0);
    }
}
