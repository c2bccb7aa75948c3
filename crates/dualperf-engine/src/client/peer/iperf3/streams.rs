//! iperf3's data streams, client side: opening them the way an iperf3
//! server expects (`iperf_tcp.c`, `iperf_udp.c`) and one thread per stream
//! that sends or receives until told to stop, counting as it goes.
//!
//! - **TCP**: a connection to the server's port, whose first 37 bytes are
//!   the session cookie; then payload.
//! - **UDP**: a socket `connect()`ed to the server's port sends a 4-byte
//!   hello (`UDP_CONNECT_MSG`, the bytes `9876`) and waits for the reply
//!   `6789` (`UDP_CONNECT_REPLY`; servers before 3.11 answer 987654321 in
//!   host byte order). Every datagram then starts with iperf3's header:
//!   send time as big-endian u32 seconds and u32 microseconds, and a
//!   big-endian u32 sequence number counted from 1. The receiver computes
//!   loss from sequence gaps and RFC 3550 jitter from the send times.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dualperf_model::{IpFamily, Marking};
use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{EngineError, IoContext, Result};
use crate::pacer::{default_burst, Pacer};
use crate::sequence_tracker::SequenceTracker;

/// The UDP hello a client sends, as bytes on the wire.
pub const UDP_CONNECT_MSG: [u8; 4] = *b"9876";
/// The server's answer to the hello.
pub const UDP_CONNECT_REPLY: [u8; 4] = *b"6789";
/// The answer of servers before iperf3 3.11 (987654321 in little-endian).
pub const LEGACY_UDP_CONNECT_REPLY: [u8; 4] = 987_654_321u32.to_le_bytes();
/// Length of iperf3's UDP header with 32-bit sequence numbers, bytes.
pub const UDP_HEADER_BYTES: usize = 12;

/// How long a data socket operation may block before the thread looks at
/// its stop flag again.
const POLL: Duration = Duration::from_millis(50);

/// UDP receive buffer asked for, bytes: thousands of datagrams, so the
/// tool does not invent loss.
const UDP_RECEIVE_BUFFER_BYTES: u32 = 8 * 1024 * 1024;

/// Counters one stream thread updates and the controlling thread samples.
#[derive(Debug, Default)]
pub struct StreamCounters {
    /// Payload bytes sent or received.
    pub bytes: AtomicU64,
    /// Datagrams (UDP) or write/read calls (TCP).
    pub packets: AtomicU64,
}

/// Flags shared by the controlling thread and the stream threads.
#[derive(Debug, Default)]
pub struct StreamControl {
    /// Senders stop sending; receivers stop reading (the test is over).
    pub stop: AtomicBool,
    /// UDP receivers record arrivals into their tracker (measured interval).
    pub measuring: AtomicBool,
}

/// One open data stream.
#[derive(Debug)]
pub enum DataSocket {
    /// A TCP connection.
    Tcp(TcpStream),
    /// A connected UDP socket.
    Udp(UdpSocket),
}

impl DataSocket {
    /// Local and remote addresses, `ip:port`.
    pub fn addresses(&self) -> (Option<String>, Option<String>) {
        let (local, remote) = match self {
            DataSocket::Tcp(s) => (s.local_addr(), s.peer_addr()),
            DataSocket::Udp(s) => (s.local_addr(), s.peer_addr()),
        };
        (
            local.ok().map(|a| a.to_string()),
            remote.ok().map(|a| a.to_string()),
        )
    }

    /// The raw descriptor (for `TCP_INFO` and the marking read back).
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        match self {
            DataSocket::Tcp(s) => s.as_raw_fd(),
            DataSocket::Udp(s) => s.as_raw_fd(),
        }
    }
}

/// A socket of `family` and `kind`, marked as the arm says.
fn marked_socket(
    server: SocketAddr,
    family: IpFamily,
    kind: Type,
    protocol: Protocol,
    marking: &Marking,
) -> Result<Socket> {
    let domain = match family {
        IpFamily::V4 => Domain::IPV4,
        IpFamily::V6 => Domain::IPV6,
    };
    let socket = Socket::new(domain, kind, Some(protocol))
        .context(|| format!("creating an {} data socket", family.label()))?;
    crate::socket_options::apply_marking(socket.as_raw_fd(), family, marking, Some(server.ip()))
        .context(|| "marking the data socket as the arm asks".into())?;
    Ok(socket)
}

