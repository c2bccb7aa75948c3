//! One end of a running test: given its data sockets and its role, start
//! one thread per flow plus the sampler, and collect what they counted.
//! The client and the server both use this; only the role differs.
//!
//! | kind | client role | server role |
//! |---|---|---|
//! | tcp-stream, udp-stream, udp-probe | sender (receiver with `--reverse`) | the other |
//! | tcp-rr, udp-rr | requester | responder |
//! | tcp-connect | connector | acceptor |

use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dualperf_model::{FlowCounters, MediaProfile, TestKind, TestSpec, UdpReceiveCounters};

use crate::flow::{
    self, connect, media, rr, spawn_flow, tcp_stream, udp_probe, udp_stream, FlowContext,
    FlowOutput,
};
use crate::meter::{
    spawn_sampler_reporting, FlowMeter, IntervalSink, Phase, SamplerOutput, Schedule,
};

/// Extra time after the schedule before every flow is stopped regardless.
const GRACE: Duration = Duration::from_secs(10);

/// The data sockets of one end.
#[derive(Debug)]
pub enum DataSockets {
    /// Connected TCP streams (tcp-stream, tcp-rr).
    Tcp(Vec<TcpStream>),
    /// Connected UDP sockets (udp-stream, udp-rr).
    Udp(Vec<UdpSocket>),
    /// tcp-connect client: where to connect, how to mark each connection,
    /// and the source address to bind it to (`-B`; `None`: the kernel's).
    ConnectTo(SocketAddr, dualperf_model::Marking, Option<IpAddr>),
    /// tcp-connect server: the listener and the only peer it serves.
    AcceptOn(TcpListener, IpAddr),
}

/// Which end this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The end that opened the control session.
    Client,
    /// The `dualperf serve` end.
    Server,
}

/// True when this end sends the stream (tcp-stream, udp-stream).
pub fn is_stream_sender(spec: &TestSpec, role: Role) -> bool {
    (role == Role::Client) != spec.reverse
}

/// True for the client of a budgeted reverse udp-stream (`-u -k N -R`):
/// the server sends each stream's share of the budget, numbered from 0, so
/// the client's receivers know which datagram is a stream's last and end
/// the trial when it arrived ([`udp_stream::receive`]), as the senders of a
/// forward budget do when they sent it.
pub fn receives_a_budget(spec: &TestSpec, role: Role) -> bool {
    spec.send_budget.is_some()
        && spec.kind == TestKind::UdpStream
        && spec.reverse
        && role == Role::Client
}

/// The probe interval of a udp-probe spec ([`udp_probe::DEFAULT_INTERVAL_US`]
/// when unset, never below [`udp_probe::MIN_INTERVAL_US`]).
pub fn probe_interval(spec: &TestSpec) -> Duration {
    Duration::from_micros(
        spec.probe_interval_us
            .unwrap_or(udp_probe::DEFAULT_INTERVAL_US)
            .max(udp_probe::MIN_INTERVAL_US),
    )
}

/// True for the one-directional stream kinds (tcp-stream, udp-stream,
/// udp-probe), whose sender and receiver swap with `--reverse`.
pub fn is_stream_kind(kind: TestKind) -> bool {
    matches!(
        kind,
        TestKind::TcpStream | TestKind::UdpStream | TestKind::UdpProbe | TestKind::Media
    )
}

/// A running end: flows and sampler.
pub struct RunningEnd {
    phase: Arc<Phase>,
    ends_at: Instant,
    /// A send budget ends the trial (the schedule is only its cap).
    budgeted: bool,
    sampler: JoinHandle<SamplerOutput>,
    flows: Vec<JoinHandle<FlowOutput>>,
}

/// What one end measured.
pub struct EndOutcome {
    /// Counter deltas, intervals and CPU over the measured interval.
    pub sampler: SamplerOutput,
    /// Each flow's output, in stream order.
    pub flows: Vec<FlowOutput>,
}

/// Starts the flows of `role` for `spec` on `sockets`, each pinned to `cpus`.
pub fn start(spec: &TestSpec, role: Role, sockets: DataSockets, cpus: &[u32]) -> RunningEnd {
    start_watching(spec, role, sockets, cpus, cpus)
}

/// [`start`], keeping the CPU counters of `watched` on their own (the CPUs
/// of both ends when they share a kernel: contention detection).
pub fn start_watching(
    spec: &TestSpec,
    role: Role,
    sockets: DataSockets,
    cpus: &[u32],
    watched: &[u32],
) -> RunningEnd {
    start_reporting(spec, role, sockets, cpus, watched, None)
}

