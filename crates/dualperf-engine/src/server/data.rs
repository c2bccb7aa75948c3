//! The server's data sockets for one test: bound on the address the client
//! reached (so the data path uses the same family and route as the control
//! channel), and then tied to the control peer — TCP connections from any
//! other address are dropped, UDP sockets are `connect()`ed to the source of
//! a hello datagram that comes from the control peer's address and carries
//! the session token. Data therefore only ever goes to that peer.

use std::net::{IpAddr, SocketAddr, TcpListener, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use dualperf_model::{SocketFacts, TestKind, TestSpec};
use socket2::{Domain, Protocol, Socket, Type};

use crate::datagram::{read_hello, HELLO_BYTES};
use crate::endpoint::DataSockets;
use crate::error::{EngineError, IoContext, Result};
use crate::flow::{udp_receive_buffer_bytes, UDP_BUFFER_BYTES};
use crate::socket_options::set_buffer_sizes;

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
    let address = SocketAddr::new(ip, 0);
    let socket = Socket::new(
        Domain::for_address(address),
        Type::STREAM,
        Some(Protocol::TCP),
    )
    .context(|| format!("creating a TCP data listener on {ip}"))?;
    let _ = socket.set_reuse_address(true);
    socket
        .bind(&address.into())
        .context(|| format!("binding a TCP data listener on {ip}"))?;
    socket
        .listen(backlog)
        .context(|| format!("listening on {address}"))?;
    Ok(socket.into())
}

/// A UDP socket on `ip`, any port, with [`UDP_BUFFER_BYTES`] /
/// [`udp_receive_buffer_bytes`] buffers; returns
/// the socket and the buffer sizes the kernel reports.
pub fn bind_udp(ip: IpAddr, payload_bytes: u32) -> Result<(UdpSocket, (u32, u32))> {
    let socket = UdpSocket::bind(SocketAddr::new(ip, 0))
        .context(|| format!("binding a UDP data socket on {ip}"))?;
    let sizes = set_buffer_sizes(
        socket.as_raw_fd(),
        Some(UDP_BUFFER_BYTES),
        Some(udp_receive_buffer_bytes(payload_bytes)),
    )
    .context(|| "setting UDP socket buffers".to_string())?;
    Ok((socket, sizes))
}

/// Binds what `spec` needs on `local` and fills the server's socket facts.
pub fn bind(spec: &TestSpec, local: IpAddr, facts: &mut SocketFacts) -> Result<(Bound, Vec<u16>)> {
    if spec.kind.is_udp() {
        let streams = if spec.kind == TestKind::UdpStream {
            spec.parallel_streams
        } else {
            1
        };
        let mut sockets = Vec::new();
        let mut ports = Vec::new();
        for _ in 0..streams {
            let (socket, (send, receive)) = bind_udp(local, spec.size_bytes)?;
            (facts.send_buffer_bytes, facts.receive_buffer_bytes) = (Some(send), Some(receive));
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
        let listener = bind_tcp_listener(local, 1024)?;
        let port = listener
            .local_addr()
            .context(|| "reading the TCP data port".into())?
            .port();
        Ok((Bound::Tcp(listener), vec![port]))
    }
}

/// Ties the bound sockets to `peer`: accepts `streams` TCP connections from
/// it, or waits for one hello per UDP socket and connects to its source.
pub fn tie_to_peer(
    bound: Bound,
    spec: &TestSpec,
    peer: IpAddr,
    token: u64,
    facts: &mut SocketFacts,
) -> Result<DataSockets> {
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
                        let (send, receive) =
                            set_buffer_sizes(stream.as_raw_fd(), None, None).unwrap_or_default();
                        (facts.send_buffer_bytes, facts.receive_buffer_bytes) =
                            (Some(send), Some(receive));
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
            for (index, socket) in sockets.iter().enumerate() {
                wait_for_hello(socket, peer, token, index as u32, deadline)?;
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
                    return socket
                        .connect(from)
                        .context(|| format!("connecting the UDP data socket to {from}"));
                }
            }
            Ok(_) => {} // not our peer's hello: ignored
            Err(e) if crate::flow::is_timeout(&e) => {}
            Err(e) => return Err(EngineError::socket("waiting for a UDP hello", e)),
        }
    }
}