/// Opens one TCP stream: connect, then the session cookie.
///
/// # Errors
/// Connection or write failures, an unknown congestion control.
pub fn open_tcp(
    server: SocketAddr,
    family: IpFamily,
    marking: &Marking,
    congestion: Option<&str>,
    cookie: &[u8],
    timeout: Duration,
) -> Result<DataSocket> {
    let socket = marked_socket(server, family, Type::STREAM, Protocol::TCP, marking)?;
    if let Some(name) = congestion {
        crate::congestion::set_congestion_control(socket.as_raw_fd(), name)
            .map_err(EngineError::InvalidTest)?;
    }
    let target = crate::socket_options::with_flow_label(
        server,
        marking.flow_label.map(|label| label.value()),
    );
    socket
        .connect_timeout(&target.into(), timeout)
        .context(|| format!("opening a TCP data stream to {server}"))?;
    let mut stream: TcpStream = socket.into();
    stream
        .write_all(cookie)
        .context(|| format!("sending the cookie on a data stream to {server}"))?;
    Ok(DataSocket::Tcp(stream))
}

/// Opens one UDP stream: connect, hello, and wait for the server's answer.
/// In reverse mode data may overtake the answer; up to a few datagrams
/// are skipped while waiting (as iperf3 does).
///
/// # Errors
/// Socket failures, no answer within `timeout`, or a wrong answer.
pub fn open_udp(
    server: SocketAddr,
    family: IpFamily,
    marking: &Marking,
    timeout: Duration,
) -> Result<DataSocket> {
    let socket = marked_socket(server, family, Type::DGRAM, Protocol::UDP, marking)?;
    // The receive buffer matters in reverse mode; failing to grow it is not
    // fatal (the figure in force is what it is).
    let _ = crate::socket_options::set_buffer_sizes(
        socket.as_raw_fd(),
        Some(UDP_RECEIVE_BUFFER_BYTES),
        Some(UDP_RECEIVE_BUFFER_BYTES),
    );
    let target = crate::socket_options::with_flow_label(
        server,
        marking.flow_label.map(|label| label.value()),
    );
    socket
        .connect(&target.into())
        .context(|| format!("connecting a UDP data socket to {server}"))?;
    let udp: UdpSocket = socket.into();
    udp.send(&UDP_CONNECT_MSG)
        .context(|| format!("sending the UDP hello to {server}"))?;
    udp.set_read_timeout(Some(timeout))
        .context(|| "setting the UDP hello timeout".into())?;
    let mut buffer = vec![0u8; 65_536];
    for _ in 0..8 {
        let length = udp.recv(&mut buffer).context(|| {
            format!("waiting for the iperf3 server's answer to the UDP hello from {server}")
        })?;
        if length == 4
            && (buffer[..4] == UDP_CONNECT_REPLY || buffer[..4] == LEGACY_UDP_CONNECT_REPLY)
        {
            return Ok(DataSocket::Udp(udp));
        }
    }
    Err(EngineError::Protocol(format!(
        "the iperf3 server at {server} did not answer the UDP hello with 6789"
    )))
}

/// Writes iperf3's UDP header: send time and sequence number.
pub fn write_udp_header(datagram: &mut [u8], sent_ns: i64, sequence: u32) {
    let seconds = (sent_ns.div_euclid(1_000_000_000)) as u32;
    let micros = (sent_ns.rem_euclid(1_000_000_000) / 1000) as u32;
    datagram[0..4].copy_from_slice(&seconds.to_be_bytes());
    datagram[4..8].copy_from_slice(&micros.to_be_bytes());
    datagram[8..12].copy_from_slice(&sequence.to_be_bytes());
}

/// Reads iperf3's UDP header: (send time in ns, sequence number); `None`
/// for a datagram shorter than the header.
pub fn read_udp_header(datagram: &[u8]) -> Option<(i64, u32)> {
    let field = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(
            datagram.get(at..at + 4)?.try_into().ok()?,
        ))
    };
    let seconds = i64::from(field(0)?);
    let micros = i64::from(field(4)?);
    Some((seconds * 1_000_000_000 + micros * 1000, field(8)?))
}

