//! One trial against a server: handshake, request, data sockets, start,
//! wait, stop, results. Assembling the observations is in [`super::assemble`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::Duration;

use dualperf_model::{
    Dscp, EndsPlacement, FlowLabel, HostFacts, IpFamily, Marking, Observations, SocketFacts,
    TestKind, TestSpec,
};

use super::{assemble, ClientOptions};
use crate::datagram::hello;
use crate::endpoint::{self, DataSockets, Role};
use crate::error::{EngineError, IoContext, Result};
use crate::flow::{udp_receive_buffer_bytes, UDP_BUFFER_BYTES};
use crate::protocol::{self, Channel, Message, StopReport, TestRequest};
use crate::sizes::validate_size;
use crate::socket_options::{
    apply_marking, path_mtu, read_marking, set_buffer_sizes, with_flow_label,
};
use crate::tcp_info::read_tcp_info;

/// What one trial produced.
#[derive(Clone, Debug)]
pub struct TrialReport {
    /// The raw observations.
    pub observations: Observations,
    /// The family the server saw on the control channel.
    pub server_seen_family: IpFamily,
    /// Local address of the first data socket, `ip:port`.
    pub local_address: Option<String>,
    /// Remote address of the first data socket, `ip:port`.
    pub remote_address: Option<String>,
    /// The server's host facts, when asked for.
    pub server_host: Option<HostFacts>,
}

/// Waiting time for control answers that involve no measurement.
pub const CONTROL_WAIT: Duration = Duration::from_secs(15);

/// The address families of one trial: the client's sockets', and the one
/// the server sees. They differ only through a translator (an IPv6 client
/// behind NAT64 reaches an IPv4 server).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Families {
    /// The family of the client's sockets.
    pub client: IpFamily,
    /// The family the server sees the session arrive over.
    pub server: IpFamily,
}

impl Families {
    /// The same family at both ends (every path but a translator).
    pub fn same(family: IpFamily) -> Families {
        Families {
            client: family,
            server: family,
        }
    }
}

