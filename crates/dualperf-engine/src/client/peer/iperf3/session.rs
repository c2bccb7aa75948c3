//! One iperf3 test from the client's side, in the order of iperf3's state
//! machine (see [`super::control`]): parameters, streams, the test with
//! dualperf's measured interval inside it, results.
//!
//! Timing: the server leaves its first `omit` whole seconds out of its
//! counts (dualperf's warm-up, rounded up); dualperf's own measured interval
//! starts after the same time and lasts exactly the point's duration, then
//! the client ends the test (`TEST_END`), as iperf3's own client does.

use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dualperf_model::{
    FlowCounters, IntervalSample, IpFamily, Iperf3Report, Marking, ProcessCpu, SocketFacts,
    SystemCpu, TcpCounters, TestSpec, UdpReceiveCounters,
};

use super::control::{Control, ControlError, State};
use super::params::TestParameters;
use super::results::{own_results_json, stream_id, OwnStream, PeerResults};
use super::streams::{self, DataSocket, StreamControl, StreamCounters, UdpReceived};
use crate::error::{EngineError, Result};

/// Extra time the control channel waits beyond the test for the server's
/// answers (results after a long test on a slow path).
const RESULTS_GRACE: Duration = Duration::from_secs(20);

/// What one iperf3 test measured, both views, before it becomes
/// [`dualperf_model::Observations`].
#[derive(Debug)]
pub struct SessionOutcome {
    /// Length of dualperf's measured interval, nanoseconds.
    pub measured_ns: u64,
    /// What dualperf's streams sent (client sending) or received, over the
    /// measured interval.
    pub own: FlowCounters,
    /// The measured interval in samples.
    pub intervals: Vec<IntervalSample>,
    /// UDP receive counters computed by dualperf (reverse UDP only).
    pub udp_received: Option<UdpReceiveCounters>,
    /// `TCP_INFO` deltas of dualperf's sending TCP sockets.
    pub tcp: Option<TcpCounters>,
    /// This process's CPU over the measured interval, and the system's.
    pub cpu: (ProcessCpu, Option<SystemCpu>),
    /// The server's own account.
    pub report: Iperf3Report,
    /// The server's CPU split as it reported it, percent (total, user, system).
    pub server_cpu_percent: (f64, f64, f64),
    /// Addresses of the first data stream.
    pub addresses: (Option<String>, Option<String>),
    /// Socket settings of the first data stream.
    pub socket: SocketFacts,
    /// Minimum RTT of the control connection, nanoseconds.
    pub control_min_rtt_ns: Option<u64>,
    /// The server-to-client direction of a bidirectional test (`--bidir`),
    /// in the same form: its own counts, samples, UDP counters and the
    /// server's account of its sending streams (CPU, addresses, socket
    /// facts and RTT are the test's, shared with the forward direction).
    pub reverse: Option<Box<SessionOutcome>>,
}

/// Runs one test on an open control connection.
///
/// # Errors
/// [`ControlError::Busy`] when the server turns the client away before the
/// test; [`ControlError::Failed`] for everything else.
///
/// `bidirectional` runs `spec` (which must not be reverse) in both
/// directions at once, as iperf3's `--bidir`: the client's sending streams
/// first, then as many receiving ones (the order in which iperf3's client
/// creates them and its server accepts them); the server-to-client
/// direction comes back in [`SessionOutcome::reverse`].
pub fn run_session(
    control: &mut Control,
    spec: &TestSpec,
    family: IpFamily,
    marking: &Marking,
    timeout: Duration,
    bidirectional: bool,
) -> Result<SessionOutcome, ControlError> {
    let mut params = TestParameters::for_point(spec, marking)?;
    if bidirectional && params.reverse {
        return Err(ControlError::Failed(EngineError::InvalidTest(
            "a bidirectional test runs both directions: leave out reverse".into(),
        )));
    }
    params.bidirectional = bidirectional;
    control.expect_first(State::ParamExchange)?;
    control.send_json(&params.to_json())?;
    control.expect(State::CreateStreams)?;
    let server = control.server();
    let streams = params.parallel * if bidirectional { 2 } else { 1 };
    let mut sockets = Vec::with_capacity(streams as usize);
    for _ in 0..streams {
        let socket = if params.udp {
            streams::open_udp(server, family, marking, timeout)?
        } else {
            streams::open_tcp(
                server,
                family,
                marking,
                params.congestion.as_deref(),
                control.cookie(),
                timeout,
            )?
        };
        sockets.push(socket);
    }
    control.expect(State::TestStart)?;
    control.expect(State::TestRunning)?;
    let test_length = Duration::from_secs(u64::from(params.omit_s))
        + Duration::from_millis(spec.duration_ms)
        + RESULTS_GRACE;
    control.set_read_timeout(test_length)?;
    Ok(measure(control, spec, &params, family, sockets)?)
}