/// [`start_watching`], the sampler also sending each finished interval to
/// `live` (the client's live interval lines).
pub fn start_reporting(
    spec: &TestSpec,
    role: Role,
    sockets: DataSockets,
    cpus: &[u32],
    watched: &[u32],
    live: Option<IntervalSink>,
) -> RunningEnd {
    let phase = Arc::new(Phase::default());
    let schedule = Schedule {
        warmup: Duration::from_millis(spec.warmup_ms),
        duration: Duration::from_millis(spec.duration_ms),
        interval: Duration::from_millis(spec.sample_interval_ms),
    };
    let deadline = Instant::now() + schedule.warmup + schedule.duration + GRACE;
    // A send budget ends the trial when every sending stream has sent its
    // share; the schedule is then the time cap (crate::meter::Phase). The
    // client of a reverse udp-stream counts the server's shares instead:
    // its receivers end the trial once each stream's last datagram came.
    let budget = spec
        .send_budget
        .filter(|_| {
            (is_stream_sender(spec, role)
                && matches!(spec.kind, TestKind::TcpStream | TestKind::UdpStream))
                || receives_a_budget(spec, role)
        })
        .map(|budget| (budget, spec.parallel_streams.max(1)));
    if let Some((_, streams)) = budget {
        phase.expect_budget_senders(streams);
    }
    let mut meters = Vec::new();
    let mut context = |index: usize| {
        let meter = Arc::new(FlowMeter::default());
        meters.push(meter.clone());
        let name = format!("dualperf-{}-{index}", spec.kind);
        (
            name,
            FlowContext {
                phase: phase.clone(),
                meter,
                cpus: cpus.to_vec(),
                deadline,
                budget_blocks: budget.map(|(budget, streams)| {
                    budget.stream_share(spec.size_bytes, index as u32, streams)
                }),
            },
        )
    };
    let size = spec.size_bytes as usize;
    let sender = is_stream_sender(spec, role);
    let rate = spec.rate.map(|r| r.bits_per_second());
    let mut flows = Vec::new();
    match sockets {
        DataSockets::Tcp(streams) => {
            for (index, stream) in streams.into_iter().enumerate() {
                let (name, ctx) = context(index);
                let cpus = ctx.cpus.clone();
                flows.push(match (spec.kind, role, sender) {
                    (TestKind::TcpRr, Role::Client, _) => {
                        spawn_flow(name, cpus, move || rr::tcp_request(stream, size, ctx))
                    }
                    (TestKind::TcpRr, Role::Server, _) => {
                        spawn_flow(name, cpus, move || rr::tcp_respond(stream, size, ctx))
                    }
                    (_, _, true) => {
                        spawn_flow(name, cpus, move || tcp_stream::send(stream, size, ctx))
                    }
                    (_, _, false) => {
                        spawn_flow(name, cpus, move || tcp_stream::receive(stream, ctx))
                    }
                });
            }
        }
        DataSockets::Udp(sockets) => {
            for (index, socket) in sockets.into_iter().enumerate() {
                let (name, ctx) = context(index);
                let cpus = ctx.cpus.clone();
                let spec_copy = spec.clone();
                flows.push(match (spec.kind, role, sender) {
                    (TestKind::UdpRr, Role::Client, _) => {
                        spawn_flow(name, cpus, move || rr::udp_request(socket, size, ctx))
                    }
                    (TestKind::UdpRr, Role::Server, _) => {
                        spawn_flow(name, cpus, move || rr::udp_respond(socket, size, ctx))
                    }
                    (TestKind::UdpProbe, _, true) => spawn_flow(name, cpus, move || {
                        udp_probe::send(socket, size, probe_interval(&spec_copy), ctx)
                    }),
                    (TestKind::UdpProbe, _, false) => {
                        spawn_flow(name, cpus, move || udp_probe::receive(socket, size, ctx))
                    }
                    (TestKind::Media, _, sending) => {
                        let profile = spec_copy.media.clone().unwrap_or(MediaProfile::Voice(
                            dualperf_model::VoiceProfile {
                                codec: dualperf_model::VoiceCodec::G711,
                                packet_ms: 20,
                            },
                        ));
                        spawn_flow(name, cpus, move || match sending {
                            true => media::send(socket, profile, ctx),
                            false => media::receive(socket, &profile, ctx),
                        })
                    }
                    (_, _, true) => spawn_flow(name, cpus, move || {
                        udp_stream::send(socket, size, rate, ctx)
                    }),
                    (_, _, false) => {
                        spawn_flow(name, cpus, move || udp_stream::receive(socket, size, ctx))
                    }
                });
            }
        }
        DataSockets::ConnectTo(target, marking, source) => {
            let (name, ctx) = context(0);
            let cpus = ctx.cpus.clone();
            flows.push(spawn_flow(name, cpus, move || {
                connect::connect_repeatedly(target, marking, source, ctx)
            }));
        }
        DataSockets::AcceptOn(listener, peer) => {
            let (name, ctx) = context(0);
            let cpus = ctx.cpus.clone();
            flows.push(spawn_flow(name, cpus, move || {
                connect::accept_repeatedly(listener, peer, ctx)
            }));
        }
    }
    let ends_at = Instant::now() + schedule.warmup + schedule.duration;
    let sampler = spawn_sampler_reporting(phase.clone(), meters, schedule, watched.to_vec(), live);
    RunningEnd {
        phase,
        ends_at,
        budgeted: budget.is_some(),
        sampler,
        flows,
    }
}