/// How a session beside another one is coordinated with it.
#[derive(Debug, Default)]
pub struct SessionHooks {
    /// Hears once both ends' flows are running.
    pub started: Option<std::sync::mpsc::Sender<()>>,
    /// Raised: the session ends now instead of at the end of its schedule
    /// (a competing load stops when the measured trial has ended).
    pub halt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Raised as soon as this session's own flows have ended, before its
    /// stop/results exchange: the competing loads of a measured trial halt
    /// then, so that exchange crosses a quiet path instead of a congested
    /// one (where a control message can wait seconds for retransmissions).
    pub flows_done: Vec<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// One trial of `spec` alone, on one control session, coordinated with
/// other sessions through `hooks`.
pub fn run_single(
    server: SocketAddr,
    spec: &TestSpec,
    families: Families,
    marking: &Marking,
    options: &ClientOptions,
    want_host_facts: bool,
    hooks: SessionHooks,
) -> Result<TrialReport> {
    let (family, server_family) = (families.client, families.server);
    validate_size(spec.kind, family, spec.size_bytes).map_err(EngineError::InvalidTest)?;
    // The same admission the server applies, before anything is allocated
    // or sent (media profiles and load flows included).
    crate::limits::validate_spec(spec).map_err(EngineError::InvalidTest)?;
    if IpFamily::of(&server.ip()) != family {
        return Err(EngineError::InvalidTest(format!(
            "{} is not an {} address",
            server.ip(),
            family
        )));
    }
    let source = options.source_for(family);
    let stream = crate::tuning::connect_from(server, source, Duration::from_secs(5))
        .context(|| format!("connecting the control channel to {server}"))?;
    let mut channel = Channel::new(stream);
    channel.set_timeout(Some(options.control_wait()));
    let welcome = protocol::client_handshake(&mut channel, options.auth_key.as_deref())?;
    let same_kernel = !welcome.boot_id.is_empty() && welcome.boot_id == crate::clock::boot_id();
    let clocks = assemble::Clocks::of(same_kernel, options.clocks_synchronised);
    channel.send(&Message::Request(TestRequest {
        spec: spec.clone(),
        // The family the server will see: the client's own, except through
        // a translator (an IPv6 client behind NAT64 arrives over IPv4).
        family: server_family,
        server_cpus: options.server_cpus.clone(),
        want_host_facts,
        marking: *marking,
    }))?;
    let ready = channel.expect("ready", |m| match m {
        Message::Ready(ready) => Some(ready),
        _ => None,
    })?;
    check_announced_ports(spec, &ready.data_ports)?;
    let mut facts = SocketFacts {
        client_cpus: options.client_cpus.clone(),
        server_cpus: options.server_cpus.clone(),
        ..Default::default()
    };
    let (sockets, local, remote) = open_data(
        server.ip(),
        spec,
        &ready.data_ports,
        ready.token,
        marking,
        source,
        &mut facts,
    )?;
    channel.send(&Message::Start)?;
    channel.expect("started", |m| matches!(m, Message::Started).then_some(()))?;
    // The CPUs whose counters tell whether other programs competed with the
    // measuring threads: the client's, and the server's on the same kernel.
    let mut watched = options.client_cpus.clone();
    if same_kernel {
        watched.extend(&options.server_cpus);
        watched.sort_unstable();
        watched.dedup();
    }
    let running = endpoint::start_reporting(
        spec,
        Role::Client,
        sockets,
        &options.client_cpus,
        &watched,
        options.interval_sink.clone(),
    );
    if let Some(started) = hooks.started {
        let _ = started.send(());
    }
    match &hooks.halt {
        Some(halt) => running.wait_for_schedule_or(halt),
        None => running.wait_for_schedule(),
    }
    // Halted before its schedule, a client that only receives tells the
    // server at once, before its receivers drain: the server's sender
    // otherwise keeps to its own schedule (a reverse load's runs 20 s past
    // the trial), which keeps the drain busy for its whole loss wait, adds
    // traffic after the end to the counts, and meets a closed port
    // (ECONNREFUSED) once the receivers are gone.
    // Such a client sent nothing the server needs: its stop report is empty.
    let stopped_early = halted(hooks.halt.as_deref())
        && endpoint::is_stream_kind(spec.kind)
        && !endpoint::is_stream_sender(spec, Role::Client);
    if stopped_early {
        channel.send(&Message::Stop(StopReport::default()))?;
    }
    let outcome = running.finish();
    for flag in &hooks.flows_done {
        flag.store(true, std::sync::atomic::Ordering::Release);
    }
    if !stopped_early {
        channel.send(&Message::Stop(StopReport {
            sent: outcome.sent(spec, Role::Client),
            sent_per_stream: outcome.udp_sent_per_stream(),
        }))?;
    }
    channel.set_timeout(Some(
        options.control_wait() + Duration::from_millis(crate::flow::LOSS_WAIT_MS),
    ));
    let server_report = channel.expect("results", |m| match m {
        Message::Results(report) => Some(report),
        _ => None,
    })?;
    let _ = channel.send(&Message::Bye);
    let mut errors = outcome.errors("client");
    errors.extend(server_report.errors.iter().cloned());
    if let Err(impossible) = super::plausible::check_server_report(&server_report, spec) {
        errors.push(format!("server report refused: {impossible}"));
    }
    if !errors.is_empty() {
        return Err(EngineError::Flow(errors.join("; ")));
    }
    let server_host = server_report.host.clone();
    let mut observations =
        assemble::observations(spec, family, outcome, *server_report, facts, clocks);
    if let Some(note) = budget_note(spec, &observations) {
        observations.notes.push(note);
    }
    observations.placement = Some(match (same_kernel, options.server_in_process) {
        (true, true) => EndsPlacement::SameProcess,
        (true, false) => EndsPlacement::SameKernel,
        (false, _) => EndsPlacement::SeparateKernels,
    });
    observations.control_min_rtt_ns = read_tcp_info(channel.stream().as_raw_fd())
        .ok()
        .and_then(|info| info.min_rtt_us)
        .filter(|&us| us > 0)
        .map(|us| u64::from(us) * 1_000);
    if let Some(note) = declared_clock_note(
        spec.kind,
        same_kernel,
        options.clocks_synchronised,
        observations.control_min_rtt_ns,
    ) {
        observations.notes.push(note);
    }
    if let (TestKind::UdpProbe, Some(rtt)) = (spec.kind, observations.control_min_rtt_ns) {
        observations.notes.push(format!(
            "control connection minimum RTT {:.1} µs (TCP_INFO): between synchronised but separate \
             clocks, one-way delay would carry an error of up to ±{:.1} µs (half the RTT)",
            rtt as f64 / 1e3,
            rtt as f64 / 2e3
        ));
    }
    Ok(TrialReport {
        observations,
        server_seen_family: ready.seen_family,
        local_address: local.map(|a| a.to_string()),
        remote_address: remote.map(|a| a.to_string()),
        server_host,
    })
}

/// True when a session's halt hook is raised (a competing load told to
/// end with its measured trial).
fn halted(halt: Option<&std::sync::atomic::AtomicBool>) -> bool {
    halt.is_some_and(|halt| halt.load(std::sync::atomic::Ordering::Acquire))
}

type Opened = (DataSockets, Option<SocketAddr>, Option<SocketAddr>);

/// Opens the client's data sockets to the server's data ports.
/// Data ports a server announces for `spec`: one TCP listener, or one UDP
/// socket per stream.
pub fn expected_data_ports(spec: &TestSpec) -> usize {
    if spec.kind.is_udp() {
        crate::limits::stream_count(spec) as usize
    } else {
        1
    }
}

/// Refuses a `ready` whose port list is not what the test needs: a hostile
/// server announcing 60,000 ports would otherwise get a socket per port.
fn check_announced_ports(spec: &TestSpec, ports: &[u16]) -> Result<()> {
    let expected = expected_data_ports(spec);
    if ports.len() != expected {
        return Err(EngineError::Protocol(format!(
            "the server announced {} data port(s); this test uses {expected}",
            ports.len()
        )));
    }
    if ports.contains(&0) {
        return Err(EngineError::Protocol(
            "the server announced data port 0".into(),
        ));
    }
    Ok(())
}

fn open_data(
    ip: IpAddr,
    spec: &TestSpec,
    ports: &[u16],
    token: u64,
    marking: &Marking,
    source: Option<IpAddr>,
    facts: &mut SocketFacts,
) -> Result<Opened> {
    let family = IpFamily::of(&ip);
    let first_port = *ports
        .first()
        .ok_or_else(|| EngineError::Protocol("ready carries no data port".into()))?;
    let target = SocketAddr::new(ip, first_port);
    match spec.kind {
        TestKind::TcpConnect => Ok((
            DataSockets::ConnectTo(target, *marking, source),
            None,
            Some(target),
        )),
        TestKind::TcpStream | TestKind::TcpRr => {
            let count = if spec.kind == TestKind::TcpStream {
                spec.parallel_streams
            } else {
                1
            };
            let mut streams = Vec::new();
            for _ in 0..count {
                let stream = connect_marked(target, marking, &spec.tuning, source)?;
                if let Some(name) = &spec.congestion_control {
                    crate::congestion::set_congestion_control(stream.as_raw_fd(), name)
                        .map_err(EngineError::InvalidTest)?;
                }
                streams.push(stream);
            }
            let first = &streams[0];
            let (send, receive) =
                set_buffer_sizes(first.as_raw_fd(), None, None).unwrap_or_default();
            (facts.send_buffer_bytes, facts.receive_buffer_bytes) = (Some(send), Some(receive));
            facts.path_mtu_bytes = path_mtu(first.as_raw_fd(), family);
            record_marking(first.as_raw_fd(), family, marking, facts);
            let (local, remote) = (first.local_addr().ok(), first.peer_addr().ok());
            Ok((DataSockets::Tcp(streams), local, remote))
        }
        TestKind::UdpStream | TestKind::UdpRr | TestKind::UdpProbe | TestKind::Media => {
            let unspecified = match family {
                IpFamily::V4 => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
                IpFamily::V6 => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
            };
            let mut sockets = Vec::new();
            for (index, &port) in ports.iter().enumerate() {
                let local = source.unwrap_or(unspecified);
                let socket = UdpSocket::bind(SocketAddr::new(local, 0))
                    .context(|| format!("binding a UDP data socket to {local}"))?;
                let (send, receive) = crate::tuning::udp_buffers(
                    &spec.tuning,
                    (UDP_BUFFER_BYTES, udp_receive_buffer_bytes(spec.size_bytes)),
                );
                let (send, receive) =
                    set_buffer_sizes(socket.as_raw_fd(), Some(send), Some(receive))
                        .context(|| "setting UDP socket buffers".into())?;
                (facts.send_buffer_bytes, facts.receive_buffer_bytes) = (Some(send), Some(receive));
                let peer = SocketAddr::new(ip, port);
                apply_marking(socket.as_raw_fd(), family, marking, Some(ip))
                    .context(|| format!("marking a UDP data socket ({})", describe(marking)))?;
                socket
                    .connect(with_flow_label(peer, label_for(family, marking)))
                    .context(|| format!("connecting a UDP data socket to {peer}"))?;
                // Copies 10 ms apart: a hello lost on a lossy path must not
                // fail the trial, and back-to-back copies meet a full
                // tail-drop queue together (a competing load).
                for copy in 0..HELLO_COPIES {
                    if copy > 0 {
                        std::thread::sleep(HELLO_SPACING);
                    }
                    socket
                        .send(&hello(token, index as u32))
                        .context(|| format!("sending a UDP hello to {peer}"))?;
                }
                sockets.push(socket);
            }
            let first = &sockets[0];
            facts.path_mtu_bytes = path_mtu(first.as_raw_fd(), family);
            record_marking(first.as_raw_fd(), family, marking, facts);
            let (local, remote) = (first.local_addr().ok(), first.peer_addr().ok());
            Ok((DataSockets::Udp(sockets), local, remote))
        }
    }
}

/// The flow label to connect with: the marking's, for IPv6 only.
pub(crate) fn label_for(family: IpFamily, marking: &Marking) -> Option<u32> {
    match family {
        IpFamily::V6 => marking.flow_label.map(|label| label.value()),
        IpFamily::V4 => None,
    }
}

/// "DSCP ef, flow label 12345", for error messages.
pub(crate) fn describe(marking: &Marking) -> String {
    let mut parts = Vec::new();
    if let Some(dscp) = marking.dscp {
        parts.push(format!("DSCP {dscp}"));
    }
    if let Some(label) = marking.flow_label {
        parts.push(format!("flow label {}", label.value()));
    }
    parts.join(", ")
}

/// Copies of the UDP hello a client sends per data socket.
const HELLO_COPIES: u32 = 5;
/// Time between two copies of the hello.
const HELLO_SPACING: std::time::Duration = std::time::Duration::from_millis(10);

/// A TCP connection to `target`, its socket marked and tuned (`-w`, `-M`,
/// `-N`) and bound to `source` (`-B`) before `connect`, so the SYN already
/// carries the DSCP, flow label, window scale and MSS.
pub(crate) fn connect_marked(
    target: SocketAddr,
    marking: &Marking,
    tuning: &dualperf_model::SocketTuning,
    source: Option<IpAddr>,
) -> Result<TcpStream> {
    let family = IpFamily::of(&target.ip());
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(target),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )
    .context(|| format!("creating a data connection to {target}"))?;
    apply_marking(socket.as_raw_fd(), family, marking, Some(target.ip()))
        .context(|| format!("marking a data connection ({})", describe(marking)))?;
    crate::tuning::tune_tcp(socket.as_raw_fd(), tuning)
        .context(|| "setting the data connection's socket options (-w, -M, -N)".into())?;
    crate::tuning::bind_source(&socket, source).context(|| "binding a data connection".into())?;
    let address = with_flow_label(target, label_for(family, marking));
    socket
        .connect_timeout(&address.into(), Duration::from_secs(5))
        .context(|| format!("opening a data connection to {target}"))?;
    Ok(socket.into())
}