/// Which way each stream carries data, in the order the streams were
/// opened: true where the client sends (a bidirectional test: the sending
/// streams first, then the receiving ones).
fn stream_directions(params: &TestParameters) -> Vec<bool> {
    let parallel = params.parallel as usize;
    if params.bidirectional {
        [vec![true; parallel], vec![false; parallel]].concat()
    } else {
        vec![!params.reverse; parallel]
    }
}

/// The samples of one direction's counts over the measured interval.
struct Series {
    client_sends: bool,
    start: (u64, u64),
    last: ((u64, u64), Duration),
    intervals: Vec<IntervalSample>,
}

impl Series {
    fn new(client_sends: bool, start: (u64, u64)) -> Series {
        Series {
            client_sends,
            start,
            last: (start, Duration::ZERO),
            intervals: Vec::new(),
        }
    }

    /// Closes the sample that ends at `end` with the counts `now`.
    fn take(&mut self, now: (u64, u64), end: Duration) {
        self.intervals
            .push(sample(self.last, (now, end), self.client_sends));
        self.last = (now, end);
    }
}

/// The running test: stream threads, warm-up, the measured interval,
/// `TEST_END`, the results exchange.
fn measure(
    control: &mut Control,
    spec: &TestSpec,
    params: &TestParameters,
    family: IpFamily,
    sockets: Vec<DataSocket>,
) -> Result<SessionOutcome> {
    // The direction the trial measures: the client's sending one, except
    // with -R; a bidirectional test's other direction is its `reverse`.
    let client_sends = !params.reverse;
    let sends = stream_directions(params);
    let first_of = |direction: bool| sends.iter().position(|&s| s == direction);
    let facts_of = |index: Option<usize>| {
        let first = index.and_then(|i| sockets.get(i));
        (
            first.map(DataSocket::addresses).unwrap_or_default(),
            socket_facts(first, family),
        )
    };
    let (addresses, socket) = facts_of(first_of(client_sends));
    let (reverse_addresses, reverse_socket) = facts_of(first_of(!client_sends));
    // Descriptors stay valid while the threads own the sockets: the threads
    // end only after the last TCP_INFO read below.
    let tcp_fds: Vec<i32> = sockets
        .iter()
        .zip(&sends)
        .filter(|(s, &send)| matches!(s, DataSocket::Tcp(_)) && send)
        .map(|(s, _)| s.raw_fd())
        .collect();
    // Senders stop before TEST_END; receivers keep reading until the
    // server has stopped sending (a UDP socket closed earlier would answer
    // the server's datagrams with ICMP port unreachable).
    let (to_senders, to_receivers) = (
        Arc::new(StreamControl::default()),
        Arc::new(StreamControl::default()),
    );
    let counters: Vec<Arc<StreamCounters>> = sockets
        .iter()
        .map(|_| Arc::new(StreamCounters::default()))
        .collect();
    let size = params.len as usize;
    let rate = params.bandwidth_bps;
    let threads: Vec<JoinHandle<Result<Option<UdpReceived>>>> = sockets
        .into_iter()
        .zip(&counters)
        .zip(&sends)
        .map(|((socket, counters), &send)| {
            let counters = counters.clone();
            let flags = (if send { &to_senders } else { &to_receivers }).clone();
            std::thread::spawn(move || {
                streams::run_stream(socket, send, size, rate, counters, flags)
            })
        })
        .collect();
    let both = [&to_senders, &to_receivers];
    let set_all = |set: fn(&StreamControl)| both.iter().for_each(|flags| set(flags));
    let total = |direction: bool| -> (u64, u64) {
        counters
            .iter()
            .zip(&sends)
            .filter(|(_, &send)| send == direction)
            .fold((0, 0), |(bytes, packets), (c, _)| {
                (
                    bytes + c.bytes.load(Ordering::Relaxed),
                    packets + c.packets.load(Ordering::Relaxed),
                )
            })
    };

    std::thread::sleep(Duration::from_secs(u64::from(params.omit_s)));
    let tcp_start = read_tcp(&tcp_fds);
    let cpu = crate::cpu::CpuMeter::start();
    let started = Instant::now();
    set_all(|flags| flags.measuring.store(true, Ordering::SeqCst));
    let mut series = Series::new(client_sends, total(client_sends));
    let mut reverse_series = Series::new(!client_sends, total(!client_sends));
    let duration = Duration::from_millis(spec.duration_ms);
    let step = Duration::from_millis(spec.sample_interval_ms.max(10));
    loop {
        let elapsed = started.elapsed();
        if elapsed >= duration {
            break;
        }
        let next = (series.last.1 + step).min(duration);
        std::thread::sleep(next.saturating_sub(elapsed));
        let end = started.elapsed().min(duration);
        series.take(total(client_sends), end);
        reverse_series.take(total(!client_sends), end);
        // A stream that failed early ends the test now, not after it.
        if threads.iter().any(JoinHandle::is_finished) {
            break;
        }
    }
    let (start_counts, reverse_start) = (series.start, reverse_series.start);
    let (end_counts, reverse_end) = (total(client_sends), total(!client_sends));
    let measured = started.elapsed();
    set_all(|flags| flags.measuring.store(false, Ordering::SeqCst));
    let tcp_end = read_tcp(&tcp_fds);
    let cpu = cpu.finish();
    to_senders.stop.store(true, Ordering::SeqCst);
    let ended = control.send_state(State::TestEnd).and_then(|()| {
        control
            .expect(State::ExchangeResults)
            .map_err(ControlError::into_engine_error)
    });
    set_all(|flags| flags.stop.store(true, Ordering::SeqCst));
    let mut received = Vec::new();
    let mut first_failure = None;
    for thread in threads {
        match thread.join() {
            Ok(Ok(udp)) => received.push(udp),
            Ok(Err(error)) => {
                first_failure.get_or_insert(error);
            }
            Err(_) => {
                first_failure.get_or_insert(EngineError::Flow("a stream thread panicked".into()));
            }
        }
    }
    ended?;
    if let Some(error) = first_failure {
        return Err(error);
    }
    let measured_ns = u64::try_from(measured.as_nanos()).unwrap_or(u64::MAX);
    let counted = |end: (u64, u64), start: (u64, u64)| FlowCounters {
        bytes: end.0 - start.0,
        packets: end.1 - start.1,
    };
    let own_streams: Vec<OwnStream> = counters
        .iter()
        .enumerate()
        .map(|(index, c)| OwnStream {
            id: stream_id(index),
            bytes: c.bytes.load(Ordering::Relaxed),
            packets: c.packets.load(Ordering::Relaxed),
            seconds: measured.as_secs_f64(),
            ..OwnStream::default()
        })
        .collect();
    let cpu_percent = percent_of(&cpu.0);
    let any_sending = sends.contains(&true);
    control.send_json(&own_results_json(&own_streams, any_sending, cpu_percent))?;
    let results = PeerResults::from_json(control.read_json()?)?;
    control
        .expect(State::DisplayResults)
        .map_err(ControlError::into_engine_error)?;
    control.send_state(State::IperfDone)?;
    let ids = |direction: bool| -> Vec<i64> {
        (0..sends.len())
            .filter(|&i| sends[i] == direction)
            .map(stream_id)
            .collect()
    };
    let report = match params.bidirectional {
        true => results.with_streams(&ids(client_sends))?,
        false => results.clone(),
    }
    .to_report(client_sends, params.udp, params.omit_s)?;
    // UDP counters of dualperf's receiving streams: the measured
    // direction's with -R, the other direction's in a bidirectional test.
    let mut udp_received = (params.udp && sends.contains(&false)).then(|| merge_udp(received));
    let tcp = match (tcp_start, tcp_end) {
        (Some(start), Some(end)) => Some(crate::tcp_info::delta_tcp_counters(&end, &start)),
        _ => None,
    };
    let control_min_rtt_ns = crate::tcp_info::read_tcp_info(control.socket().as_raw_fd())
        .ok()
        .and_then(|info| info.min_rtt_us)
        .map(|us| u64::from(us) * 1000);
    let server_cpu_percent = (
        results.cpu_util_total,
        results.cpu_util_user,
        results.cpu_util_system,
    );
    let reverse = match params.bidirectional {
        false => None,
        true => Some(Box::new(SessionOutcome {
            measured_ns,
            own: counted(reverse_end, reverse_start),
            intervals: reverse_series.intervals,
            udp_received: udp_received.take(),
            tcp: None,
            cpu,
            report: results.with_streams(&ids(!client_sends))?.to_report(
                !client_sends,
                params.udp,
                params.omit_s,
            )?,
            server_cpu_percent,
            addresses: reverse_addresses,
            socket: reverse_socket,
            control_min_rtt_ns,
            reverse: None,
        })),
    };
    Ok(SessionOutcome {
        measured_ns,
        own: counted(end_counts, start_counts),
        intervals: series.intervals,
        udp_received,
        tcp,
        cpu,
        report,
        server_cpu_percent,
        addresses,
        socket,
        control_min_rtt_ns,
        reverse,
    })
}

