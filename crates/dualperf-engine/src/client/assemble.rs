//! Puts the client's and the server's counts together into one
//! [`Observations`]: the sending end's sent counts, the receiving end's
//! received counts, per-interval samples merged the same way; and says how
//! one-way delay was measured ([`Clocks`]): "exact" only when both ends
//! share a kernel.

use dualperf_model::{IntervalSample, IpFamily, Observations, SocketFacts, TestKind, TestSpec};

use crate::endpoint::{is_stream_kind, is_stream_sender, EndOutcome, Role};
use crate::flow::{sum_tcp_counters, LATENCY_RAW_LIMIT};
use crate::latency_recorder::LatencyRecorder;
use crate::protocol::ServerReport;
use crate::sizes::fragments_per_datagram;

/// What the two ends' clocks are to each other.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Clocks {
    /// Both ends run on one kernel (equal boot ids): one clock, one-way
    /// delay is exact.
    OneKernel,
    /// Two kernels whose clocks the user declared synchronised
    /// (`--clocks-synchronised`): one-way delay rests on that declaration.
    DeclaredSynchronised,
    /// Two kernels, nothing declared: no one-way delay.
    Separate,
}

impl Clocks {
    /// The clocks of a trial: `same_kernel` from the boot ids, `declared`
    /// from `--clocks-synchronised`.
    pub fn of(same_kernel: bool, declared: bool) -> Clocks {
        match (same_kernel, declared) {
            (true, _) => Clocks::OneKernel,
            (false, true) => Clocks::DeclaredSynchronised,
            (false, false) => Clocks::Separate,
        }
    }

    /// True when receive − send is a one-way delay.
    pub fn give_one_way_delay(self) -> bool {
        self != Clocks::Separate
    }
}

/// The note a one-way UDP trial carries about its clocks. The declared
/// case gets its note, with the error bound, from the trial itself (it
/// needs the control connection's minimum RTT), so none here.
pub fn clock_note(clocks: Clocks) -> Option<&'static str> {
    match clocks {
        Clocks::OneKernel => Some(
            "clocks shared: both ends run on one kernel (same boot id); one-way delay is exact",
        ),
        Clocks::DeclaredSynchronised => None,
        Clocks::Separate => Some(
            "clocks not shared: the ends run on different kernels (different boot ids), so \
             one-way delay is not reported; PDV, IPDV, jitter, loss and reordering are (a \
             constant clock offset cancels in them)",
        ),
    }
}

/// Merges the two ends' counts for one trial.
pub fn observations(
    spec: &TestSpec,
    family: IpFamily,
    mut client: EndOutcome,
    server: ServerReport,
    socket: SocketFacts,
    clocks: Clocks,
) -> Observations {
    let clocks_shared = clocks.give_one_way_delay();
    let stream_kind = is_stream_kind(spec.kind);
    // udp-stream and udp-probe: one-way UDP with a sequence tracker at the receiver.
    let one_way_udp = spec.kind.is_one_way_udp();
    let client_sends = !stream_kind || is_stream_sender(spec, Role::Client);
    let mut notes = client.notes(spec, "client");
    notes.extend(server.notes.iter().cloned());

    let mut udp = match (one_way_udp, client_sends) {
        (true, true) => server.udp.clone(),
        (true, false) => client.finish_udp(&server.sent_per_stream, clocks_shared),
        _ => None,
    };
    if let Some(udp) = udp.as_mut() {
        udp.clocks_shared = clocks_shared;
        notes.push(format!(
            "receive timestamps: {}",
            udp.receive_timestamp_source
        ));
    }
    if let Some(note) = clock_note(clocks).filter(|_| one_way_udp) {
        notes.push(note.to_string());
    }

    let (sender, receiver, intervals, tcp) = if !stream_kind {
        // rr and connect: what the client sent (requests, connection
        // attempts) and what came back (responses) or was accepted.
        let receiver = match spec.kind {
            TestKind::TcpConnect => server.received,
            _ => client.sampler.measured.received,
        };
        let tcp = sum_tcp_counters(&client.flows);
        (
            client.sampler.measured.sent,
            receiver,
            client.sampler.intervals.clone(),
            tcp,
        )
    } else if client_sends {
        let intervals = merge_intervals(&client.sampler.intervals, &server.intervals);
        let tcp = sum_tcp_counters(&client.flows);
        (
            client.sent(spec, Role::Client),
            server.received,
            intervals,
            tcp,
        )
    } else {
        let intervals = merge_intervals(&server.intervals, &client.sampler.intervals);
        let received = client.received(spec, udp.as_ref());
        (server.sent, received, intervals, server.tcp)
    };

    let receive_buffer_drops = match (one_way_udp, client_sends) {
        (true, true) => server.receive_buffer_drops,
        (true, false) => client.receive_buffer_drops(),
        _ => None,
    };
    if let Some(drops) = receive_buffer_drops.filter(|&d| d > 0) {
        notes.push(format!(
            "the receiving socket dropped about {drops} datagrams for lack of buffer space (SO_RXQ_OVFL): \
             that much of the loss happened inside the receiving host, not on the path"
        ));
    }
    let mut intervals = intervals;
    if spec.kind == TestKind::UdpProbe {
        if let Some(udp) = udp.as_ref() {
            super::probe_series::fill_probe_intervals(spec, udp, &mut intervals);
        }
    }
    if one_way_udp && !clocks_shared {
        // Receive − send across two unsynchronised clocks is not a delay.
        intervals.iter_mut().for_each(|i| i.mean_delay_ns = None);
    }
    let latency = latency_of(&client);
    let fragments = match (spec.kind.is_udp(), socket.path_mtu_bytes) {
        (true, Some(mtu)) => fragments_per_datagram(family, spec.size_bytes, mtu),
        _ => 1,
    };
    if fragments > 1 {
        notes.push(format!(
            "{} B datagrams exceed the path MTU of {} B: each leaves as {fragments} IP fragments",
            spec.size_bytes,
            socket.path_mtu_bytes.unwrap_or(0)
        ));
    }
    let mut cpu = dualperf_model::CpuObservations {
        client: client.sampler.process_cpu,
        server: Some(server.cpu),
        system: client.sampler.system_cpu,
        pinned: client.sampler.pinned_cpu,
        // Filled by the client around the whole trial (Client::run_one).
        path: None,
    };
    if cpu.server.is_some_and(|c| c.wall_ns == 0) {
        cpu.server = None;
    }
    let pacer = crate::flow::merge_pacer_schedules(
        client.pacer_schedule().iter().chain(server.pacer.iter()),
    );
    Observations {
        pacer,
        loads: Vec::new(),
        routers: Vec::new(),
        stamp: None,
        measured_ns: client.sampler.measured_ns,
        sender,
        receiver,
        intervals,
        latency,
        udp,
        tcp,
        cpu,
        socket,
        fragments_per_datagram: fragments,
        notes,
        server_socket: Some(server.socket),
        server_output: server.output,
        receive_buffer_drops,
        probe: None,
        control_min_rtt_ns: None,
        placement: None,
        wire: None,
        iperf3: None,
    }
}

