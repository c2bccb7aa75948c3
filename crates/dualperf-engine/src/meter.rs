//! Counting without statistics: each flow adds to its own [`FlowMeter`]
//! (relaxed atomics, one cache line per flow), and one sampler thread per
//! end reads them on a schedule, moves the shared [`Phase`] from warm-up to
//! measured to done, and turns counter differences into
//! [`IntervalSample`]s. Socket loops never compute anything but sums.
//!
//! The interval series count what the path carried where the flow can say
//! so ([`carried`]: a TCP socket's own byte counters, read by the sampler
//! at each boundary); the measured totals count what the application
//! wrote and read.

pub mod arrivals;
pub mod carried;

pub use arrivals::{apply_arrivals, ArrivalGrid, ArrivalSeries};
pub use carried::{CarriedBy, CarriedCounting};

use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed, Ordering::SeqCst,
};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dualperf_model::{FlowCounters, IntervalSample, ProcessCpu, SystemCpu};

use crate::cpu::CpuMeter;

/// Where a test is in time, shared by the flows of one end.
#[derive(Debug, Default)]
pub struct Phase {
    state: AtomicU8,
    halt: AtomicBool,
    /// Senders still short of their send budget's share (budgeted trials).
    budget_senders: AtomicU32,
    /// Every sender has sent its share: the measured interval ends now.
    budget_spent: AtomicBool,
    /// The sampler's interval grid, set when the measured interval begins.
    grid: std::sync::OnceLock<ArrivalGrid>,
}

/// Values of [`Phase::get`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Traffic flows but is not counted in the results.
    Warmup,
    /// The measured interval.
    Measured,
    /// Senders stop; receivers drain.
    Done,
}

impl Phase {
    /// The current stage.
    pub fn get(&self) -> Stage {
        match self.state.load(Relaxed) {
            0 => Stage::Warmup,
            1 => Stage::Measured,
            _ => Stage::Done,
        }
    }

    /// Moves to `stage`.
    pub fn set(&self, stage: Stage) {
        self.state.store(stage as u8, Relaxed);
    }

    /// True once [`Phase::halt`] was called: every flow ends now (the peer
    /// finished, the session broke, or the run was interrupted).
    pub fn is_halted(&self) -> bool {
        self.halt.load(Relaxed)
    }

    /// The sampler's interval grid in CLOCK_REALTIME, once the measured
    /// interval has begun ([`arrivals`]).
    pub fn grid(&self) -> Option<ArrivalGrid> {
        self.grid.get().copied()
    }

    /// Ends the test early and tells every flow to stop.
    pub fn halt(&self) {
        self.halt.store(true, Relaxed);
        self.set(Stage::Done);
    }

    /// A budgeted trial (`crate::flow` senders with a send budget): the
    /// measured interval ends once `senders` senders have each called
    /// [`Phase::sender_spent`], not at the end of the schedule, which is
    /// then only the time cap. Unlike a halt, receivers still drain.
    pub fn expect_budget_senders(&self, senders: u32) {
        self.budget_senders.store(senders, SeqCst);
    }

    /// One sender has sent its share of the send budget; the last one ends
    /// the measured interval (the sampler notices within 50 ms at most).
    pub fn sender_spent(&self) {
        let before = self
            .budget_senders
            .fetch_update(SeqCst, SeqCst, |left| Some(left.saturating_sub(1)))
            .unwrap_or(0);
        if before <= 1 {
            self.budget_spent.store(true, SeqCst);
        }
    }

    /// True once every budgeted sender has sent its share.
    pub fn is_budget_spent(&self) -> bool {
        self.budget_spent.load(SeqCst)
    }
}

/// Running totals of one flow. Written by the flow's thread only, read by
/// the sampler; aligned to a cache line so flows do not share one.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct FlowMeter {
    sent_bytes: AtomicU64,
    sent_packets: AtomicU64,
    received_bytes: AtomicU64,
    received_packets: AtomicU64,
    latency_sum_ns: AtomicU64,
    latency_count: AtomicU64,
    /// 0: the series count the application's calls; 1 + [`CarriedBy`]:
    /// the socket's counter (see [`carried`]).
    counts_carried: AtomicU8,
    /// The last value of the carried counter, bytes.
    carried_bytes: AtomicU64,
    carried: carried::CarriedSlot,
}

/// A snapshot of all counters of one end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Sent payload.
    pub sent: FlowCounters,
    /// Received payload.
    pub received: FlowCounters,
    /// Sum of transaction times, nanoseconds.
    pub latency_sum_ns: u64,
    /// Number of transactions timed.
    pub latency_count: u64,
    /// Sent bytes for the interval series: acknowledged by the peer where
    /// the flow counts what the path carried, else as written.
    pub carried_sent_bytes: u64,
    /// Received bytes for the interval series: arrived at the socket where
    /// the flow counts what the path carried, else as read.
    pub carried_received_bytes: u64,
}