/// `TCP_INFO` counters summed over `fds`; `None` without TCP sockets or
/// when the kernel does not answer.
fn read_tcp(fds: &[i32]) -> Option<TcpCounters> {
    let mut sum: Option<TcpCounters> = None;
    for &fd in fds {
        let counters = crate::tcp_info::read_tcp_counters(fd).ok()?;
        sum = Some(match sum {
            None => counters,
            Some(total) => crate::tcp_info::sum_tcp_counters(&total, &counters),
        });
    }
    sum
}

/// One interval sample between two (counts, elapsed) readings.
fn sample(
    ((from_bytes, from_packets), from): ((u64, u64), Duration),
    ((to_bytes, to_packets), to): ((u64, u64), Duration),
    client_sends: bool,
) -> IntervalSample {
    let (bytes, packets) = (to_bytes - from_bytes, to_packets - from_packets);
    let mut sample = IntervalSample {
        end_ns: u64::try_from(to.as_nanos()).unwrap_or(u64::MAX),
        length_ns: u64::try_from((to - from).as_nanos()).unwrap_or(u64::MAX),
        ..IntervalSample::default()
    };
    if client_sends {
        (sample.sent_bytes, sample.sent_packets) = (bytes, packets);
    } else {
        (sample.received_bytes, sample.received_packets) = (bytes, packets);
    }
    sample
}

