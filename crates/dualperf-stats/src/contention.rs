//! Contention: was the tool starved of CPU while it measured?
//!
//! A trial measures the network stack only if the measuring threads got
//! the CPU whenever they wanted it. When other programs compete for the
//! same CPUs, the numbers measure the scheduler instead (issue 14: "IPv6 is
//! 367 % faster" from an IPv4 client that received 0.077 cores). From what
//! every trial records, [`classify`] decides whether it was **contended**:
//!
//! * **foreign CPU share**: of the CPUs the tool could run on — the pinned
//!   CPUs when its threads were pinned ([`CpuObservations::pinned`]), else
//!   every CPU of the machine — the share other programs used:
//!   `(user + nice + system) / all jiffies − own CPU time / (wall × CPUs)`,
//!   where *own* is the client process, plus the server process when it
//!   ran as a separate process on the same kernel (counted once when both
//!   ends are one process). Interrupt and softirq time counts as the
//!   tool's (its network work): it is left out of the busy time, unless the
//!   tool's own time exceeds user + system — a kernel without IRQ time
//!   accounting charges softirq work to the task it interrupted — in which
//!   case it is counted on both sides, and the softirq time of a lab's
//!   routers ([`Observations::routers`], their forwarding) on those CPUs
//!   counts as the measured path's. The share is thus a lower bound:
//!   the tool's busy network stack is never taken for another program.
//!   Contended at [`FOREIGN_CPU_RATIO`] (25 %) or more;
//! * **steal**: a hypervisor took [`STEAL_RATIO`] (5 %) or more of the CPU
//!   time;
//! * **CPU pressure** (Linux PSI, `/proc/pressure/cpu` "some"): some task
//!   waited for a CPU during [`PRESSURE_RATIO`] (50 %) or more of the wall
//!   time while other programs used at least [`PRESSURE_FOREIGN_CPU_RATIO`]
//!   (10 %) of the tool's CPUs. Pressure alone is no evidence: two ends
//!   pinned to one CPU make each other wait on every transaction.
//!
//! Involuntary context switches of the measuring process are reported
//! beside the evidence but are not a criterion: ends pinned to one CPU
//! switch more than 100 000 times a second with nobody else around.
//!
//! The foreign share needs to know where the ends ran
//! ([`Observations::placement`]); results written before that was recorded
//! are judged by steal alone.
//!
//! Pure: a trial in, evidence out; docs/metrics.md ("Contention") has the
//! same definitions.

use dualperf_model::observation::{CpuObservations, ProcessCpu, SystemCpu};
use dualperf_model::{
    ContentionCause, ContentionEvidence, ContentionThresholds, EndsPlacement, Observations, Trial,
    TrialOutcome,
};

/// A trial is contended when other programs used at least this share of
/// the CPUs the tool could run on.
pub const FOREIGN_CPU_RATIO: f64 = 0.25;
/// A trial is contended when a hypervisor stole at least this share of CPU time.
pub const STEAL_RATIO: f64 = 0.05;
/// A trial is contended when some task waited for a CPU at least this share
/// of the time …
pub const PRESSURE_RATIO: f64 = 0.50;
/// … while other programs used at least this share of the tool's CPUs.
pub const PRESSURE_FOREIGN_CPU_RATIO: f64 = 0.10;

/// The thresholds, as stored with the analysis.
pub const THRESHOLDS: ContentionThresholds = ContentionThresholds {
    foreign_cpu_ratio: FOREIGN_CPU_RATIO,
    steal_ratio: STEAL_RATIO,
    pressure_ratio: PRESSURE_RATIO,
    pressure_foreign_cpu_ratio: PRESSURE_FOREIGN_CPU_RATIO,
};

/// Every contention figure of one trial, whether or not it crossed a threshold.
pub fn figures(trial: &Trial) -> Option<ContentionEvidence> {
    let TrialOutcome::Ok(observations) = &trial.outcome else {
        return None;
    };
    Some(observation_figures(observations))
}