impl RunningEnd {
    /// Tells every flow to stop now (the peer finished or went away).
    pub fn halt(&self) {
        self.phase.halt();
    }

    /// Waits until the sampler reached the end of the schedule.
    pub fn wait_for_schedule(&self) {
        // Sleep through the schedule in one go: frequent wake-ups of this
        // thread would disturb a flow pinned to the same CPU.
        // A budgeted trial ends when its senders are done: no long sleep.
        let now = Instant::now();
        if self.ends_at > now && !self.phase.is_halted() && !self.budgeted {
            std::thread::sleep(self.ends_at - now);
        }
        while !self.sampler.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits until the sampler reached the end of the schedule, or until
    /// `halt` is raised, whichever comes first; a raised `halt` stops every
    /// flow now (a competing load ends when the measured trial has). Wakes
    /// every 20 ms: only for sessions whose CPU is not the measured one.
    pub fn wait_for_schedule_or(&self, halt: &std::sync::atomic::AtomicBool) {
        use std::sync::atomic::Ordering;
        while Instant::now() < self.ends_at
            && !self.phase.is_halted()
            && !self.sampler.is_finished()
        {
            if halt.load(Ordering::Acquire) {
                self.halt();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        while !self.sampler.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for every flow and the sampler.
    pub fn finish(self) -> EndOutcome {
        let flows = flow::join_flows(self.flows);
        let mut sampler = self.sampler.join().unwrap_or_default();
        // Received bytes per interval by arrival, where every flow kept them.
        let series: Option<Vec<_>> = flows.iter().map(|f| f.arrivals.as_ref()).collect();
        if let Some(series) = series {
            crate::meter::apply_arrivals(&series, &mut sampler.intervals);
        }
        EndOutcome { sampler, flows }
    }
}

impl EndOutcome {
    /// Measured datagrams per UDP stream this end sent.
    pub fn udp_sent_per_stream(&self) -> Vec<u64> {
        self.flows.iter().map(|f| f.udp_sent).collect()
    }

    /// Sent counters: exact datagram counts for a UDP sender, otherwise the
    /// sampler's measured deltas.
    pub fn sent(&self, spec: &TestSpec, role: Role) -> FlowCounters {
        // Media packets vary in size: the sampler counted their bytes.
        let udp_stream = matches!(spec.kind, TestKind::UdpStream | TestKind::UdpProbe);
        if udp_stream && is_stream_sender(spec, role) {
            let packets: u64 = self.udp_sent_per_stream().iter().sum();
            FlowCounters {
                packets,
                bytes: packets * u64::from(spec.size_bytes),
            }
        } else if let Some(bytes) = self.budget_sent_bytes(spec, role) {
            // A budgeted tcp-stream: what the senders wrote in the measured
            // stage, by their own count.
            FlowCounters {
                bytes,
                ..self.sampler.measured.sent
            }
        } else {
            self.sampler.measured.sent
        }
    }

    /// The bytes budgeted TCP senders wrote in the measured stage, summed
    /// over streams; `None` unless this end sent a budgeted tcp-stream.
    fn budget_sent_bytes(&self, spec: &TestSpec, role: Role) -> Option<u64> {
        let budgeted = spec.kind == TestKind::TcpStream
            && spec.send_budget.is_some()
            && is_stream_sender(spec, role);
        budgeted.then(|| self.flows.iter().filter_map(|f| f.budget_sent_bytes).sum())
    }

    /// Finishes the UDP receivers' trackers with the sender's per-stream
    /// counts and merges them; `None` for other kinds.
    pub fn finish_udp(
        &mut self,
        sent_per_stream: &[u64],
        clocks_shared: bool,
    ) -> Option<UdpReceiveCounters> {
        let mut merged: Option<UdpReceiveCounters> = None;
        for (index, flow) in self.flows.iter_mut().enumerate() {
            let Some(tracker) = flow.tracker.take() else {
                continue;
            };
            let sent = sent_per_stream.get(index).copied().unwrap_or(0);
            let source = flow.timestamp_source.unwrap_or("unknown");
            let counters = tracker.finish(sent, flow::LOSS_WAIT_MS, source, clocks_shared);
            merged = Some(match merged {
                None => counters,
                Some(total) => merge_udp(total, counters),
            });
        }
        merged
    }

    /// Received counters: the trackers' distinct datagrams for a UDP
    /// receiver (`udp`), otherwise the sampler's measured deltas.
    pub fn received(&self, spec: &TestSpec, udp: Option<&UdpReceiveCounters>) -> FlowCounters {
        match udp {
            // Media packets vary in size: the receivers summed the bytes
            // of the datagrams they counted.
            Some(udp) if spec.kind == TestKind::Media => FlowCounters {
                packets: udp.received,
                bytes: self.flows.iter().map(|f| f.received_bytes).sum(),
            },
            Some(udp) => FlowCounters {
                packets: udp.received,
                bytes: udp.received * u64::from(spec.size_bytes),
            },
            None => self.sampler.measured.received,
        }
    }

    /// Datagrams the receiving sockets dropped for lack of buffer space,
    /// summed over streams; `None` when this end received no UDP stream.
    pub fn receive_buffer_drops(&self) -> Option<u64> {
        self.flows
            .iter()
            .filter_map(|f| f.receive_buffer_drops)
            .reduce(|a, b| a + b)
    }

    /// How this end's paced senders kept their schedule, merged over
    /// streams; `None` when it paced none.
    pub fn pacer_schedule(&self) -> Option<dualperf_model::PacerSchedule> {
        crate::flow::merge_pacer_schedules(self.flows.iter().filter_map(|f| f.pacer.as_ref()))
    }

    /// Why flows failed, each prefixed with `side`; empty when all ran.
    pub fn errors(&self, side: &str) -> Vec<String> {
        self.flows
            .iter()
            .filter_map(|f| f.error.as_ref())
            .map(|e| format!("{side}: {e}"))
            .collect()
    }

    /// Human-readable notes: flow notes and lost transactions.
    pub fn notes(&self, spec: &TestSpec, side: &str) -> Vec<String> {
        let mut notes: Vec<String> = self
            .flows
            .iter()
            .filter_map(|f| f.note.as_ref())
            .map(|n| format!("{side}: {n}"))
            .collect();
        let lost: u64 = self.flows.iter().map(|f| f.lost).sum();
        if lost > 0 {
            notes.push(match spec.kind {
                TestKind::UdpRr => format!(
                    "{side}: {lost} udp-rr transactions got no answer within {:?}",
                    rr::UDP_ANSWER_WAIT
                ),
                _ => format!("{side}: {lost} connection attempts timed out"),
            });
        }
        notes
    }
}

/// Adds two streams' UDP counters; extents and jitter take the larger value.
pub fn merge_udp(mut total: UdpReceiveCounters, next: UdpReceiveCounters) -> UdpReceiveCounters {
    total.sent += next.sent;
    total.received += next.received;
    total.duplicates += next.duplicates;
    total.reordered += next.reordered;
    total.max_reorder_extent = total.max_reorder_extent.max(next.max_reorder_extent);
    total.lost += next.lost;
    total.loss_episodes += next.loss_episodes;
    total.jitter_ns = total.jitter_ns.max(next.jitter_ns);
    total.arrivals.extend(next.arrivals);
    total.arrivals_limit += next.arrivals_limit;
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverse_makes_the_server_the_stream_sender() {
        let mut spec = TestSpec {
            duration_ms: 100,
            warmup_ms: 0,
            sample_interval_ms: 100,
            ..TestSpec::new(TestKind::TcpStream, 1024)
        };
        assert!(is_stream_sender(&spec, Role::Client) && !is_stream_sender(&spec, Role::Server));
        spec.reverse = true;
        assert!(!is_stream_sender(&spec, Role::Client) && is_stream_sender(&spec, Role::Server));
    }

    #[test]
    fn merged_udp_counters_add_counts_and_keep_the_worst_extent_and_jitter() {
        let one = UdpReceiveCounters {
            sent: 10,
            received: 9,
            lost: 1,
            max_reorder_extent: 3,
            jitter_ns: 50,
            ..Default::default()
        };
        let two = UdpReceiveCounters {
            sent: 5,
            received: 5,
            duplicates: 1,
            max_reorder_extent: 1,
            jitter_ns: 80,
            ..Default::default()
        };
        let total = merge_udp(one, two);
        assert_eq!(
            (total.sent, total.received, total.lost, total.duplicates),
            (15, 14, 1, 1)
        );
        assert_eq!((total.max_reorder_extent, total.jitter_ns), (3, 80));
    }
}