/// iperf3's CPU figures: percent of one CPU (total, user, system).
fn percent_of(cpu: &ProcessCpu) -> (f64, f64, f64) {
    let wall = cpu.wall_ns.max(1) as f64;
    let user = cpu.user_ns as f64 / wall * 100.0;
    let system = cpu.system_ns as f64 / wall * 100.0;
    (user + system, user, system)
}

/// The receive counters of all reverse UDP streams, summed (jitter: the
/// largest). Sequence numbers count from the first datagram of the measured
/// interval; the datagrams sent in it are those up to the highest number
/// that arrived in it (loss after the last arrival is not visible).
fn merge_udp(received: Vec<Option<UdpReceived>>) -> UdpReceiveCounters {
    let mut total = UdpReceiveCounters {
        receive_timestamp_source: "clock_gettime".into(),
        clocks_shared: false,
        ..UdpReceiveCounters::default()
    };
    for stream in received.into_iter().flatten() {
        let sent = stream
            .window
            .map(|(first, highest)| u64::from(highest - first) + 1)
            .unwrap_or(0);
        let counters = stream.tracker.finish(sent, 0, "clock_gettime", false);
        total.sent += counters.sent;
        total.received += counters.received;
        total.duplicates += counters.duplicates;
        total.reordered += counters.reordered;
        total.max_reorder_extent = total.max_reorder_extent.max(counters.max_reorder_extent);
        total.lost += counters.lost;
        total.loss_episodes += counters.loss_episodes;
        total.jitter_ns = total.jitter_ns.max(counters.jitter_ns);
    }
    total
}

/// What the first data socket has in force.
fn socket_facts(first: Option<&DataSocket>, family: IpFamily) -> SocketFacts {
    let Some(socket) = first else {
        return SocketFacts::default();
    };
    let fd = socket.raw_fd();
    let buffers = crate::socket_options::buffer_sizes(fd).ok();
    let (dscp, flow_label) = crate::socket_options::read_marking(fd, family);
    SocketFacts {
        send_buffer_bytes: buffers.map(|b| b.0),
        receive_buffer_bytes: buffers.map(|b| b.1),
        path_mtu_bytes: crate::socket_options::path_mtu(fd, family),
        dscp: dscp
            .filter(|&d| d != 0)
            .and_then(|d| dualperf_model::Dscp::new(d).ok()),
        flow_label: flow_label.and_then(|l| dualperf_model::FlowLabel::new(l).ok()),
        ..SocketFacts::default()
    }
}