/// The evidence that `trial` was contended, or `None` when it was not (or
/// failed, or recorded nothing to judge by).
pub fn classify(trial: &Trial) -> Option<ContentionEvidence> {
    let evidence = figures(trial)?;
    let cause = cause(&evidence)?;
    Some(ContentionEvidence { cause, ..evidence })
}

/// The criterion `evidence` meets, the strongest first: steal, the foreign
/// share, then pressure with some foreign use.
pub fn cause(evidence: &ContentionEvidence) -> Option<ContentionCause> {
    let foreign = evidence.foreign_cpu_ratio.unwrap_or(0.0);
    if evidence.steal_ratio.is_some_and(|s| s >= STEAL_RATIO) {
        Some(ContentionCause::Steal)
    } else if foreign >= FOREIGN_CPU_RATIO {
        Some(ContentionCause::ForeignCpu)
    } else if evidence.pressure_ratio.is_some_and(|p| p >= PRESSURE_RATIO)
        && foreign >= PRESSURE_FOREIGN_CPU_RATIO
    {
        Some(ContentionCause::Pressure)
    } else {
        None
    }
}

/// How strong a piece of evidence is, to keep the strongest of several
/// trials: the cause's rank, then the foreign share.
pub fn strength(evidence: &ContentionEvidence) -> (u8, f64) {
    let rank = match cause(evidence) {
        Some(ContentionCause::Steal) => 3,
        Some(ContentionCause::ForeignCpu) => 2,
        Some(ContentionCause::Pressure) => 1,
        None => 0,
    };
    (rank, evidence.foreign_cpu_ratio.unwrap_or(0.0))
}

fn observation_figures(o: &Observations) -> ContentionEvidence {
    let cpu = &o.cpu;
    let machine_cpus = cpu.system.map_or(0, |s| s.cpus);
    let wall_ns = cpu.client.wall_ns;
    let (scope, cpus) = match (&cpu.pinned, pinned_list(o)) {
        (Some(pinned), list) if pinned.cpus > 0 => (Some(*pinned), list),
        _ => (cpu.system, Vec::new()),
    };
    let foreign_cpu_ratio = scope.and_then(|scope| {
        let own = own_cpu_ns(cpu, o.placement?)?;
        foreign_ratio(&scope, own, router_softirq_ns(o, &cpus), wall_ns)
    });
    let pressure_ratio = cpu
        .system
        .and_then(|s| s.pressure_some_us)
        .filter(|_| wall_ns > 0)
        .map(|us| (us as f64 * 1_000.0 / wall_ns as f64).clamp(0.0, 1.0));
    let steal_ratio = cpu.system.and_then(|s| {
        let total = total_jiffies(&s);
        (total > 0).then(|| s.steal as f64 / total as f64)
    });
    let involuntary_switches_per_second =
        (wall_ns > 0).then(|| cpu.client.involuntary_switches as f64 / (wall_ns as f64 / 1e9));
    ContentionEvidence {
        cause: ContentionCause::default(),
        foreign_cpu_ratio,
        cpus,
        machine_cpus,
        pressure_ratio,
        steal_ratio,
        involuntary_switches_per_second,
    }
}

