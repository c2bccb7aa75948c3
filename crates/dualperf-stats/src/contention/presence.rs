//! Presence: did other programs use the CPUs the tool could run on?
//!
//! The figures of the presence criteria (docs/metrics.md, "Contention"):
//! the **foreign CPU share** — of the CPUs the tool could run on (the
//! pinned CPUs when its threads were pinned, else every CPU of the
//! machine), the share other programs used:
//! `(user + nice + system) / all jiffies − own CPU time / (wall × CPUs)`,
//! where *own* is the client process, plus the server process when it ran
//! as a separate process on the same kernel (counted once when both ends
//! are one process). Interrupt and softirq time counts as the tool's (its
//! network work): it is left out of the busy time, unless the tool's own
//! time exceeds user + system — a kernel without IRQ time accounting
//! charges softirq work to the task it interrupted — in which case it is
//! counted on both sides, and the softirq time of a lab's routers
//! ([`Observations::routers`], their forwarding) on those CPUs counts as
//! the measured path's. The share is thus a lower bound: the tool's busy
//! network stack is never taken for another program. Also **steal** and
//! **CPU pressure** (PSI "some") over wall time, and the involuntary
//! context switches of the measuring process.
//!
//! The foreign share needs to know where the ends ran
//! ([`Observations::placement`]); results written before that was
//! recorded have none. Pure.

use dualperf_model::observation::{CpuObservations, ProcessCpu, SystemCpu};
use dualperf_model::{ContentionCause, ContentionEvidence, EndsPlacement, Observations};

/// The presence figures of one trial (the effect figures left empty).
pub(super) fn presence_figures(o: &Observations) -> ContentionEvidence {
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
        ..ContentionEvidence::default()
    }
}

/// The CPUs the tool's threads were pinned to on the client's kernel: the
/// client's, and the server's when both ends share the kernel; sorted,
/// without repeats.
pub(super) fn pinned_list(o: &Observations) -> Vec<u32> {
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
pub(super) fn router_softirq_ns(o: &Observations, pinned: &[u32]) -> u64 {
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
