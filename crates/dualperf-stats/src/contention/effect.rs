//! Effect: was the tool itself delayed by the scheduler, enough to matter
//! for what the trial measures?
//!
//! The figures of the effect criteria (docs/metrics.md, "Contention"):
//!
//! * **run-queue wait ratio**: the time the tool's own threads were
//!   runnable but waited for a CPU ([`dualperf_model::ProcessCpu::run_queue_wait_ns`]:
//!   the client's, plus the server's when it is a separate process, on
//!   this kernel or another) over the trial's wall time. A thread that
//!   waited could not send or receive meanwhile, so this bounds from above
//!   the share of the interval the scheduler could have taken from a
//!   throughput figure (threads that waited at once count twice: an upper
//!   bound, never an underestimate) — when the tool was CPU-bound;
//! * **busiest thread demand**: running + waiting of the tool's busiest
//!   thread over the wall time ([`dualperf_model::ProcessCpu::busiest_thread_demand_ns`],
//!   the larger of the two ends). Near 1 the thread was CPU-bound: every
//!   wait cost throughput. Well below 1 it spent the rest blocked on its
//!   socket, ahead of the network, and the socket buffers absorbed its
//!   waits: beside two nice-19 spinners and a busy compiler, a 60 Mbit/s
//!   shaped TCP stream's threads waited 0.4–80 % of the time (summed over
//!   threads) with the goodput steady within 2 % while the busiest thread
//!   wanted a CPU 1–43 % of the time; in the one trial where it wanted one
//!   73 % of the time (its threads waiting 305 %), the goodput fell 10 %;
//! * **wait per transaction ratio** (rr, tcp-connect): the part of that
//!   wait not covered by the tool's own CPU time, `max(0, wait − CPU time
//!   of the tool's processes)`, over the summed transaction times — per
//!   transaction, over the mean transaction time. A ping-pong waits on
//!   every transaction by design: the woken end waits while the waking end
//!   finishes its send (measured here: 55 % of a 15 µs loopback round trip
//!   on a quiet machine, pinned or not). That wait overlaps the tool's own
//!   running; a wait beyond the tool's whole CPU time happened while
//!   something else held the CPU (0 on a quiet machine; 41–45 % of the
//!   round trip beside two spinning threads on the tool's CPU, which made
//!   the round trip 3.7 times as long);
//! * **pacer stall and owed ratios** (paced udp-stream): the sender's
//!   longest stall over the measured interval, and the datagrams it still
//!   owed at the end over those it sent ([`PacerSchedule`]).
//!
//! Pure.

use dualperf_model::{
    ContentionEvidence, EndsPlacement, Observations, PacerSchedule, TestKind, TestSpec,
};

/// Fills the effect figures of `evidence` from `o`, a trial of `spec`.
pub(super) fn add_effect_figures(
    spec: &TestSpec,
    o: &Observations,
    evidence: &mut ContentionEvidence,
) {
    let wall_ns = o.cpu.client.wall_ns;
    let wait_ns = tool_run_queue_wait_ns(o);
    evidence.run_queue_wait_ns = wait_ns;
    evidence.run_queue_wait_ratio = wait_ns
        .filter(|_| wall_ns > 0)
        .map(|wait| wait as f64 / wall_ns as f64);
    evidence.busiest_thread_demand_ratio = busiest_thread_demand_ns(o)
        .filter(|_| wall_ns > 0)
        .map(|demand| demand as f64 / wall_ns as f64);
    if is_transaction_kind(spec.kind) {
        evidence.wait_per_transaction_ratio = wait_ns.and_then(|wait| {
            let latency = o.latency.as_ref().filter(|l| l.count > 0 && l.sum_ns > 0)?;
            let uncovered = wait.saturating_sub(tool_cpu_ns(o));
            Some(uncovered as f64 / latency.sum_ns as f64)
        });
    }
    if let Some(pacer) = paced_schedule(spec, o) {
        let measured_ns = o.measured_ns.max(1) as f64;
        evidence.pacer_stall_ratio = Some(pacer.longest_stall_ns as f64 / measured_ns);
        evidence.pacer_owed_ratio =
            Some(pacer.owed_datagrams as f64 / pacer.sent_datagrams.max(1) as f64);
    }
}

/// The kinds whose headline is a transaction time (round trip or
/// connection setup), judged by the wait per transaction.
pub fn is_transaction_kind(kind: TestKind) -> bool {
    matches!(
        kind,
        TestKind::TcpRr | TestKind::UdpRr | TestKind::TcpConnect
    )
}

/// The schedule of a paced trial: a udp-stream with a rate whose sender
/// recorded one.
fn paced_schedule(spec: &TestSpec, o: &Observations) -> Option<PacerSchedule> {
    (spec.kind == TestKind::UdpStream && spec.rate.is_some())
        .then_some(o.pacer)
        .flatten()
}

/// Run-queue wait of the tool's threads: the client process's, plus the
/// server process's unless both ends are one process (then the client's
/// figure already covers the server's threads). `None` when the client's
/// is unknown; a separate server that did not report its own (an older
/// dualperf, another peer) adds nothing.
pub(super) fn tool_run_queue_wait_ns(o: &Observations) -> Option<u64> {
    let client = o.cpu.client.run_queue_wait_ns?;
    let server = match o.placement {
        Some(EndsPlacement::SameProcess) => 0,
        _ => o.cpu.server.and_then(|s| s.run_queue_wait_ns).unwrap_or(0),
    };
    Some(client + server)
}

/// Running + waiting of the tool's busiest thread: the larger of the
/// client's and a separate server's. `None` when the client's is unknown.
fn busiest_thread_demand_ns(o: &Observations) -> Option<u64> {
    let client = o.cpu.client.busiest_thread_demand_ns?;
    let server = match o.placement {
        Some(EndsPlacement::SameProcess) => 0,
        _ => o
            .cpu
            .server
            .and_then(|s| s.busiest_thread_demand_ns)
            .unwrap_or(0),
    };
    Some(client.max(server))
}

/// CPU time (user + system) of the tool's processes, counted like
/// [`tool_run_queue_wait_ns`]: the client's, plus a separate server's.
fn tool_cpu_ns(o: &Observations) -> u64 {
    let busy = |p: &dualperf_model::ProcessCpu| p.user_ns + p.system_ns;
    let server = match o.placement {
        Some(EndsPlacement::SameProcess) => 0,
        _ => o.cpu.server.as_ref().map_or(0, busy),
    };
    busy(&o.cpu.client) + server
}
