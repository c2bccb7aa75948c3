//! The server's data sockets for one test: bound on the address the client
//! reached (so the data path uses the same family and route as the control
//! channel), and then tied to the control peer — TCP connections from any
//! other address are dropped, UDP sockets are `connect()`ed to the source of
//! a hello datagram that comes from the control peer's address and carries
//! the session token. Data therefore only ever goes to that peer.

use std::net::{IpAddr, SocketAddr, TcpListener, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use dualperf_model::{IpFamily, Marking, SocketFacts, TestKind, TestSpec};
use socket2::{Domain, Protocol, Socket, Type};

use crate::client::trial::{describe, label_for, record_marking};
use crate::datagram::{read_hello, HELLO_BYTES};
use crate::endpoint::DataSockets;
use crate::error::{EngineError, IoContext, Result};
use crate::flow::{udp_receive_buffer_bytes, UDP_BUFFER_BYTES};
use crate::socket_options::{apply_marking, lease_flow_label, set_buffer_sizes, with_flow_label};

use super::listener_label::label_listener;

/// How long the server waits for the client's data connections or hellos.
pub const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// Data sockets bound but not yet tied to the peer.
#[derive(Debug)]
pub enum Bound {
    /// One listener (tcp kinds).
    Tcp(TcpListener),
    /// One socket per stream (udp kinds).
    Udp(Vec<UdpSocket>),
}

/// A TCP listener on `ip`, any port, with a deep backlog (tcp-connect opens
/// connections faster than a thread accepts them).
pub fn bind_tcp_listener(ip: IpAddr, backlog: i32) -> Result<TcpListener> {
    let socket = bound_tcp_socket(ip)?;
    listen(socket, backlog)
}

/// A TCP socket bound on `ip`, any port, not yet listening.
fn bound_tcp_socket(ip: IpAddr) -> Result<Socket> {
    let address = SocketAddr::new(ip, 0);
    let socket = Socket::new(
        Domain::for_address(address),
        Type::STREAM,
        Some(Protocol::TCP),
    )
    .context(|| format!("creating a TCP data listener on {ip}"))?;
    let _ = socket.set_reuse_address(true);
    if ip.is_ipv6() {
        // Bound to one IPv6 address anyway; needed before bind for the
        // listener's inherited flow label (`listener_label`).
        socket
            .set_only_v6(true)
            .context(|| "setting IPV6_V6ONLY on the TCP data listener".to_string())?;
    }
    socket
        .bind(&address.into())
        .context(|| format!("binding a TCP data listener on {ip}"))?;
    Ok(socket)
}

fn listen(socket: Socket, backlog: i32) -> Result<TcpListener> {
    socket
        .listen(backlog)
        .context(|| "listening for data connections".to_string())?;
    Ok(socket.into())
}

/// A UDP socket on `ip`, any port, with [`UDP_BUFFER_BYTES`] /
/// [`udp_receive_buffer_bytes`] buffers (or `tuning`'s, `-w`); returns
/// the socket and the buffer sizes the kernel reports.
pub fn bind_udp(
    ip: IpAddr,
    payload_bytes: u32,
    tuning: &dualperf_model::SocketTuning,
) -> Result<(UdpSocket, (u32, u32))> {
    let socket = UdpSocket::bind(SocketAddr::new(ip, 0))
        .context(|| format!("binding a UDP data socket on {ip}"))?;
    let (send, receive) = crate::tuning::udp_buffers(
        tuning,
        (UDP_BUFFER_BYTES, udp_receive_buffer_bytes(payload_bytes)),
    );
    let sizes = set_buffer_sizes(socket.as_raw_fd(), Some(send), Some(receive))
        .context(|| "setting UDP socket buffers".to_string())?;
    Ok((socket, sizes))
}

/// Binds what `spec` needs on `local`, marked as the client asked, and
/// fills the server's socket facts; `notes` hears what could not be marked.
///
/// Marking: UDP sockets get the DSCP and lease the flow label (they connect
/// to the client with it once its hello arrives); a TCP listener gets the
/// DSCP, which its SYN-ACKs and accepted connections inherit, and the flow
/// label its accepted connections send, reflected or inherited
/// ([`super::listener_label`]). `peer` is the client's control address.
pub fn bind(
    spec: &TestSpec,
    local: IpAddr,
    peer: IpAddr,
    marking: &Marking,
    facts: &mut SocketFacts,
    notes: &mut Vec<String>,
) -> Result<(Bound, Vec<u16>)> {
    let family = IpFamily::of(&local);
    if spec.kind.is_udp() {
        let streams = if spec.kind == TestKind::UdpStream {
            spec.parallel_streams
        } else {
            1
        };
        let mut sockets = Vec::new();
        let mut ports = Vec::new();
        for _ in 0..streams {
            let (socket, (send, receive)) = bind_udp(local, spec.size_bytes, &spec.tuning)?;
            (facts.send_buffer_bytes, facts.receive_buffer_bytes) = (Some(send), Some(receive));
            // The DSCP now; the flow label is leased for the peer once its
            // hello arrives (Linux refuses a lease for the unspecified address).
            let dscp_only = Marking {
                dscp: marking.dscp,
                flow_label: None,
            };
            apply_marking(socket.as_raw_fd(), family, &dscp_only, None)
                .context(|| format!("marking a UDP data socket ({})", describe(marking)))?;
            ports.push(
                socket
                    .local_addr()
                    .context(|| "reading a UDP data port".into())?
                    .port(),
            );
            sockets.push(socket);
        }
        Ok((Bound::Udp(sockets), ports))
    } else {
        let socket = bound_tcp_socket(local)?;
        // Accepted connections inherit buffers and MSS from the listener
        // (set before listen, so the window scale of the SYN-ACK fits).
        crate::tuning::tune_tcp(socket.as_raw_fd(), &spec.tuning)
            .context(|| "setting the data listener's socket options (-w, -M, -N)".into())?;
        mark_listener(&socket, family, peer, marking, notes)?;
        let listener = listen(socket, 1024)?;
        let port = listener
            .local_addr()
            .context(|| "reading the TCP data port".into())?
            .port();
        Ok((Bound::Tcp(listener), vec![port]))
    }
}

/// Marks a TCP listener before it listens: the DSCP, and the flow label
/// its accepted connections send when the client asked for one.
fn mark_listener(
    socket: &Socket,
    family: IpFamily,
    peer: IpAddr,
    marking: &Marking,
    notes: &mut Vec<String>,
) -> Result<()> {
    let dscp_only = Marking {
        dscp: marking.dscp,
        flow_label: None,
    };
    apply_marking(socket.as_raw_fd(), family, &dscp_only, None)
        .context(|| format!("marking the TCP data listener ({})", describe(marking)))?;
    if let (IpFamily::V6, Some(label)) = (family, marking.flow_label) {
        if let Err(why) = label_listener(socket, peer, label.value()) {
            notes.push(format!(
                "the server's TCP packets carry the kernel's automatic flow label, not {}: \
                 Linux gives an accepted connection a label only from its listener ({why})",
                label.value()
            ));
        }
    }
    Ok(())
}

/// Ties the bound sockets to `peer`: accepts `streams` TCP connections from
/// it, or waits for one hello per UDP socket and connects to its source.
pub fn tie_to_peer(
    bound: Bound,
    spec: &TestSpec,
    peer: IpAddr,
    token: u64,
    marking: &Marking,
    facts: &mut SocketFacts,
) -> Result<DataSockets> {
    let family = IpFamily::of(&peer);
    let deadline = Instant::now() + CONNECT_WAIT;
    match bound {
        Bound::Tcp(listener) if spec.kind == TestKind::TcpConnect => {
            Ok(DataSockets::AcceptOn(listener, peer))
        }
        Bound::Tcp(listener) => {
            let wanted = if spec.kind == TestKind::TcpStream {
                spec.parallel_streams as usize
            } else {
                1
            };
            listener
                .set_nonblocking(true)
                .context(|| "configuring the data listener".into())?;
            let mut streams = Vec::new();
            while streams.len() < wanted {
                match listener.accept() {
                    Ok((stream, from)) if from.ip().to_canonical() == peer => {
                        stream
                            .set_nonblocking(false)
                            .context(|| "configuring a data connection".into())?;
                        crate::tuning::set_no_delay(stream.as_raw_fd(), &spec.tuning)
                            .context(|| "setting TCP_NODELAY on a data connection".into())?;
                        let (send, receive) =
                            set_buffer_sizes(stream.as_raw_fd(), None, None).unwrap_or_default();
                        (facts.send_buffer_bytes, facts.receive_buffer_bytes) =
                            (Some(send), Some(receive));
                        // Leased so that reading the marking back says
                        // what the socket sends (see `listener_label`).
                        if let (Some(label), IpAddr::V6(v6)) = (label_for(family, marking), peer) {
                            let _ = lease_flow_label(stream.as_raw_fd(), v6, label);
                        }
                        if let Some(name) = &spec.congestion_control {
                            crate::congestion::set_congestion_control(stream.as_raw_fd(), name)
                                .map_err(EngineError::InvalidTest)?;
                        }
                        if streams.is_empty() {
                            record_marking(stream.as_raw_fd(), family, marking, facts);
                        }
                        streams.push(stream);
                    }
                    Ok(_) => {} // another address: dropped, never served
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() >= deadline {
                            return Err(EngineError::Protocol(format!(
                                "only {} of {wanted} data connections arrived within {CONNECT_WAIT:?}",
                                streams.len()
                            )));
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    Err(e) => return Err(EngineError::socket("accepting a data connection", e)),
                }
            }
            Ok(DataSockets::Tcp(streams))
        }
        Bound::Udp(sockets) => {
            let label = label_for(family, marking);
            for (index, socket) in sockets.iter().enumerate() {
                wait_for_hello(socket, peer, token, index as u32, label, deadline)?;
            }
            if let Some(first) = sockets.first() {
                record_marking(first.as_raw_fd(), family, marking, facts);
            }
            Ok(DataSockets::Udp(sockets))
        }
    }
}

fn wait_for_hello(
    socket: &UdpSocket,
    peer: IpAddr,
    token: u64,
    stream: u32,
    flow_label: Option<u32>,
    deadline: Instant,
) -> Result<()> {
    let mut buffer = [0u8; 64];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(EngineError::Protocol(format!(
                "no UDP hello for stream {stream} within {CONNECT_WAIT:?}"
            )));
        }
        socket
            .set_read_timeout(Some(left))
            .context(|| "configuring a UDP data socket".into())?;
        match socket.recv_from(&mut buffer) {
            Ok((n, from)) if n == HELLO_BYTES && from.ip().to_canonical() == peer => {
                if read_hello(&buffer[..n]) == Some((token, stream)) {
                    if let (Some(label), std::net::IpAddr::V6(v6)) = (flow_label, from.ip()) {
                        lease_flow_label(socket.as_raw_fd(), v6, label).context(|| {
                            format!("leasing flow label {label} for the UDP data socket")
                        })?;
                    }
                    return socket
                        .connect(with_flow_label(from, flow_label))
                        .context(|| format!("connecting the UDP data socket to {from}"));
                }
            }
            Ok(_) => {} // not our peer's hello: ignored
            Err(e) if crate::flow::is_timeout(&e) => {}
            Err(e) => return Err(EngineError::socket("waiting for a UDP hello", e)),
        }
    }
}