impl FlowMeter {
    /// Counts `packets` sends carrying `bytes` payload bytes.
    #[inline]
    pub fn add_sent(&self, bytes: u64, packets: u64) {
        self.sent_bytes.fetch_add(bytes, Relaxed);
        self.sent_packets.fetch_add(packets, Relaxed);
    }

    /// Counts `packets` receives carrying `bytes` payload bytes.
    #[inline]
    pub fn add_received(&self, bytes: u64, packets: u64) {
        self.received_bytes.fetch_add(bytes, Relaxed);
        self.received_packets.fetch_add(packets, Relaxed);
    }

    /// Counts `count` one-way delays summing to `sum_ns` nanoseconds.
    #[inline]
    pub fn add_latency_batch(&self, sum_ns: u64, count: u64) {
        self.latency_sum_ns.fetch_add(sum_ns, Relaxed);
        self.latency_count.fetch_add(count, Relaxed);
    }

    /// Counts one timed transaction.
    #[inline]
    pub fn add_latency(&self, nanoseconds: u64) {
        self.latency_sum_ns.fetch_add(nanoseconds, Relaxed);
        self.latency_count.fetch_add(1, Relaxed);
    }

    fn add_to(&self, totals: &mut Totals) {
        totals.sent.bytes += self.sent_bytes.load(Relaxed);
        totals.sent.packets += self.sent_packets.load(Relaxed);
        totals.received.bytes += self.received_bytes.load(Relaxed);
        totals.received.packets += self.received_packets.load(Relaxed);
        totals.latency_sum_ns += self.latency_sum_ns.load(Relaxed);
        totals.latency_count += self.latency_count.load(Relaxed);
        let (sent, received) = (
            self.sent_bytes.load(Relaxed),
            self.received_bytes.load(Relaxed),
        );
        let (sent, received) = match self.carried_now() {
            Some((CarriedBy::Acknowledged, bytes)) => (bytes, received),
            Some((CarriedBy::Arrived, bytes)) => (sent, bytes),
            None => (sent, received),
        };
        totals.carried_sent_bytes += sent;
        totals.carried_received_bytes += received;
    }
}

impl Totals {
    fn minus(self, earlier: Totals) -> Totals {
        let sub = |a: FlowCounters, b: FlowCounters| FlowCounters {
            bytes: a.bytes.saturating_sub(b.bytes),
            packets: a.packets.saturating_sub(b.packets),
        };
        Totals {
            sent: sub(self.sent, earlier.sent),
            received: sub(self.received, earlier.received),
            latency_sum_ns: self.latency_sum_ns.saturating_sub(earlier.latency_sum_ns),
            latency_count: self.latency_count.saturating_sub(earlier.latency_count),
            carried_sent_bytes: self
                .carried_sent_bytes
                .saturating_sub(earlier.carried_sent_bytes),
            carried_received_bytes: self
                .carried_received_bytes
                .saturating_sub(earlier.carried_received_bytes),
        }
    }
}

/// The schedule of one end's test.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Warm-up, excluded from every count.
    pub warmup: Duration,
    /// The measured interval.
    pub duration: Duration,
    /// Length of one interval sample.
    pub interval: Duration,
}

/// What the sampler measured.
#[derive(Clone, Debug, Default)]
pub struct SamplerOutput {
    /// Counter deltas over the measured interval.
    pub measured: Totals,
    /// Actual length of the measured interval, nanoseconds.
    pub measured_ns: u64,
    /// Per-interval deltas.
    pub intervals: Vec<IntervalSample>,
    /// This process's CPU over the measured interval.
    pub process_cpu: ProcessCpu,
    /// System-wide CPU over the measured interval.
    pub system_cpu: Option<SystemCpu>,
    /// The watched (pinned) CPUs' counters over the measured interval.
    pub pinned_cpu: Option<SystemCpu>,
}

/// Starts the sampler thread for `meters`: it sets `phase` to measured after
/// the warm-up and to done at the end, sampling every `schedule.interval`.
pub fn spawn_sampler(
    phase: Arc<Phase>,
    meters: Vec<Arc<FlowMeter>>,
    schedule: Schedule,
) -> JoinHandle<SamplerOutput> {
    spawn_sampler_watching(phase, meters, schedule, Vec::new())
}

/// [`spawn_sampler`], also keeping the `/proc/stat` counters of `cpus` (the
/// CPUs the measuring threads are pinned to) on their own.
pub fn spawn_sampler_watching(
    phase: Arc<Phase>,
    meters: Vec<Arc<FlowMeter>>,
    schedule: Schedule,
    cpus: Vec<u32>,
) -> JoinHandle<SamplerOutput> {
    spawn_sampler_reporting(phase, meters, schedule, cpus, None)
}

/// Where a sampler sends a copy of every interval sample as it finishes it
/// (live interval lines); one message per interval, never per packet.
pub type IntervalSink = std::sync::mpsc::Sender<IntervalSample>;