/// Records what a marked data socket reads back.
pub(crate) fn record_marking(
    fd: std::os::fd::RawFd,
    family: IpFamily,
    marking: &Marking,
    facts: &mut SocketFacts,
) {
    if marking.is_empty() {
        return;
    }
    let (dscp, label) = read_marking(fd, family);
    facts.dscp = dscp.and_then(|d| Dscp::new(d).ok());
    facts.flow_label = label.and_then(|l| FlowLabel::new(l).ok());
}

/// The note of a budgeted trial that its time cap ended before the budget
/// was sent: what was sent, of how much. `None` for timed trials and for
/// budgets sent in full.
fn budget_note(spec: &TestSpec, observations: &Observations) -> Option<String> {
    let budget = spec.send_budget?;
    let size = u64::from(spec.size_bytes.max(1));
    let (sent, unit) = match spec.kind {
        TestKind::UdpStream => (observations.sender.packets, "datagrams"),
        _ => (observations.sender.bytes / size, "writes"),
    };
    let wanted = budget.blocks(spec.size_bytes);
    (sent < wanted).then(|| {
        format!(
            "the time cap ({:.1} s) ended the trial before its send budget ({budget}): \
             {sent} of {wanted} {unit} of {} B sent",
            spec.duration_ms as f64 / 1e3,
            spec.size_bytes
        )
    })
}

