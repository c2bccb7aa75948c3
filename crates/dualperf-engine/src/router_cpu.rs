//! Router CPU per trial (`dualperf run --router-cpus edge:1,core:0`, set
//! by `dualperf lab` for a testbed whose routers' receive processing it
//! steered to CPUs of their own with RPS): before and after each trial, the
//! softirq time of each router's CPUs (`/proc/stat`, per CPU) and, as the
//! part of it that ran deferred, the CPU time of their `ksoftirqd/N`
//! threads (`/proc/PID/stat`), so that each trial records a [`RouterCpu`]
//! per router. Namespaces share one kernel, so this is everything the
//! kernel did in softirq context on those CPUs during the trial: the
//! steered router's forwarding and anything else that ran there
//! (docs/metrics.md, "Router CPU"). The window is the whole trial, its
//! handshakes and warm-ups included. The binary only parses the flag into
//! a [`RouterCpuMeter`] and hands it to the trial loop.

use std::time::Instant;

use dualperf_model::RouterCpu;

/// A `--router-cpus` entry that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RouterCpuError {
    /// The entry has no `:`.
    #[error("--router-cpus: `{0}` is not NODE:CPU")]
    NotNodeCpu(String),
    /// A CPU after the `:` is not a number.
    #[error("--router-cpus: `{0}`: CPU is not a number")]
    CpuNotANumber(String),
}

/// Which CPUs each router's receive processing was steered to.
#[derive(Clone, Debug, Default)]
pub struct RouterCpuMeter {
    routers: Vec<(String, Vec<u32>)>,
    /// `ksoftirqd/N` pid of every CPU named, found once.
    ksoftirqd: Vec<(u32, i32)>,
    /// Nanoseconds per `/proc` clock tick.
    tick_ns: u64,
}

/// Counters at one instant.
pub struct Snapshot {
    at: Instant,
    /// Per router: (softirq ns, ksoftirqd ns).
    values: Vec<(u64, u64)>,
}

impl RouterCpuMeter {
    /// From `--router-cpus` entries `NODE:CPU[+CPU…]`.
    ///
    /// # Errors
    /// An entry that is not `NODE:CPU[+CPU…]`.
    pub fn parse(entries: &[String]) -> Result<RouterCpuMeter, RouterCpuError> {
        let mut routers = Vec::new();
        for entry in entries {
            let Some((node, cpus)) = entry.split_once(':') else {
                return Err(RouterCpuError::NotNodeCpu(entry.clone()));
            };
            let cpus = cpus
                .split('+')
                .map(|c| c.parse::<u32>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| RouterCpuError::CpuNotANumber(entry.clone()))?;
            routers.push((node.to_string(), cpus));
        }
        let ksoftirqd = routers
            .iter()
            .flat_map(|(_, cpus)| cpus.iter().copied())
            .filter_map(|cpu| ksoftirqd_pid(cpu).map(|pid| (cpu, pid)))
            .collect();
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let tick_ns = if hz > 0 {
            1_000_000_000 / hz as u64
        } else {
            10_000_000
        };
        Ok(RouterCpuMeter {
            routers,
            ksoftirqd,
            tick_ns,
        })
    }

    /// True when no router is watched.
    pub fn is_empty(&self) -> bool {
        self.routers.is_empty()
    }

    /// The counters now.
    pub fn sample(&self) -> Snapshot {
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let softirq = per_cpu_softirq_ticks(&stat);
        let values = self
            .routers
            .iter()
            .map(|(_, cpus)| {
                let mut soft = 0;
                let mut thread = 0;
                for cpu in cpus {
                    soft += softirq
                        .iter()
                        .find(|(c, _)| c == cpu)
                        .map_or(0, |(_, t)| *t);
                    if let Some((_, pid)) = self.ksoftirqd.iter().find(|(c, _)| c == cpu) {
                        thread += pid_ticks(*pid).unwrap_or(0);
                    }
                }
                (soft * self.tick_ns, thread * self.tick_ns)
            })
            .collect();
        Snapshot {
            at: Instant::now(),
            values,
        }
    }

    /// Each router's CPU since `before`.
    pub fn since(&self, before: &Snapshot) -> Vec<RouterCpu> {
        let now = self.sample();
        let wall_ns = u64::try_from(now.at.duration_since(before.at).as_nanos()).unwrap_or(0);
        self.routers
            .iter()
            .zip(now.values.iter().zip(&before.values))
            .map(|((node, cpus), (after, before))| RouterCpu {
                node: node.clone(),
                cpus: cpus.clone(),
                softirq_ns: after.0.saturating_sub(before.0),
                ksoftirqd_ns: after.1.saturating_sub(before.1),
                wall_ns,
            })
            .collect()
    }
}

/// (cpu, softirq ticks) of every `cpuN` line of `/proc/stat` (the 7th
/// value: user nice system idle iowait irq softirq …).
fn per_cpu_softirq_ticks(stat: &str) -> Vec<(u32, u64)> {
    stat.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let cpu: u32 = words.next()?.strip_prefix("cpu")?.parse().ok()?;
            let softirq: u64 = words.nth(6)?.parse().ok()?;
            Some((cpu, softirq))
        })
        .collect()
}

/// The pid of `ksoftirqd/CPU`.
fn ksoftirqd_pid(cpu: u32) -> Option<i32> {
    let want = format!("ksoftirqd/{cpu}");
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let comm = std::fs::read_to_string(entry.path().join("comm")).ok()?;
            (comm.trim() == want).then_some(pid)
        })
}

/// utime + stime of `pid`, clock ticks (`/proc/PID/stat` fields 14 and 15).
fn pid_ticks(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command may hold spaces; fields count from after its `)`.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softirq_is_the_seventh_value_of_each_cpu_line() {
        let stat = "cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 10 0 0 0 0 0 70 0 0 0\ncpu1 10 0 0 0 0 0 71 0 0 0\nintr 5\n";
        assert_eq!(per_cpu_softirq_ticks(stat), vec![(0, 70), (1, 71)]);
    }

    #[test]
    fn entries_name_a_node_and_its_cpus_and_the_meter_counts_this_host() {
        let meter = RouterCpuMeter::parse(&["edge:1".into(), "core:0+1".into()]).unwrap();
        assert_eq!(
            RouterCpuMeter::parse(&["edge".into()]).unwrap_err(),
            RouterCpuError::NotNodeCpu("edge".into())
        );
        assert!(RouterCpuMeter::parse(&["edge:x".into()]).is_err());
        let before = meter.sample();
        let cpu = meter.since(&before);
        assert_eq!(cpu.len(), 2);
        assert_eq!(
            (cpu[1].node.as_str(), cpu[1].cpus.clone()),
            ("core", vec![0, 1])
        );
        assert!(ksoftirqd_pid(0).is_some(), "ksoftirqd/0 exists on Linux");
        assert!(pid_ticks(std::process::id() as i32).is_some());
    }
}