/// The CPUs the tool's threads were pinned to on the client's kernel: the
/// client's, and the server's when both ends share the kernel; sorted,
/// without repeats.
fn pinned_list(o: &Observations) -> Vec<u32> {
    let mut cpus = o.socket.client_cpus.clone();
    if o.placement.is_some_and(EndsPlacement::shares_kernel) {
        cpus.extend(&o.socket.server_cpus);
    }
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// CPU time of the tool on the client's kernel: the client process, plus a
/// separate server process on the same kernel, plus the user-space
/// processes that are part of the measured path (a lab's TAYGA): the
/// path's work is not foreign load.
fn own_cpu_ns(cpu: &CpuObservations, placement: EndsPlacement) -> Option<u64> {
    let busy = |p: &ProcessCpu| p.user_ns + p.system_ns;
    let client = busy(&cpu.client) + cpu.path.as_ref().map_or(0, busy);
    match placement {
        EndsPlacement::SameProcess | EndsPlacement::SeparateKernels => Some(client),
        EndsPlacement::SameKernel => Some(client + cpu.server.as_ref().map_or(0, busy)),
    }
}

/// Softirq time of the lab's routers during the trial (`Observations::routers`)
/// on CPUs inside the scope — all of them when the scope is the whole
/// machine (`pinned` empty), else only routers steered entirely to pinned
/// CPUs. A router's forwarding is the measured path's work, like TAYGA's.
fn router_softirq_ns(o: &Observations, pinned: &[u32]) -> u64 {
    o.routers
        .iter()
        .filter(|router| pinned.is_empty() || router.cpus.iter().all(|c| pinned.contains(c)))
        .map(|router| router.softirq_ns)
        .sum()
}

fn total_jiffies(s: &SystemCpu) -> u64 {
    s.user + s.system + s.irq + s.softirq + s.steal + s.idle
}

/// The share of `scope` other programs used: `(user + system) / all − own`,
/// or, when the tool's own time exceeds user + system (a kernel without IRQ
/// time accounting charges the softirq work it triggers to the running
/// task), `(user + system + irq + softirq) / all − own − routers`, where
/// `routers` is the lab routers' softirq time (their forwarding, which
/// the softirq column holds); clamped to 0..=1. Either way the network
/// stack's interrupt work counts as the tool's.
fn foreign_ratio(scope: &SystemCpu, own_ns: u64, routers_ns: u64, wall_ns: u64) -> Option<f64> {
    let total = total_jiffies(scope);
    if total == 0 || wall_ns == 0 || scope.cpus == 0 {
        return None;
    }
    let share = |jiffies: u64| jiffies as f64 / total as f64;
    let processes = share(scope.user + scope.system);
    let capacity = wall_ns as f64 * f64::from(scope.cpus);
    let own = own_ns as f64 / capacity;
    let foreign = if own > processes {
        share(scope.user + scope.system + scope.irq + scope.softirq)
            - own
            - routers_ns as f64 / capacity
    } else {
        processes - own
    };
    Some(foreign.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::{ok, spec};
    use dualperf_model::{Arm, IpFamily, SocketFacts, TestKind};

    /// A 1 s trial on a 2-CPU machine whose process used `own_ms` of CPU
    /// while the machine's user + system time was `busy_jiffies` of 200.
    fn trial(own_ms: u64, busy_jiffies: u64, placement: Option<EndsPlacement>) -> Trial {
        let observations = Observations {
            cpu: CpuObservations {
                client: ProcessCpu {
                    user_ns: own_ms * 1_000_000,
                    system_ns: 0,
                    wall_ns: 1_000_000_000,
                    involuntary_switches: 250,
                },
                server: None,
                system: Some(SystemCpu {
                    user: busy_jiffies,
                    idle: 200 - busy_jiffies,
                    cpus: 2,
                    ..SystemCpu::default()
                }),
                pinned: None,
                path: None,
            },
            placement,
            ..Observations::default()
        };
        let v4 = Arm::native(IpFamily::V4, None);
        dualperf_fixtures::trial(0, &spec(TestKind::TcpRr, 64), &v4, 0, ok(observations))
    }

    #[test]
    fn a_process_alone_on_the_machine_is_not_contended() {
        // 0.9 of 2 cores busy, 0.9 of them the tool's own.
        let quiet = trial(900, 90, Some(EndsPlacement::SameProcess));
        assert_eq!(classify(&quiet), None);
        let f = figures(&quiet).unwrap();
        assert!(f.foreign_cpu_ratio.unwrap() < 1e-9, "{f:?}");
        assert_eq!(f.involuntary_switches_per_second, Some(250.0));
    }

    #[test]
    fn other_programs_using_a_quarter_of_the_machine_make_it_contended() {
        // 1.5 of 2 cores busy, 0.9 the tool's: others used 0.6 cores = 30 %.
        let busy = trial(900, 150, Some(EndsPlacement::SameProcess));
        let evidence = classify(&busy).unwrap();
        assert_eq!(evidence.cause, ContentionCause::ForeignCpu);
        assert!((evidence.foreign_cpu_ratio.unwrap() - 0.30).abs() < 1e-9);
        assert!(evidence.cpus.is_empty());
        assert_eq!(evidence.machine_cpus, 2);
    }

    #[test]
    fn a_separate_server_on_the_same_kernel_is_the_tools_own_cpu() {
        let mut same_kernel = trial(500, 150, Some(EndsPlacement::SameKernel));
        let TrialOutcome::Ok(o) = &mut same_kernel.outcome else {
            unreachable!()
        };
        o.cpu.server = Some(ProcessCpu {
            user_ns: 400_000_000,
            wall_ns: 1_000_000_000,
            ..ProcessCpu::default()
        });
        let f = figures(&same_kernel).unwrap();
        assert!((f.foreign_cpu_ratio.unwrap() - 0.30).abs() < 1e-9, "{f:?}");
    }

    #[test]
    fn without_a_placement_the_foreign_share_is_unknown_and_steal_still_counts() {
        let old = trial(100, 190, None);
        assert_eq!(figures(&old).unwrap().foreign_cpu_ratio, None);
        assert_eq!(classify(&old), None);
        let mut stolen = trial(100, 100, None);
        let TrialOutcome::Ok(o) = &mut stolen.outcome else {
            unreachable!()
        };
        o.cpu.system.as_mut().unwrap().steal = 20;
        let evidence = classify(&stolen).unwrap();
        assert_eq!(evidence.cause, ContentionCause::Steal);
    }

    #[test]
    fn pinned_cpus_are_judged_on_their_own_counters() {
        // The machine is half idle, but CPU 0, where both ends are pinned,
        // was shared half and half with a spinning program.
        let mut pinned = trial(500, 100, Some(EndsPlacement::SameProcess));
        let TrialOutcome::Ok(o) = &mut pinned.outcome else {
            unreachable!()
        };
        o.socket = SocketFacts {
            client_cpus: vec![0],
            server_cpus: vec![0],
            ..SocketFacts::default()
        };
        o.cpu.pinned = Some(SystemCpu {
            user: 100,
            cpus: 1,
            ..SystemCpu::default()
        });
        let evidence = classify(&pinned).unwrap();
        assert_eq!(evidence.cpus, vec![0]);
        assert!((evidence.foreign_cpu_ratio.unwrap() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_forwarder_on_the_path_is_the_paths_cpu_not_foreign_load() {
        // 60 of 200 jiffies busy (0.6 s of CPU), 0.1 s of it the tool's own:
        // foreign unless the other 0.5 s is the testbed's TAYGA.
        let mut with_tayga = trial(100, 60, Some(EndsPlacement::SameProcess));
        let foreign = figures(&with_tayga).unwrap().foreign_cpu_ratio.unwrap();
        assert!((foreign - 0.25).abs() < 1e-9, "{foreign}");
        if let TrialOutcome::Ok(o) = &mut with_tayga.outcome {
            o.cpu.path = Some(ProcessCpu {
                user_ns: 100_000_000,
                system_ns: 400_000_000,
                wall_ns: 1_000_000_000,
                involuntary_switches: 0,
            });
        }
        let foreign = figures(&with_tayga).unwrap().foreign_cpu_ratio.unwrap();
        assert!(foreign < 1e-9, "{foreign}");
    }

    #[test]
    fn a_lab_routers_softirq_is_the_paths_work_not_foreign_load() {
        // 2 CPUs: user + system 60 jiffies, softirq 80 of 200; the tool used
        // 0.7 s (more than user + system: it was charged softirq work). The
        // routers edge (CPU 1) and core (CPU 0) spent 0.6 s in softirq.
        let mut lab = trial(700, 60, Some(EndsPlacement::SameProcess));
        let TrialOutcome::Ok(o) = &mut lab.outcome else {
            unreachable!()
        };
        o.cpu.system.as_mut().unwrap().softirq = 80;
        o.cpu.system.as_mut().unwrap().idle = 60;
        let foreign = figures(&lab).unwrap().foreign_cpu_ratio.unwrap();
        assert!((foreign - 0.35).abs() < 1e-9, "without routers: {foreign}");
        let TrialOutcome::Ok(o) = &mut lab.outcome else {
            unreachable!()
        };
        for (node, cpu) in [("edge", 1), ("core", 0)] {
            o.routers.push(dualperf_model::RouterCpu {
                node: node.into(),
                cpus: vec![cpu],
                softirq_ns: 300_000_000,
                ksoftirqd_ns: 0,
                wall_ns: 1_000_000_000,
            });
        }
        let foreign = figures(&lab).unwrap().foreign_cpu_ratio.unwrap();
        assert!((foreign - 0.05).abs() < 1e-9, "with routers: {foreign}");
        assert_eq!(classify(&lab), None);
        // Pinned to CPU 0 only: the edge router on CPU 1 is outside the scope.
        let TrialOutcome::Ok(o) = &mut lab.outcome else {
            unreachable!()
        };
        assert_eq!(router_softirq_ns(o, &[0]), 300_000_000);
    }

    #[test]
    fn softirq_charged_to_the_tool_is_not_foreign() {
        // CPU 0 all busy: 80 % user + system, 20 % softirq; the tool's time
        // (which includes the softirq work it triggered) was the whole CPU.
        let mut alone = trial(1000, 100, Some(EndsPlacement::SameProcess));
        let TrialOutcome::Ok(o) = &mut alone.outcome else {
            unreachable!()
        };
        o.socket.client_cpus = vec![0];
        o.cpu.pinned = Some(SystemCpu {
            user: 50,
            system: 30,
            softirq: 20,
            cpus: 1,
            ..SystemCpu::default()
        });
        assert_eq!(figures(&alone).unwrap().foreign_cpu_ratio, Some(0.0));
        // The same CPU where the tool got 70 %: others used at least 10 %
        // (up to 30 % if the softirq time was theirs): the lower bound is
        // kept, so a busy network stack is never taken for contention.
        let TrialOutcome::Ok(o) = &mut alone.outcome else {
            unreachable!()
        };
        o.cpu.client.user_ns = 700_000_000;
        let foreign = figures(&alone).unwrap().foreign_cpu_ratio.unwrap();
        assert!((foreign - 0.1).abs() < 1e-9, "{foreign}");
    }

    #[test]
    fn pressure_counts_only_beside_some_foreign_use() {
        let mut alone = trial(900, 90, Some(EndsPlacement::SameProcess));
        let TrialOutcome::Ok(o) = &mut alone.outcome else {
            unreachable!()
        };
        o.cpu.system.as_mut().unwrap().pressure_some_us = Some(900_000);
        assert_eq!(classify(&alone), None, "self-inflicted waiting");
        let mut shared = trial(900, 115, Some(EndsPlacement::SameProcess));
        let TrialOutcome::Ok(o) = &mut shared.outcome else {
            unreachable!()
        };
        o.cpu.system.as_mut().unwrap().pressure_some_us = Some(900_000);
        let evidence = classify(&shared).unwrap();
        assert_eq!(evidence.cause, ContentionCause::Pressure);
        assert_eq!(evidence.pressure_ratio, Some(0.9));
    }
}
