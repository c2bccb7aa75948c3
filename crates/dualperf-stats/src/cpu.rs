//! CPU cost of a trial: per-process utilisation, system-wide busy share and
//! softirq share, and service demand (CPU time per MiB moved).
//!
//! * **Process utilisation**: (user + system CPU time) / wall time, in CPU
//!   cores (1.0 = one core fully busy; more than 1 with parallel threads).
//! * **System busy ratio**: (user + nice + system + irq + softirq + steal) /
//!   all jiffies, from `/proc/stat` deltas. Much of the network stack runs
//!   in softirq outside any process, so the **softirq share** (softirq / all
//!   jiffies) is reported too. In a namespace lab every node shares these
//!   CPUs.
//! * **Service demand** (netperf's term): CPU microseconds per MiB
//!   (2^20 bytes) of application data delivered to the receiver, at each
//!   end. Lets the two stacks be compared on cost where both saturate.

use dualperf_model::observation::{ProcessCpu, SystemCpu};

/// Bytes per MiB.
const BYTES_PER_MIB: f64 = 1_048_576.0;

/// CPU cores a process kept busy: (user + system) / wall; `None` for zero wall time.
pub fn process_cpu_cores(cpu: &ProcessCpu) -> Option<f64> {
    (cpu.wall_ns > 0).then(|| (cpu.user_ns + cpu.system_ns) as f64 / cpu.wall_ns as f64)
}

/// Busy share of all CPUs, 0..=1; `None` when no jiffies elapsed.
pub fn system_busy_ratio(cpu: &SystemCpu) -> Option<f64> {
    let busy = cpu.user + cpu.system + cpu.irq + cpu.softirq + cpu.steal;
    let total = busy + cpu.idle;
    (total > 0).then(|| busy as f64 / total as f64)
}

/// Softirq share of all CPU time, 0..=1; `None` when no jiffies elapsed.
pub fn softirq_ratio(cpu: &SystemCpu) -> Option<f64> {
    let total = cpu.user + cpu.system + cpu.irq + cpu.softirq + cpu.steal + cpu.idle;
    (total > 0).then(|| cpu.softirq as f64 / total as f64)
}

/// CPU microseconds per MiB of `bytes_moved`; `None` when nothing moved.
pub fn service_demand_us_per_mib(cpu: &ProcessCpu, bytes_moved: u64) -> Option<f64> {
    (bytes_moved > 0).then(|| {
        let cpu_us = (cpu.user_ns + cpu.system_ns) as f64 / 1_000.0;
        cpu_us / (bytes_moved as f64 / BYTES_PER_MIB)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_utilisation_is_cpu_time_over_wall_time() {
        let cpu = ProcessCpu {
            user_ns: 200_000_000,
            system_ns: 550_000_000,
            wall_ns: 1_000_000_000,
            involuntary_switches: 0,
            run_queue_wait_ns: None,
            busiest_thread_demand_ns: None,
        };
        assert_eq!(process_cpu_cores(&cpu), Some(0.75));
        assert_eq!(process_cpu_cores(&ProcessCpu::default()), None);
    }

    #[test]
    fn system_shares_count_softirq_as_busy() {
        let cpu = SystemCpu {
            user: 10,
            system: 20,
            irq: 5,
            softirq: 15,
            steal: 0,
            idle: 150,
            cpus: 2,
            pressure_some_us: None,
        };
        assert_eq!(system_busy_ratio(&cpu), Some(0.25));
        assert_eq!(softirq_ratio(&cpu), Some(0.075));
    }

    #[test]
    fn service_demand_is_cpu_microseconds_per_mib() {
        // 0.5 s of CPU for 1 GiB = 500 000 µs / 1024 MiB = 488.28125 µs/MiB.
        let cpu = ProcessCpu {
            user_ns: 100_000_000,
            system_ns: 400_000_000,
            wall_ns: 1,
            involuntary_switches: 0,
            run_queue_wait_ns: None,
            busiest_thread_demand_ns: None,
        };
        assert_eq!(service_demand_us_per_mib(&cpu, 1 << 30), Some(488.281_25));
        assert_eq!(service_demand_us_per_mib(&cpu, 0), None);
    }
}