/// The note a trial carries when one-way delay rests on the user's word that
/// two hosts' clocks are synchronised: the delay is only as good as the
/// synchronisation, and half the control connection's minimum RTT bounds how
/// far a one-way delay can be off if it claims less than the path allows.
/// `None` when both ends share a kernel (exact) or nothing was declared.
fn declared_clock_note(
    kind: dualperf_model::TestKind,
    same_kernel: bool,
    declared: bool,
    control_min_rtt_ns: Option<u64>,
) -> Option<String> {
    let one_way = kind.is_one_way_udp();
    if same_kernel || !declared || !one_way {
        return None;
    }
    Some(match control_min_rtt_ns {
        Some(rtt) => format!(
            "clocks declared synchronised (--clocks-synchronised): one-way delay assumes it; \
             error bound ±{:.1} µs (half the control connection's minimum RTT of {:.1} µs) \
             plus the synchronisation error",
            rtt as f64 / 2000.0,
            rtt as f64 / 1000.0
        ),
        None => "clocks declared synchronised (--clocks-synchronised): one-way delay assumes it; \
                 no minimum RTT was measured, so no error bound is known"
            .to_string(),
    })
}

#[cfg(test)]
mod clock_note_tests {
    use super::declared_clock_note;
    use dualperf_model::TestKind;

    #[test]
    fn a_declared_synchronisation_between_hosts_carries_half_the_min_rtt_as_bound() {
        let note = declared_clock_note(TestKind::UdpProbe, false, true, Some(300_000)).unwrap();
        assert!(note.contains("±150.0 µs"), "{note}");
    }

    #[test]
    fn one_kernel_or_no_declaration_needs_no_note() {
        assert_eq!(
            declared_clock_note(TestKind::UdpProbe, true, true, Some(1)),
            None
        );
        assert_eq!(
            declared_clock_note(TestKind::UdpProbe, false, false, Some(1)),
            None
        );
        assert_eq!(
            declared_clock_note(TestKind::TcpRr, false, true, Some(1)),
            None
        );
    }
}