/// What a receiving UDP stream thread hands back.
#[derive(Debug)]
pub struct UdpReceived {
    /// The arrivals of the measured interval, sequence numbers counted from
    /// the first one seen in it.
    pub tracker: SequenceTracker,
    /// The highest sequence number (iperf3's, from 1) seen in the measured
    /// interval, and the first; `None` when nothing arrived in it.
    pub window: Option<(u32, u32)>,
}

/// Runs one stream until `control.stop`: sends when `send`, else receives.
/// Returns what a UDP receiver recorded (`None` for the other roles).
///
/// # Errors
/// A data socket that fails (the peer closed it early, a send error).
pub fn run_stream(
    socket: DataSocket,
    send: bool,
    size: usize,
    rate_bps: u64,
    counters: Arc<StreamCounters>,
    control: Arc<StreamControl>,
) -> Result<Option<UdpReceived>> {
    match (socket, send) {
        (DataSocket::Tcp(stream), true) => {
            tcp_send(stream, size, &counters, &control).map(|_| None)
        }
        (DataSocket::Tcp(stream), false) => {
            tcp_receive(stream, size, &counters, &control).map(|_| None)
        }
        (DataSocket::Udp(socket), true) => {
            udp_send(socket, size, rate_bps, &counters, &control).map(|_| None)
        }
        (DataSocket::Udp(socket), false) => {
            udp_receive(socket, size, &counters, &control).map(Some)
        }
    }
}

fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
    )
}

fn tcp_send(
    mut stream: TcpStream,
    size: usize,
    counters: &StreamCounters,
    control: &StreamControl,
) -> Result<()> {
    stream
        .set_write_timeout(Some(POLL))
        .context(|| "setting the TCP data stream's write timeout".into())?;
    let block = vec![0x5au8; size];
    let mut offset = 0;
    while !control.stop.load(Ordering::Relaxed) {
        match stream.write(&block[offset..]) {
            Ok(written) => {
                counters.bytes.fetch_add(written as u64, Ordering::Relaxed);
                counters.packets.fetch_add(1, Ordering::Relaxed);
                offset = (offset + written) % size;
            }
            Err(error) if is_timeout(&error) => {}
            Err(error) => {
                if control.stop.load(Ordering::Relaxed) {
                    break;
                }
                return Err(EngineError::Flow(format!(
                    "sending on a TCP stream to the iperf3 server: {error}"
                )));
            }
        }
    }
    Ok(())
}

fn tcp_receive(
    mut stream: TcpStream,
    size: usize,
    counters: &StreamCounters,
    control: &StreamControl,
) -> Result<()> {
    stream
        .set_read_timeout(Some(POLL))
        .context(|| "setting the TCP data stream's read timeout".into())?;
    let mut buffer = vec![0u8; size.max(65_536)];
    while !control.stop.load(Ordering::Relaxed) {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => {
                counters.bytes.fetch_add(read as u64, Ordering::Relaxed);
                counters.packets.fetch_add(1, Ordering::Relaxed);
            }
            Err(error) if is_timeout(&error) => {}
            Err(error) => {
                if control.stop.load(Ordering::Relaxed) {
                    break;
                }
                return Err(EngineError::Flow(format!(
                    "receiving on a TCP stream from the iperf3 server: {error}"
                )));
            }
        }
    }
    Ok(())
}