/// One sample per interval: sent counts from the sending end's samples,
/// received counts from the receiving end's, matched by index (both ends
/// sample on the same schedule, started within one control round trip).
fn merge_intervals(
    sending: &[IntervalSample],
    receiving: &[IntervalSample],
) -> Vec<IntervalSample> {
    (0..sending.len().max(receiving.len()))
        .map(|index| {
            let sent = sending.get(index).copied().unwrap_or_default();
            let received = receiving.get(index).copied().unwrap_or_default();
            IntervalSample {
                end_ns: sent.end_ns.max(received.end_ns),
                length_ns: sent.length_ns.max(received.length_ns),
                sent_bytes: sent.sent_bytes,
                sent_packets: sent.sent_packets,
                received_bytes: received.received_bytes,
                received_packets: received.received_packets,
                lost_packets: None,
                mean_delay_ns: sent.mean_delay_ns.or(received.mean_delay_ns),
            }
        })
        .collect()
}

fn latency_of(client: &EndOutcome) -> Option<dualperf_model::LatencySamples> {
    let mut recorders = client.flows.iter().filter_map(|f| f.latency.as_ref());
    let first = recorders.next()?;
    let mut merged = LatencyRecorder::new(LATENCY_RAW_LIMIT);
    merged.merge(first);
    recorders.for_each(|r| merged.merge(r));
    Some(merged.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_is_said_only_of_one_kernel_and_pdv_is_never_denied() {
        assert_eq!(Clocks::of(true, true), Clocks::OneKernel);
        assert_eq!(Clocks::of(false, true), Clocks::DeclaredSynchronised);
        assert_eq!(Clocks::of(false, false), Clocks::Separate);
        assert!(clock_note(Clocks::OneKernel).unwrap().contains("exact"));
        assert_eq!(clock_note(Clocks::DeclaredSynchronised), None);
        let separate = clock_note(Clocks::Separate).unwrap();
        assert!(!separate.contains("exact"), "{separate}");
        // The stats stage reports PDV without a shared clock: the note must not deny it.
        assert!(separate.contains("PDV, IPDV, jitter"), "{separate}");
        assert!(!Clocks::Separate.give_one_way_delay());
        assert!(Clocks::DeclaredSynchronised.give_one_way_delay());
    }

    #[test]
    fn merged_intervals_take_sent_and_received_from_their_own_end() {
        let sending = [IntervalSample {
            sent_bytes: 10,
            received_bytes: 99,
            ..Default::default()
        }];
        let receiving = [
            IntervalSample {
                sent_bytes: 99,
                received_bytes: 8,
                ..Default::default()
            },
            IntervalSample {
                received_bytes: 2,
                ..Default::default()
            },
        ];
        let merged = merge_intervals(&sending, &receiving);
        assert_eq!(merged.len(), 2);
        assert_eq!((merged[0].sent_bytes, merged[0].received_bytes), (10, 8));
        assert_eq!((merged[1].sent_bytes, merged[1].received_bytes), (0, 2));
    }
}