/// [`spawn_sampler_watching`], also sending each finished interval to `live`.
pub fn spawn_sampler_reporting(
    phase: Arc<Phase>,
    meters: Vec<Arc<FlowMeter>>,
    schedule: Schedule,
    cpus: Vec<u32>,
    live: Option<IntervalSink>,
) -> JoinHandle<SamplerOutput> {
    std::thread::Builder::new()
        .name("dualperf-sampler".into())
        .spawn(move || run_sampler(&phase, &meters, schedule, &cpus, live.as_ref()))
        .expect("spawning a thread only fails when the process is out of resources")
}

fn snapshot(meters: &[Arc<FlowMeter>]) -> Totals {
    let mut totals = Totals::default();
    meters.iter().for_each(|meter| meter.add_to(&mut totals));
    totals
}

/// Sleeps until `until`, waking every 50 ms (1 ms in a budgeted trial) to
/// notice a halt or a spent send budget. Returns false when halted or spent.
fn sleep_until(phase: &Phase, until: Instant) -> bool {
    let budgeted = phase.budget_senders.load(SeqCst) > 0 || phase.is_budget_spent();
    let tick = if budgeted {
        Duration::from_millis(1)
    } else {
        Duration::from_millis(50)
    };
    loop {
        if phase.is_halted() || phase.is_budget_spent() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(tick));
    }
}

fn run_sampler(
    phase: &Phase,
    meters: &[Arc<FlowMeter>],
    schedule: Schedule,
    cpus: &[u32],
    live: Option<&IntervalSink>,
) -> SamplerOutput {
    let start = Instant::now();
    let mut output = SamplerOutput::default();
    if !sleep_until(phase, start + schedule.warmup) {
        return output;
    }
    let cpu = CpuMeter::start_watching(cpus);
    let measured_start = Instant::now();
    let origin_ns = crate::clock::realtime_ns();
    let baseline = snapshot(meters);
    let end = measured_start + schedule.duration;
    let interval = schedule.interval.max(Duration::from_millis(10));
    let _ = phase.grid.set(ArrivalGrid {
        origin_ns,
        interval_ns: interval.as_nanos() as u64,
        duration_ns: schedule.duration.as_nanos() as u64,
    });
    phase.set(Stage::Measured);
    let (mut previous, mut previous_at) = (baseline, measured_start);
    let mut index = 1u32;
    loop {
        let target = (measured_start + interval * index).min(end);
        let completed = sleep_until(phase, target);
        let now = Instant::now();
        let totals = snapshot(meters);
        let delta = totals.minus(previous);
        let sample = IntervalSample {
            end_ns: (now - measured_start).as_nanos() as u64,
            length_ns: (now - previous_at).as_nanos() as u64,
            sent_bytes: delta.carried_sent_bytes,
            sent_packets: delta.sent.packets,
            received_bytes: delta.carried_received_bytes,
            received_packets: delta.received.packets,
            lost_packets: None,
            mean_delay_ns: delta.latency_sum_ns.checked_div(delta.latency_count),
        };
        output.intervals.push(sample);
        if let Some(sink) = live {
            // A receiver that went away only means nobody watches any more.
            let _ = sink.send(sample);
        }
        (previous, previous_at) = (totals, now);
        if !completed || target >= end {
            break;
        }
        index += 1;
    }
    // CPU figures before the flows are told to stop: the measured interval
    // ends here, and the run-queue wait of a flow thread is read only
    // while the thread still runs (crate::schedstat).
    let deltas = cpu.finish_all();
    phase.set(Stage::Done);
    output.measured = previous.minus(baseline);
    output.measured_ns = (previous_at - measured_start).as_nanos() as u64;
    (output.process_cpu, output.system_cpu, output.pinned_cpu) =
        (deltas.process, deltas.system, deltas.watched);
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampler_excludes_warmup_counts_and_splits_the_interval() {
        let phase = Arc::new(Phase::default());
        let meter = Arc::new(FlowMeter::default());
        meter.add_sent(1000, 1); // during warm-up: excluded
        let schedule = Schedule {
            warmup: Duration::from_millis(30),
            duration: Duration::from_millis(100),
            interval: Duration::from_millis(25),
        };
        let handle = spawn_sampler(phase.clone(), vec![meter.clone()], schedule);
        while phase.get() == Stage::Warmup {
            std::thread::sleep(Duration::from_millis(1));
        }
        meter.add_sent(500, 2);
        let output = handle.join().unwrap();
        assert_eq!(phase.get(), Stage::Done);
        assert_eq!(
            output.measured.sent,
            FlowCounters {
                bytes: 500,
                packets: 2
            }
        );
        assert_eq!(output.intervals.len(), 4);
        let summed: u64 = output.intervals.iter().map(|i| i.sent_bytes).sum();
        assert_eq!(summed, 500);
        assert!(output.measured_ns >= 100_000_000);
    }

    #[test]
    fn halting_stops_the_sampler_early() {
        let phase = Arc::new(Phase::default());
        let schedule = Schedule {
            warmup: Duration::ZERO,
            duration: Duration::from_secs(30),
            interval: Duration::from_secs(1),
        };
        let handle = spawn_sampler(phase.clone(), vec![], schedule);
        std::thread::sleep(Duration::from_millis(20));
        phase.halt();
        let started = Instant::now();
        handle.join().unwrap();
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