fn udp_send(
    socket: UdpSocket,
    size: usize,
    rate_bps: u64,
    counters: &StreamCounters,
    control: &StreamControl,
) -> Result<()> {
    socket
        .set_write_timeout(Some(POLL))
        .context(|| "setting the UDP data socket's write timeout".into())?;
    let started = Instant::now();
    let now_ns = || u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let mut pacer = (rate_bps > 0).then(|| {
        let interval_ns = size as f64 * 8.0 * 1e9 / rate_bps as f64;
        Pacer::new(rate_bps, size, default_burst(interval_ns), now_ns())
    });
    let mut datagram = vec![0x5au8; size.max(UDP_HEADER_BYTES)];
    let mut sequence: u32 = 0;
    while !control.stop.load(Ordering::Relaxed) {
        let granted = match pacer.as_mut() {
            None => 1,
            Some(pacer) => match pacer.grant(now_ns(), 64) {
                Ok(granted) => granted,
                Err(wait) => {
                    std::thread::sleep(wait.min(POLL));
                    continue;
                }
            },
        };
        for sent in 0..granted {
            sequence = sequence.wrapping_add(1);
            write_udp_header(&mut datagram, crate::clock::realtime_ns(), sequence);
            match socket.send(&datagram) {
                Ok(length) => {
                    counters.bytes.fetch_add(length as u64, Ordering::Relaxed);
                    counters.packets.fetch_add(1, Ordering::Relaxed);
                }
                Err(error) if is_timeout(&error) || error.raw_os_error() == Some(libc::ENOBUFS) => {
                    // Not sent: the number is used again.
                    sequence = sequence.wrapping_sub(1);
                    if let Some(pacer) = pacer.as_mut() {
                        pacer.refund(granted - sent);
                    }
                    break;
                }
                // The server's port may briefly be unreachable (ICMP) at
                // the very end of a test; stop quietly once told to.
                Err(_) if control.stop.load(Ordering::Relaxed) => return Ok(()),
                Err(error) => {
                    return Err(EngineError::Flow(format!(
                        "sending UDP to the iperf3 server: {error}"
                    )))
                }
            }
        }
    }
    Ok(())
}

fn udp_receive(
    socket: UdpSocket,
    size: usize,
    counters: &StreamCounters,
    control: &StreamControl,
) -> Result<UdpReceived> {
    socket
        .set_read_timeout(Some(POLL))
        .context(|| "setting the UDP data socket's read timeout".into())?;
    let mut buffer = vec![0u8; size.max(65_536)];
    let mut tracker = SequenceTracker::new(0);
    let mut window: Option<(u32, u32)> = None;
    while !control.stop.load(Ordering::Relaxed) {
        let length = match socket.recv(&mut buffer) {
            Ok(length) => length,
            Err(error) if is_timeout(&error) => continue,
            // ICMP errors of the test's last moments.
            Err(_) => continue,
        };
        let received_ns = crate::clock::realtime_ns();
        let Some((sent_ns, sequence)) = read_udp_header(&buffer[..length]) else {
            continue;
        };
        if !control.measuring.load(Ordering::Relaxed) {
            if window.is_none() {
                continue; // warm-up
            }
            // After the measured interval only late copies of its own
            // datagrams count (they were sent inside it).
            if window.is_some_and(|(_, highest)| sequence > highest) {
                continue;
            }
        }
        let (first, highest) = *window.get_or_insert((sequence, sequence));
        if sequence < first {
            continue; // sent before the measured interval began
        }
        window = Some((first, highest.max(sequence)));
        counters.bytes.fetch_add(length as u64, Ordering::Relaxed);
        counters.packets.fetch_add(1, Ordering::Relaxed);
        tracker.observe(u64::from(sequence - first), sent_ns, received_ns);
    }
    Ok(UdpReceived { tracker, window })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_udp_header_is_iperf3_s_sec_usec_and_sequence() {
        let mut datagram = [0u8; 16];
        write_udp_header(&mut datagram, 1_700_000_000_123_456_789, 7);
        assert_eq!(&datagram[0..4], &1_700_000_000u32.to_be_bytes());
        assert_eq!(&datagram[4..8], &123_456u32.to_be_bytes());
        assert_eq!(&datagram[8..12], &[0, 0, 0, 7]);
        assert_eq!(
            read_udp_header(&datagram),
            Some((1_700_000_000_123_456_000, 7))
        );
        assert_eq!(read_udp_header(&datagram[..11]), None);
    }

    #[test]
    fn hello_and_answers_are_the_bytes_iperf3_puts_on_the_wire() {
        // iperf3 writes its u32 constants in host order; on little-endian
        // hosts 0x36373839 is the bytes 39 38 37 36.
        assert_eq!(UDP_CONNECT_MSG, 0x3637_3839u32.to_le_bytes());
        assert_eq!(UDP_CONNECT_REPLY, 0x3938_3736u32.to_le_bytes());
        assert_eq!(LEGACY_UDP_CONNECT_REPLY, [0xb1, 0x68, 0xde, 0x3a]);
    }
}
